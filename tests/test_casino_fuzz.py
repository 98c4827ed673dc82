"""The casino table under the fuzz and flood tests of the Oczko table (issue 30): a
seated guest and a stranger that deviate at random (the Oczko deviations, plus signed
intents of any act, box and amount, huge fractions included, refused-intent floods,
forged round digests, shoe frames far ahead, EVIDENCE floods), and a host sending random
casino events to its guests, against the real host and honest guests over TCP
(127.0.0.1), with the SRA shoe on the small test group. Only the attacker is modified.

Invariants, in every session: no exception escapes an honest phone's loop; nobody
honest is dropped or named; every hostile input is refused by an explicit check (the
lobby's last-resort guard is never needed); the honest phones agree on every round.

CI runs fixed seeds plus one fresh seed, printed (rerun it with BLU21_FUZZ_SEED=N).
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from protocol_tools import send
from test_table_fuzz import _WRONG, Attacker, _fresh_seed

from app.bluetooth.errors import TransportError
from app.bluetooth.tcp import TcpTransport
from app.protocol.keys import DeterministicRng
from app.protocol.messages import Kind
from app.rules.table_rules import TableRules
from app.table.casino.digests import AGREE_CONTEXT
from app.table.casino.guest import CasinoGuest
from app.table.casino.host import CasinoHost
from app.table.casino.messages import INTENTS, CAgree, CIntent
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from app.table.messages import CONTROL, MESSAGES, PROTOCOL, ProtocolFrame
from tests.casino_net import GROUP, HANG, open_table, quiet, run, settled

RULES = TableRules.preset("european", decks=1, penetration="1/2")
_AMOUNTS: list[Any] = [
    Fraction(10),
    Fraction(21, 2),
    Fraction(-5),
    Fraction(10) + Fraction(1, 10**2200 + 1),
    Fraction(10**13),
    Fraction(1, 3),
    Fraction(0),
]


def _factory(seed: int) -> Any:
    def factory(seat: int, players: int) -> SraShoe:
        return SraShoe(seat, players, group=GROUP, rng=DeterministicRng(seed * 10 + seat))

    return factory


class CasinoAttacker(Attacker):
    """The Oczko fuzz's deviations, and a casino guest's own: ``side`` is the seated
    attacker's phone (its key signs his intents), None for a stranger."""

    def __init__(self, rng: random.Random, link: Any, side: CasinoGuest | None) -> None:
        super().__init__(rng, link, None if side is None else side.seat)
        self.side = side

    def act(self, deck: int) -> str:
        if self.side is not None and self.side.phone is not None:
            self.dealer = self.side.phone.dealer
        kinds = ["wrong_type", "control_garbage", "ping_flood", "protocol_garbage"]
        kinds += ["forged", "far_ahead", "stream_garbage", "oversize", "big_control", "join"]
        if self.side is not None and self.side.phone is not None:
            kinds += ["signed_junk", "replay", "evidence_flood", "budget_flood"]
            kinds += ["bad_intent", "intent_flood", "bad_agree"]
        kind = self.rng.choice(kinds)
        getattr(self, kind)(deck)
        return kind

    def _intent(self, act: str, box: int, amount: Fraction, later: int = 0) -> None:
        side = self.side
        assert side is not None and side.phone is not None
        phone = side.phone
        n = max(phone.players[side.me].n, phone.sent) + 1 + later
        rnd = phone.round_no + self.rng.choice([0, 0, 0, 1, -1])
        unsigned = CIntent(side.me, n, max(0, rnd), act, box, amount)
        sig = side.identity.sign(b"blu21/casino-intent", unsigned.signed_bytes(phone.table))
        intent = replace(unsigned, sig=sig.hex())
        if amount < 0 or amount.denominator > 10**6 or amount > 10**12:
            body = intent.to_json()  # (past what this phone's own encoder would send)
            body["amount"] = f"{'-' if amount < 0 else ''}{abs(amount)}"
            self._send(CONTROL + json.dumps(body).encode())
        else:
            with contextlib.suppress(TransportError):
                side.send(self.link, intent)

    def bad_intent(self, deck: int) -> None:
        act = self.rng.choice(INTENTS)
        self._intent(act, self.rng.randrange(0, 9), self.rng.choice(_AMOUNTS))

    def intent_flood(self, deck: int) -> None:
        for k in range(40):
            self._intent("leave_box", 7, Fraction(0), later=k)

    def bad_agree(self, deck: int) -> None:
        side = self.side
        assert side is not None and side.phone is not None
        phone = side.phone
        rnd = max(1, phone.round_no + self.rng.choice([0, 1, 5]))
        unsigned = CAgree(side.me, rnd, self.rng.randbytes(32).hex())
        sig = side.identity.sign(AGREE_CONTEXT, unsigned.signed_bytes(phone.table))
        with contextlib.suppress(TransportError):
            side.send(self.link, replace(unsigned, sig=sig.hex()))

    def far_ahead(self, deck: int) -> None:
        seat = self._seat()
        if seat is None:
            super().far_ahead(deck)
            return
        msg = send(seat, Kind.SHUFFLE, deck + self.rng.choice([1, 5, 10**6]), values=(4, 9))
        self._send(PROTOCOL + msg.encode(GROUP))


def _step_all(sides: list[Any]) -> None:
    for side in sides:
        if not side.closed or isinstance(side, CasinoHost):
            side.step(0.001)  # an exception here fails the session: nothing may escape


def session(seed: int, rounds: int = 3) -> dict[str, int]:
    """One seeded casino session with deviating phones; asserts the invariants."""
    rng = random.Random(seed)
    clock = FakeClock()
    host, guests = open_table(3 + (rng.random() < 0.3), RULES, clock=clock, factory=_factory(seed))
    bad = guests[-1]
    honest = [host, *guests[:-1]]
    attackers = [CasinoAttacker(rng, bad.link, bad)]
    if rng.random() < 0.6:
        attackers.append(CasinoAttacker(rng, TcpTransport().connect(host.address, timeout=5), None))
    deviations: dict[str, int] = {}
    deadline = time.monotonic() + HANG  # a hung test, not a speed target
    ticks = 0
    sides = [host, *guests]
    while not (host.over or (host.phone is not None and host.phone.round_no > rounds)):
        assert time.monotonic() < deadline, f"seed {seed}: the table stalled"
        _step_all(sides)
        ticks += 1
        if quiet(sides):  # the table's time never passes mid-step
            clock.advance(0.5)
        if ticks % 5 == 0 and rng.random() < 0.5 and host.phone is not None:
            attacker = rng.choice(attackers)
            kind = attacker.act(host.phone.newest_shoe())
            deviations[kind] = deviations.get(kind, 0) + 1
    for _ in range(30):  # the last frames in flight
        _step_all(sides)
    assert not host.over, (seed, host._notes, deviations)
    for n in host.notices:
        if n.code == "player_left":
            assert n.details["seat"] == bad.seat, (seed, n, deviations)
            assert not str(n.details.get("detail", "")).startswith("refused:"), (seed, n)
    for s in honest:
        assert s.phone.fault is None, (seed, s.me, s.phone.fault)
        assert all(s.phone.players[h.me].present for h in honest), (seed, s.me)
        named = {n.params.get("player") for n in s._notes if n.code == "cheat_named"}
        assert named <= {bad.me}, (seed, s.me, named)
    for g in honest[1:]:
        assert not g.closed, (seed, g.me, g.notices[-3:])
        assert not any(n.code in ("host_violation", "violation") for n in g.notices), (seed,)
    done = min(max(s.phone.records, default=0) for s in honest)
    for rnd in range(1, done + 1):
        assert len({s.phone.records[rnd].digest for s in honest}) == 1, (seed, rnd)
    host.leave()
    for g in guests:
        g.link.close(linger=0)
    for attacker in attackers:
        attacker.link.close(linger=0)
    return deviations


@pytest.mark.parametrize("seed", [*range(12), _fresh_seed("casino_fuzz/guests")])
def test_deviating_phones_never_crash_or_drop_an_honest_one_at_the_casino(seed: int) -> None:
    session(seed)


# -- a host that deviates ----------------------------------------------------------------

_POOL: dict[str, list[Any]] = {
    "player": ["p0", "p1", "p2", "p5"],
    "n": [1, 2, 50],
    "round": [0, 1, 2, 3],
    "act": ["bet", "stand", "hit", "take_box", "done", "insure"],
    "box": [0, 1, 2, 7],
    "amount": [10, "21/2", "1/3", 0],
    "sig": ["ab" * 20],
    "digest": ["00" * 32],
    "shoe": [1, 2, 3, 9],
    "order": [[0, 1], [0, 1, 2], [1, 2]],
    "decks": [1, 2],
    "reason": ["left", "cheat", "flood"],
    "dead": [[], [[1, 3]], [[2, 0]]],
    "key": ["abc", "f" * 64],
    "code": ["not_now", "wrong_round"],
}


def random_event(rng: random.Random) -> bytes:
    """A casino control message, its fields plausible values (or wrong ones)."""
    cls = rng.choice([c for t, c in MESSAGES.items() if t.startswith("c_")])
    body: dict[str, Any] = {"t": cls.TYPE}
    for name in cls.__dataclass_fields__:
        pool = _POOL.get(name)
        if rng.random() < 0.1 or pool is None:
            body[name] = rng.choice(_WRONG) if rng.random() < 0.5 else "x"
        else:
            body[name] = rng.choice(pool)
    return CONTROL + json.dumps(body).encode()


def host_session(seed: int, rounds: int = 2) -> None:
    """The host's phone deviates: random casino events, garbage and shoe junk to its
    guests amid a normal table. No guest raises; a guest names only the host."""
    rng = random.Random(seed)
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, factory=_factory(seed))
    deadline = time.monotonic() + HANG  # a hung test, not a speed target
    ticks = 0
    sides = [host, *guests]
    while not host.over and not all(g.closed for g in guests):
        if host.phone is not None and host.phone.round_no > rounds:
            break
        assert time.monotonic() < deadline, f"seed {seed}: the table stalled"
        _step_all(sides)
        ticks += 1
        if quiet(sides):
            clock.advance(0.5)
        if ticks % 5 == 0 and rng.random() < 0.3:
            victim = rng.choice([g for g in guests if g.seat is not None])
            link = host.link_of(victim.seat)
            if link is None:
                continue
            with contextlib.suppress(TransportError):
                if rng.random() < 0.7:
                    link.send(random_event(rng))
                else:
                    link.send(PROTOCOL + rng.randbytes(rng.randrange(0, 300)))
    for g in guests:
        for n in g._notes:
            if n.code == "cheat_named":
                assert n.params.get("player") == "p0", (seed, n)  # only the host named
        for n in g.notices:
            refused = str(n.details.get("detail", "")).startswith("refused:")
            assert not (n.code == "host_violation" and refused), (seed, n)
    host.leave()
    for g in guests:
        g.link.close(linger=0)


@pytest.mark.parametrize("seed", [*range(10), _fresh_seed("casino_fuzz/host")])
def test_a_deviating_casino_host_never_crashes_a_guest(seed: int) -> None:
    host_session(seed)


# -- a race the fuzz found -----------------------------------------------------------------


def test_a_card_a_guest_opened_before_the_host_is_not_voided_when_a_shuffler_leaves() -> None:
    """p1's phone opens the deal's first card as soon as the host's and p2's keys are
    in; its own key is still on its way to the host. p2 leaves then. The host said the
    shoe stood only up to the first card open on its own phone: p1 named the honest
    host for voiding a card it had opened (``voided_open_card``; the fuzz's sessions
    1 in 3 under load). Now it stands up to the first card whose key of p2 never came
    (every key of his reached the others through the host), and nobody is named."""
    clock = FakeClock()
    host, (p1, p2) = open_table(3, RULES, clock=clock, factory=_factory(11))
    sides = [host, p1, p2]
    held: list[Any] = []
    send = p1.send

    def slow(link: Any, message: Any) -> bool:  # p1's shoe frames wait on a slow link
        if isinstance(message, ProtocolFrame):
            held.append(message)
            return True
        result: bool = send(link, message)
        return result

    run(sides, lambda: all(s.phone.stage.value == "betting" for s in sides), clock)
    p1.send = slow  # type: ignore[method-assign]
    shoe = host.phone.live_shoe().shoe
    run(sides, lambda: p1.phone.dealer.card(shoe, 0) is not None, clock)
    assert host.phone.dealer.card(shoe, 0) is None  # (p1's key has not come)
    p2.link.close(linger=0)
    told = lambda: any(n.code == "player_left" for n in p1._notes)  # noqa: E731
    run([host, p1], lambda: told() or p1.closed, clock)  # (his CLeft, dead points in)
    p1.send = send  # type: ignore[method-assign]
    for message in held:
        send(p1.link, message)
    rest = [host, p1]
    run(rest, settled(rest, 2), clock)
    assert not p1.closed and p1.phone.fault is None, p1.notices[-3:]
    assert not any(n.code == "cheat_named" for n in p1._notes)
