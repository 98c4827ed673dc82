"""Oczko menu, hosting a table, joining a nearby table and the lobby.

The networked table (app.table over TCP on the desktop, Bluetooth on Android) runs in
:class:`app.views.oczko.network.NetworkTable` (a worker thread); these screens render its
lobby state through :mod:`app.views.table.lobby_lines`, follow its pushed updates and
send intents to it. Tables are opened, joined and found through the app's
:class:`app.table.service.TableService` (``app.service``): these screens pick no
transport and no dealer. Where the table layer or Bluetooth is not available, they say
so instead of failing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)

from app.i18n import N_, _, get_language
from app.i18n.codes import message_for
from app.prefs import ROUND_CHOICES, TURN_TIMES
from app.views.base import BaseScreen
from app.views.table.lobby_lines import present_lobby, shown_address

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


def table_layer_available() -> bool:
    """True when the networked table (app.table) is part of this build."""
    import importlib.util

    try:
        return importlib.util.find_spec("app.table.oczko.guest") is not None
    except (ImportError, ValueError):
        return False


def can_deal(app: Any) -> bool:
    """Can this phone deal at a table (its secure dealer loads)? Else the player reads
    why, and no table opens (no silent fall-back to dealing without card secrecy)."""
    from app.table.errors import TableError

    try:
        app.service.dealer()
    except TableError as exc:
        app.notify(message_for(exc.code))
        return False
    return True


class OczkoMenuScreen(BaseScreen):
    title = StringProperty(N_("Oczko"))
    practice_text = StringProperty("")

    def refresh(self) -> None:
        prefs = self.app.prefs
        self.practice_text = _(
            "{rounds} rounds against {bots} bots, {seconds} s per decision"
        ).format(rounds=prefs.oczko_rounds, bots=prefs.bots, seconds=prefs.turn_time)

    def practice(self) -> None:
        self.app.with_name(self._practice)

    def _practice(self) -> None:
        table = self.app.screen("oczko_table")
        table.start_practice()
        self.app.go("oczko_table")


#: the games a table is opened or joined for -> their label
GAMES = {"oczko": N_("Oczko"), "casino": N_("Casino blackjack")}
#: the rules a host may open a casino table with: the presets, then his saved rules
SAVED = "saved"


def game_buttons(grid: Any, chosen: str, on_choose: Any) -> None:
    """The game choice (Oczko or casino blackjack) as toggle buttons in ``grid``."""
    grid.clear_widgets()
    for game, label in GAMES.items():
        b = Factory.ChoiceButton(
            text=_(label), group=f"game-{id(grid)}", state="down" if game == chosen else "normal"
        )
        b.game = game
        b.bind(on_release=lambda btn: on_choose(btn.game))
        grid.add_widget(b)


def casino_rules(prefs: Any, choice: str) -> Any:
    """The TableRules of the host's choice: a preset by name, or his saved rules."""
    from app.rules.table_rules import PRESETS
    from app.views.blackjack.game import saved_rules

    if choice in PRESETS:
        return PRESETS[choice]
    return saved_rules(prefs)[0]


class OczkoHostScreen(BaseScreen):
    """Host a table: the game (Oczko or casino blackjack), its options, open it."""

    title = StringProperty(N_("Host a table"))
    up = StringProperty("oczko_menu")
    rounds = NumericProperty(5)
    turn_time = NumericProperty(30)
    #: the game this table is opened for (shared with the join screen: the last choice)
    game = StringProperty("oczko")
    #: a casino table's rules: a preset's name or SAVED
    casino_choice = StringProperty(SAVED)
    rules_text = StringProperty("")
    edge = StringProperty("")
    #: the app's tables run over Bluetooth (a phone), else over TCP (a desktop)
    bluetooth = BooleanProperty(True)
    #: a desktop's table listens on the local network too (else on 127.0.0.1 only)
    lan = BooleanProperty(False)

    def choose_game(self, game: str) -> None:
        self.game = game
        self.refresh()

    def refresh(self) -> None:
        self.bluetooth = self.app.service.bluetooth
        self.rounds = self.app.prefs.oczko_rounds
        self.turn_time = self.app.prefs.turn_time
        game_buttons(self.ids.games, self.game, self.choose_game)
        self._casino_rules()
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

    def _casino_rules(self) -> None:
        """The rules choice of a casino table, its summary and its house edge."""
        from app.views.blackjack.menu import EDGES, PRESET_LABELS, compute_edge, edge_text
        from app.views.blackjack.vm import rules_summary

        grid = self.ids.casino_rules
        grid.clear_widgets()
        if self.game != "casino":
            self.rules_text = self.edge = ""
            return
        for name, label in (*PRESET_LABELS.items(), (SAVED, N_("My saved rules"))):
            b = Factory.ChoiceButton(
                text=_(label),
                group="host-casino-rules",
                state="down" if self.casino_choice == name else "normal",
            )
            b.choice = name
            b.bind(on_release=self._choose_rules)
            grid.add_widget(b)
        rules = casino_rules(self.app.prefs, self.casino_choice)
        self.rules_text = rules_summary(rules)
        self.edge = edge_text(EDGES.get(rules))
        compute_edge(rules, lambda _r: self.refresh())

    def _choose_rules(self, button: Any) -> None:
        self.casino_choice = button.choice
        self.refresh()

    def _choose(self, button: Any) -> None:
        key, value = button.pref
        self.app.update_prefs(**{key: value})
        self.refresh()

    def host(self) -> None:
        self.app.with_name(self._host)

    def _host(self) -> None:
        if not table_layer_available():
            self.app.notify(message_for("bluetooth_unavailable"))
            return
        if not can_deal(self.app):
            return
        from app.views.setup.permissions import ensure_bluetooth

        # On Android: permissions, Bluetooth on, visible to nearby phones (issue 22).
        ensure_bluetooth(self.app, "host", self._open_table)

    def _open_table(self, setup: Any) -> None:
        from app.views.oczko.network import NetworkTable

        prefs = self.app.prefs
        # a desktop's table on the local network when the player allowed it
        from app.table.service import lan_transport

        extra = {"transport": lan_transport()} if self.lan and not self.bluetooth else {}
        if self.game == "casino":
            rules = casino_rules(prefs, self.casino_choice)
            _open_casino(self.app, hosting=True, rules=rules, turn_time=prefs.turn_time, **extra)
            return
        net = NetworkTable(
            hosting=True,
            name=prefs.player_name,
            service=self.app.service,
            lang=get_language(),
            rounds=prefs.oczko_rounds,
            turn_time=prefs.turn_time,
            **extra,
        )
        _open_lobby(self.app, net, hosting=True)


def _open_lobby(app: Any, net: Any, hosting: bool) -> None:
    """Show the lobby of ``net`` (a NetworkTable that is opening)."""
    old = app.controllers.get("oczko_net")
    if old is not None and old is not net:
        old.leave()
    app.controllers["oczko_net"] = net
    app.go("oczko_lobby", hosting=hosting, lobby=None, message="")


def _open_casino(app: Any, hosting: bool, address: str = "", **options: Any) -> None:
    """Open (host) or join the casino table and show its lobby."""
    from app.views.casino.network import CasinoNet
    from app.views.setup.device import table_open

    old = app.controllers.get("casino")
    if old is not None:
        old.leave()
    app.controllers["casino"] = CasinoNet(
        hosting=hosting,
        service=app.service,
        address=address,
        awake=table_open,
        name=app.prefs.player_name,
        lang=get_language(),
        **options,
    )
    app.go("casino_lobby")


class OczkoJoinScreen(BaseScreen):
    """Nearby tables: paired phones first (faster, more reliable), then discovery."""

    title = StringProperty(N_("Join a table"))
    up = StringProperty("oczko_menu")
    tables = ListProperty([])  # [(name, address)]
    status = StringProperty("")
    #: over Bluetooth a guest picks a paired or discovered phone; over TCP (the desktop)
    #: he types the host's address (the app's table service says which)
    bluetooth = BooleanProperty(False)

    def refresh(self) -> None:
        self.bluetooth = self.app.service.bluetooth
        host = self.app.screen("oczko_host")
        game_buttons(self.ids.games, host.game, self.choose_game)
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

    def choose_game(self, game: str) -> None:
        """The game of the table to join (the host screen keeps the last choice)."""
        self.app.screen("oczko_host").game = game
        self.refresh()

    def search(self) -> None:
        """Find tables: the host list on Bluetooth; the typed address over TCP (the
        button and Enter in the address field both land here)."""
        if not table_layer_available():
            self.status = message_for("bluetooth_unavailable")
            return
        if not self.app.service.bluetooth:  # the desktop joins by address (host:port)
            self.join(self.ids.address.text.strip())
            return
        from app.views.setup.permissions import ensure_bluetooth

        # Permissions and Bluetooth first; the search only if allowed (issue 22).
        ensure_bluetooth(self.app, "join", self._search)

    def _search(self, setup: Any) -> None:
        self._stop_search()  # one search at a time
        try:
            search = self._search_run = self.app.service.find_tables(
                setup.situation(), self._on_found
            )
        except Exception as exc:  # Bluetooth off, no permission: say so
            self.status = message_for(getattr(exc, "code", "bluetooth_unavailable"))
            return
        self._show_devices()  # paired phones first, then what discovery finds
        if search.error is not None:  # the search failed: the paired phones stay listed
            self.status = message_for(search.error)
        elif search.discovering:
            self.status = _("Searching for tables nearby…")
        else:
            self.status = _("Showing phones paired with yours.")

    def on_leave(self, *_args: Any) -> None:
        # No discovery behind the player's back: it slows every connection down.
        self._stop_search()

    def _stop_search(self) -> None:
        search = getattr(self, "_search_run", None)
        if search is not None:
            search.stop()

    def _on_found(self) -> None:
        # called from Android's broadcast thread; widgets change on the main thread only
        Clock.schedule_once(lambda _dt: self._show_devices(), 0)

    def _show_devices(self) -> None:
        search = getattr(self, "_search_run", None)
        found = search.tables() if search is not None else []
        self.tables = [
            (t.name or _("Unnamed phone {address}").format(address=t.address), t.address)
            for t in found
        ]
        self.refresh()

    def join(self, address: str) -> None:
        self.app.with_name(lambda: self._join(address))

    def _join(self, address: str) -> None:
        if not table_layer_available():
            self.app.notify(message_for("bluetooth_unavailable"))
            return
        if not can_deal(self.app):
            return
        if not address:
            self.status = _("Enter the host's address, for example 127.0.0.1:5000.")
            return
        from app.views.oczko.network import NetworkTable

        if self.app.screen("oczko_host").game == "casino":
            _open_casino(self.app, hosting=False, address=address)
            return
        prefs = self.app.prefs
        net = NetworkTable(
            hosting=False,
            name=prefs.player_name,
            service=self.app.service,
            lang=get_language(),
            address=address,
        )
        _open_lobby(self.app, net, hosting=False)


class OczkoLobbyScreen(BaseScreen):
    """Who sits at the table, who is ready; the host starts when everybody is."""

    title = StringProperty(N_("Lobby"))
    up = StringProperty("oczko_menu")
    hosting = ObjectProperty(False)
    #: the table layer's lobby state: {"players": [(name, ready)], "rounds": n, "turn_time": s}
    lobby = ObjectProperty(None, allownone=True)
    vm = ObjectProperty(None, allownone=True)

    address = StringProperty("")
    message = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._poll: Any = None
        self._unlisten: Any = None  # stops following the table's pushed changes
        self._visibility: Any = None
        self._visible = ""

    def _visible_text(self) -> str:
        """The host's time left as visible to nearby phones (:func:`lobby_visible_text`)."""
        from app.views.setup.bluetooth import lobby_visible_text

        text, self._visibility = lobby_visible_text(
            self._visibility, bool(self.hosting), self.app.service.transport
        )
        return text

    @property
    def net(self) -> Any:
        """The table of this lobby (a NetworkTable), None once it was left."""
        return self.app.controllers.get("oczko_net")

    def on_enter(self, *_args: Any) -> None:
        net = self.net
        if net is not None and self._unlisten is None:  # the table pushes its changes
            self._unlisten = net.listen(self.poll)
        if self._poll is None:  # (the visibility's countdown, once a second)
            self._poll = Clock.schedule_interval(self.poll, 1.0)
        self.poll()

    def on_leave(self, *_args: Any) -> None:
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self._visibility = None  # (a refusal counts for this lobby only)
        # Leaving the lobby any other way than into the match (the back arrow, the back
        # gesture) leaves the table too: it must not keep running unseen.
        if self.manager is not None and self.manager.current != "oczko_table":
            self.leave_table()

    def poll(self, _dt: float = 0) -> None:
        """Follow the table: new players, errors, and the match starting."""
        net = self.net
        visible = self._visible_text()  # counts down every second, asks again at 0
        if visible != self._visible:
            self._visible = visible
            self._show_address()
        if net is None or not net.tick(0.0):
            return
        if net.error is not None:
            self.message = message_for(net.error)
        else:
            self.message = net.message
        if net.started and net.match is not None:
            self.app.controllers["oczko"] = net
            self.app.go("oczko_table")
            return
        self.lobby = net.lobby
        self.refresh()

    def refresh(self) -> None:
        self._show_address()
        self.vm = present_lobby(self.lobby, bool(self.hosting))
        grid = self.ids.players
        grid.clear_widgets()
        for line in self.vm.players:
            grid.add_widget(Factory.Body(text=line))

    def _show_address(self) -> None:
        net = self.net
        self.address = ""
        if net is not None and self.hosting and net.address:
            self.address = _("Guests join at {address}").format(address=shown_address(net.address))
        if self._visible:
            self.address = f"{self.address}\n{self._visible}" if self.address else self._visible

    def start(self) -> None:
        net = self.net
        if self.vm and self.vm.can_start and net is not None:
            self.message = _("Shuffling the deck together…")
            net.begin()

    def can_return(self) -> bool:
        # a lobby whose table was left is dead: back never returns into it
        net = self.net
        return net is not None and not net.closed

    def leave_table(self) -> None:
        """Leave (a guest) or close (the host) the table before the match."""
        net = self.app.controllers.pop("oczko_net", None)
        if net is not None:
            net.leave()
        self.lobby = None
