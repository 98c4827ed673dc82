"""Colours and sizes shared by the screens (a venue's branding overrides the colours)."""

from __future__ import annotations

from kivy.event import EventDispatcher
from kivy.metrics import dp
from kivy.properties import ColorProperty, NumericProperty

from app.branding import STANDARD_COLOURS, Branding

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
    #: padding for the Android system bars (status bar on top, navigation at the bottom)
    inset_top = NumericProperty(0)
    inset_bottom = NumericProperty(0)

    def apply_branding(self, branding: Branding | None) -> None:
        """Use a venue's colours (or the standard ones)."""
        for key in ("primary", "background", "accent", "text"):
            colour = branding.colour(key) if branding else STANDARD_COLOURS[key]
            setattr(self, key, colour)


theme = Theme()
