"""The casino shoe over SRA (app/table/casino/sra_shoe.py): 1-8 decks shuffled across 2-7
phones in memory, every card opened to everybody, the cut card from the joint seed,
the next shoe shuffled in the background, and the audit against the opened cards."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_tools import forged, send, tamper_with, withhold
from shoe_net import ShoeKind, ShoeStar, TcpShoeStar

from app.protocol.encoding import DECK_SIZE
from app.protocol.messages import Kind, Message
from app.protocol.transcript import Round
from app.table.casino.shoe_dealer import ShoeDealer
from app.table.casino.sra_shoe import SraShoe, sra_shoe_factory
from app.table.dealer import DealerViolation, DeckVerdict


def deal_out(star: ShoeStar, shoe: int, start: int, end: int, batch: int = 5) -> None:
    """Open positions ``start..end-1`` a few at a time, as casino rounds would."""
    for a in range(start, end, batch):
        star.open(shoe, range(a, min(end, a + batch)))
        star.run()


def agreed(star: ShoeStar, shoe: int, positions: range) -> list[int]:
    """The cards every phone opened (all equal, none missing)."""
    seen = star.cards(shoe, positions)
    assert all(cards == seen[0] for cards in seen), "the phones disagree"
    assert None not in seen[0]
    return [c for c in seen[0] if c is not None]


def audit(star: ShoeStar, shoe: int) -> None:
    star.finish(shoe)
    star.run()
    for p in star.here():
        v = p.verdict(shoe)
        assert v is not None and v.ok and v.cheaters == ()


def test_sra_shoe_is_a_shoe_dealer() -> None:
    shoe: ShoeDealer = sra_shoe_factory()(1, 3)
    assert isinstance(shoe, SraShoe) and shoe.seat == 1 and not shoe.ready
    assert len(shoe.hello()) == 1  # its keys and its table seed's commitment
    assert shoe.fingerprint == "pending" and shoe.waiting_for(0) == {0, 2}


def test_a_shoe_not_started_here_is_asked_about_safely() -> None:
    star = ShoeStar(2, seed=1)
    star.setup()
    phone = star.phones[1]
    assert not phone.shuffled(7) and phone.card(7, 0) is None and not phone.disputed(7)
    assert phone.progress(7) == 0.0 and phone.progress(0) == 1.0
    assert phone.waiting_for(7) == set() and phone.verdict(7) is None
    assert phone.finish_shoe(7) == []
    with pytest.raises(ValueError):
        phone.start_shoe(1, (0, 1), decks=9)


@pytest.mark.parametrize("n", range(2, 8))
def test_a_whole_one_deck_shoe_is_every_card_once_on_every_phone(n: int) -> None:
    star = ShoeStar(n, seed=n)
    star.setup()
    assert len({p.fingerprint for p in star.phones}) == 1
    star.start(1, decks=1)
    star.run()
    assert all(p.shuffled(1) and p.progress(1) == 1.0 for p in star.phones)
    assert all(p.waiting_for(1) == set() for p in star.phones)
    deal_out(star, 1, 0, DECK_SIZE, batch=n + 1)
    cards = agreed(star, 1, range(DECK_SIZE))
    assert sorted(cards) == list(range(DECK_SIZE))
    audit(star, 1)
    assert not any(star.errors.values())


@pytest.mark.parametrize("n", range(2, 8))
def test_several_hundred_cards_of_an_eight_deck_shoe_agree(n: int) -> None:
    star = ShoeStar(n, seed=11)
    star.setup()
    star.start(1, decks=8)
    star.run()
    rnd = star.phones[0]._seat.round(1)
    assert rnd.size == 8 * DECK_SIZE and len(rnd.final) == 20  # locked: the margin only
    deal_out(star, 1, 0, 300, batch=2 * n + 1)
    cards = agreed(star, 1, range(300))
    assert max(Counter(cards).values()) <= 8  # no card more often than there are decks
    assert len(rnd.final) <= 300 + 20 + n  # locked: what was opened, the margin (+ a chunk)
    audit(star, 1)
    deck = star.phones[1]._seat.verdict(1).deck
    assert deck is not None and [c % DECK_SIZE for c in deck[:300]] == cards


def test_the_cut_card_comes_from_the_joint_seed_and_the_shoe() -> None:
    star = ShoeStar(3, seed=4)
    star.setup()
    cuts = {p.cut(5, 100, 300) for p in star.phones}
    assert len(cuts) == 1 and 100 <= cuts.pop() <= 300
    spread = {star.phones[0].cut(shoe, 0, 9) for shoe in range(1, 200)}
    assert spread == set(range(10))  # every position of the range comes up
    other = ShoeStar(3, seed=5)
    other.setup()
    assert [other.phones[0].cut(s, 0, 10**6) for s in (1, 2)] != [
        star.phones[0].cut(s, 0, 10**6) for s in (1, 2)
    ]


def test_the_next_shoe_is_shuffled_while_the_current_one_is_opened() -> None:
    star = ShoeStar(4, seed=2)
    star.setup()
    star.start(1, decks=2)
    star.run()
    deal_out(star, 1, 0, 30)
    star.start(2, decks=2)  # the next shoe, in the background
    star.open(1, range(30, 36))  # a casino round goes on meanwhile
    star.run(until=lambda: all(p.card(1, 35) is not None for p in star.phones))
    assert not any(p.shuffled(2) for p in star.phones)  # the round's cards came first
    star.run()  # while the players think, the next shoe is shuffled
    assert all(p.shuffled(2) for p in star.phones)
    deal_out(star, 1, 36, 80)
    cards = agreed(star, 1, range(80))
    assert max(Counter(cards).values()) <= 2
    star.finish(1)
    deal_out(star, 2, 0, 40)
    agreed(star, 2, range(40))
    star.run()
    assert all(p.verdict(1) == p.verdict(1).__class__(True, ()) for p in star.phones)
    audit(star, 2)
    assert not any(star.errors.values())


# ---------------------------------------------------------------- cheating phones
# Each modifies only the attacker's own phone (its SraShoe), as a cheater can.


class Cheat(SraShoe):
    """A cheating phone: :meth:`tamper` may replace each frame its seat's work makes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keys_sent = 0
        tamper_with(self._seat, self.tamper)

    def tamper(self, rnd: Round, msg: Message) -> list[Message] | None:
        raise NotImplementedError

    def my_pass(self, rnd: Round, msg: Message, last: bool) -> bool:
        """``msg`` is the first frame of my shuffle pass (as the last shuffler or not)."""
        mine = msg.kind == Kind.SHUFFLE and msg.start == 0
        return mine and (rnd.order[-1] == self.seat) == last


class WrongKey(Cheat):
    """Publishes a false key for the first public position of its second KEYS frame."""

    def tamper(self, rnd: Round, msg: Message) -> list[Message] | None:
        if msg.kind != Kind.KEYS:
            return None
        self.keys_sent += 1
        if self.keys_sent != 2:
            return None
        values = ((msg.values[0] * 3) % self._group.q or 1, *msg.values[1:])
        return [forged(self._seat, msg, values=values)]


class SkipsKeys(Cheat):
    """Never publishes its keys from its second KEYS frame on."""

    def tamper(self, rnd: Round, msg: Message) -> list[Message] | None:
        if msg.kind != Kind.KEYS:
            return None
        self.keys_sent += 1
        return None if self.keys_sent < 2 else withhold(self._seat, rnd, msg)


class ReplacesCard(Cheat):
    """A non-last shuffler that replaces one encrypted card by another square."""

    def tamper(self, rnd: Round, msg: Message) -> list[Message] | None:
        if not self.my_pass(rnd, msg, last=False):
            return None
        square = pow(7, 2, self._group.p)
        return [forged(self._seat, msg, values=(square, *msg.values[1:]))]


class DuplicatesCard(Cheat):
    """A non-last shuffler that sends one encrypted card twice."""

    def tamper(self, rnd: Round, msg: Message) -> list[Message] | None:
        if not self.my_pass(rnd, msg, last=False):
            return None
        return [forged(self._seat, msg, values=(msg.values[0], *msg.values[:-1]))]


class LastDuplicates(Cheat):
    """The last shuffler puts the card of position 0 at position 1 too (under position
    1's card key, so no value repeats): a card twice in the shoe, opened as it is."""

    def tamper(self, rnd: Round, msg: Message) -> list[Message] | None:
        if not self.my_pass(rnd, msg, last=True):
            return None
        assert rnd.secret is not None
        first = rnd.stages[-2][rnd.secret.permutation(rnd.size)[0]]
        twin = pow(first, rnd.secret.card_key(1), self._group.p)
        rnd.stages[-1][1] = twin
        return [forged(self._seat, msg, values=(msg.values[0], twin, *msg.values[2:]))]


def cheat_table(n: int, cheater: int, kind: ShoeKind, decks: int, seed: int) -> ShoeStar:
    star = ShoeStar(n, seed=seed, kinds={cheater: kind})
    star.setup()
    star.start(1, decks)
    star.run()
    return star


def open_until_disputed(star: ShoeStar, end: int) -> None:
    for a in range(0, end, 4):
        if any(p.disputed(1) for p in star.here()):
            return
        star.open(1, range(a, min(end, a + 4)))
        star.run()


def assert_named_alone(star: ShoeStar, cheater: int) -> None:
    """Every honest phone names the cheater and nobody else."""
    for p in star.here():
        if p.seat != cheater:
            assert star.named(p.seat) == {cheater}, (p.seat, star.named(p.seat))


@pytest.mark.parametrize(("n", "cheater", "decks"), [(3, 1, 1), (4, 0, 6), (5, 4, 2)])
def test_a_false_key_for_a_public_card_is_named_by_the_audit(n, cheater, decks) -> None:
    star = cheat_table(n, cheater, WrongKey, decks, seed=n)
    open_until_disputed(star, 40)
    honest = [p for p in star.phones if p.seat != cheater]
    assert all(p.disputed(1) for p in honest)
    assert all(p.card(1, 4) is None for p in honest)  # the false key's card did not open
    star.finish(1)
    star.run()
    for p in honest:
        v = p.verdict(1)
        assert v is not None and not v.ok and v.cheaters == (cheater,)
    assert_named_alone(star, cheater)


def test_a_seat_that_keeps_its_key_back_is_who_everybody_waits_for() -> None:
    star = cheat_table(4, 2, SkipsKeys, 2, seed=8)
    star.open(1, range(4))
    star.run()
    assert all(p.card(1, 3) is not None for p in star.phones)
    star.open(1, range(4, 8))
    star.run()
    for p in star.phones:
        if p.seat != 2:
            assert p.card(1, 4) is None and p.waiting_for(1) == {2}
    assert not any(star.errors.values())  # keeping a key back is no frame to blame
    star.drop(2)  # the table gives up on him: the shoe is closed unaudited
    for p in star.here():
        star.post(p.seat, p.finish_shoe(1))
    star.run()
    assert all(p.verdict(1) == DeckVerdict(False, (), unaudited=True) for p in star.here())
    star.start(2, decks=2)  # a fresh shoe without him
    star.run()
    deal_out(star, 2, 0, 12)
    agreed(star, 2, range(12))
    audit(star, 2)


def test_a_replaced_card_is_named_when_it_comes_out() -> None:
    star = cheat_table(3, 0, ReplacesCard, 1, seed=5)
    open_until_disputed(star, DECK_SIZE)
    assert all(p.disputed(1) for p in star.phones)
    star.finish(1)
    star.run()
    for p in star.phones[1:]:
        assert p.verdict(1) == DeckVerdict(False, (0,))
    assert_named_alone(star, 0)


@pytest.mark.parametrize("decks", [1, 8])
def test_a_card_sent_twice_in_a_shuffle_pass_is_refused_at_once(decks: int) -> None:
    star = cheat_table(4, 1, DuplicatesCard, decks, seed=6)
    assert not any(p.shuffled(1) for p in star.phones if p.seat != 1)
    for p in star.phones:
        if p.seat != 1:
            errors = star.errors[p.seat]  # (its later parts then do not fit: named too)
            assert errors[0].code == "duplicate_value" and {e.seat for e in errors} == {1}


@pytest.mark.parametrize("decks", [1, 3])
def test_a_card_the_last_shuffler_put_twice_is_named_by_the_audit(decks: int) -> None:
    star = cheat_table(3, 2, LastDuplicates, decks, seed=9)
    deal_out(star, 1, 0, 8)
    cards = agreed(star, 1, range(8))
    assert cards[0] == cards[1]  # the cheat shows: one card twice in a row
    star.finish(1)
    star.run()
    for p in star.phones[:2]:
        assert p.verdict(1) == DeckVerdict(False, (2,))
    assert_named_alone(star, 2)


# ---------------------------------------------------------------- properties


@settings(max_examples=10, deadline=None)
@given(
    decks=st.integers(1, 8),
    n=st.integers(2, 4),
    opened=st.integers(1, 70),
    batch=st.integers(1, 9),
    seed=st.integers(0, 10**6),
)
def test_opened_cards_are_the_audits_reconstruction(decks, n, opened, batch, seed) -> None:
    opened = min(opened, decks * DECK_SIZE)
    star = ShoeStar(n, seed=seed, margin=1 + seed % 20)
    star.setup()
    star.start(1, decks)
    star.run()
    deal_out(star, 1, 0, opened, batch)
    cards = agreed(star, 1, range(opened))
    assert max(Counter(cards).values()) <= decks
    star.finish(1)
    star.run()
    for p in star.phones:
        v = p._seat.verdict(1)
        assert v is not None and v.ok and v.deck is not None
        assert len(v.deck) >= opened
        assert [c % DECK_SIZE for c in v.deck[:opened]] == cards
        assert sorted(v.deck) == sorted(set(v.deck))  # every code at most once
        assert p.verdict(1) == DeckVerdict(True, ())


def test_a_phone_that_only_follows_a_shoe_opens_its_cards_too() -> None:
    star = ShoeStar(4, seed=3)
    star.setup()
    star.start(1, decks=2, order=(0, 1, 3))  # seat 2 came later: it follows
    star.run()
    deal_out(star, 1, 0, 30)
    agreed(star, 1, range(30))
    assert star.phones[2].waiting_for(1) == set()
    audit(star, 1)


def test_frames_that_are_not_frames_are_a_dealer_violation() -> None:
    star = ShoeStar(3, seed=1)
    star.setup()
    star.start(1, decks=6)
    star.run()
    star.open(1, range(3))
    frames = list(star.queue)
    star.run()
    rng = random.Random(5)
    host, guest = star.phones[0], star.phones[2]
    junk = [b"", b"\x01", bytes(40), b"\xff" * 300]
    for _, frame in frames:
        for _ in range(12):
            mutated = bytearray(frame)
            for _ in range(rng.randint(1, 4)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            junk.append(bytes(mutated))
        junk.append(frame[: rng.randrange(len(frame))])
        junk.append(frame)  # a replay
    for frame in junk:
        for check in (host.authenticate, guest.handle):
            try:
                check(frame)
            except DealerViolation as exc:
                assert isinstance(exc.seat, int) and exc.code
    star.open(1, range(3, 6))  # and the table goes on
    star.run()
    agreed(star, 1, range(6))


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=600))
def test_any_bytes_are_a_dealer_violation_or_nothing(data: bytes) -> None:
    phone = _READY[0].phones[1]
    with contextlib.suppress(DealerViolation):  # any other exception fails the test
        phone.handle(data)


_READY: list[ShoeStar] = []


@pytest.fixture(autouse=True, scope="module")
def _ready_star() -> None:
    star = ShoeStar(2, seed=12)
    star.setup()
    _READY.append(star)


def test_a_shoe_over_real_tcp_links() -> None:
    star = TcpShoeStar(4, seed=21)
    try:
        star.setup()
        star.start(1, decks=8)
        star.run(until=lambda: all(p.shuffled(1) for p in star.phones))
        deal_out_tcp(star, 1, 0, 60)
        star.start(2, decks=1)  # the next shoe in the background
        deal_out_tcp(star, 1, 60, 90)
        star.run(until=lambda: all(p.shuffled(2) for p in star.phones))
        cards = agreed(star, 1, range(90))
        assert max(Counter(cards).values()) <= 8
        star.finish(1)
        star.run(until=lambda: all(p.verdict(1) is not None for p in star.phones))
        assert all(p.verdict(1) == DeckVerdict(True, ()) for p in star.phones)
        deal_out_tcp(star, 2, 0, DECK_SIZE)
        assert sorted(agreed(star, 2, range(DECK_SIZE))) == list(range(DECK_SIZE))
    finally:
        star.close()
    assert not any(star.errors.values())


@pytest.mark.parametrize("cheater", [0, 2])  # the host, a guest
def test_a_false_key_over_real_tcp_links_is_named_on_every_honest_phone(cheater: int) -> None:
    star = TcpShoeStar(3, seed=22, kinds={cheater: WrongKey})
    try:
        star.setup()
        star.start(1, decks=2)
        star.run(until=lambda: all(p.shuffled(1) for p in star.phones))
        deal_out_tcp(star, 1, 0, 4)
        star.open(1, range(4, 8))
        star.run(until=lambda: all(p.disputed(1) for p in star.phones))
        star.finish(1)
        honest = [p for p in star.phones if p.seat != cheater]
        star.run(until=lambda: all(p.verdict(1) is not None for p in honest))
        assert all(p.verdict(1) == DeckVerdict(False, (cheater,)) for p in honest)
        assert_named_alone(star, cheater)
    finally:
        star.close()


def deal_out_tcp(star: TcpShoeStar, shoe: int, start: int, end: int, batch: int = 6) -> None:
    for a in range(start, end, batch):
        last = min(end, a + batch) - 1
        star.open(shoe, range(a, last + 1))
        star.run(until=lambda last=last: all(p.card(shoe, last) is not None for p in star.phones))


def test_signed_nonsense_in_an_eight_deck_shoe_names_its_sender_and_changes_nothing() -> None:
    star = ShoeStar(3, seed=14)
    star.setup()
    star.start(1, decks=8)
    star.run()
    deal_out(star, 1, 0, 6)
    cheater = star.phones[2]._seat
    q = cheater.group.q
    nonsense = [
        (Kind.KEYS, {"values": (5,), "data": b"\x00"}),  # one byte: positions take two
        (Kind.KEYS, {"values": (5,), "data": (416).to_bytes(2, "big")}),  # beyond the shoe
        (Kind.KEYS, {"values": (5, 6), "data": (300).to_bytes(2, "big") * 2}),  # twice
        (Kind.KEYS, {"values": (q,), "data": (7).to_bytes(2, "big")}),  # not an exponent
        (Kind.COMPLAIN, {"data": (399).to_bytes(2, "big")}),  # a position not locked
        (Kind.COMPLAIN, {"data": b"\x01\x02\x03"}),
        (Kind.CLAIM, {"values": (5,), "data": bytes([2, 11, 0, 0])}),  # a shoe has no hands
        (Kind.AUDIT, {"data": bytes(32)}),  # not its committed seed
    ]
    for kind, fields in nonsense:
        star.post(2, [send(cheater, kind, 1, **fields).encode(cheater.group)])
        star.run()
    for p in star.phones[:2]:
        codes = [(e.seat, e.code) for e in star.errors[p.seat]]
        assert len(codes) == len(nonsense) and {s for s, _ in codes} == {2}, codes
        assert not p.disputed(1)
    deal_out(star, 1, 6, 20)  # the shoe goes on
    agreed(star, 1, range(20))
