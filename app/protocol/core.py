"""What every concern of a seat shares: who it is, its keys, signing and counting.

:class:`SeatCore` is the table-level state of one seat besides its rounds: its seat
number and identity, the table set-up (:class:`TableSetup`), its
outgoing sequence numbers, the accusations found in the background, and the cost of
the exponentiations it made. The modules over the transcript
(:mod:`app.protocol.transcript`) take it as their first argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.protocol import errors as E
from app.protocol.errors import ProtocolViolation
from app.protocol.group import Group
from app.protocol.keys import Identity, Rng, digest, verify, verify_many
from app.protocol.messages import Kind, Message
from app.protocol.transcript import TableConfig

HELLO_CONTEXT = b"blu21/hello/v1"
#: Signatures checked ahead (:meth:`SeatCore.precheck`) kept at most, until their frame
#: is authenticated: a frame prechecked and then never handled costs no memory for long.
MAX_PRECHECKED = 512


@dataclass
class TableSetup:
    """The table set-up as one seat sees it (operations: :mod:`app.protocol.setup`)."""

    table_seed: bytes  # my table seed (committed in my HELLO, revealed in my SEED)
    pubs: dict[int, tuple[int, int]] = field(default_factory=dict)  # seat -> (sign, dh)
    commits: dict[int, bytes] = field(default_factory=dict)  # seat -> H(table seed)
    seeds: dict[int, bytes] = field(default_factory=dict)
    absent: set[int] = field(default_factory=set)  # seats gone before the set-up finished
    seq: dict[int, int] = field(default_factory=dict)  # sender -> next set-up seq
    table_id: bytes = b""
    joint_seed: bytes = b""

    @property
    def ready(self) -> bool:
        """True once the set-up finished (all keys and seeds exchanged)."""
        return bool(self.joint_seed)


@dataclass
class SeatCore:
    """One seat's identity, set-up, signing and bookkeeping (see the module docstring)."""

    seat: int
    config: TableConfig
    rng: Rng
    identity: Identity
    setup: TableSetup
    cost: float = 0.0  # work done, in units of one full-size modexp
    checks: int = 0  # subgroup membership tests (Jacobi symbols) done
    accusations: list[ProtocolViolation] = field(default_factory=list)
    dropped: set[int] = field(default_factory=set)  # seats that left the table
    my_seq: dict[int, int] = field(default_factory=dict)  # round -> my next sequence number
    current: int = 0  # the latest round started here
    link: int | None = None  # host only: the guest link of the frame in hand
    pairwise: dict[int, bytes] = field(default_factory=dict)
    #: frames (body and signature) whose signature a batch check passed, not yet used
    prechecked: set[bytes] = field(default_factory=set)

    @property
    def group(self) -> Group:
        """The table's group."""
        return self.config.group

    @property
    def is_host(self) -> bool:
        """True on the host's seat (the relay)."""
        return self.seat == self.config.host

    def count(self, exps: Iterable[int]) -> None:
        """Charge exponentiations with these exponents to :attr:`cost`."""
        qbits = self.group.q.bit_length()
        self.cost += sum(max(e.bit_length(), 1) for e in exps) / qbits

    def pow_batch(self, bases: Sequence[int], exp: int) -> list[int]:
        """``b ** exp`` for every base (counted)."""
        self.count([exp] * len(bases))
        return self.group.pow_batch(bases, exp)

    def pow_many(self, bases: Sequence[int], exps: Sequence[int]) -> list[int]:
        """``b_i ** e_i`` pairwise (counted)."""
        self.count(exps)
        return self.group.pow_many(bases, exps)

    def blame_link(self, sender: int) -> int:
        """Who to blame for a frame that fails authentication or sequencing."""
        host = self.config.host
        if self.is_host and self.link is not None:
            return self.link  # the seat whose connection the frame came in on
        return sender if self.is_host or sender == host or sender < 0 else host

    def send(self, kind: Kind, round_id: int, **fields: object) -> Message:
        """A signed message of mine with my next sequence number in ``round_id``."""
        seq = self.my_seq.get(round_id, 0)
        self.my_seq[round_id] = seq + 1
        msg = Message(kind, round_id, self.seat, seq, **fields)  # type: ignore[arg-type]
        return self.sign(msg)

    def sign(self, msg: Message) -> Message:
        """``msg`` signed by me (as it stands: its sequence number is not changed)."""
        context = HELLO_CONTEXT if msg.kind == Kind.HELLO else self.setup.table_id
        return msg.signed(self.identity.sign(context, msg.body(self.group)))

    def check_signature(self, msg: Message) -> None:
        """The sender's signature under the table id, or a violation naming the link.

        Free for a frame whose signature :meth:`precheck` passed (exactly these bytes)."""
        pub = self.setup.pubs.get(msg.sender)
        if pub is None or not self.setup.table_id:
            raise ProtocolViolation(self.blame_link(msg.sender), E.WRONG_SENDER, "unknown seat")
        body = msg.body(self.group)
        signed = body + msg.sig
        if signed in self.prechecked:
            self.prechecked.discard(signed)
            return
        self.count([self.group.q, 1 << 128])
        if not verify(self.group, pub[0], self.setup.table_id, body, msg.sig, check_pub=False):
            raise ProtocolViolation(self.blame_link(msg.sender), E.BAD_SIGNATURE, msg.kind.name)

    def _checkable(self, msg: Message) -> bool:
        return (
            msg.round_id != 0
            and msg.kind != Kind.HELLO
            and msg.sender in self.setup.pubs
            and msg.sender != self.seat
            and bool(self.setup.table_id)
        )

    def precheck(self, msgs: Sequence[Message]) -> None:
        """Check the signatures of several frames in one batch (spread over the cores)
        before they are authenticated one by one: :meth:`check_signature` then costs
        nothing for those that passed. Nothing is judged here: a frame that fails is
        checked again, alone, where it is authenticated, and named there."""
        todo = [m for m in msgs if self._checkable(m)]
        todo = [m for m in todo if m.body(self.group) + m.sig not in self.prechecked]
        if len(todo) < 2:
            return  # (one check alone costs the same where it is authenticated)
        if len(self.prechecked) + len(todo) > MAX_PRECHECKED:
            self.prechecked.clear()
        for msg, ok in zip(todo, self.verify_batch(todo), strict=True):
            if ok:
                self.prechecked.add(msg.body(self.group) + msg.sig)

    def verify_batch(self, msgs: Sequence[Message]) -> list[bool]:
        """Each frame's signature under the table id, checked in one batch (counted)."""
        self.count([self.group.q, 1 << 128] * len(msgs))
        items = [
            (self.setup.pubs[m.sender][0], self.setup.table_id, m.body(self.group), m.sig)
            for m in msgs
        ]
        return verify_many(self.group, items)

    def check_signatures(self, msgs: Sequence[Message]) -> ProtocolViolation | None:
        """The signatures of ``msgs`` in one batch: the violation of the first that
        fails (naming the link, as :meth:`check_signature`), or None."""
        todo = []
        for m in msgs:
            if self._checkable(m) and m.body(self.group) + m.sig not in self.prechecked:
                todo.append(m)
                continue
            try:
                self.check_signature(m)  # (prechecked: free; or no key: names the link)
            except ProtocolViolation as exc:
                return exc
        if len(todo) == 1:
            try:
                self.check_signature(todo[0])
            except ProtocolViolation as exc:
                return exc
        elif todo:
            for msg, ok in zip(todo, self.verify_batch(todo), strict=True):
                if not ok:
                    blame = self.blame_link(msg.sender)
                    return ProtocolViolation(blame, E.BAD_SIGNATURE, msg.kind.name)
        return None

    def check_subgroup(self, sender: int, values: Sequence[int]) -> None:
        """Every value in the subgroup (a Jacobi test each), or a violation by ``sender``."""
        self.checks += len(values)
        for v in values:
            if not self.group.is_element(v):
                raise ProtocolViolation(sender, E.NOT_ELEMENT, "outside the subgroup")

    def pair_key(self, other: int) -> bytes:
        """The Diffie-Hellman key I share with ``other`` (computed once)."""
        if other not in self.pairwise:
            self.cost += 1.0
            self.pairwise[other] = self.identity.pairwise_key(self.setup.pubs[other][1])
        return self.pairwise[other]

    def record_key(self, round_id: int, owner: int, holder: int) -> bytes:
        """The key of ``owner``'s escrow record for ``holder`` in ``round_id``."""
        other = holder if owner == self.seat else owner
        return digest(
            b"blu21/escrow-record",
            self.pair_key(other),
            round_id.to_bytes(8, "big"),
            bytes([owner, holder]),
        )
