"""Every value that crosses a casino table is bounded where it is read, with one rule on
every phone (issue 30, findings 2 and the box of a decision): the real host and guests
over TCP loopback on the fake clock, only the attacker's phone modified. A bad value is
refused or its sender removed and named; the table goes on for the others; nothing
raises out of a phone's loop."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.blackjack.actions import Action
from app.rules.blackjack.state import Phase
from app.rules.money import (
    MAX_CHIPS,
    MAX_DENOMINATOR,
    MAX_MONEY_TEXT,
    MoneyError,
    money_json,
    stake_ok,
    table_money,
)
from app.rules.table_rules import TableRules
from app.table.casino.messages import CIntent, CPlayer, money_wire
from app.table.casino.snapshot import CasinoStage
from app.table.clock import FakeClock
from app.table.errors import TableError
from app.table.messages import build, decode, encode
from tests.casino_net import open_table, run, settled

RULES = TableRules.preset("european", decks=1, penetration="1/2")
#: a deal at which p1's box is played (no blackjack of his or the dealer's)
BOX_SEED = 5
#: p1's box (the bots of the host and p2 sit at the first free ones)
BOX = RULES.boxes


def signed(side: Any, act: str, box: int = 0, amount: Fraction = Fraction(0)) -> CIntent:
    """``side``'s next intent signed by its key, past its own phone's check."""
    phone = side.phone
    n = max(phone.players[side.me].n, phone.sent) + 1
    phone._sent_n = n
    unsigned = CIntent(side.me, n, phone.round_no, act, box, amount)
    sig = side.identity.sign(b"blu21/casino-intent", unsigned.signed_bytes(phone.table))
    return replace(unsigned, sig=sig.hex())


def refused(side: Any) -> list[Any]:
    return [n.params.get("code") for n in side._notes if n.code == "intent_refused"]


def bets(side: Any, player: str) -> list[Any]:
    log = side.phone.log
    return [e["amount"] for e in log if e.get("event") == "bet" and e["player"] == player]


def left_for(side: Any, player: str) -> list[str]:
    return [
        e["reason"]
        for e in side.phone.log
        if e.get("event") == "player_left" and e["player"] == player
    ]


def _p1_at_box_one(clock: FakeClock, seed: int) -> tuple[Any, Any, Any, list[Any]]:
    """Host and p2 play by bot; p1 (the test's) sits at box BOX in the first round's bets."""
    host, (p1, p2) = open_table(3, RULES, clock=clock, seed=seed, bots={1: None})
    p1.bot = None
    sides = [host, p1, p2]
    run(sides, lambda: all(s.phone.stage is CasinoStage.BETTING for s in sides), clock)
    p1.take_box(BOX)
    run(sides, lambda: all(s.phone.boxes.get(BOX) == "p1" for s in sides), clock)
    return host, p1, p2, sides


def test_a_bet_with_a_huge_denominator_removes_its_sender_and_the_table_plays_on() -> None:
    """10 + 1/d with d of 2,200 digits: under the old bound it passed, and every phone's
    round digest failed on the chips' text (the host closed the table for everyone, or
    a ValueError left its loop). Now the host reads no such amount: the link that sent
    it is dropped, every phone is told why (``bad_message``), the others play on."""
    clock = FakeClock()
    host, p1, p2, _ = _p1_at_box_one(clock, seed=3)
    d = 10**2200 + 1
    p1.send(p1.link, signed(p1, "bet", BOX, Fraction(10) + Fraction(1, d)))
    rest = [host, p2]
    run(rest, lambda: all(not s.phone.players["p1"].present for s in rest), clock)
    assert left_for(host, "p1") == ["bad_message"] and left_for(p2, "p1") == ["bad_message"]
    run(rest, settled(rest, 3), clock)
    for s in rest:
        assert not s.over and s.phone.fault is None, s.me
        assert s.phone.conservation() == s.phone.total
        assert all(p.chips.denominator <= MAX_DENOMINATOR for p in s.phone.players.values())
    assert host.phone.records[3].digest == p2.phone.records[3].digest
    assert not any(n.code == "cheat_named" for n in p2._notes)  # nobody honest blamed


def test_a_bet_of_a_fraction_of_a_chip_is_refused_by_every_phone_alike() -> None:
    """A bet within the bound but off the table's grid (bets are whole chips) is refused
    by the host with the code every phone's own check gives; the sender stays."""
    clock = FakeClock()
    host, p1, _, sides = _p1_at_box_one(clock, seed=4)
    p1.send(p1.link, signed(p1, "bet", BOX, Fraction(21, 2)))
    run(sides, lambda: bool(refused(p1)), clock)
    assert refused(p1) == ["bad_amount"]
    assert host.phone.round.box_owner(BOX) is None
    p1.act(Action.bet("p1", BOX, 10))  # a whole bet is taken
    run(sides, lambda: all(bets(s, "p1") == [10] for s in sides), clock)
    assert all(s.phone.players["p1"].present for s in sides)


def test_a_decision_for_a_box_not_in_play_is_refused_and_nobody_is_removed() -> None:
    """p1 plays his box; a ``hit`` he signs for box 1 (the host's, played before his)
    while his is in play is refused ``wrong_box`` (before, the box was not checked
    against the hand in play: it hit his); his own decision for his box is then
    taken, and nobody is removed."""
    clock = FakeClock()
    _, p1, _, sides = _p1_at_box_one(clock, seed=BOX_SEED)
    p1.act(Action.bet("p1", BOX, 10))
    p1.bets_done()

    def p1_in_play(s: Any) -> bool:
        r = s.phone.round
        return r.phase is Phase.PLAY and not s.phone.waiting and r.current.box == BOX

    run(sides, lambda: all(p1_in_play(s) or s.phone.round.settled for s in sides), clock)
    assert all(p1_in_play(s) for s in sides)  # (the seed deals no blackjack)
    p1.send(p1.link, signed(p1, "hit", 1))
    run(sides, lambda: bool(refused(p1)), clock)
    assert refused(p1) == ["wrong_box"]
    for s in sides:
        assert p1_in_play(s) and len(s.phone.round.current.cards) == 2, s.me
    p1.send(p1.link, signed(p1, "stand", BOX))
    run(sides, settled(sides, 1), clock)
    for s in sides:
        assert s.phone.fault is None and all(p.present for p in s.phone.players.values())
        assert [e["action"] for e in s.phone.log if e.get("player") == "p1" and "action" in e][
            -1:
        ] == ["stand"]


# -- the one bound, on every phone ---------------------------------------------------------

_amounts = st.one_of(
    st.integers(min_value=-(10**15), max_value=10**15),
    st.fractions(max_denominator=10**5).filter(lambda q: abs(q) < 10**14),
)


@settings(max_examples=150, deadline=None)
@given(_amounts, st.sampled_from(["int", "text", "decimal"]))
def test_an_amount_is_read_exactly_when_it_is_within_the_bound(q: Fraction, form: str) -> None:
    """Whatever form an amount travels in, the table reads it iff its value is
    0..MAX_CHIPS with a denominator of at most MAX_DENOMINATOR, and then exactly; the
    host's reading and a guest's are one function (CIntent and CPlayer both)."""
    q = Fraction(q)
    if form == "int":
        wire: Any = q.numerator if q.denominator == 1 else money_wire(q)
    elif form == "text":
        wire = f"{q.numerator}/{q.denominator}"
    else:
        wire = money_json(q)
    if isinstance(wire, str) and wire.startswith("-") and not wire.replace("-", "").strip():
        return
    ok = 0 <= q <= MAX_CHIPS and q.denominator <= MAX_DENOMINATOR
    ok = ok and (not isinstance(wire, str) or len(wire) <= MAX_MONEY_TEXT)
    try:
        got = table_money(wire)
    except MoneyError:
        assert not ok, (q, wire)
    else:
        assert ok and got == q, (q, wire)
    frame = encode(CIntent("p1", 1, 1, "bet", 1, sig="ab" * 20))
    frame = frame.replace(b'"amount":0', _json_amount(wire))
    try:
        intent = decode(frame)
    except TableError:
        assert not ok, (q, wire)
    else:
        assert ok and isinstance(intent, CIntent) and intent.amount == q
    player = {"pid": "p1", "seat": 1, "name": "A", "key": "ab", "chips": wire}
    try:
        chips = build(CPlayer, player).chips
    except ValueError:
        assert not ok
    else:
        assert ok and chips == q


def _json_amount(wire: Any) -> bytes:
    return b'"amount":' + (f'"{wire}"' if isinstance(wire, str) else str(wire)).encode()


def test_an_amounts_text_is_measured_before_it_is_read() -> None:
    """A text of thousands of digits is refused by its length (reading it as a number
    would cost the phone, or raise past Python's 4,300-digit limit)."""
    for text in ("1" * 5000, "1/" + "3" * 5000, "0." + "0" * 40 + "1"):
        try:
            table_money(text)
        except MoneyError as exc:
            assert "characters" in str(exc)
        else:
            raise AssertionError(text)


def test_the_stake_grid() -> None:
    assert stake_ok("bet", Fraction(10)) and not stake_ok("bet", Fraction(21, 2))
    assert stake_ok("insure", Fraction(15, 2)) and not stake_ok("insure", Fraction(1, 3))
    assert stake_ok("stand", Fraction(0)) and not stake_ok("stand", Fraction(1))
