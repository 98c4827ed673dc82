"""Settings: language (switched live), animation speed, cards, accessibility, turn time."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import StringProperty
from kivy.uix.gridlayout import GridLayout

from app.i18n import LANGUAGES, N_, _
from app.prefs import ANIMATION_SPEEDS, TURN_TIMES
from app.views.base import BaseScreen

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

ON_OFF = ((True, N_("On")), (False, N_("Off")))

#: (pref key, label msgid, ((value, label msgid or None for a literal), ...))
SETTINGS: tuple[tuple[str, str, tuple[tuple[Any, str | None], ...]], ...] = (
    (
        "language",
        N_("Language"),
        (("auto", N_("Device")), *tuple((code, None) for code in LANGUAGES)),
    ),
    (
        "animation_speed",
        N_("Animation speed"),
        tuple(
            zip(
                ANIMATION_SPEEDS,
                (N_("Off"), N_("Fast"), N_("Normal"), N_("Slow")),
                strict=True,
            )
        ),
    ),
    ("large_cards", N_("Large cards and text"), ON_OFF),
    ("four_colour_deck", N_("Four-colour deck"), ON_OFF),
    ("left_handed", N_("Left-handed layout"), ON_OFF),
    ("vibrate_on_turn", N_("Vibrate when it is my turn"), ON_OFF),
    ("sound_on_turn", N_("Sound when it is my turn"), ON_OFF),
    ("show_hints", N_("Strategy hints"), ON_OFF),
    ("turn_time", N_("Time per decision (Oczko)"), tuple((t, None) for t in TURN_TIMES)),
    ("bots", N_("Bots in a practice game"), tuple((n, None) for n in range(1, 7))),
)


def choice_label(key: str, value: Any, msgid: str | None) -> str:
    """The text on a choice button (language names stay in their own language)."""
    if msgid is not None:
        return _(msgid)
    if key == "language":
        return LANGUAGES[value]
    if key == "turn_time":
        return _("{seconds} s").format(seconds=value)
    return str(value)


class _Field(Protocol):
    text: str


class _ChoiceButton(Protocol):
    #: (pref key, value) the button sets
    pref: tuple[str, Any]


class SettingsScreen(BaseScreen):
    title = StringProperty(N_("Settings"))

    def refresh(self) -> None:
        page = self.ids.page
        page.clear_widgets()
        prefs = self.app.prefs
        page.add_widget(Factory.Body(text=_("Your name at the table"), bold=True))
        name = Factory.NameInput(text=prefs.player_name, hint_text=_("You"))
        name.bind(focus=self._name_done)
        self.ids["name"] = name
        page.add_widget(name)
        # the language in use: chosen here, or given at start (``blu21 app --lang de``)
        chosen = {"language": getattr(self.app, "language_choice", prefs.language)}
        for key, label, choices in SETTINGS:
            heading = Factory.Body(text=_(label), bold=True)
            page.add_widget(heading)
            # nine language names in their own scripts ("Українська") need wider
            # buttons than four to a row at 320 px, or they shrink below readable
            cols = 3 if key == "language" else min(len(choices), 4)
            row = GridLayout(cols=cols, size_hint_y=None, spacing=4)
            row.bind(minimum_height=row.setter("height"))
            for value, msgid in choices:
                button = Factory.ChoiceButton(
                    text=choice_label(key, value, msgid),
                    group=f"settings-{key}",
                    state="down" if chosen.get(key, getattr(prefs, key)) == value else "normal",
                )
                button.pref = (key, value)
                button.bind(on_release=self._choose)
                row.add_widget(button)
            page.add_widget(row)
        page.add_widget(
            Factory.Caption(text=_("Settings are saved on this phone and used next time."))
        )

    def _name_done(self, field: _Field, focused: bool) -> None:
        name = " ".join(field.text.split())[:24]
        if not focused and name != self.app.prefs.player_name:
            self.app.update_prefs(player_name=name)

    def _choose(self, button: _ChoiceButton) -> None:
        key, value = button.pref
        if key == "language" or getattr(self.app.prefs, key) != value:
            self.app.update_prefs(**{key: value})
            self.refresh()
