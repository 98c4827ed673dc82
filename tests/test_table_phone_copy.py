"""What both games' phone copies share (app/table/phone_copy.py), over real TCP links:
the round-end hook and the fairness record, and the Oczko guest's own check of its
decisions before it sends them (as the casino guest checks its intents)."""

from __future__ import annotations

import dataclasses

import pytest
import table_net

from app.rules.errors import IllegalAction
from app.rules.oczko.actions import ActionKind
from app.rules.table_rules import TableRules
from app.table.casino.messages import money_wire
from app.table.clock import FakeClock
from app.table.messages import Act
from app.table.oczko.guest import simple_bot
from app.table.phone_copy import RoundEnd
from tests.casino_net import open_table as open_casino
from tests.casino_net import run

HANG = table_net.HANG  # a guard against a hung test, not a speed target


def oczko_table(guests: int, *, seed: int, rounds: int, bots: bool):
    host, players, _ = table_net.open_dealer_table(
        guests, seed=seed, rounds=rounds, bot=simple_bot if bots else None
    )
    return host, players


def engine_code(phone, kind: ActionKind, seat: int) -> str:
    """The code the phone's own engine refuses ``kind`` of ``seat`` with now."""
    with pytest.raises(IllegalAction) as caught:
        phone.match.verify(kind, seat)
    return caught.value.code


def test_an_oczko_guest_refuses_its_own_illegal_decision_and_sends_nothing() -> None:
    host, (guest, other) = oczko_table(2, seed=3, rounds=1, bots=False)
    table_net.pump(
        host, guest, other, until=lambda: host.phone.match.to_act == 0 and host.book.turn_key
    )
    table_net.pump(host, guest, other, until=lambda: guest.phone.match.to_act == 0)
    sent: list[object] = []
    real_send = guest.send
    guest.send = lambda link, message: sent.append(message) or real_send(link, message)
    # Not his turn (the host's): refused with the code the engine gives, nothing sent.
    expected = engine_code(guest.phone, ActionKind.DRAW, guest.seat)
    assert expected == "not_your_turn"
    for action in ("draw", "hold"):
        with pytest.raises(IllegalAction) as caught:
            guest.act(action)
        assert caught.value.code == expected
    with pytest.raises(IllegalAction) as caught:
        guest.act("fold")  # no such decision at Oczko
    assert caught.value.code == "bad_action"
    assert sent == []
    # His turn: the same decision goes out, once.
    host.act("hold")
    table_net.pump(host, guest, other, until=lambda: guest.phone.match.to_act == guest.seat)
    guest.act("hold")
    acts = [m for m in sent if isinstance(m, Act)]
    assert acts == [Act(guest.phone.match.round.number, "hold")]
    host.close()


def test_every_oczko_phone_reports_each_scored_round_with_its_audit() -> None:
    host, players = oczko_table(2, seed=7, rounds=2, bots=True)
    sides = [host, *players]
    table_net.pump(*sides, until=lambda: all(s.phone is not None for s in sides), timeout=HANG)
    seen: dict[int, list[RoundEnd]] = {i: [] for i in range(len(sides))}
    for i, side in enumerate(sides):
        assert side.phone.match.history == ()  # (the hook is in before a round is scored)
        side.phone.on_round_end = seen[i].append
    table_net.pump(*sides, until=lambda: all(s.phone.match.over for s in sides), timeout=HANG)
    played = [h.number for h in host.phone.match.history]
    assert played
    for i, side in enumerate(sides):
        phone = side.phone
        assert [r.number for r in seen[i]] == played  # once per scored round, in order
        ended = [e for e in phone.log if e["event"] == "round_ended"]
        for record, end in zip(seen[i], ended, strict=True):
            assert record.game == "oczko" and record.audit is True and record.cheaters == ()
            assert record.fingerprint == phone.dealer.fingerprint
            assert record.units and set(record.units) <= set(phone.decks_of(record.number))
            assert dict(record.result) == end
            assert record.events[0]["event"] == "round_started"
            assert record.events[-1] == end
            assert [s for s, _ in record.players] == end_order(record)
        # the fairness record: the set-up's fingerprint and each deck's verdict
        fairness = phone.fairness
        assert fairness.unit == "deck" and fairness.fingerprint == phone.dealer.fingerprint
        assert fairness.ok is True
        assert {d for r in seen[i] for d in r.units} <= {d for d, _ in fairness.verdicts}
    # the records are values: nothing a listener does changes them
    record = seen[0][0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.audit = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        record.result["winner"] = 5  # type: ignore[index]
    host.close()


def test_a_failing_round_end_hook_changes_nothing_at_the_table() -> None:
    host, players = oczko_table(2, seed=7, rounds=2, bots=True)
    sides = [host, *players]
    table_net.pump(*sides, until=lambda: all(s.phone is not None for s in sides), timeout=HANG)
    calls: list[int] = []

    def broken(record: RoundEnd) -> None:
        calls.append(record.number)
        raise RuntimeError("a listener's bug")

    for side in sides:
        side.phone.on_round_end = broken
    table_net.pump(*sides, until=lambda: all(s.phone.match.over for s in sides), timeout=HANG)
    assert calls  # it was called, and its failure stopped nobody
    assert all(s.phone.violation is None and not s.phone.waiting for s in sides)
    assert len({(s.phone.match.winner, s.phone.match.points) for s in sides}) == 1
    host.close()


def end_order(record: RoundEnd) -> list[int]:
    return list(record.events[0]["order"])


RULES = TableRules.preset("european", decks=1, penetration="1/2")


def test_every_casino_phone_reports_each_round_and_again_with_its_shoe_audit() -> None:
    clock = FakeClock()
    host, guests = open_casino(3, RULES, clock=clock, seed=5, start=False)
    sides = [host, *guests]
    seen: dict[int, list[RoundEnd]] = {i: [] for i in range(len(sides))}
    for i, guest in enumerate(guests, 1):
        guest.on_round_end = seen[i].append  # (handed to the phone the guest makes)
    host.start()
    host.phone.on_round_end = seen[0].append  # (the host's phone is made by start())
    run(sides, lambda: all(g.phone is not None for g in guests), clock)
    assert all(not side.phone.records for side in sides)

    def audited() -> bool:
        return all(any(r.audit is not None for r in seen[i]) for i in seen)

    run(sides, audited, clock)
    for i, side in enumerate(sides):
        phone = side.phone
        first = {r.number: r for r in reversed(seen[i])}  # each round's first record
        for number, record in first.items():
            assert record.game == "blackjack" and record.audit is None  # the shoe plays on
            assert number in phone.records
            net = {pid: money_wire(v) for pid, v in phone.records[number].net.items()}
            assert dict(record.result["net"]) == net
            assert record.result["house"] == money_wire(phone.records[number].house)
            assert record.fingerprint == phone.dealer.fingerprint
            assert record.units  # the shoes its cards came from
            names = {p.seat: p.name for p in phone.players.values()}
            assert all(names[s] == n for s, n in record.players)
            kinds = [e["event"] for e in record.events]
            assert kinds[0] == "bet" and kinds[-1] == "round_settled"
        again = [r for r in seen[i] if r.audit is not None]
        assert again and all(r.audit is True and r.cheaters == () for r in again)
        for record in again:  # the same round, now with its verdict
            assert dataclasses.replace(record, audit=None) == first[record.number]
            assert all(u in phone.audits and phone.audits[u].ok for u in record.units)
        # the fairness record the casino screen shows, as Oczko's
        fairness = phone.fairness
        assert fairness.unit == "shoe" and fairness.fingerprint == phone.dealer.fingerprint
        assert fairness.ok is True and fairness.verdicts
        assert side.snapshot().fairness == fairness  # (what the casino screen renders)
    host.close()
