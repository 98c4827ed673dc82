"""Oczko menu, hosting a table, joining a nearby table and the lobby.

The networked table (app.table, Bluetooth) is another layer; these screens render its
lobby state through :mod:`app.views.lobby_vm` and send intents to it. Where the table
layer or Bluetooth is not available, they say so instead of failing.
"""

from __future__ import annotations

from pathlib import Path

from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty

from app.i18n import N_, _
from app.i18n.codes import message_for
from app.prefs import ROUND_CHOICES, TURN_TIMES
from app.views.base import BaseScreen
from app.views.lobby_vm import present_lobby

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


def table_layer_available() -> bool:
    """True when the networked table (app.table) is part of this build."""
    import importlib.util

    try:
        return importlib.util.find_spec("app.table.host") is not None
    except (ImportError, ValueError):
        return False


class OczkoMenuScreen(BaseScreen):
    title = StringProperty(N_("Oczko"))
    practice_text = StringProperty("")

    def refresh(self) -> None:
        prefs = self.app.prefs
        self.practice_text = _(
            "{rounds} rounds against {bots} bots, {seconds} s per decision"
        ).format(rounds=prefs.oczko_rounds, bots=prefs.bots, seconds=prefs.turn_time)

    def practice(self) -> None:
        table = self.app.screen("oczko_table")
        table.start_practice()
        self.app.go("oczko_table")


class OczkoHostScreen(BaseScreen):
    title = StringProperty(N_("Host a table"))
    up = StringProperty("oczko_menu")
    rounds = NumericProperty(5)
    turn_time = NumericProperty(30)

    def refresh(self) -> None:
        self.rounds = self.app.prefs.oczko_rounds
        self.turn_time = self.app.prefs.turn_time
        for key, choices, grid in (
            ("oczko_rounds", ROUND_CHOICES, self.ids.rounds),
            ("turn_time", TURN_TIMES, self.ids.times),
        ):
            grid.clear_widgets()
            for value in choices:
                label = (
                    str(value) if key == "oczko_rounds" else _("{seconds} s").format(seconds=value)
                )
                b = Factory.ChoiceButton(
                    text=label,
                    group=f"host-{key}",
                    state="down" if getattr(self.app.prefs, key) == value else "normal",
                )
                b.pref = (key, value)
                b.bind(on_release=self._choose)
                grid.add_widget(b)

    def _choose(self, button) -> None:
        key, value = button.pref
        self.app.update_prefs(**{key: value})
        self.refresh()

    def host(self) -> None:
        if not table_layer_available():
            self.app.notify(message_for("bluetooth_unavailable"))
            return
        self.app.go("oczko_lobby", hosting=True)


class OczkoJoinScreen(BaseScreen):
    """Nearby tables: paired phones first (faster, more reliable), then discovery."""

    title = StringProperty(N_("Join a table"))
    up = StringProperty("oczko_menu")
    tables = ListProperty([])  # [(name, address)]
    status = StringProperty("")

    def refresh(self) -> None:
        grid = self.ids.tables
        grid.clear_widgets()
        for name, address in self.tables:
            b = Factory.AppButton(text=name)
            b.address = address
            b.bind(on_release=lambda btn: self.join(btn.address))
            grid.add_widget(b)
        if self.tables:
            self.status = _("Tap a table to sit down.")
        else:
            self.status = _("No table found yet. Ask the host to open a table, then search.")

    def search(self) -> None:
        if not table_layer_available():
            self.status = message_for("bluetooth_unavailable")
            return
        self.status = _("Searching for tables nearby…")

    def join(self, address: str) -> None:
        if not table_layer_available():
            self.app.notify(message_for("bluetooth_unavailable"))
            return
        self.app.go("oczko_lobby", hosting=False)


class OczkoLobbyScreen(BaseScreen):
    """Who sits at the table, who is ready; the host starts when everybody is."""

    title = StringProperty(N_("Lobby"))
    up = StringProperty("oczko_menu")
    hosting = ObjectProperty(False)
    #: the table layer's lobby state: {"players": [(name, ready)], "rounds": n, "turn_time": s}
    lobby = ObjectProperty(None, allownone=True)
    vm = ObjectProperty(None, allownone=True)

    def refresh(self) -> None:
        self.vm = present_lobby(self.lobby, bool(self.hosting))
        grid = self.ids.players
        grid.clear_widgets()
        for line in self.vm.players:
            grid.add_widget(Factory.Body(text=line))

    def start(self) -> None:
        if self.vm and self.vm.can_start:
            self.app.notify(message_for("bluetooth_unavailable"))
