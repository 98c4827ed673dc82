"""The casino host's decisions: a pure function of its book, an event and its facts.

``step(book, event, facts) -> (book, effects)`` decides every public event of the
table that is the host's to decide: when a shoe is started (the first one, then always
one in the background behind the shoe in play, and a fresh one when a shuffler left),
when bets open and close (everybody said his bets are in, or the betting time ran
out; a box without a bet sits the round out), whose time ran out (his pending
decisions take their defaults: stand, no insurance, no double), and who left. A player
whose phone is gone decides nothing: his decisions take their defaults at once.

The players' own intents are not the sequencer's: the shell checks each against the
host's engine copy and relays it unchanged.

>>> from app.table.casino.book import CasinoBook, CasinoFacts, Started
>>> facts = CasinoFacts(round=0, betting=False, settled=True, bets=False, all_done=False,
...     busy=False, deciders=(), decision=0, connected=frozenset({"p0", "p1"}),
...     present=frozenset({"p0", "p1"}), want_shoe=True, has_shoe=False, order=(0, 1),
...     decks=1)
>>> book, effects = step(CasinoBook(), Started(), facts)
>>> book.stage, effects[0].message
(<Stage.PLAY: 'play'>, CShoe(shoe=1, order=(0, 1), decks=1))
"""

from __future__ import annotations

from dataclasses import replace

from app.table.book import rearm
from app.table.casino.book import (
    Announce,
    Back,
    CancelTimer,
    CasinoBook,
    CasinoEffect,
    CasinoEvent,
    CasinoFacts,
    Drive,
    Drop,
    End,
    Expired,
    Gone,
    Readmit,
    Say,
    SetTimer,
    Stage,
    Started,
)
from app.table.casino.messages import CBack, CDeal, CLeft, COpenBets, CShoe, CTimeout
from app.table.casino.state import OwedStep

Step = tuple[CasinoBook, list[CasinoEffect]]
#: A phone's time for one step of the shoe protocol it owes, in decisions' time: a
#: shoe dealer's set-up (new keys and proofs; every phone's again when a player comes
#: back, on the slowest phone of the table) takes longer than a shuffle or a card's key.
STALL_TIME = {"setup": 2.0, "shuffle": 1.0, "card": 1.0, "agree": 1.0}


def step_time(step: OwedStep, turn_time: float) -> float:
    """Seconds a phone may take over ``step`` before the table drops it as stalled."""
    return STALL_TIME.get(step[0], 1.0) * turn_time


def step(book: CasinoBook, event: CasinoEvent, facts: CasinoFacts) -> Step:
    """The host's next book and the effects of ``event`` (see the module doc)."""
    if book.stage is Stage.OVER or facts.closed:
        return book, []
    if isinstance(event, Started):
        if book.stage is not Stage.LOBBY:
            return book, []
        return _drive(replace(book, stage=Stage.PLAY), facts)
    if book.stage is not Stage.PLAY:
        return book, []
    if isinstance(event, Drive):
        return _drive(book, facts)
    if isinstance(event, Expired):
        return _expired(book, event.name, facts)
    if isinstance(event, Gone):
        if event.who not in facts.present:  # (gone again before he was back)
            back = tuple(r for r in book.returning if r[0] != event.who)
            return replace(book, returning=back), []
        left = CLeft(event.who, event.reason, facts.dead.get(event.who, ()))
        return book, [Announce(left), Say("player_left", {"player": event.who})]
    if isinstance(event, Back):
        if event.who in facts.present:
            return book, []
        back = tuple(r for r in book.returning if r[0] != event.who)
        return replace(book, returning=(*back, (event.who, event.key))), []
    return book, []


def _drive(book: CasinoBook, facts: CasinoFacts) -> Step:
    owing = tuple(
        sorted((p, s) for p, s in facts.owing.items() if p in facts.connected and p != "p0")
    )
    if owing != book.stalling:  # a phone holds the cards up: each step has its own time
        armed = {f"stall:{p}": s for p, s in book.stalling}
        wanted = {f"stall:{p}": s for p, s in owing}
        effects: list[CasinoEffect] = [
            *rearm(armed, wanted, lambda s: step_time(s, facts.turn_time))
        ]
        return replace(book, stalling=owing), effects
    if facts.want_shoe and len(facts.order) < 2:
        # Nobody left to shuffle with: a shoe needs two phones (nobody may know it). The
        # round in play, if any, is abandoned: its bets stay with their players.
        return replace(book, stage=Stage.OVER), [End("too_few_players")]
    if facts.want_shoe and len(facts.order) >= 2:
        shoe = CShoe(book.next_shoe, facts.order, facts.decks)
        return replace(book, next_shoe=book.next_shoe + 1), [Announce(shoe)]
    if facts.busy or not facts.has_shoe:
        return book, []
    if facts.settled:
        if book.returning and not facts.vouched and facts.vouching:
            return book, []  # his phone checks the chips against every signed digest
        if book.returning and facts.vouched:  # the table as it stands, then CBack
            (player, signs), rest = book.returning[0], book.returning[1:]
            first = book.next_shoe
            return replace(book, returning=rest), [
                Readmit(player, first),
                Announce(CBack(player, signs, first)),
            ]
        if book.round and book.paused < book.round:  # show the result first
            if book.pausing == book.round:
                return book, []
            if facts.pause <= 0:
                return replace(book, paused=book.round), []
            return replace(book, pausing=book.round), [SetTimer("pause", facts.pause)]
        nxt = book.round + 1
        return replace(book, round=nxt, deciding=None), [
            Announce(COpenBets(nxt)),
            SetTimer("bet", facts.bet_time),
        ]
    if facts.betting:
        if facts.bets and facts.all_done:
            return book, [CancelTimer("bet"), Announce(CDeal(book.round))]
        return book, []
    late = book.overdue[2] if book.overdue and book.overdue[:2] == (book.round, facts.phase) else ()
    gone = [p for p in facts.deciders if p not in facts.connected or p in late]
    if gone:  # a player whose phone is gone decides nothing: his defaults at once
        return book, [Announce(CTimeout(book.round, gone[0]))]
    key = (book.round, facts.decision)
    if facts.deciders and book.deciding != key:
        return replace(book, deciding=key), [SetTimer("turn", facts.turn_time)]
    return book, []


def _expired(book: CasinoBook, name: str, facts: CasinoFacts) -> Step:
    if name.startswith("stall:"):
        player = name.removeprefix("stall:")
        armed = dict(book.stalling)
        rest = tuple(r for r in book.stalling if r[0] != player)
        # (still at the same step: he had its whole time; at another, Drive re-arms)
        late = player in armed and facts.owing.get(player) == armed[player]
        if late and player in facts.connected:
            return replace(book, stalling=rest), [Drop(player, "stalled")]
        return replace(book, stalling=rest), []
    if name == "pause":
        return replace(book, pausing=None, paused=book.pausing or book.paused), []
    if name == "bet" and facts.betting and not facts.busy:
        if facts.bets:
            return book, [Announce(CDeal(book.round))]
        # Nobody bet: the betting stays open for another period (every box sits out).
        return book, [Say("no_bets"), SetTimer("bet", facts.bet_time)]
    if name == "turn" and facts.deciders and book.deciding == (book.round, facts.decision):
        overdue = (book.round, facts.phase, frozenset(facts.deciders))
        return replace(book, deciding=None, overdue=overdue), [
            Announce(CTimeout(book.round, facts.deciders[0]))
        ]
    return book, []


__all__ = ["STALL_TIME", "step", "step_time"]
