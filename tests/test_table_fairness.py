"""Fairness at the table (issue 13): cheats by one modified phone against the real
HostTable, GuestTable and SraDealer over TCP links (tests/cheats.py holds the cheating
dealers). Each must end the same way on every honest phone: the cheater named and
removed, nobody honest blamed or dropped, no point from the cheated round for him,
and play going on without him."""

from __future__ import annotations

import pytest
from cheats import (
    FalseComplaint,
    FalsePersian,
    FalseShowdown,
    HiddenBust,
    MinusX,
    RevealingFalseComplaint,
    SilentPersian,
    Stacker,
    Tagger,
    greedy_bot,
    mine,
)
from test_table_sra import departures, finished, make_table, run

from app.cards import Card
from app.protocol.group import DEFAULT_GROUP


def play_out(host, players, clock, cheaters: set[int]) -> list:
    """Run the match to its end on the honest phones; the cheaters may be dropped."""
    honest = [p for p in players if p.seat not in cheaters]
    run(host, players, clock, until=lambda: finished(host, honest) or host.closed)
    return honest


def judged(host, honest, cheaters: set[int], number: int) -> None:
    """Every honest phone: the cheaters named and gone, nobody honest blamed or dropped,
    round ``number`` (the cheated one) void - no point from it - and one result."""
    assert not host.closed, [n for n in host.notices if n.code == "violation"]
    left = departures(host)
    assert {seat for seat, _ in left} == cheaters, left  # (a cheater may also run)
    phones = [host.phone, *(p.phone for p in honest)]
    for side in (host, *honest):
        assert side.phone.violation is None
        assert not side.closed
        named = {n.details["seat"] for n in side.notices if n.code == "cheat_named"} | {
            n.details["seat"]
            for n in side.notices
            if n.code == "player_left" and n.details["reason"] in ("cheat", "stalled")
        }
        assert cheaters <= named, side.notices  # every screen says who cheated
    results = {(p.match.winner, p.match.points, p.match.gone) for p in phones}
    assert len(results) == 1, results
    m = host.phone.match
    assert cheaters <= set(m.gone)
    cheated = m.history[number - 1]
    assert cheated.reason == "void" and cheated.winner is None
    assert all(m.points[c] == sum(r.winner == c for r in m.history) for c in cheaters)
    for p in phones:  # every phone voided that round
        assert {"event": "round_void", "round": number} in p.log


@pytest.mark.parametrize("group", ["toy", "ffdhe2048"])
def test_a_false_persian_21_is_not_scored_and_its_claimer_is_named(group: str) -> None:
    """Finding 1: a guest claims two aces it does not hold and keeps its seed. The
    claim is checked before it opens anywhere: it does not open, the round is void
    and the claimer, who keeps the seed the audit needs, is named and removed."""
    grp = DEFAULT_GROUP if group == "ffdhe2048" else None
    host, players, clock = make_table(2, seed=31, rounds=2, group=grp, dealers={1: FalsePersian})
    cheat = next(p for p in players if p.seat == 1)
    run(host, players, clock, until=lambda: cheat.phone is not None and cheat.phone._told_dealt)
    dealer = cheat.phone.dealer.current
    real = [Card.from_code(dealer._seat.hand(1)[p]) for p in mine(dealer, 1)[:2]]
    assert sorted(c.rank for c in real) != [1, 1]  # he really holds no Persian 21
    honest = play_out(host, players, clock, {1})
    judged(host, honest, {1}, number=1)


def test_a_false_21_at_the_showdown_is_not_scored_and_its_claimer_is_named() -> None:
    """Finding 1 at the showdown: a claim of cards he does not hold (some held by
    others) is never opened; honest phones do not blame the host for a duplicate."""
    host, players, clock = make_table(2, seed=32, rounds=2, dealers={2: FalseShowdown})
    honest = play_out(host, players, clock, {2})
    judged(host, honest, {2}, number=1)


@pytest.mark.parametrize("reveal", [False, True])
def test_a_false_complaint_names_the_complainer_not_the_honest(reveal: bool) -> None:
    """Finding 2: a guest complains about a card that opened fine. Keeping his seed,
    he is named for holding up the audit; revealing it, the audit names him."""
    kind = RevealingFalseComplaint if reveal else FalseComplaint
    host, players, clock = make_table(3, seed=33, rounds=2, dealers={2: kind})
    honest = play_out(host, players, clock, {2})
    judged(host, honest, {2}, number=1)
    if reveal:
        assert ("cheat") in [r for s, r in departures(host) if s == 2]


def test_colluders_cannot_stack_the_deck_through_an_honest_shuffler() -> None:
    """Finding 3: the first shuffler tags two aces by related values, the last shuffler
    finds them and deals them to his partner (a Persian 21). The result does not
    stand: the audit, which checks every pass at its exact positions, names both."""
    host, players, clock = make_table(3, seed=34, rounds=5, dealers={2: Tagger, 1: Stacker})
    run(host, players, clock, until=lambda: host.book.deck >= 3 or host.phone.match.over)
    assert host.phone.match.round.number == 3 and host.phone.match.round.order[0] == 2
    honest = play_out(host, players, clock, {1, 2})
    judged(host, honest, {1, 2}, number=3)


@pytest.mark.parametrize(("guests", "deck"), [(2, 1), (1, 2)])
def test_x_and_minus_x_names_the_shuffler_that_sent_them(guests: int, deck: int) -> None:
    """Finding 5: x and -x in seat 1's pass. The next shuffler (a guest at 3 seats, the
    host at 2 seats in round 2) is not dropped as stalled: seat 1 is named."""
    host, players, clock = make_table(guests, seed=35, rounds=3, dealers={1: MinusX})
    honest = play_out(host, players, clock, {1})
    assert not host.closed
    assert departures(host) == [(1, "cheat")]
    for side in (host, *honest):
        assert side.phone.violation is None and not side.closed


def test_a_guest_hiding_that_he_is_bust_is_named_not_the_host() -> None:
    """Finding 7: his phone says "open" while he is bust, and he holds; his proven
    cards at the showdown contradict it: he is named, not the host."""
    host, players, clock = make_table(2, seed=36, rounds=2, dealers={1: HiddenBust})
    next(p for p in players if p.seat == 1).bot = greedy_bot  # it draws on, past 21
    honest = play_out(host, players, clock, {1})
    judged(host, honest, {1}, number=1)


def test_a_guest_saying_persian_21_without_proof_is_named_not_the_host() -> None:
    host, players, clock = make_table(2, seed=37, rounds=2, dealers={1: SilentPersian})
    honest = play_out(host, players, clock, {1})
    assert departures(host) == [(1, "stalled")]
    for side in (host, *honest):
        assert side.phone.violation is None and not side.closed
    assert len({(p.phone.match.winner, p.phone.match.points) for p in (host, *honest)}) == 1
    assert host.phone.match.points[1] == 0


def test_a_void_round_says_so_in_every_language() -> None:
    from app.i18n import set_language
    from app.rules.oczko import Match
    from app.views.oczko.vm import round_result_text

    m, _ = Match.new(2)
    m, _ = m.void_round()
    texts = set()
    for lang in ("de", "en", "pl"):
        set_language(lang)
        text = round_result_text(m.history[0], ["A", "B"])
        tie = round_result_text(m.history[0].__class__(1, False, None, "tie", ()), ["A", "B"])
        assert text.splitlines()[0] != tie.splitlines()[0]
        texts.add(text.splitlines()[0])
    set_language("en")
    assert len(texts) == 3
