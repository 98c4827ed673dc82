"""Representative states for ``blu21 screenshot`` and the layout tests, reached by playing
the same actions a player would: buttons are pressed on the live screens, one frame
apart, starting from the home screen. A picture therefore cannot show a layout the
live app does not.

Each demo is a generator run one step per frame (``yield`` = let the layouts settle).
What a player cannot do on this phone is supplied at the edge the screens read from,
never by setting a screen's state: the deck (a seeded shuffle or a scripted shoe, as
the tests use), the clock of a practice table (so the bots play at once), nearby tables
that discovery would find, and, for the two networked states, the messages a networked
table reports (shuffle progress, a player who left, a cheater named by the audit).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.views.app import Blu21App
    from app.views.widgets import Pressable

DemoSteps = Iterator[None]
#: A demo: given the running app (a Kivy App), the steps that drive its live screens.
Demo = Callable[["Blu21App"], DemoSteps]
DEMOS: dict[str, Demo] = {}


def demo(name: str) -> Callable[[Demo], Demo]:
    def register(func: Demo) -> Demo:
        DEMOS[name] = func
        return func

    return register


def states() -> list[str]:
    """Every screen and state, as ``blu21 screenshot list`` names them."""
    from app.views.registry import SCREENS

    return list(SCREENS) + [k for k in DEMOS if ":" in k]


def press(button: Pressable) -> None:
    """Press a button as a finger does (it must be enabled)."""
    if button.disabled:
        raise RuntimeError(f"the button {button.text!r} is disabled")
    button.dispatch("on_press")
    button.dispatch("on_release")


def give_name(app: Blu21App, name: str = "Zosia") -> None:
    """Answer the name question a first sit-down asks (if it is asked)."""
    from app.views.app import NameDialog

    if isinstance(app.dialog, NameDialog) and app.dialog._is_open:
        app.dialog.ids.name.text = name
        press(app.dialog.ids.ok)


def close_games(app: Blu21App) -> None:
    """Leave every game and table a demo opened."""
    for name in ("oczko", "oczko_net", "demo_guest", "blackjack", "casino"):
        game = app.controllers.pop(name, None)
        if game is not None and hasattr(game, "leave"):
            game.leave()


def reset(app: Blu21App) -> DemoSteps:
    """Back to the home screen with no game running (a fresh start)."""
    close_games(app)
    app.history.clear()
    if app.dialog is not None and app.dialog._is_open:
        app.dialog.dismiss(animation=False)
    app.go("home", remember=False)
    yield


def open_screen(app: Blu21App, name: str) -> DemoSteps:
    """Reach screen ``name`` from home by its buttons."""
    from app.views.registry import SCREENS

    yield from reset(app)
    if name == "home":
        return
    home = app.sm.get_screen("home")
    path: dict[str, list[Callable[[], Any]]] = {
        "settings": [lambda: home.ids.settings],
        "oczko_menu": [lambda: home.ids.oczko],
        "oczko_host": [lambda: home.ids.oczko, lambda: app.sm.get_screen("oczko_menu").ids.host],
        "oczko_join": [lambda: home.ids.oczko, lambda: app.sm.get_screen("oczko_menu").ids.join],
        "rules_oczko": [
            lambda: home.ids.oczko,
            lambda: app.sm.get_screen("oczko_menu").ids.rules,
        ],
        "bj_menu": [lambda: home.ids.blackjack],
        "history": [lambda: home.ids.history],
        "bj_rules": [
            lambda: home.ids.blackjack,
            lambda: app.sm.get_screen("bj_menu").ids.table_rules,
        ],
        "rules_blackjack": [
            lambda: home.ids.blackjack,
            lambda: app.sm.get_screen("bj_menu").ids.rules,
        ],
    }
    if name not in path:
        raise KeyError(f"no way to {name!r} from home; one of {sorted(path)} or {SCREENS}")
    for step in path[name]:
        press(step())
        yield


def _demo_screen(name: str) -> None:
    @demo(name)
    def show(app: Blu21App) -> DemoSteps:
        yield from open_screen(app, name)

    show.__doc__ = f"The {name} screen, reached from home."


for _name in ("home", "settings", "rules_oczko", "rules_blackjack", "oczko_menu", "oczko_host"):
    _demo_screen(_name)
_demo_screen("bj_menu")


@demo("rules_blackjack:networked")
def rules_blackjack_networked(app: Blu21App) -> DemoSteps:
    """The blackjack rules as a networked casino table opens them (issue 19): with the
    table's rules, here a peek table with late surrender and triple seven, so every
    difference across phones is shown."""
    from app.rules.table_rules import TableRules

    yield from open_screen(app, "rules_blackjack")
    app.go("rules_blackjack", table=TableRules(late_surrender=True, triple_seven=True))
    yield


@demo("bj_rules")
def bj_rules(app: Blu21App) -> DemoSteps:
    """The table rules with their house edge (computed in the background)."""
    import time

    yield from open_screen(app, "bj_rules")
    screen = app.sm.get_screen("bj_rules")
    end = time.monotonic() + 60
    while screen.rules not in screen._edges and time.monotonic() < end:
        yield
    yield


# -- Oczko: a practice match on a seeded deck and a clock that the demo moves ------------


def practice(app: Blu21App, seed: int, rounds: int = 5) -> Generator[None, None, Any]:
    """Start a practice match from the menu (seeded deck, the demo's clock, which
    ``_advance`` moves); returns the table screen."""
    import random

    yield from open_screen(app, "oczko_menu")
    if app.prefs.oczko_rounds != rounds:
        app.update_prefs(oczko_rounds=rounds)
    table = app.screen("oczko_table")
    now = table.demo_now = [0.0]
    table.clock = lambda: now[0]
    table.demo_rng = random.Random(seed)
    press(app.sm.get_screen("oczko_menu").ids.practice)
    give_name(app)
    yield
    return table


def _advance(table: Any) -> None:
    table.demo_now[0] += 1.0
    table.tick()


def play_until(
    app: Blu21App, table: Any, done: Callable[[Any], bool], limit: int = 3000
) -> DemoSteps:
    """Play the practice match by the buttons (draw below 15, else hold; go on after
    each round) until ``done(vm)``."""
    for _ in range(limit):
        vm = table.vm
        if done(vm):
            return
        if vm.next_text and not vm.match_over:
            press(table.ids.next)
        elif vm.can_draw:
            total = int(vm.my_total.split()[-1])
            press(table.ids.draw if total < 15 else table.ids.hold)
        else:
            _advance(table)
        yield
    raise RuntimeError("the practice match did not reach the state")


def _my_turn(app: Blu21App, seed: int) -> Generator[None, None, Any]:
    table = yield from practice(app, seed)
    yield from play_until(app, table, lambda vm: vm.can_draw)
    return table


@demo("oczko_table")
def oczko_table(app: Blu21App) -> DemoSteps:
    """A practice round in play: the bots before the player have had their turns."""
    table = yield from _my_turn(app, 7)
    table.demo_now[0] += 12.0  # 18 s left on the turn timer
    table.tick()
    yield


@demo("oczko_table:result")
def oczko_table_result(app: Blu21App) -> DemoSteps:
    """The end of a round: the result is shown until the player goes on."""
    table = yield from _my_turn(app, 3)
    yield from play_until(app, table, lambda vm: bool(vm.next_text))


@demo("oczko_table:match")
def oczko_table_match(app: Blu21App) -> DemoSteps:
    """The end of a match."""
    table = yield from practice(app, 5, rounds=3)
    yield from play_until(app, table, lambda vm: vm.match_over)


def _networked(app: Blu21App, **reports: Any) -> DemoSteps:
    table = yield from _my_turn(app, 7)
    if "shuffle_progress" in reports:
        # the next round's deck is shuffled while the last round's result is read
        yield from play_until(app, table, lambda vm: bool(vm.next_text))
    for key, value in reports.items():  # what a networked table reports to the screen
        setattr(table.controller, key, value)
    table.refresh()
    yield


@demo("oczko_table:shuffle")
def oczko_table_shuffle(app: Blu21App) -> DemoSteps:
    """A networked table between rounds: the result is shown, the SRA shuffle of the
    next round's deck runs, a player has left."""
    from app.i18n.codes import message_for

    yield from _networked(
        app,
        shuffle_progress=0.6,
        message=message_for("player_left", name="Darek"),
        fingerprint="482913",
    )


@demo("oczko_table:wait")
def oczko_table_wait(app: Blu21App) -> DemoSteps:
    """A networked table's deal waits for a slow phone: the progress bar names it."""
    yield from _networked(app, shuffle_progress=0.35, shuffle_note=("shuffle", (2,)))


@demo("oczko_table:reading")
def oczko_table_reading(app: Blu21App) -> DemoSteps:
    """A networked table after "Next round": the last result stays, with who is still
    reading it and when the next round comes anyway."""
    table = yield from _my_turn(app, 7)
    yield from play_until(app, table, lambda vm: bool(vm.next_text))
    table.controller.still_reading = lambda _now: (("Celina", "Darek"), 12.0)
    table.refresh()
    yield


@demo("oczko_table:cheat")
def oczko_table_cheat(app: Blu21App) -> DemoSteps:
    """Cheating detected by the audit."""
    from app.i18n.codes import message_for

    yield from _networked(app, message=message_for("cheating_detected", name="Celina"))


@demo("oczko_join")
def oczko_join(app: Blu21App) -> DemoSteps:
    """Two tables nearby (what discovery reports on a phone)."""
    yield from open_screen(app, "oczko_join")
    screen = app.sm.get_screen("oczko_join")
    screen.tables = [("Ala's phone", "00:11:22:33:44:55"), ("Bartek", "00:11:22:33:44:66")]
    screen.refresh()
    yield


@demo("oczko_lobby")
def oczko_lobby(app: Blu21App) -> DemoSteps:
    """The host's lobby with a guest seated: a real table on this phone, a guest joined
    over the loopback link (the desktop's transport)."""
    import time

    from app.views.oczko.network import NetworkTable

    yield from open_screen(app, "oczko_host")
    press(app.sm.get_screen("oczko_host").ids.open)
    give_name(app)
    net = app.controllers.get("oczko_net")
    lobby = app.screen("oczko_lobby")
    end = time.monotonic() + 20
    while net is not None and not (net.address or net.closed) and time.monotonic() < end:
        yield
    guest = None
    if net is not None and net.address and net.address.startswith("127.0.0.1"):
        guest = NetworkTable(
            hosting=False,
            name="Bartek",
            service=app.service,
            address=net.address,
            dealer="open",
        )
        app.controllers["demo_guest"] = guest
        while (lobby.vm is None or len(lobby.vm.players) < 2) and time.monotonic() < end:
            yield
    yield


# -- blackjack: a seeded or scripted shoe, the rest by the buttons -----------------------


def _choose(screen: Any, attribute: str, value: Any) -> None:
    button = next(w for w in screen.walk() if getattr(w, attribute, None) == value)
    if button.state != "down":
        press(button)


def session(
    app: Blu21App, preset: str = "classic", seed: int = 11, shoe: str = "", rounds: int = 0
) -> Generator[None, None, Any]:
    """Choose ``preset`` (and ``rounds``) on the table-rules screen, unless they are the
    rules in force already, and start a session from the blackjack menu."""
    import random

    from app.views.blackjack.game import saved_rules

    rules, _warning = saved_rules(app.prefs)
    if app.prefs.bj_preset != preset or (rounds and rules.rounds != rounds):
        yield from open_screen(app, "bj_rules")
        screen = app.sm.get_screen("bj_rules")
        _choose(screen, "preset", preset)
        yield
        if rounds:
            _choose(screen, "rule", ("rounds", rounds))
            yield
        app.back()
    else:
        yield from open_screen(app, "bj_menu")
    yield
    table = app.screen("bj_table")
    table.demo_rng = random.Random(seed)
    if shoe:
        from app.rules.shoe import Shoe

        table.demo_shoe = Shoe.scripted(shoe)
    press(app.sm.get_screen("bj_menu").ids.start)
    yield
    return table


def bet(table: Any, box: int, chip: int) -> DemoSteps:
    press(table.buttons[f"box{box}"])
    yield
    press(table.buttons[f"chip{chip}"])
    yield


@demo("bj_table")
def bj_table(app: Blu21App) -> DemoSteps:
    """European table: the player bets on box 1, behind the bot's box 4 and on the
    dealer busting; the dealer shows a card and the player's hand is in play."""
    app.prefs = app.prefs.replace(show_hints=True)  # for this picture only, not saved
    table = yield from session(app, "european")
    yield from bet(table, 1, 25)
    yield from bet(table, 4, 10)
    press(table.buttons["side_bet"])
    yield
    press(table.buttons["deal"])
    yield


@demo("bj_table:betting")
def bj_table_betting(app: Blu21App) -> DemoSteps:
    """Betting: a bot owns box 4; the player may bet on a free box or behind."""
    yield from session(app, "european")


@demo("bj_table:insurance")
def bj_table_insurance(app: Blu21App) -> DemoSteps:
    """The dealer shows an ace: insurance / even money."""
    table = yield from session(app, "classic", shoe="Ts As Ah 9c 7d 8d 9d")
    yield from bet(table, 1, 50)
    yield from bet(table, 2, 25)
    press(table.buttons["deal"])
    yield


@demo("bj_table:settled")
def bj_table_settled(app: Blu21App) -> DemoSteps:
    """Results per hand after a split: 8+3+10 = 21 wins, 8+9 and K+7 lose to 19."""
    table = yield from session(app, "classic", shoe="8s Kc 9h 8d 7c Tc 3h Ts 9s")
    yield from bet(table, 1, 25)
    yield from bet(table, 2, 10)
    press(table.buttons["deal"])
    yield
    for kind in ("split", "hit", "stand", "stand"):
        press(table.buttons[kind])
        yield


@demo("bj_summary")
def bj_summary(app: Blu21App) -> DemoSteps:
    """After a whole (short) session, played hand by hand (bet 10, hit below 13)."""
    table = yield from session(app, "classic", rounds=5)
    for _ in range(3000):
        if app.sm.current != "bj_table":
            break
        vm, b = table.vm, table.buttons
        if vm.prompt is not None:
            press(b[vm.prompt.choices[-1][0]])
        elif vm.phase == "betting":
            if "chip10" in b:
                press(b["chip10"])
                yield
            press(table.buttons["deal"])
        elif vm.phase == "settled":
            press(b["next"])
        else:
            hand = table.game.round.current
            press(b["hit"] if hand.total < 13 and not b["hit"].disabled else b["stand"])
        yield
    yield


class _SampleTransport:
    """What a phone reports, fixed, for the Bluetooth set-up screenshots (no radio)."""

    def __init__(self, missing: dict[str, tuple[str, ...]], state: str = "on") -> None:
        self.permissions = self
        self._missing, self._state = missing, state

    def missing(self, use: str) -> list[str]:
        return list(self._missing.get(use, ()))

    def state(self) -> str:
        return self._state

    def location_blocks_discovery(self) -> bool:
        return self._missing.get("location") is not None


def _bt_setup(
    app: Blu21App, purpose: str, transport: _SampleTransport, refused: set[str]
) -> DemoSteps:
    from app.views.setup.bluetooth import BluetoothSetup

    screen = app.screen("bt_setup")
    setup = BluetoothSetup(transport, purpose, on_change=screen.refresh)
    setup.refused |= refused
    screen.setup, screen.then = setup, None
    app.go("bt_setup")
    screen.refresh()
    yield


@demo("bt_setup")
def bt_setup(app: Blu21App) -> DemoSteps:
    """First run, hosting: the permissions are asked for."""
    connect = ("android.permission.BLUETOOTH_CONNECT",)
    yield from _bt_setup(app, "host", _SampleTransport({"connect": connect}), set())


@demo("bt_setup:refused")
def bt_setup_refused(app: Blu21App) -> DemoSteps:
    """The guest refused the search permission: why, ask again, settings, paired only."""
    scan = ("android.permission.BLUETOOTH_SCAN",)
    yield from _bt_setup(app, "join", _SampleTransport({"scan": scan}), {"scan"})


@demo("bt_setup:desktop")
def bt_setup_desktop(app: Blu21App) -> DemoSteps:
    """The set-up screen on a computer: what it is for, and that it needs a phone."""
    screen = app.screen("bt_setup")
    screen.setup, screen.then = None, None
    app.go("bt_setup")
    screen.refresh()
    yield


@demo("bt_setup:location")
def bt_setup_location(app: Blu21App) -> DemoSteps:
    """Android 10/11 with the Location switch off."""
    yield from _bt_setup(app, "join", _SampleTransport({"location": ()}), set())


_demo_screen("history")


def _played_rounds(app: Blu21App) -> DemoSteps:
    """A short practice match played to its end, so the history has rounds to show."""
    from app.views.sample_play import play_practice

    yield from open_screen(app, "history")
    play_practice(rounds=2, seed=5)  # recorded by the app's hook where rounds end
    yield


@demo("history_stats")
def history_stats(app: Blu21App) -> DemoSteps:
    """The statistics after a practice match (the history screen's Statistics button)."""
    yield from _played_rounds(app)
    app.go("history_stats")
    yield


@demo("history_round")
def history_round(app: Blu21App) -> DemoSteps:
    """The newest round of the history, as a tap on its line opens it."""
    from app.history.live import RECORDER

    yield from _played_rounds(app)
    newest = RECORDER.store.rounds(limit=1) if RECORDER.store is not None else []
    if not newest:
        raise RuntimeError("no round was recorded")
    app.go("history_round", round_id=newest[0].id)
    yield


# -- the casino table: the table's part played on this phone -----------------------------


#: the bots' boxes at the demo's casino table (the player takes box 1 and box 3)
CASINO_BOTS = {2: "b0", 4: "b1", 5: "b2", 6: "b3", 7: "b4"}


def _casino_lobby(app: Blu21App) -> Generator[None, None, Any]:
    """The host screen with casino blackjack chosen, then the lobby of a table on this
    phone (:class:`app.views.casino.local.LocalCasinoTable`: five bots at their
    boxes, a pair of eights and of nines for the player) with box 1 taken by a tap."""
    from app.rules.table_rules import EUROPEAN
    from app.views.casino.local import LocalCasinoTable
    from app.views.casino.network import CasinoNet

    yield from open_screen(app, "oczko_host")
    host = app.sm.get_screen("oczko_host")
    press(next(b for b in host.ids.games.children if b.game == "casino"))
    yield
    names = {"me": app.prefs.player_name or "Zosia", "b0": "Ola", "b1": "Jürgen"}
    names.update({"b2": "Małgorzata", "b3": "Ann", "b4": "Bruno"})
    prefix = "8s Td 9c Td Td Td Td 6d 8h 7c 9d 7c 7c 7c 7c"

    def make(on_change: Callable[[], None]) -> LocalCasinoTable:
        return LocalCasinoTable(
            "me", names, EUROPEAN, CASINO_BOTS, prefix=prefix, on_change=on_change
        )

    net = CasinoNet(hosting=True, service=app.service, make=make)
    app.controllers["casino"] = net
    app.go("casino_lobby")
    yield
    lobby = app.sm.get_screen("casino_lobby")
    lobby.tick()
    press(lobby.buttons["box1"])
    yield
    return net


@demo("casino_lobby")
def casino_lobby(app: Blu21App) -> DemoSteps:
    """The casino table's lobby: the boxes, the rules and their house edge."""
    yield from _casino_lobby(app)


def _casino_turn(app: Blu21App, slow: bool = False) -> Generator[None, None, Any]:
    """Seven boxes, the player's bets on his two boxes, behind Ola's and on the dealer
    busting, all by taps; then the deal: his turn with a pair of eights (``slow``:
    the bots decide only when the demo says so)."""
    net = yield from _casino_lobby(app)
    lobby = app.sm.get_screen("casino_lobby")
    press(lobby.buttons["box3"])
    yield
    press(lobby.ids.start)
    table = app.screen("casino_table")
    for _ in range(300):  # the table starts on its worker thread
        yield
        lobby.tick()
        if app.sm.current == "casino_table":
            break
    yield
    table.clock = net.table.clock.now
    table.tick()
    for box in (1, 3, 2):
        press(table.buttons[f"box{box}"])
        table.tick()
        press(table.buttons["chip10"])
        table.tick()
    press(table.buttons["side_bet"])
    net.table.slow_bots = slow
    net.table.close_bets()
    table.tick()
    yield
    return net


@demo("casino_table")
def casino_table(app: Blu21App) -> DemoSteps:
    """The player's turn at a full casino table (every box, bets behind, side bet)."""
    yield from _casino_turn(app)


@demo("casino_table:split")
def casino_table_split(app: Blu21App) -> DemoSteps:
    """The player split his eights and stood on both hands; Ola's box is in play (on
    a small phone: his boxes big, the others as chips, Ola's framed and in view)."""
    yield from _casino_turn(app, slow=True)
    table = app.screen("casino_table")
    for kind in ("split", "stand", "stand"):
        press(table.buttons[kind])
        table.tick()
        yield


@demo("casino_table:over")
def casino_table_over(app: Blu21App) -> DemoSteps:
    """A cheater named by the audit, then the host left: the table is over."""
    net = yield from _casino_turn(app)
    net.table.name_cheater("b1")
    net.table.host_leaves()
    app.screen("casino_table").tick()
    yield
