"""A scripted casino table of three players, driven through each phone's copy without
sockets: seed 004's cases with several players (betting behind, an owner's double
followed by one bettor behind and not by another, triple seven, the dealer-busts bet,
even money, insurance), time-outs, and the checks every phone makes of the log."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

import pytest

from app.cards import Card
from app.protocol.keys import Identity
from app.rules.errors import IllegalAction
from app.rules.table_rules import TableRules
from app.table.casino.messages import (
    CAgree,
    CBack,
    CBegin,
    CDeal,
    CIntent,
    CKey,
    CLeft,
    CNo,
    COpenBets,
    CPlayer,
    CResume,
    CShoe,
    CTimeout,
)
from app.table.casino.phone import CasinoPhone, cut_range, networked_rules
from app.table.dealer import DeckVerdict
from app.table.errors import TableError
from app.table.messages import MESSAGES, decode, encode
from tests.casino_net import GROUP

RULES = TableRules.preset("european", decks=1, penetration=1)
IDS = {p: Identity.generate(GROUP) for p in ("p0", "p1", "p2")}


class ScriptedShoe:
    """A shoe dealer whose shoes hold the given cards first (tests only)."""

    def __init__(self, seat: int, cards: str) -> None:
        self.seat = seat
        self._cards = [Card.parse(c).code for c in cards.split()]
        self.opened: list[tuple[int, int]] = []

    ready = True
    fingerprint = "scripted"

    def hello(self) -> list[bytes]:
        return []

    def leave_out(self, seat: int) -> list[bytes]:
        return []

    def authenticate(self, frame: bytes) -> None:
        pass

    def handle(self, frame: bytes) -> list[bytes]:
        return []

    def has_work(self) -> bool:
        return False

    def work(self) -> list[bytes]:
        return []

    def start_shoe(self, shoe: int, order: Sequence[int], decks: int) -> list[bytes]:
        return []

    def shuffled(self, shoe: int) -> bool:
        return True

    def cut(self, shoe: int, low: int, high: int) -> int:
        return high

    def open(self, shoe: int, positions: Sequence[int]) -> list[bytes]:
        self.opened += [(shoe, p) for p in positions]
        return []

    def card(self, shoe: int, position: int) -> int | None:
        if (shoe, position) not in self.opened:
            return None
        return self._cards[position] if position < len(self._cards) else position % 52

    def progress(self, shoe: int) -> float:
        return 1.0

    def waiting_for(self, shoe: int) -> set[int]:
        return set()

    def keys_owed(self, shoe: int) -> set[int]:
        return set()

    def disputed(self, shoe: int) -> bool:
        return False

    def dropped(self, seat: int) -> None:
        pass

    def finish_shoe(self, shoe: int) -> list[bytes]:
        return []

    def verdict(self, shoe: int) -> DeckVerdict | None:
        return DeckVerdict(True)


def begin() -> CBegin:
    players = tuple(
        CPlayer(p, i, f"P{i}", format(IDS[p].sign_pub, "x"), Fraction(1000))
        for i, p in enumerate(IDS)
    )
    return CBegin("ab" * 16, RULES, players, ((1, "p0"), (2, "p1"), (3, "p2")), 10, 10, False)


def table(cards: str) -> list[CasinoPhone]:
    """Every player's phone (each with the same scripted shoe)."""
    b = begin()
    return [CasinoPhone(p, b, ScriptedShoe(i, cards), GROUP, IDS[p]) for i, p in enumerate(IDS)]


class Log:
    """The host's announcements, applied to every phone in order."""

    def __init__(self, phones: list[CasinoPhone]) -> None:
        self.phones = phones
        self.n = dict.fromkeys(IDS, 0)

    def announce(self, *messages: object) -> None:
        for m in messages:
            for phone in self.phones:
                phone.receive(m)  # type: ignore[arg-type]

    def intent(self, player: str, act: str, box: int = 0, amount: int = 0) -> None:
        self.n[player] += 1
        phone = self.phones[0]
        unsigned = CIntent(player, self.n[player], phone.round_no, act, box, Fraction(amount))
        sig = IDS[player].sign(b"blu21/casino-intent", unsigned.signed_bytes(phone.table))
        intent = replace(unsigned, sig=sig.hex())
        phone.check(intent)  # what the host checks before relaying
        self.announce(intent)


ROUND_1 = "6s As 7c 6d 5h Kd 7d Th 7h 9c Kc"
ROUND_2 = "Ac 9h Ts Ad Qh 8s 5c Kc"


def test_seed_004_with_three_players_at_one_table() -> None:
    phones = table(ROUND_1 + " " + ROUND_2)
    log = Log(phones)
    log.announce(CShoe(1, (0, 1, 2), 1), COpenBets(1))
    log.intent("p0", "bet", 1, 20)
    log.intent("p1", "bet", 1, 10)  # behind p0's box
    log.intent("p2", "bet", 1, 10)  # behind too
    log.intent("p1", "bet", 2, 10)
    log.intent("p2", "bet", 3, 10)
    log.intent("p2", "side_bet", 0, 10)  # the dealer busts
    for p in IDS:
        log.intent(p, "done")
    log.announce(CDeal(1))
    # box 1: 6+5, the owner doubles; p1 follows, p2 does not
    log.intent("p0", "double")
    log.intent("p1", "follow_double")
    log.intent("p2", "decline_double")
    # box 2: a blackjack; box 3: 7+7, a hit brings the third seven (paid 3:2 at once)
    log.intent("p2", "hit")
    for phone in phones:
        assert phone.fault is None, phone.fault
        assert phone.round is not None and phone.round.settled
        net = phone.records[1].net
        assert net == {"p0": 40, "p1": 20 + 15, "p2": 10 + 15 + 25}
        assert phone.records[1].house == -125
        assert phone.conservation() == phone.total == 3000
    assert len({p.records[1].digest for p in phones}) == 1

    # Round 2: the dealer shows an ace. Even money for the owner's blackjack, insurance
    # behind it; p2 lets his time run out twice (no insurance, then stand).
    log.announce(COpenBets(2))
    log.intent("p0", "bet", 1, 10)
    log.intent("p1", "bet", 1, 10)
    log.intent("p1", "bet", 2, 10)
    log.intent("p2", "bet", 3, 10)
    log.announce(CDeal(2))
    log.intent("p0", "even_money", 1)
    log.intent("p1", "insure", 1, 5)
    log.intent("p1", "decline_insurance", 2)
    log.announce(CTimeout(2, "p2"))
    log.intent("p1", "stand")
    log.announce(CTimeout(2, "p2"))
    for phone in phones:
        assert phone.fault is None, phone.fault
        assert phone.records[2].net == {"p0": 10, "p1": 10 + 0 - 10, "p2": -10}
        assert phone.players_chips() == {"p0": 1050, "p1": 1035, "p2": 1040}
        assert phone.house == -125
        assert phone.conservation() == phone.total
    assert len({p.records[2].digest for p in phones}) == 1


def _round_one(cards: str = ROUND_1) -> tuple[list[CasinoPhone], Log]:
    phones = table(cards)
    log = Log(phones)
    log.announce(CShoe(1, (0, 1, 2), 1), COpenBets(1))
    return phones, log


def test_a_forged_or_replayed_intent_in_the_log_names_the_host() -> None:
    phones, log = _round_one()
    log.intent("p1", "bet", 2, 10)
    good = CIntent("p1", 1, 1, "bet", 2, Fraction(10))
    phones[0].receive(good)  # replayed (and unsigned)
    assert phones[0].fault is not None and phones[0].fault.player == "p0"
    forged = CIntent("p1", 2, 1, "bet", 2, Fraction(20))
    sig = IDS["p2"].sign(b"blu21/casino-intent", forged.signed_bytes(phones[1].table))
    phones[1].receive(replace(forged, sig=sig.hex()))  # signed with p2's key
    assert phones[1].fault is not None and phones[1].fault.code == "forged_intent"


def test_an_event_the_rules_refuse_names_the_host() -> None:
    phones, log = _round_one()
    log.announce(CDeal(1))  # nobody has bet
    assert all(p.fault is not None and p.fault.player == "p0" for p in phones)
    assert all(p.fault.code == "no_bets" for p in phones if p.fault)


def test_a_timeout_for_a_player_nobody_waits_for_names_the_host() -> None:
    phones, log = _round_one()
    log.intent("p1", "bet", 2, 10)
    log.announce(CDeal(1))
    assert phones[0].deciders() == ("p1",)
    log.announce(CTimeout(1, "p2"))
    assert phones[0].fault is not None and phones[0].fault.code == "not_waiting"


def test_my_own_phone_refuses_an_intent_before_sending() -> None:
    phones, _ = _round_one()
    with pytest.raises(IllegalAction) as exc:
        phones[1].intent("bet", 1, Fraction(10))  # behind box 1 before its owner bet
    assert exc.value.code == "owner_first"
    with pytest.raises(IllegalAction):
        phones[1].intent("bet", 2, Fraction(5000))
    assert phones[1].sent == 0  # nothing was signed for sending


def test_peek_tables_are_played_without_a_peek() -> None:
    r = networked_rules(TableRules.preset("classic"))
    assert r.hole_card == "enhc"
    assert networked_rules(RULES) == RULES
    assert cut_range(52, Fraction(1, 2)) == (21, 26)
    assert cut_range(52, 1) == (47, 52)


@pytest.mark.parametrize(
    "body",
    [
        b'{"t":"c_intent","player":"p9","n":1,"round":1,"act":"bet","sig":"00"}',
        b'{"t":"c_intent","player":"p1","n":0,"round":1,"act":"bet","sig":"' + b"0" * 40 + b'"}',
        b'{"t":"c_intent","player":"p1","n":1,"round":1,"act":"deal","sig":"' + b"0" * 40 + b'"}',
        b'{"t":"c_intent","player":"p1","n":1,"round":1,"act":"card","sig":"' + b"0" * 40 + b'"}',
        b'{"t":"c_intent","player":"p1","n":1,"round":1,"act":"bet","amount":-5,"sig":"'
        + b"0" * 40
        + b'"}',
        b'{"t":"c_intent","player":"p1","n":1,"round":1,"act":"bet","amount":1.5,"sig":"'
        + b"0" * 40
        + b'"}',
        b'{"t":"c_left","player":"p1","reason":"bored","dead":[]}',
        b'{"t":"c_left","player":"p1","reason":"left","dead":[[0,1]]}',
        b'{"t":"c_shoe","shoe":1,"order":[0,0],"decks":1}',
        b'{"t":"c_shoe","shoe":1,"order":[0,1],"decks":9}',
        b'{"t":"c_agree","player":"p1","round":1,"digest":"xyz","sig":"00"}',
        b'{"t":"c_begin","table":"00","rules":{},"players":[]}',
        b'{"t":"c_key","key":"zz","sig":"00"}',
    ],
)
def test_malformed_casino_messages_are_refused(body: bytes) -> None:
    with pytest.raises(TableError) as exc:
        decode(b"\x01" + body)
    assert exc.value.code == "bad_message"


def test_casino_messages_round_trip() -> None:
    b = begin()
    assert decode(encode(b)) == b
    i = CIntent("p1", 3, 2, "insure", 1, Fraction(15, 2), "ab" * 20)
    assert decode(encode(i)) == i


def test_every_casino_message_type_round_trips() -> None:
    """Each casino message type (registered with the table's decode) travels intact."""
    b = begin()
    samples = [
        CKey("ab", "cd" * 20),
        CIntent("p1", 3, 2, "insure", 1, Fraction(15, 2), "ab" * 20),
        CAgree("p2", 4, "0f" * 32, "ab" * 20),
        b.players[1],
        b,
        CShoe(2, (0, 2), 6),
        COpenBets(3),
        CDeal(3),
        CTimeout(3, "p2"),
        CLeft("p2", "stalled", ((2, 17),)),
        CBack("p2", "abc", 4),
        CNo(7, "wrong_phase"),
        CResume(b, {"round": 3}),
    ]
    assert {type(m) for m in samples} == {m for m in MESSAGES.values() if m.TYPE.startswith("c_")}
    for m in samples:
        assert decode(encode(m)) == m
