"""Colours and sizes shared by the screens (a venue's branding overrides the colours)."""

from __future__ import annotations

from kivy.event import EventDispatcher
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty

from app.branding import STANDARD_COLOURS, Branding
from app.prefs import Prefs

#: how long a card takes to be dealt or turned, by animation-speed setting
ANIMATION_SECONDS = {"off": 0.0, "fast": 0.12, "normal": 0.25, "slow": 0.5}

#: Minimum touch target (Android guidelines: 48 dp).
TOUCH = dp(48)


class Theme(EventDispatcher):
    """Observable theme: kv rules bind to ``theme.primary`` etc."""

    primary = ColorProperty(STANDARD_COLOURS["primary"])
    background = ColorProperty(STANDARD_COLOURS["background"])
    accent = ColorProperty(STANDARD_COLOURS["accent"])
    text = ColorProperty(STANDARD_COLOURS["text"])
    muted = ColorProperty((0.75, 0.82, 0.78, 1))
    danger = ColorProperty((0.85, 0.25, 0.22, 1))
    touch = NumericProperty(TOUCH)
    font_scale = NumericProperty(1.0)
    #: the "large cards and text" setting: cards grow by a third, text by 15 %
    card_scale = NumericProperty(1.0)
    #: the four-colour deck setting (every hand on every screen follows it)
    four_colour = BooleanProperty(False)
    #: seconds a deal or flip takes (the animation-speed setting; 0 = at once)
    anim_seconds = NumericProperty(0.0)
    #: padding for the Android system bars (status bar on top, navigation at the bottom)
    inset_top = NumericProperty(0)
    inset_bottom = NumericProperty(0)

    def apply_prefs(self, prefs: Prefs) -> None:
        """Follow the display settings: large cards and text, the four-colour deck."""
        self.font_scale = 1.15 if prefs.large_cards else 1.0
        self.card_scale = 4 / 3 if prefs.large_cards else 1.0
        self.four_colour = bool(prefs.four_colour_deck)
        self.anim_seconds = ANIMATION_SECONDS.get(prefs.animation_speed, 0.0)

    def apply_branding(self, branding: Branding | None) -> None:
        """Use a venue's colours (or the standard ones)."""
        for key in ("primary", "background", "accent", "text"):
            colour = branding.colour(key) if branding else STANDARD_COLOURS[key]
            setattr(self, key, colour)


theme = Theme()
