"""An in-memory star of shoe dealers (:class:`~app.table.casino.shoe_dealer.ShoeDealer`) for
tests: the host checks each guest frame (``authenticate``) before it relays the same
bytes to every other guest, as the casino table's host does; every public event (a shoe
started, positions opened, a shoe finished) is applied on every phone. A
:class:`~app.table.dealer.DealerViolation` is recorded for the phone that raised it and
the table goes on. :class:`TcpShoeStar` is the same over real TCP links (127.0.0.1)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from app.bluetooth.errors import TransportError
from app.bluetooth.tcp import TcpTransport
from app.protocol.group import Group, unsafe_test_group
from app.protocol.keys import DeterministicRng
from app.table.casino.sra_shoe import SraShoe
from app.table.dealer import DealerViolation

ShoeKind = Callable[..., SraShoe]


class ShoeStar:
    """Phones 0..n-1 in one process; phone 0 hosts (relays)."""

    def __init__(
        self,
        n: int,
        *,
        seed: int = 0,
        group: Group | None = None,
        kinds: dict[int, ShoeKind] | None = None,
        margin: int = 20,
    ) -> None:
        group = group or unsafe_test_group()
        self.n = n
        self.phones = [
            (kinds or {}).get(i, SraShoe)(
                i, n, group=group, rng=DeterministicRng(seed * 100 + i), margin=margin
            )
            for i in range(n)
        ]
        self.errors: dict[int, list[DealerViolation]] = {i: [] for i in range(n)}
        self.queue: list[tuple[int, bytes]] = []
        self.gone: set[int] = set()
        self.bytes_sent = [0] * n

    def post(self, sender: int, frames: Iterable[bytes]) -> None:
        if sender not in self.gone:
            self.queue.extend((sender, f) for f in frames)

    def _to(self, receiver: int, frame: bytes) -> None:
        try:
            self.post(receiver, self.phones[receiver].handle(frame))
        except DealerViolation as exc:
            self.errors[receiver].append(exc)

    def _send(self, sender: int, frame: bytes) -> None:
        self.bytes_sent[sender] += len(frame)
        if sender != 0:
            try:
                self.phones[0].authenticate(frame)
            except DealerViolation as exc:
                self.errors[0].append(exc)
                return  # the host relays only frames that pass its check
        for r in range(1, self.n):
            if r != sender and r not in self.gone:
                self._to(r, frame)
        if sender != 0:
            self._to(0, frame)

    def step(self) -> bool:
        """Deliver what is queued, then one work step per phone; False when quiet."""
        moved = bool(self.queue)
        while self.queue:
            self._send(*self.queue.pop(0))
        for p in self.phones:
            if p.seat in self.gone or not p.has_work():
                continue
            moved = True
            try:
                self.post(p.seat, p.work())
            except DealerViolation as exc:
                self.errors[p.seat].append(exc)
        return moved

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """Deliver and work until nothing moves (or ``until()`` holds)."""
        while not (until is not None and until()) and self.step():
            pass

    def here(self) -> list[SraShoe]:
        return [p for p in self.phones if p.seat not in self.gone]

    def setup(self) -> None:
        for p in self.phones:
            self.post(p.seat, p.hello())
        self.run()
        assert all(p.ready for p in self.phones)

    def start(self, shoe: int, decks: int, order: Sequence[int] | None = None) -> None:
        order = tuple(order if order is not None else sorted(set(range(self.n)) - self.gone))
        for p in self.here():
            self.post(p.seat, p.start_shoe(shoe, order, decks))

    def open(self, shoe: int, positions: Sequence[int]) -> None:
        for p in self.here():
            self.post(p.seat, p.open(shoe, positions))

    def finish(self, shoe: int) -> None:
        for p in self.here():
            self.post(p.seat, p.finish_shoe(shoe))

    def drop(self, seat: int) -> None:
        self.gone.add(seat)
        self.queue = [(s, f) for s, f in self.queue if s != seat]
        for p in self.here():
            p.dropped(seat)

    def cards(self, shoe: int, positions: Iterable[int]) -> list[list[int | None]]:
        """Every present phone's card at each position."""
        return [[p.card(shoe, j) for j in positions] for p in self.here()]

    def named(self, seat: int) -> set[int]:
        """Every seat phone ``seat`` has named (violations raised and audit verdicts)."""
        out = {e.seat for e in self.errors[seat]}
        for shoe in self.phones[seat]._seat.rounds():
            v = self.phones[seat].verdict(shoe)
            out |= set(v.cheaters) if v is not None else set()
        return out


#: Real seconds after which a wait counts as hung: a guard, not a speed target.
HANG = 300.0


class TcpShoeStar(ShoeStar):
    """The same star over real TCP loopback links: the host's links to every guest."""

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(n, **kwargs)
        transport = TcpTransport()
        self.listener = transport.listen()
        self.up: dict[int, Any] = {}  # guest -> its link to the host
        self.down: dict[int, Any] = {}  # guest -> the host's link to it
        for g in range(1, n):
            self.up[g] = transport.connect(self.listener.address)
            self.down[g] = self.listener.accept(timeout=HANG)
        self.in_flight = 0

    def post(self, sender: int, frames: Iterable[bytes]) -> None:
        if sender in self.gone:
            return
        for frame in frames:
            self.bytes_sent[sender] += len(frame)
            links = [self.up[sender]] if sender else [self.down[g] for g in self.here_guests()]
            for link in links:
                link.send(frame)
                self.in_flight += 1

    def here_guests(self) -> list[int]:
        return [g for g in self.down if g not in self.gone]

    def _recv(self, link: Any) -> bytes | None:
        try:
            frame: bytes = link.recv(timeout=0.0005)
        except TransportError:
            return None
        self.in_flight -= 1
        return frame

    def step(self) -> bool:
        moved = False
        for g in self.here_guests():  # the host: check, relay, then take in
            while (frame := self._recv(self.down[g])) is not None:
                moved = True
                try:
                    self.phones[0].authenticate(frame)
                except DealerViolation as exc:
                    self.errors[0].append(exc)
                    continue
                for other in self.here_guests():
                    if other != g:
                        self.down[other].send(frame)
                        self.in_flight += 1
                self._to(0, frame)
        for g in self.here_guests():
            while (frame := self._recv(self.up[g])) is not None:
                moved = True
                self._to(g, frame)
        for p in self.here():
            if p.has_work():
                moved = True
                try:
                    self.post(p.seat, p.work())
                except DealerViolation as exc:
                    self.errors[p.seat].append(exc)
        return moved or self.in_flight > 0

    def run(self, until: Callable[[], bool] | None = None) -> None:
        deadline = time.monotonic() + HANG
        while not (until is not None and until()) and self.step():
            assert time.monotonic() < deadline, "hung: the awaited event never came"

    def close(self) -> None:
        for link in [*self.up.values(), *self.down.values()]:
            link.close(linger=0.0)
        self.listener.close()
