"""An in-process table of seats behind a simulated host relay (tests, demos, the bench).

It plays the transport's role exactly as the real star does: a guest's frame goes to
the host seat first, which checks it and relays the same bytes to every other guest;
the host's own frames go straight to the guests. Violations are caught per receiving
seat (``errors``) and the table goes on, as the networked table will.

Hooks let a test play the adversary:

* ``seat_factory(seat, config, rng) -> Seat`` builds (possibly malicious) seats;
* ``relay(frame, sender, receiver) -> bytes | None`` is the host's forwarding of a
  frame from ``sender`` to guest ``receiver`` (return other bytes to tamper, None to drop).

``bodies_later``: the host relays a pass or lock to the guests that do not compute
next on it as a stub, and the bodies once nothing else moves (as the table's host
does: docs/protocol.md, "Bodies later"); stubs and bodies go through ``relay`` too.

Usage::

    >>> from app.protocol.group import unsafe_test_group
    >>> t = LocalTable(3, unsafe_test_group())
    >>> t.setup()
    >>> t.play_round(1)
    >>> all(v.ok for v in t.verdicts(1).values())
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.protocol import shuffle
from app.protocol.errors import ProtocolViolation
from app.protocol.group import Group
from app.protocol.keys import DeterministicRng, Rng
from app.protocol.messages import ClaimKind, Message
from app.protocol.seat import Seat
from app.protocol.transcript import RoundSpec, TableConfig, Verdict

SeatFactory = Callable[[int, TableConfig, Rng], Seat]
Relay = Callable[[bytes, int, int], "bytes | None"]


class LocalTable:
    """Seats 0..n-1 in one process; seat ``host`` relays."""

    def __init__(
        self,
        n: int,
        group: Group,
        *,
        host: int = 0,
        seed: int = 0,
        seat_factory: SeatFactory | None = None,
        relay: Relay | None = None,
        shuffle_bits: int | None = None,
        bodies_later: bool = False,
    ) -> None:
        self.config = TableConfig(n, host, group, shuffle_bits)
        self.group = group
        factory = seat_factory or (lambda s, c, r: Seat(s, c, r))
        self.seats = [factory(i, self.config, DeterministicRng(seed * 1000 + i)) for i in range(n)]
        self.relay = relay
        self.bodies_later = bodies_later
        self.owed: list[tuple[int, bytes]] = []  # (guest, frame): bodies after stubs
        self.errors: dict[int, list[ProtocolViolation]] = {i: [] for i in range(n)}
        self.queue: list[tuple[int, Message]] = []
        self.bytes_sent = [0] * n
        self.frames: list[tuple[int, bytes]] = []  # every frame as first sent
        self.gone: set[int] = set()  # disconnected seats: nothing to or from them
        #: the round the table-flow methods act on (the latest :meth:`start`; pass
        #: ``round_id`` to act on another, e.g. the round played during a pre-shuffle)
        self.playing = 0

    # -- delivery --------------------------------------------------------------

    def _deliver(self, receiver: int, frame: bytes, link: int | None = None) -> bool:
        """Hand a frame to a seat; False if it failed authentication (not relayable).

        ``link``: the guest whose connection the host received the frame on.
        """
        seat = self.seats[receiver]
        try:
            msg = Message.decode(frame, self.group)
            seat.authenticate(msg, link)
        except ProtocolViolation as exc:
            self.errors[receiver].append(exc)
            return False
        try:
            self.post(receiver, seat.process(msg))
        except ProtocolViolation as exc:
            self.errors[receiver].append(exc)
        return True

    def post(self, sender: int, messages: Sequence[Message]) -> None:
        """Queue messages a seat produced."""
        self.queue.extend((sender, m) for m in messages)

    def drop(self, seat: int) -> None:
        """Disconnect a seat (a dropout): its queued and future frames are lost."""
        self.gone.add(seat)
        self.queue = [(s, m) for s, m in self.queue if s != seat]

    def _send(self, sender: int, msg: Message) -> None:
        if sender in self.gone:
            return
        frame = msg.encode(self.group)
        self.bytes_sent[sender] += len(frame)
        self.frames.append((sender, frame))
        host = self.config.host
        if sender != host and not self._deliver(host, frame, link=sender):
            return  # the host relays only authentic frames (content is each seat's check)
        stub = self._stub(msg)
        for r in range(self.config.n_seats):
            if r in (sender, host) or r in self.gone:
                continue
            if stub is not None and r != stub[0]:
                self.owed.append((r, frame))
                out = self.relay(stub[1], sender, r) if self.relay else stub[1]
                if out is not None:
                    self._deliver(r, out)
                continue
            out = self.relay(frame, sender, r) if self.relay else frame
            if out is not None:
                self._deliver(r, out)

    def _stub(self, msg: Message) -> tuple[int, bytes] | None:
        """(the seat that computes next on ``msg``, its stub) if the host sends the
        others a stub now and the body later."""
        host = self.seats[self.config.host]
        if not self.bodies_later or msg.round_id not in host.rounds():
            return None
        reader = shuffle.consumer(host.round(msg.round_id), msg)
        return None if reader is None else (reader, msg.stub().encode(self.group))

    def send_bodies(self) -> None:
        """The bodies owed for stubs, in order (through ``relay``)."""
        owed, self.owed = self.owed, []
        for r, frame in owed:
            sender = frame[3]
            out = self.relay(frame, sender, r) if self.relay else frame
            if out is not None and r not in self.gone:
                self._deliver(r, out)

    def run(self) -> None:
        """Deliver and work until nothing moves."""
        while True:
            while self.queue:
                sender, msg = self.queue.pop(0)
                self._send(sender, msg)
            moved = False
            for s in self.seats:
                if s.seat not in self.gone and s.has_work():
                    self.post(s.seat, s.work())
                    moved = True
            if not moved and not self.queue:
                if not self.owed:
                    return
                self.send_bodies()

    # -- table flow ------------------------------------------------------------

    def setup(self) -> None:
        """Exchange keys and the joint seed."""
        for s in self.seats:
            self.post(s.seat, s.hello())
        self.run()

    def start(self, spec: RoundSpec, seats: Sequence[int] | None = None) -> None:
        """Start a round on ``seats`` (default: the spec's order)."""
        self.playing = spec.round_id
        for i in seats if seats is not None else spec.order:
            self.post(i, self.seats[i].start_round(spec))
        self.run()

    def commit_only(self, spec: RoundSpec) -> None:
        """Start a round on every seat and exchange only the seed commitments (no pass
        is computed yet): for tests that then hand-craft the round's frames."""
        self.playing = spec.round_id
        sent = {s.seat: s.start_round(spec) for s in self.seats}
        for s in self.seats:
            for other, messages in sent.items():
                for msg in messages if other != s.seat else ():
                    s.handle(msg)

    def reveal(
        self,
        assignments: Sequence[tuple[int, int]],
        seats: Sequence[int],
        round_id: int | None = None,
    ) -> None:
        """A public deal event on every listed seat."""
        rid = self.playing if round_id is None else round_id
        for i in seats:
            self.post(i, self.seats[i].reveal(rid, assignments))
        self.run()

    def claim(
        self, seat: int, kind: ClaimKind = ClaimKind.SHOWDOWN, round_id: int | None = None
    ) -> None:
        """Seat ``seat`` proves its hand."""
        rid = self.playing if round_id is None else round_id
        self.post(seat, self.seats[seat].claim(rid, kind))
        self.run()

    def finish(self, seats: Sequence[int], round_id: int | None = None) -> None:
        """End the round everywhere and run the audits."""
        rid = self.playing if round_id is None else round_id
        for i in seats:
            self.post(i, self.seats[i].finish_round(rid))
        self.run()

    def play_round(
        self, round_id: int, order: Sequence[int] | None = None, *, claims: bool = True
    ) -> None:
        """Shuffle, deal two cards each, every seat claims its hand, audit."""
        order = tuple(order if order is not None else range(self.config.n_seats))
        self.start(RoundSpec(round_id, order))
        n = len(order)
        self.reveal([(j, order[j % n]) for j in range(2 * n)], order)
        if claims:
            for s in order:
                self.claim(s)
        self.finish(order)

    def verdicts(self, round_id: int) -> dict[int, Verdict | None]:
        """Every seat's verdict on ``round_id``."""
        return {s.seat: s.verdict(round_id) for s in self.seats if round_id in s.rounds()}

    def named_by(self, seat: int) -> set[int]:
        """Every seat that ``seat`` has named as a cheater (errors and audit verdicts)."""
        named = {e.seat for e in self.errors[seat]}
        named |= {e.seat for e in self.seats[seat].accusations}
        return named

    def codes_by(self, seat: int) -> set[tuple[int, str]]:
        """(seat, code) pairs ``seat`` has raised or concluded."""
        out = {(e.seat, e.code) for e in self.errors[seat]}
        out |= {(e.seat, e.code) for e in self.seats[seat].accusations}
        return out
