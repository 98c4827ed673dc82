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
    game = BlackjackGame(PRESETS["european"], "you", ["Bruno"], random.Random(11))
    game.bet(1, 25)
    game.bet(4, 10)
    game.side_bet(10)
    game.deal()
    app.controllers["blackjack"] = game
    screen.refresh()


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
