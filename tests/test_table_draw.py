"""A drawn card at the table (issue 17): what was made faster keeps every check.

The drawer opens his card before he checks the key shares' signatures, the host checks
the frames waiting in its inbox in one batch and relays a drawn card's key shares to
the drawer before any onlooker's copy, and a phone sends what a step produced (a key
share, its ``Drew``) before it computes more. Played in simulated time
(:mod:`app.sim.oczko`), so nothing here depends on the machine's speed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

import pytest

import app.sim.oczko as sim_module
from app.bluetooth.btmodel import link_model
from app.protocol.group import unsafe_test_group
from app.protocol.messages import Kind, Message
from app.sim.oczko import Table, open_table, play
from app.sim.phone_cpu import phone_cpu
from app.table.dealer import OpenDealer
from app.table.messages import Options, ProtocolFrame
from app.table.oczko.phone import PhoneMatch
from app.table.oczko.sra_deck import SraDealer

TOY = unsafe_test_group()
PLAYERS = 4


def _table(
    seed: int,
    dealer_for: Callable[[int], type[SraDealer]] | None = None,
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> Table:
    """A 4-phone table of cheap phones over RFCOMM, every dealer an ``SraDealer`` but
    ``dealer_for(seat)``'s (the guests make theirs when the match begins: the patch
    stays for the test)."""
    if dealer_for is not None and monkeypatch is not None:
        chosen = dealer_for

        def factory(seat: int, players: int, **kwargs: Any) -> SraDealer:
            return chosen(seat)(seat, players, **kwargs)

        monkeypatch.setattr(sim_module, "SraDealer", factory)
    cpus = [phone_cpu("a53-arm64")] * PLAYERS
    return open_table(cpus, link_model("rfcomm"), seed=seed, rounds=3, group=TOY)


def _named(side: Any) -> set[tuple[int, str]]:
    """(seat, code) of every cheat a phone named (its own violation or a notice)."""
    out = set()
    for n in side.notices:
        if n.code in ("cheat_named", "violation") and n.details.get("seat") is not None:
            out.add((n.details["seat"], n.details["code"]))
    return out


def _departures(table: Table) -> list[tuple[int, str]]:
    return [
        (n.details["seat"], n.details["reason"])
        for n in table.host.notices
        if n.code == "player_left"
    ]


class WrongDrawKey(SraDealer):
    """Sends a wrong key (signed by himself) for the first card another player draws."""

    cheated: ClassVar[list[int]] = []

    def _encode(self, messages: list[Message]) -> list[bytes]:
        out = []
        for msg in messages:
            if msg.kind == Kind.KEYS and not WrongDrawKey.cheated and self._is_draw(msg):
                WrongDrawKey.cheated.append(msg.round_id)
                group = self._seat.group
                values = ((msg.values[0] * 3) % group.q, *msg.values[1:])
                body = replace(msg, sig=b"", values=values)
                msg = body.signed(self._seat.identity.sign(self._seat.table_id, body.body(group)))
            out.append(msg)
        return super()._encode(out)

    def _is_draw(self, msg: Message) -> bool:
        rnd = self._seat.round(msg.round_id)
        return len(msg.data) == 1 and msg.data[0] >= 2 * rnd.n  # (past the deal)


def test_a_wrong_key_share_for_a_drawn_card_names_its_sender_and_nobody_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    WrongDrawKey.cheated = []
    table = _table(5, lambda seat: WrongDrawKey if seat == 2 else SraDealer, monkeypatch)
    assert play(table)
    assert WrongDrawKey.cheated, "nobody drew while seat 2 was at the table: pick another seed"
    # The drawer opened with a key that did not fit: his complaint voids the round, the
    # audit finds the sender's key against his seed and every phone names him.
    assert [seat for seat, _ in _departures(table)] == [2]  # (the drawer stays in)
    for phone in table.phones:
        if phone.seat != 2:
            assert {seat for seat, _ in _named(phone.side)} <= {2}, phone.seat
    assert len(table.results()) == 1


def test_a_key_share_the_relay_forged_to_the_drawer_names_the_relay_not_its_sender() -> None:
    """The host changes a guest's key share on its way to the drawer (it cannot sign it
    in his name). The drawer opens his card first and checks the signatures after: the
    card does not open, so before complaining it checks the deferred signatures and
    names the host, never the guest whose share was forged."""
    table = _table(5)
    host = table.host
    forged: list[tuple[int, int]] = []  # (drawer, claimed sender)
    send = host.lobby.send

    def relay(link: Any, message: Any) -> bool:
        if isinstance(message, ProtocolFrame) and not forged and host.book.drawing is not None:
            drawer = host.book.drawing
            msg = Message.decode(message.data, TOY)
            if msg.kind == Kind.KEYS and link is host.link_of(drawer) and msg.sender != 0:
                values = ((msg.values[0] * 3) % TOY.q, *msg.values[1:])
                message = ProtocolFrame(replace(msg, values=values).encode(TOY))
                forged.append((drawer, msg.sender))
        return send(link, message)

    host.lobby.send = relay  # type: ignore[method-assign]
    play(table, limit_s=600.0)
    assert forged, "no guest's key share went to a drawer: pick another seed"
    drawer, sender = forged[0]
    side = table.phones[drawer].side
    assert {seat for seat, _ in _named(side)} == {0}
    found = side.phone.dealer.current._seat.accusations
    assert [(a.seat, a.code) for a in found] == [(0, "bad_signature")]
    for phone in table.phones:
        if phone.seat != 0:
            assert sender not in {seat for seat, _ in _named(phone.side)}, phone.seat


def test_the_drawer_gets_every_key_share_before_any_onlooker_does() -> None:
    table = _table(7)
    host = table.host
    sent: list[tuple[int | None, int, bytes]] = []  # (drawing, to seat, frame)
    send = host.lobby.send
    seat_of = {}

    def spy(link: Any, message: Any) -> bool:
        if isinstance(message, ProtocolFrame):
            if not seat_of:
                seat_of.update({id(host.link_of(s)): s for s in range(1, PLAYERS)})
            sent.append((host.book.drawing, seat_of.get(id(link), -1), message.data))
        return send(link, message)

    host.lobby.send = spy  # type: ignore[method-assign]
    assert play(table)
    first: dict[bytes, tuple[int | None, int]] = {}  # frame -> (drawing, first receiver)
    receivers: dict[bytes, list[int]] = {}
    for drawing, to, data in sent:
        first.setdefault(data, (drawing, to))
        receivers.setdefault(data, []).append(to)
    checked = 0
    for data, (drawing, to) in first.items():
        msg = Message.decode(data, TOY)
        if msg.withheld is not None:
            continue  # (a stub: its body, the full frame, is counted below like any frame)
        if msg.kind == Kind.KEYS and drawing not in (None, 0):
            # a key share relayed while a card was on its way: the drawer's copy first
            assert to == drawing, (msg.sender, to, drawing)
            checked += 1
        # every guest but its sender got it, once (the onlookers' copies came later)
        guests = set(range(1, PLAYERS)) - {msg.sender}
        assert sorted(receivers[data]) == sorted(guests), (msg.kind, msg.sender)
    assert checked, "no key shares relayed during a draw: pick another seed"
    assert len(table.results()) == 1


def test_the_waiting_frames_signatures_are_checked_in_batches() -> None:
    batches: list[int] = []
    check = SraDealer.precheck

    def spy(self: SraDealer, frames: Any) -> None:
        batches.append(len(frames))
        check(self, frames)

    SraDealer.precheck = spy  # type: ignore[method-assign]
    try:
        table = _table(7)
        assert play(table)
    finally:
        SraDealer.precheck = check  # type: ignore[method-assign]
    assert batches and max(batches) >= 2
    assert len(table.results()) == 1


class _Busy(OpenDealer):
    """A test dealer with background work: every step yields ``frames``."""

    def __init__(self, seat: int, frames: list[bytes]) -> None:
        super().__init__(seat)
        self.frames = frames
        self.steps = 0

    def has_work(self) -> bool:
        return True

    def work(self) -> list[bytes]:
        self.steps += 1
        return list(self.frames)


@pytest.mark.parametrize(("frames", "steps"), [([b"x"], 1), ([], 4)])
def test_a_phone_sends_what_a_step_produced_before_it_computes_more(
    frames: list[bytes], steps: int
) -> None:
    """A step that produced a frame (a drawn card's key share) or a report (``Drew``)
    ends the phone's work: the table sends it before the next step's computation."""
    dealer = _Busy(1, frames)
    phone = PhoneMatch(1, 2, Options(), dealer)
    phone.work(steps=4)
    assert dealer.steps == steps
    assert [f.data for f in phone.outbox if isinstance(f, ProtocolFrame)] == frames * steps
