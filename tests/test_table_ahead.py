"""The next round's deck shuffled in the background (issue 17), over TCP loopback with the
real SRA dealer: the next round deals from it at once, its audit still runs on every
phone, a dropout voids it (its order had the leaver) and a fresh one is shuffled, and a
cheat in it is named like any other."""

from __future__ import annotations

import time
from typing import Any

import pytest
from cheats import MinusX
from test_table_sra import HANG, agreed, departures, finished, run, slow_step
from test_table_sra import make_table as sra_table

from app.table.clock import FakeClock
from app.table.messages import Ahead, Deal, Go
from app.table.oczko.guest import simple_bot
from app.table.oczko.phone import PhoneMatch

#: Simulated seconds a bot looks at its cards before deciding (a person does): the deck
#: shuffled ahead starts once the cards the next draws need are locked, which instant
#: bots never leave time for (their tables shuffle each deck at its round's start).
THINK_S = 3.0


def thinking(clock: FakeClock) -> Any:
    """:func:`simple_bot` deciding ``THINK_S`` after a decision became its own."""
    seen: dict[int, tuple[Any, float]] = {}

    def bot(phone: PhoneMatch) -> str | None:
        action = simple_bot(phone)
        r = phone.match.round
        if action is None or r is None:
            return None
        key = (r.number, len(r.hand(phone.seat).cards))
        if seen.get(phone.seat, (None, 0.0))[0] != key:
            seen[phone.seat] = (key, clock.now())
        return action if clock.now() - seen[phone.seat][1] >= THINK_S else None

    return bot


def make_table(guests: int, seed: int, rounds: int, dealers: dict[int, type] | None = None):
    """The SRA table of tests/test_table_sra.py with players who think."""
    clock = FakeClock()
    return sra_table(guests, seed, rounds, dealers=dealers, clock=clock, bot=thinking(clock))


class AheadMinusX(MinusX):
    """Honest in the first deck; from deck 2 on (a deck shuffled ahead) its shuffle
    pass has x and -x side by side (the next shuffler's even key makes them one)."""

    first_deck = 2


@pytest.fixture
def announced(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[Any]]:
    """Every public event each phone applied, by seat (the host's own phone included)."""
    seen: dict[int, list[Any]] = {}
    announce = PhoneMatch.announce

    def spy(self: PhoneMatch, event: Any) -> None:
        seen.setdefault(self.seat, []).append(event)
        announce(self, event)

    monkeypatch.setattr(PhoneMatch, "announce", spy)
    return seen


def audits(phone: PhoneMatch, deck: int) -> list[dict[str, Any]]:
    return [e for e in phone.log if e.get("event") == "audit" and e["deck"] == deck]


def test_the_next_round_deals_from_the_deck_shuffled_in_the_background(announced) -> None:
    host, players, clock = make_table(2, seed=3, rounds=3)
    run(host, players, clock, until=lambda: finished(host, players))
    events = announced[0]
    aheads = [e for e in events if isinstance(e, Ahead)]
    deals = {e.deck: e for e in events if isinstance(e, Deal)}
    used = [a for a in aheads if a.deck in deals]
    assert used, "no round was dealt from a deck shuffled ahead"
    for ahead in used:
        # announced during a round, dealt from at once in the next one: no Go for it
        assert deals[ahead.deck].round > ahead.round
        assert not any(isinstance(e, Go) and e.round == deals[ahead.deck].round for e in events)
    for ahead in aheads[len(used) :]:
        # (the match was decided before its round: every phone dropped it, nobody named)
        for p in (host, *players):
            verdict = p.phone.dealer.verdict(ahead.deck)
            assert verdict is None or not verdict.cheaters
    # every phone applied the same events, and audited the deck like any other
    for side in players:
        assert [e for e in announced[side.seat] if isinstance(e, Ahead)] == aheads
    run(
        host,
        players,
        clock,
        until=lambda: all(audits(p.phone, used[0].deck) for p in (host, *players)),
    )
    for p in (host, *players):
        assert [e["ok"] for e in audits(p.phone, used[0].deck)] == [True]
    agreed(host, players)


def test_a_dropout_voids_the_deck_shuffled_ahead_and_a_fresh_one_is_dealt(announced) -> None:
    host, players, clock = make_table(3, seed=4, rounds=3)
    run(host, players, clock, until=lambda: host.book.ahead != 0, halt=True)
    first = host.book.ahead
    victim = players[-1]
    victim.link.close(linger=0)
    alive = players[:-1]
    run(host, alive, clock, until=lambda: finished(host, alive) or host.closed)
    assert not host.closed and departures(host) == [(victim.seat, "left")]
    events = announced[0]
    # the first deck shuffled ahead had the leaver in its order: nobody deals from it,
    # every phone dropped it unaudited (no cheater named); a fresh one came after him
    assert not any(isinstance(e, Deal) and e.deck == first for e in events)
    later = [e for e in events if isinstance(e, Ahead) and e.deck > first]
    assert later, "no fresh deck was shuffled ahead after the dropout"
    for p in (host, *alive):
        verdict = p.phone.dealer.verdict(first)
        assert verdict is None or not verdict.cheaters
        assert p.phone.dealer.card(first, 0) is None  # (nothing of it was dealt)
    agreed(host, alive)


def test_a_cheat_in_the_deck_shuffled_ahead_is_named(announced) -> None:
    """A guest who puts x and -x into his pass of the deck shuffled ahead: the next
    shuffler finds it in the background, every phone names him, he is removed, and the
    honest players play on and agree."""
    host, players, clock = make_table(2, seed=35, rounds=3, dealers={1: AheadMinusX})
    cheater = players[0]
    run(host, players, clock, until=lambda: finished(host, players[1:]) or host.closed)
    assert not host.closed
    aheads = {e.deck for e in announced[0] if isinstance(e, Ahead)}
    cheated = cheater.phone.dealer.current.cheated
    assert cheated & aheads, "he never cheated in a deck shuffled ahead"
    assert (cheater.seat, "cheat") in departures(host)
    named = [n for n in host.notices if n.code == "cheat_named"]
    assert named and {n.details["seat"] for n in named} == {cheater.seat}
    agreed(host, players[1:])


def test_a_deal_waiting_for_a_slow_phone_names_it_on_every_other_phone() -> None:
    """The progress line under the shuffle bar says whom the deal waits for: a phone that
    reads its frames but has not computed its pass yet (busy, or paused by Android)."""
    host, players, clock = make_table(2, seed=5, rounds=2)
    slow = players[1]  # seat 2: the last shuffler of round 1
    deadline = time.monotonic() + HANG
    notes: set[Any] = set()
    while not notes & {("shuffle", (2,))}:
        assert time.monotonic() < deadline, notes
        for side in (host, *players):
            slow_step(side) if side is slow else side.step(0.001)
        notes |= {p.phone.shuffle_note for p in (host, players[0]) if p.phone is not None}
    # the slow phone itself is not told to wait for itself
    assert slow.phone.shuffle_note is None or 2 not in slow.phone.shuffle_note[1]
    run(host, players, clock, until=lambda: finished(host, players))
    assert host.phone.shuffle_note is None  # (nothing shuffles: the bar is gone)
    agreed(host, players)
