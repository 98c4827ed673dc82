"""Representative states for ``blu21 screenshot`` (and the render-every-screen test)."""

from __future__ import annotations

from collections.abc import Callable

DEMOS: dict[str, Callable] = {}


def demo(name: str) -> Callable[[Callable], Callable]:
    def register(func: Callable) -> Callable:
        DEMOS[name] = func
        return func

    return register


@demo("oczko_table")
def oczko_table(app) -> None:
    """A practice round in play: the bots have had their turns, now it is the player's."""
    import random

    from app.views.oczko_practice import PracticeMatch

    screen = app.screen("oczko_table")
    names = ["Ala", "Bartek", "Celina", "Darek"]
    c = PracticeMatch(names, rounds=5, rng=random.Random(7), me=1, now=0.0)
    t = 0.0
    while c.match.to_act is not None and c.match.to_act != c.me and t < 60:
        t += 1.0
        c.tick(t)
    app.controllers["oczko"] = c
    screen.clock = lambda: t + 12.0  # 18 s left on the turn timer
    screen.refresh()


@demo("oczko_table:shuffle")
def oczko_table_shuffle(app) -> None:
    """A networked round: the SRA shuffle is running, a player has left."""
    from app.i18n.codes import message_for

    oczko_table(app)
    c = app.controllers["oczko"]
    c.shuffle_progress = 0.6
    c.message = message_for("player_left", name="Darek")
    app.screen("oczko_table").refresh()


@demo("oczko_table:cheat")
def oczko_table_cheat(app) -> None:
    """Cheating detected by the audit."""
    from app.i18n.codes import message_for

    oczko_table(app)
    c = app.controllers["oczko"]
    c.message = message_for("cheating_detected", name="Celina")
    app.screen("oczko_table").refresh()


@demo("oczko_table:result")
def oczko_table_result(app) -> None:
    """The end of a round: the result is shown until the player goes on."""
    import random

    from app.views.oczko_practice import PracticeMatch

    screen = app.screen("oczko_table")
    c = PracticeMatch(["Ala", "Bartek", "Celina"], rounds=5, rng=random.Random(3), now=0.0)
    t = 0.0
    while not c.awaiting_next and t < 200:
        t += 1.0
        if c.match.to_act == c.me:
            (c.draw if c.view().seats[0].total < 15 else c.hold)(t)
        else:
            c.tick(t)
    app.controllers["oczko"] = c
    screen.clock = lambda: t
    screen.refresh()


@demo("oczko_table:match")
def oczko_table_match(app) -> None:
    """The end of a match."""
    import random

    from app.views.oczko_practice import PracticeMatch

    screen = app.screen("oczko_table")
    c = PracticeMatch(["Ala", "Bartek", "Celina"], rounds=3, rng=random.Random(5), now=0.0)
    t = 0.0
    while not c.over and t < 2000:
        t += 1.0
        if c.awaiting_next:
            c.next_round(t)
        elif c.match.to_act == c.me:
            (c.draw if c.view().seats[0].total < 15 else c.hold)(t)
        else:
            c.tick(t)
    app.controllers["oczko"] = c
    screen.clock = lambda: t
    screen.refresh()


@demo("oczko_lobby")
def oczko_lobby(app) -> None:
    """The host's lobby: three players seated, one not ready yet."""
    screen = app.screen("oczko_lobby")
    screen.hosting = True
    screen.lobby = {
        "players": [("Ala", True), ("Bartek", True), ("Celina", False)],
        "rounds": 5,
        "turn_time": 30,
    }
    screen.refresh()


@demo("oczko_join")
def oczko_join(app) -> None:
    """Two tables nearby."""
    screen = app.screen("oczko_join")
    screen.tables = [("Ala's phone", "00:11:22:33:44:55"), ("Bartek", "00:11:22:33:44:66")]
    screen.refresh()


@demo("bj_table")
def bj_table(app) -> None:
    """European table: the player bets on box 1 and behind the bot's box 4, the dealer
    shows a card and the player's hand is in play (actions from the engine)."""
    import random

    from app.rules.table_rules import PRESETS
    from app.views.bj_game import BlackjackGame

    screen = app.screen("bj_table")
    app.prefs = app.prefs.replace(show_hints=True)  # for this picture only, not saved
    game = BlackjackGame(PRESETS["european"], "you", ["Bruno"], random.Random(11))
    game.bet(1, 25)
    game.bet(4, 10)
    game.side_bet(10)
    game.deal()
    app.controllers["blackjack"] = game
    screen.refresh()


@demo("bj_table:betting")
def bj_table_betting(app) -> None:
    """Betting: a bot owns box 4; the player may bet on a free box or behind."""
    import random

    from app.rules.table_rules import PRESETS
    from app.views.bj_game import BlackjackGame

    app.controllers["blackjack"] = BlackjackGame(
        PRESETS["european"], "you", ["Bruno"], random.Random(11)
    )
    app.screen("bj_table").refresh()


@demo("bj_table:insurance")
def bj_table_insurance(app) -> None:
    """The dealer shows an ace: insurance / even money."""
    from app.rules.shoe import Shoe
    from app.rules.table_rules import TableRules
    from app.views.bj_game import BlackjackGame

    game = BlackjackGame(TableRules(), "you", shoe=Shoe.scripted("Ts As Ah 9c 7d 8d 9d"))
    game.bet(1, 50)
    game.bet(2, 20)
    game.deal()
    app.controllers["blackjack"] = game
    app.screen("bj_table").refresh()


@demo("bj_table:settled")
def bj_table_settled(app) -> None:
    """Results per hand after a split: 8+3+10 = 21 wins, 8+9 and K+7 lose to 19."""
    from app.rules.shoe import Shoe
    from app.rules.table_rules import TableRules
    from app.views.bj_game import BlackjackGame

    shoe = Shoe.scripted("8s Kc 9h 8d 7c Tc 3h Ts 9s")
    game = BlackjackGame(TableRules(), "you", shoe=shoe)
    game.bet(1, 20)
    game.bet(2, 10)
    game.deal()
    for kind in ("split", "hit", "stand", "stand"):
        game.decide(kind)
    app.controllers["blackjack"] = game
    app.screen("bj_table").refresh()


@demo("bj_summary")
def bj_summary(app) -> None:
    """After a 20-round session."""
    screen = app.screen("bj_summary")
    from app.views.bj_vm import summary_lines

    summary = {
        "rounds_played": 20,
        "rounds": 20,
        "players": {
            "you": {
                "start": 1000,
                "balance": 1085,
                "net": 85,
                "rounds_played": 20,
                "best_round": 75,
                "worst_round": -50,
            }
        },
    }
    screen.lines = summary_lines(summary, "you")
    screen.refresh()


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


def _bt_setup(app, purpose: str, transport: _SampleTransport, refused: set[str]) -> None:
    from app.views.bt_setup import BluetoothSetup

    screen = app.screen("bt_setup")
    setup = BluetoothSetup(transport, purpose, on_change=screen.refresh)
    setup.refused |= refused
    screen.setup, screen.then = setup, None
    screen.refresh()


@demo("bt_setup")
def bt_setup(app) -> None:
    """First run, hosting: the permissions are asked for."""
    connect = ("android.permission.BLUETOOTH_CONNECT",)
    _bt_setup(app, "host", _SampleTransport({"connect": connect}), set())


@demo("bt_setup:refused")
def bt_setup_refused(app) -> None:
    """The guest refused the search permission: why, ask again, settings, paired only."""
    scan = ("android.permission.BLUETOOTH_SCAN",)
    _bt_setup(app, "join", _SampleTransport({"scan": scan}), {"scan"})


@demo("bt_setup:location")
def bt_setup_location(app) -> None:
    """Android 10/11 with the Location switch off."""
    _bt_setup(app, "join", _SampleTransport({"location": ()}), set())
