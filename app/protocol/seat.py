"""The per-seat SRA state machine: messages in, messages out, no sockets, no threads.

One :class:`Seat` object runs on each phone. The table layer feeds it every frame it
receives and sends out every message it returns (to the host; the host sends its own
to every guest). Every seat calls the same methods on the same *public* events::

    seat = Seat(my_seat, TableConfig(n_seats=4, host=0))   # rng=secrets by default
    out = seat.hello()                      # table set-up: keys + seed commitment
    out += seat.handle(Message.decode(frame, seat.group))  # for every frame received
    seat.ready, seat.fingerprint            # show the 6-digit fingerprint on every screen
    out = seat.start_round(RoundSpec(round_id=1, order=(1, 2, 3, 0)))
    while seat.has_work():
        out += seat.work()                  # exponentiations happen here; send as you go
    out = seat.reveal([(0, 1), (1, 2), ...])    # deal / draw events: (position, drawer)
    seat.hand                               # {position: card code} of my own cards
    out = seat.claim(ClaimKind.PERSIAN)     # right after the deal, if I hold two aces
    out = seat.escrow(finished_seats)       # when I hold (see "Dropouts" in the docs)
    out = seat.claim(ClaimKind.SHOWDOWN)    # prove my held hand
    out = seat.finish_round()               # reveal my round seed: the audit follows
    seat.verdict                            # Verdict(ok, cheaters, deck) once audited

Several rounds can be open at once: start round r+1 while round r is played to
pre-shuffle its deck (then pass ``round_id=r`` to ``reveal``/``claim``/
``finish_round``). After a dropout: ``suspend_round(r)``, ``start_round`` of a fresh
round among the rest, ``release(owner, r)`` at the showdown, ``close_round(r)``.

``handle`` = :meth:`Seat.authenticate` (signature, round, sequence number) +
:meth:`Seat.process` (content checks, state update); neither exponentiates except the
signature check. All other exponentiation runs in ``work``, one bounded step per call
(priority: my shuffle pass, keys, opening my cards, locking, claims, background
subgroup tests, the audit), so a driver that sends each step's output at once makes
the locking pass stream around the table and runs the audit in the background.
:class:`app.protocol.harness.LocalTable` is a complete in-process driver.

Errors: ``handle`` raises :class:`~app.protocol.errors.ProtocolViolation` naming the
seat to blame with a stable code; the frame is not applied and the seat stays usable.
Cheats found in the background or by the audit go to ``accusations`` and
``verdict.cheaters``.

Relaying: in the Bluetooth star only the host talks to everybody. The host calls
``authenticate(msg, link=guest)`` on each guest frame (``link``: the guest whose
connection it came in on), relays it unchanged and in arrival order to the
other guests only if that passed, then calls ``process``. Hence a guest that receives
a frame with a bad signature, a replayed or a skipped sequence number blames the
host: an honest host would never have relayed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from app.native.handeval import oczko_total
from app.protocol import errors as E
from app.protocol.encoding import DECK_SIZE, CardEncoding
from app.protocol.errors import ProtocolUsageError, ProtocolViolation
from app.protocol.group import DEFAULT_GROUP, Group
from app.protocol.keys import (
    Identity,
    Rng,
    RoundSecret,
    default_rng,
    digest,
    keystream,
    verify,
)
from app.protocol.messages import ClaimKind, Kind, Message

MAX_SEATS = 7
_HELLO_CONTEXT = b"blu21/hello/v1"
_MAX_BUFFERED = 256
_CHECKS_PER_STEP = 8


def _seed_commitment(seed: bytes) -> bytes:
    return digest(b"blu21/round-seed", seed)


@dataclass(frozen=True)
class TableConfig:
    """Fixed for a table: number of seats, the host seat (the relay), the group."""

    n_seats: int
    host: int = 0
    group: Group = DEFAULT_GROUP
    shuffle_bits: int | None = None  # None = full-size shuffle keys (the default)

    def __post_init__(self) -> None:
        if not 2 <= self.n_seats <= MAX_SEATS:
            raise ValueError(f"a table has 2..{MAX_SEATS} seats")
        if not 0 <= self.host < self.n_seats:
            raise ValueError("host must be one of the seats")


@dataclass(frozen=True)
class RoundSpec:
    """One shuffle among ``order`` (shuffle order, >= 2 seats), public to every seat.

    ``lock_ahead`` positions are produced and locked right away (default: the deal,
    two cards per seat, plus one spare per seat); further positions are locked on
    demand when :meth:`Seat.reveal` or :meth:`Seat.extend` asks for them.
    ``lock_chunk`` is the streaming granularity of the locking pass.
    """

    round_id: int
    order: tuple[int, ...]
    lock_ahead: int = 0
    lock_chunk: int = 0
    shuffle_parts: int = 1  # frames per shuffle pass (all released together)

    @property
    def initial_lock(self) -> int:
        """Positions locked at the start (default: the deal plus one spare per seat)."""
        return min(DECK_SIZE, self.lock_ahead or 3 * len(self.order))

    @property
    def chunk(self) -> int:
        """Positions per streamed message (default ``max(4, seats)``: one signature per
        deal round keeps the bytes within 10% of the raw group elements)."""
        return self.lock_chunk or max(4, len(self.order))


@dataclass(frozen=True)
class Verdict:
    """The audit's result for one round: ``deck`` is the opened card per position."""

    round_id: int
    ok: bool
    cheaters: tuple[tuple[int, str], ...]
    deck: tuple[int, ...] | None


@dataclass
class _Round:
    spec: RoundSpec
    secret: RoundSecret | None
    enc: CardEncoding
    commits: dict[int, bytes] = field(default_factory=dict)  # seat -> H(round seed)
    recv_seq: dict[int, int] = field(default_factory=dict)
    stages: list[list[int]] = field(default_factory=list)  # shuffle outputs by order index
    locks: list[list[int]] = field(default_factory=list)  # lock outputs by locker index
    lock_target: int = 0
    my_encrypted: list[int] = field(default_factory=list)
    shuffle_sent: bool = False
    owner: dict[int, int] = field(default_factory=dict)
    keys: dict[int, dict[int, int]] = field(default_factory=dict)
    pending_keys: list[tuple[int, ...]] = field(default_factory=list)
    hand: dict[int, int] = field(default_factory=dict)
    claims: dict[int, tuple[int, int, tuple[tuple[int, int], ...]]] = field(default_factory=dict)
    # every claim ever made (a later showdown claim must not hide a false Persian 21)
    claim_log: list[tuple[int, tuple[tuple[int, int], ...]]] = field(default_factory=list)
    unchecked_claims: list[tuple[int, tuple[tuple[int, int], ...]]] = field(default_factory=list)
    # claims this seat has opened and found true (claimer -> pairs): only these count
    proven: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    complaints: list[tuple[int, int]] = field(default_factory=list)
    audit_wanted: bool = False
    audit_sent: bool = False
    audits: dict[int, tuple[bytes, tuple[int, ...]]] = field(default_factory=dict)
    frozen: bool = False
    suspended: bool = False  # a dropout interrupted it: its dealt cards are still in play
    closed: bool = False  # given up unaudited (close_round): late frames are ignored
    early_releases: list[tuple[int, int, bytes]] = field(default_factory=list)
    deferred_sigs: list[Message] = field(default_factory=list)
    frames: dict[tuple[int, int], Message] = field(default_factory=dict)  # (sender, seq)
    deferred_checks: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    escrows: dict[tuple[int, int], bytes] = field(default_factory=dict)  # (owner, holder)
    released: dict[int, tuple[int, ...]] = field(default_factory=dict)  # owner -> positions
    held: dict[int, tuple[int, ...] | None] = field(default_factory=dict)  # owner -> cards
    verdict: Verdict | None = None
    # proven by EVIDENCE: seats that signed two versions of a frame, and the seats
    # whose complaints their other version explains (applied to the audit's verdict)
    equivocators: set[int] = field(default_factory=set)
    excused: set[int] = field(default_factory=set)

    @property
    def order(self) -> tuple[int, ...]:
        return self.spec.order

    @property
    def n(self) -> int:
        return len(self.spec.order)

    @property
    def final(self) -> list[int]:
        """The fully locked cards (output of the last locker)."""
        return self.locks[-1]


class Seat:
    """One seat's protocol state (see the module docstring for the life cycle)."""

    def __init__(
        self,
        seat: int,
        config: TableConfig,
        rng: Rng | None = None,
        identity: Identity | None = None,
    ) -> None:
        if not 0 <= seat < config.n_seats:
            raise ValueError("seat out of range")
        self.seat = seat
        self.config = config
        self.group = config.group
        self.rng = rng or default_rng()
        self.identity = identity or Identity.generate(self.group, self.rng)
        self.cost = 0.0  # work done, in units of one full-size modexp
        self.checks = 0  # subgroup membership tests (Jacobi symbols) done
        self.accusations: list[ProtocolViolation] = []
        self._pubs: dict[int, tuple[int, int]] = {}
        self._commits: dict[int, bytes] = {}
        self._seeds: dict[int, bytes] = {}
        self._absent: set[int] = set()  # seats gone before the set-up finished
        self._dropped: set[int] = set()  # seats that left the table (see dropped)
        self._table_seed = self.rng.token_bytes(32)
        self.table_id = b""
        self.joint_seed = b""
        self._setup_seq: dict[int, int] = {}
        self._my_seq: dict[int, int] = {}
        self._rounds: dict[int, _Round] = {}
        self._current = 0
        self._buffer: list[Message] = []
        self._future_seq: dict[tuple[int, int], int] = {}  # (round, sender) -> next seq
        self._link: int | None = None  # host only: the guest link of the frame in hand
        self._pairwise: dict[int, bytes] = {}

    # ------------------------------------------------------------------ helpers

    def _count(self, exps: Iterable[int]) -> None:
        qbits = self.group.q.bit_length()
        self.cost += sum(max(e.bit_length(), 1) for e in exps) / qbits

    def _pow_batch(self, bases: Sequence[int], exp: int) -> list[int]:
        self._count([exp] * len(bases))
        return self.group.pow_batch(bases, exp)

    def _pow_many(self, bases: Sequence[int], exps: Sequence[int]) -> list[int]:
        self._count(exps)
        return self.group.pow_many(bases, exps)

    def _blame_link(self, sender: int) -> int:
        """Who to blame for a frame that fails authentication or sequencing."""
        host = self.config.host
        if self.seat == host and self._link is not None:
            return self._link  # the seat whose connection the frame came in on
        return sender if self.seat == host or sender == host or sender < 0 else host

    def _send(self, kind: Kind, round_id: int, **fields: object) -> Message:
        seq = self._my_seq.get(round_id, 0)
        self._my_seq[round_id] = seq + 1
        msg = Message(kind, round_id, self.seat, seq, **fields)  # type: ignore[arg-type]
        context = _HELLO_CONTEXT if kind == Kind.HELLO else self.table_id
        sig = self.identity.sign(context, msg.body(self.group))
        return msg.signed(sig)

    @property
    def ready(self) -> bool:
        """True once table set-up finished (all keys and seeds exchanged)."""
        return bool(self.joint_seed)

    @property
    def fingerprint(self) -> int:
        """A 6-digit code of everyone's keys and seeds: equal on all screens, or a relay MITM.

        It covers the table seeds, committed in the HELLOs and revealed only after all
        HELLOs are in. From the table id alone (keys) a man-in-the-middle host could
        grind its fake keys until both victims' 6 digits matched (about 10^6 cheap
        tries); with the seeds it must fix its fake HELLOs before it can compute any
        victim's code, so it matches with probability 10^-6 per attempt.
        """
        if not self.ready:
            raise ProtocolUsageError("set-up not finished")
        code = digest(b"blu21/fingerprint", self.table_id, self.joint_seed)
        return int.from_bytes(code[:8], "big") % 1_000_000

    # ------------------------------------------------------------------ set-up

    def hello(self) -> list[Message]:
        """The set-up message: public keys and a commitment to this seat's table seed."""
        self._pubs[self.seat] = (self.identity.sign_pub, self.identity.dh_pub)
        self._commits[self.seat] = digest(self._table_seed)
        return [
            self._send(
                Kind.HELLO,
                0,
                values=(self.identity.sign_pub, self.identity.dh_pub),
                data=self._commits[self.seat],
            )
        ]

    def leave_out(self, seat: int) -> list[Message]:
        """``seat`` is gone before the set-up finished (a public event, on every seat):
        set the table up without him; messages to send (my SEED once the others'
        keys are in). A no-op once set up (rounds simply leave him out of their order).

        Whatever of his arrived before (every seat saw the same relayed frames) is
        used the same way everywhere: keys already in the table id stay there, a seed
        already revealed goes into the joint seed; nothing more from him is accepted.
        """
        if not 0 <= seat < self.config.n_seats or seat == self.seat:
            raise ProtocolUsageError("not another seat of this table")
        if self.ready or seat in self._absent:
            return []
        self._absent.add(seat)
        if not self.table_id:
            self._pubs.pop(seat, None)
            self._commits.pop(seat, None)
        return self._setup_progress()

    def _present(self) -> list[int]:
        """The seats taking part in the set-up (all but those left out)."""
        return [s for s in range(self.config.n_seats) if s not in self._absent]

    def _setup_progress(self) -> list[Message]:
        """Compute the table id once every present seat's keys are in, then the joint
        seed once every present seat's seed is in."""
        present = self._present()
        if not self.table_id:
            if self.seat not in self._pubs or any(s not in self._pubs for s in present):
                return []
            members = sorted(self._pubs)
            # The fresh seed commitments make the id unique to this table even for
            # seats that reuse their identities: no frame replays across tables.
            self.table_id = digest(
                b"blu21/table",
                *(v.to_bytes(self.group.byte_len, "big") for s in members for v in self._pubs[s]),
                *(self._commits[s] for s in members),
            )
            self._seeds[self.seat] = self._table_seed
            return [self._send(Kind.SEED, 0, data=self._table_seed)]
        if not self.joint_seed and all(s in self._seeds for s in present):
            self.joint_seed = digest(b"blu21/joint", *(self._seeds[s] for s in sorted(self._seeds)))
        return []

    def _handle_setup(self, msg: Message) -> list[Message]:
        if msg.sender in self._absent:
            raise ProtocolViolation(msg.sender, E.WRONG_SENDER, "left before the set-up")
        if msg.kind == Kind.HELLO:
            if msg.seq != 0 or len(msg.values) != 2 or len(msg.data) != 32:
                raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "hello")
            if not self.group.is_element(msg.values[1]):
                raise ProtocolViolation(msg.sender, E.NOT_ELEMENT, "hello key")
            if self.table_id:
                raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "hello after the set-up")
            self._pubs[msg.sender] = (msg.values[0], msg.values[1])
            self._commits[msg.sender] = msg.data
            return self._setup_progress()
        if msg.kind == Kind.SEED:
            if msg.seq != 1 or msg.sender not in self._commits:
                raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "seed")
            if digest(msg.data) != self._commits[msg.sender]:
                raise ProtocolViolation(msg.sender, E.COMMIT_MISMATCH, "table seed")
            self._seeds[msg.sender] = msg.data
            return self._setup_progress()
        raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, f"{msg.kind.name} during set-up")

    def _authenticate_sig(self, msg: Message) -> None:
        pub = self._pubs.get(msg.sender)
        if pub is None or not self.table_id:
            raise ProtocolViolation(self._blame_link(msg.sender), E.WRONG_SENDER, "unknown seat")
        self._count([self.group.q, 1 << 128])
        body = msg.body(self.group)
        if not verify(self.group, pub[0], self.table_id, body, msg.sig, check_pub=False):
            raise ProtocolViolation(self._blame_link(msg.sender), E.BAD_SIGNATURE, msg.kind.name)

    # ------------------------------------------------------------------ rounds

    def start_round(self, spec: RoundSpec) -> list[Message]:
        """Begin a round (or a fresh shuffle after a dropout) among ``spec.order``.

        Round ids must strictly increase over the table's life; every message is bound
        to its round id, so frames of an earlier round are rejected as replays.
        """
        if not self.ready:
            raise ProtocolUsageError("set-up not finished")
        if spec.round_id <= self._current:
            raise ProtocolUsageError("round ids must increase")
        order = spec.order
        if len(order) < 2 or len(set(order)) != len(order):
            raise ProtocolUsageError("a round needs >= 2 distinct seats")
        if not all(0 <= s < self.config.n_seats and s not in self._absent for s in order):
            raise ProtocolUsageError("unknown seat in order")
        if spec.lock_chunk < 0 or spec.lock_ahead < 0 or spec.shuffle_parts < 1:
            raise ProtocolUsageError("bad lock_chunk, lock_ahead or shuffle_parts")
        secret = (
            RoundSecret.fresh(self.group, spec.round_id, self.rng, self.config.shuffle_bits)
            if self.seat in order
            else None
        )
        rnd = _Round(spec, secret, CardEncoding.derive(self.group, self.joint_seed, spec.round_id))
        rnd.stages = [[] for _ in order]
        rnd.locks = [[] for _ in order[:-1]]
        rnd.lock_target = spec.initial_lock
        for key in [k for k in self._future_seq if k[0] <= spec.round_id]:
            seq = self._future_seq.pop(key)
            if key[0] == spec.round_id:
                rnd.recv_seq[key[1]] = seq  # the buffered frames were authenticated
        self._rounds[spec.round_id] = rnd
        self._current = spec.round_id
        out: list[Message] = []
        if secret is not None:
            # Bind my permutation and keys before anybody's pass exists: a seat that
            # could pick its seed after seeing its input could place cards it found.
            rnd.commits[self.seat] = _seed_commitment(secret.seed)
            out.append(self._send(Kind.COMMIT, spec.round_id, data=rnd.commits[self.seat]))
        buffered, self._buffer = self._buffer, []
        later = []
        for msg in buffered:
            if msg.round_id > spec.round_id:
                later.append(msg)  # for a round after this one
                continue
            try:
                # authenticated on arrival (this round's) or a replay (an older round's)
                same = msg.round_id == spec.round_id
                out += self.process(msg) if same else self.handle(msg)
            except ProtocolViolation as exc:  # arrived early, judged now: record, go on
                self.accusations.append(exc)
        self._buffer = later
        return out

    def _round(self, round_id: int | None = None) -> _Round:
        rnd = self._rounds.get(self._current if round_id is None else round_id)
        if rnd is None:
            raise ProtocolUsageError("no such round")
        return rnd

    def claimed_cards(self, round_id: int, seat: int) -> dict[int, int] | None:
        """The cards ``seat`` has proven in ``round_id`` (position -> card code): None
        until this seat has opened the claimed cards itself and found them as claimed.
        A claim that does not open never counts (it voids the round: a complaint)."""
        proven = self._round(round_id).proven.get(seat)
        return None if proven is None else dict(proven)

    def disputed(self, round_id: int) -> bool:
        """True once somebody complained in ``round_id``: the round is void, and only
        its audit (every seat's seed) can say who cheated."""
        return bool(self._round(round_id).complaints)

    def verdict_of(self, round_id: int) -> Verdict | None:
        """The audit verdict of ``round_id`` (None while pending)."""
        return self._round(round_id).verdict

    @property
    def verdict(self) -> Verdict | None:
        """The audit verdict of the current round (None while pending)."""
        return self._round().verdict

    @property
    def hand(self) -> dict[int, int]:
        """My opened cards in the current round: ``{position: card code}``."""
        return dict(self._round().hand)

    def waiting_for(self, round_id: int) -> set[int]:
        """The seats whose part this seat still lacks to open the dealt cards of
        ``round_id`` (first in the shuffle and locking chain, then keys): whom to blame
        when the table waits too long. Empty when nothing is missing. ``round_id`` 0:
        the set-up (keys, then seeds)."""
        if round_id == 0:
            present = self._present()
            have = self._seeds if self.table_id else self._pubs
            return set() if self.ready else {s for s in present if s not in have}
        rnd = self._round(round_id)
        if rnd.verdict is None and not rnd.suspended and (rnd.complaints or rnd.audit_wanted):
            return self._audit_owed(rnd)
        if not rnd.owner:
            return set()
        need = 1 + max(rnd.owner)
        order = rnd.order
        uncommitted = {s for s in order if s not in rnd.commits}
        if uncommitted and len(rnd.stages[0]) < DECK_SIZE:
            return uncommitted
        for i, s in enumerate(order):
            if len(rnd.stages[i]) < (DECK_SIZE if i < rnd.n - 1 else need):
                return {s}
        for u, s in enumerate(order[:-1]):
            if len(rnd.locks[u]) < need:
                return {s}
        return {
            s
            for pos, owner in rnd.owner.items()
            for s in order
            if s != owner and s not in rnd.keys.get(pos, {})
        }

    @staticmethod
    def _audit_owed(rnd: _Round) -> set[int]:
        """Whose round seed the audit of a void or finished round still lacks.

        After a complaint the complainer reveals first (the others only then): while
        no complainer has, the complainers owe it; then every seat that has not. The
        seat that keeps its seed is named, never the seats waiting for it.
        """
        complainers = {c for c, _ in rnd.complaints}
        if complainers and not complainers & set(rnd.audits):
            return complainers
        return {s for s in rnd.order if s not in rnd.audits}

    def progress(self, round_id: int = 0) -> float:
        """How far the set-up (``round_id`` 0: keys, then seeds) or a round's shuffle and
        locking of the positions due now has come, 0..1, as this seat sees it (for a
        progress bar on a slow phone)."""
        if round_id == 0:
            return min(1.0, (len(self._pubs) + len(self._seeds)) / (2 * len(self._present())))
        rnd = self._round(round_id)
        n, need = rnd.n, max(1, rnd.lock_target)
        me = rnd.order.index(self.seat) if self.seat in rnd.order else -1
        done = total = 0
        for i, stage in enumerate(rnd.stages):
            size = DECK_SIZE if i < n - 1 else need
            have = len(rnd.my_encrypted) if i == me and i < n - 1 and not stage else len(stage)
            done, total = done + min(have, size), total + size
        for lock in rnd.locks:
            done, total = done + min(len(lock), need), total + need
        return done / total

    def gave_key(self, round_id: int, position: int, seat: int) -> bool:
        """True once ``seat``'s key for a dealt ``position`` is in (the drawer needs every
        other seat's to open his card)."""
        return seat in self._round(round_id).keys.get(position, {})

    def owner_of(self, position: int) -> int | None:
        """The seat a position was dealt to (None if not dealt yet)."""
        return self._round().owner.get(position)

    def locked_count(self) -> int:
        """How many positions are fully locked (ready to deal)."""
        return len(self._round().final)

    def suspend_round(self, round_id: int, voided: Sequence[int] = ()) -> None:
        """Freeze a round a dropout interrupted: no more shuffling, locking or dealing in it.

        Claims, escrow releases and opening of cards already dealt still work; the table
        then starts a fresh round among the remaining seats (:meth:`start_round`).
        ``voided``: dealt positions the table takes back (a card on its way when the
        dropout came, which can never open now): they are nobody's any more, so the
        drawer's claim and escrow cover only the cards he kept. A public event: every
        seat must void the same positions.
        """
        rnd = self._round(round_id)
        rnd.frozen = rnd.suspended = True
        self._open_early_releases(rnd, None)
        gone = set(voided)
        if any(p not in rnd.owner for p in gone):
            raise ProtocolUsageError("only a dealt position can be voided")
        for pos in gone:
            del rnd.owner[pos]
            rnd.hand.pop(pos, None)
        rnd.pending_keys = [
            kept for batch in rnd.pending_keys if (kept := tuple(p for p in batch if p not in gone))
        ]

    def dropped(self, seat: int) -> None:
        """``seat`` left the table (a public event, on every seat): escrow releases of
        his held hands are opened from now on, also those that came before (at the
        showdown nobody is left to act, and no round is suspended then)."""
        self._dropped.add(seat)
        for rnd in self._rounds.values():
            self._open_early_releases(rnd, seat)

    def _open_early_releases(self, rnd: _Round, owner: int | None) -> None:
        """Apply the releases kept back for ``owner`` (None: every owner)."""
        keep = []
        for entry in rnd.early_releases:
            if owner is not None and entry[0] != owner:
                keep.append(entry)
                continue
            try:
                self._apply_release(rnd, *entry)
            except ProtocolViolation as exc:
                self.accusations.append(exc)
        rnd.early_releases = keep

    def hand_in(self, round_id: int) -> dict[int, int]:
        """My opened cards in ``round_id``: ``{position: card code}``."""
        return dict(self._round(round_id).hand)

    def extend(self, upto: int, round_id: int | None = None) -> None:
        """Lock positions up to ``upto`` (exclusive) in the background (public event)."""
        rnd = self._round(round_id)
        rnd.lock_target = max(rnd.lock_target, min(DECK_SIZE, upto))

    def reveal(
        self, assignments: Sequence[tuple[int, int]], round_id: int | None = None
    ) -> list[Message]:
        """Deal ``(position, drawer)`` pairs (a public event, called on every seat).

        Every seat but the drawer broadcasts its key for the position (one KEYS message
        per call, once the positions are locked); the drawer then opens its card with
        one exponentiation. Positions beyond the locked region are locked on demand.
        ``round_id`` defaults to the latest started round (with a pre-shuffle of the next
        round running, name the round being played).
        """
        rnd = self._round(round_id)
        for pos, drawer in assignments:
            if not 0 <= pos < DECK_SIZE or drawer not in rnd.order:
                raise ProtocolUsageError("bad assignment")
            if pos in rnd.owner:
                raise ProtocolUsageError(f"position {pos} already dealt")
        for pos, drawer in assignments:
            rnd.owner[pos] = drawer
            rnd.keys.setdefault(pos, {})
        rnd.lock_target = max(rnd.lock_target, 1 + max(p for p, _ in assignments))
        if self.seat in rnd.order:
            mine = tuple(p for p, d in assignments if d != self.seat)
            if mine:
                rnd.pending_keys.append(mine)
        return []

    def claim(self, kind: ClaimKind, round_id: int | None = None) -> list[Message]:
        """Prove my hand: PERSIAN (my first two cards are aces) or SHOWDOWN (all my cards).

        ``round_id`` names an earlier, still open round: after a dropout the cards dealt
        before the fresh shuffle are claimed in their own round.
        """
        rnd = self._round(round_id)
        mine = sorted(p for p, d in rnd.owner.items() if d == self.seat)
        if kind == ClaimKind.PERSIAN:
            mine = mine[:2]
        if not mine or any(p not in rnd.hand for p in mine):
            raise ProtocolUsageError("my cards are not open yet")
        codes = [rnd.hand[p] for p in mine]
        return [self._claim_message(rnd, kind, mine, codes, oczko_total(codes))]

    def _claim_message(
        self,
        rnd: _Round,
        kind: ClaimKind,
        positions: Sequence[int],
        codes: Sequence[int],
        total: int,
    ) -> Message:
        assert rnd.secret is not None
        data = bytes([int(kind), total]) + b"".join(
            bytes([p, c]) for p, c in zip(positions, codes, strict=True)
        )
        keys = tuple(rnd.secret.card_key_inv(p) for p in positions)
        return self._send(Kind.CLAIM, rnd.spec.round_id, values=keys, data=data)

    def finish_round(self, round_id: int | None = None) -> list[Message]:
        """End the round: reveal my round seed; the audit then runs as background work."""
        rnd = self._round(round_id)
        rnd.audit_wanted = True
        return []

    def close_round(self, round_id: int) -> None:
        """Give up auditing a round that a dropout voided (its seed will never come).

        The verdict becomes ``ok=False`` with no cheater named: the round was replaced
        by a fresh shuffle; held results in it stay openable through the escrow.
        """
        rnd = self._round(round_id)
        if rnd.verdict is None:
            rnd.verdict = Verdict(round_id, False, (), None)
            rnd.closed = True

    # -- escrow of a held result (dropouts) --------------------------------------

    def _pair_key(self, other: int) -> bytes:
        if other not in self._pairwise:
            self.cost += 1.0
            self._pairwise[other] = self.identity.pairwise_key(self._pubs[other][1])
        return self._pairwise[other]

    def _record_key(self, round_id: int, owner: int, holder: int) -> bytes:
        other = holder if owner == self.seat else owner
        return digest(
            b"blu21/escrow-record",
            self._pair_key(other),
            round_id.to_bytes(8, "big"),
            bytes([owner, holder]),
        )

    def escrow(self, holders: Sequence[int], round_id: int | None = None) -> list[Message]:
        """After I hold: give seats that have *finished their turn* the keys to my cards.

        Each holder gets my card keys encrypted under our pairwise key, so if I drop
        out my held result can still be opened at showdown (see :meth:`release`),
        while no seat still to act can read it. Call again when more seats finish.
        ``round_id``: the round being played (needed while the next one pre-shuffles).
        """
        rnd = self._round(round_id)
        assert rnd.secret is not None
        mine = sorted(p for p, d in rnd.owner.items() if d == self.seat)
        if not mine or any(p not in rnd.hand for p in mine):
            raise ProtocolUsageError("my cards are not open yet")
        plain = b"".join(
            bytes([p]) + rnd.secret.card_key_inv(p).to_bytes(self.group.byte_len, "big")
            for p in mine
        )
        holders = [h for h in holders if h != self.seat and h in rnd.order]
        if not holders:
            return []
        data = bytes([len(holders)])
        for h in holders:
            key = self._record_key(rnd.spec.round_id, self.seat, h)
            ct = bytes(a ^ b for a, b in zip(plain, keystream(key, len(plain)), strict=True))
            data += bytes([h]) + len(ct).to_bytes(2, "big") + ct
        return [self._send(Kind.ESCROW, rnd.spec.round_id, data=data)]

    def release(self, owner: int, round_id: int) -> list[Message]:
        """At showdown, open a dropped seat's escrowed hand: publish the record key.

        The record key decrypts only that one escrow record; everybody then opens the
        owner's cards from the signed escrow and the keys broadcast at the deal.
        """
        rnd = self._round(round_id)
        if (owner, self.seat) not in rnd.escrows:
            return []
        key = self._record_key(round_id, owner, self.seat)
        self._apply_release(rnd, owner, self.seat, key)
        data = bytes([owner]) + round_id.to_bytes(8, "big") + key
        return [self._send(Kind.RELEASE, self._current, data=data)]

    def held_result(self, owner: int, round_id: int) -> tuple[int, ...] | None:
        """The card codes of a dropped seat's escrowed hand once released and opened."""
        return self._round(round_id).held.get(owner)

    def held_hand(self, owner: int, round_id: int) -> dict[int, int] | None:
        """A dropped seat's opened escrowed hand as position -> card code (None until opened)."""
        rnd = self._round(round_id)
        cards, positions = rnd.held.get(owner), rnd.released.get(owner)
        if cards is None or positions is None:
            return None
        return dict(zip(positions, cards, strict=True))

    def _open_record(
        self, rnd: _Round, owner: int, ct: bytes, key: bytes
    ) -> tuple[list[int], list[int]] | None:
        """Decrypt one escrow record: (positions, keys), or None if it is not the owner's."""
        plain = bytes(a ^ b for a, b in zip(ct, keystream(key, len(ct)), strict=True))
        step = 1 + self.group.byte_len
        mine = sorted(p for p, d in rnd.owner.items() if d == owner)
        recs = [plain[i : i + step] for i in range(0, len(plain), step)]
        positions = [r[0] for r in recs]
        keys = [int.from_bytes(r[1:], "big") for r in recs]
        if positions != mine or not all(self.group.is_exponent(k) for k in keys):
            return None
        return positions, keys

    def _check_my_record(self, rnd: _Round, owner: int, ct: bytes) -> None:
        """A holder checks its record on arrival (it may read it: it has finished).

        Without this an owner could escrow garbage and, once the honest holder released
        it, get the holder named for a record that does not open. A record that does
        not decrypt to keys opening the owner's cards names the owner here, and is not
        kept, so this holder never releases it.
        """
        opened = self._open_record(
            rnd, owner, ct, self._record_key(rnd.spec.round_id, owner, self.seat)
        )
        if opened is not None and all(
            p < len(rnd.final) and all(s in rnd.keys.get(p, {}) for s in rnd.order if s != owner)
            for p in opened[0]
        ):
            exps = [self._open_exponent(rnd, p, k) for p, k in zip(*opened, strict=True)]
            values = self._pow_many([rnd.final[p] for p in opened[0]], exps)
            if all(rnd.enc.card_of(v) is not None for v in values):
                return
        raise ProtocolViolation(owner, E.BAD_KEY, "my escrow record does not open")

    def _apply_release(self, rnd: _Round, owner: int, holder: int, key: bytes) -> None:
        opened = self._open_record(rnd, owner, rnd.escrows[(owner, holder)], key)
        if opened is None:
            # honest holders check their record on arrival: a release that does not
            # decrypt to the owner's positions carries a wrong key
            raise ProtocolViolation(holder, E.BAD_KEY, "escrow record does not open")
        positions, keys = opened
        if owner in rnd.released:
            return
        for p, k in zip(positions, keys, strict=True):
            rnd.keys.setdefault(p, {})[owner] = k
        rnd.released[owner] = tuple(positions)

    # ------------------------------------------------------------------ receiving

    def authenticate(self, msg: Message, link: int | None = None) -> None:
        """The link checks a relaying host runs before forwarding a frame.

        ``link`` (host only) is the seat whose connection the frame arrived on: a frame
        claiming another sender, and any failure of it, then names that seat, so that a
        guest cannot get another seat named by sending garbage in its name.
        """
        self._link = link if self.seat == self.config.host else None
        try:
            self._authenticate(msg)
        finally:
            self._link = None

    def _authenticate(self, msg: Message) -> None:
        """See :meth:`authenticate`.

        Sender id, round (replays of closed rounds), signature and sequence number; on
        success the sequence number is consumed. Failures blame the link (the host, as
        seen from a guest). A host relays every frame that passes, whatever its content,
        so that every seat sees - and names - a sender's signed misbehaviour.
        """
        if not 0 <= msg.sender < self.config.n_seats or msg.sender == self.seat:
            raise ProtocolViolation(self._blame_link(msg.sender), E.WRONG_SENDER, "sender id")
        if self._link is not None and msg.sender != self._link:
            raise ProtocolViolation(self._link, E.WRONG_SENDER, "another seat's frame")
        if msg.round_id == 0:
            expected = self._setup_seq.get(msg.sender, 0)
            seqs = self._setup_seq
        else:
            if not self.ready:
                raise ProtocolViolation(
                    self._blame_link(msg.sender), E.OUT_OF_ORDER, "before set-up"
                )
            if msg.round_id > self._current:
                # Buffered for a round not started here yet. Sequence numbers start at 0
                # in every round, so the host checks them now: else it would relay a
                # guest's duplicate, and the other guests would blame the host for it.
                key = (msg.round_id, msg.sender)
                expected = self._future_seq.get(key, 0)
                if msg.seq != expected:
                    code = E.REPLAY if msg.seq < expected else E.SEQ_GAP
                    raise ProtocolViolation(self._blame_link(msg.sender), code, "sequence")
                self._authenticate_sig(msg)
                self._future_seq[key] = expected + 1
                return
            rnd = self._rounds.get(msg.round_id)
            if rnd is None:
                raise ProtocolViolation(self._blame_link(msg.sender), E.REPLAY, "closed round")
            expected = rnd.recv_seq.get(msg.sender, 0)
            seqs = rnd.recv_seq
        if msg.seq < expected:
            raise ProtocolViolation(self._blame_link(msg.sender), E.REPLAY, "sequence")
        if msg.seq > expected:
            raise ProtocolViolation(self._blame_link(msg.sender), E.SEQ_GAP, "sequence")
        if msg.round_id and rnd.verdict is not None and msg.kind != Kind.EVIDENCE:
            # A new signed frame (next sequence number) for a round already audited here:
            # the sender's doing, not a replay by the relay. Naming the relay let a seat
            # get the host named by a guest whose audit happened to finish first.
            self._authenticate_sig(msg)
            seqs[msg.sender] = expected + 1
            if rnd.closed:
                return  # given up here (a void round): its frames still in flight are moot
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "round already audited")
        if msg.kind == Kind.HELLO:
            if len(msg.values) != 2 or not self.group.is_element(msg.values[0]):
                raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "hello")
            self._count([self.group.q, 1 << 128])
            ok = verify(self.group, msg.values[0], _HELLO_CONTEXT, msg.body(self.group), msg.sig)
            if not ok:
                raise ProtocolViolation(self._blame_link(msg.sender), E.BAD_SIGNATURE, "hello")
        elif self._may_defer_signature(msg):
            self._rounds[msg.round_id].deferred_sigs.append(msg)
        else:
            self._authenticate_sig(msg)
        if msg.round_id and self.seat == self.config.host and self._input_missing(rnd, msg):
            # Guests blame the relay for a pass or lock whose input they lack (an in-order
            # relay lost it), so the host must not relay one it has no input for itself:
            # else a guest sending early gets the honest host named everywhere.
            raise ProtocolViolation(self._blame_link(msg.sender), E.OUT_OF_ORDER, "before input")
        seqs[msg.sender] = expected + 1

    @staticmethod
    def _input_missing(rnd: _Round, msg: Message) -> bool:
        """A SHUFFLE or LOCK frame whose input has not (all) been seen here."""
        if msg.sender not in rnd.order:
            return False
        i = rnd.order.index(msg.sender)
        if msg.kind == Kind.SHUFFLE:
            return (i > 0 and len(rnd.stages[i - 1]) < DECK_SIZE) or len(rnd.commits) < rnd.n
        if msg.kind == Kind.LOCK and i < rnd.n - 1:
            inp = rnd.stages[-1] if i == 0 else rnd.locks[i - 1]
            return msg.start + len(msg.values) > len(inp)
        return False

    def _may_defer_signature(self, msg: Message) -> bool:
        """Can this guest check the signature later, in the background?

        Only for shuffle and lock frames it does not exponentiate next (and not the
        final locks, which everybody opens): they are recorded at once (their order
        matters) but nothing this seat sends depends on them before the background
        check ran. The host never defers: it checks every frame before relaying it.
        """
        if msg.round_id == 0 or self.seat == self.config.host:
            return False
        if msg.kind not in (Kind.SHUFFLE, Kind.LOCK):
            return False
        rnd = self._rounds.get(msg.round_id)
        if rnd is None or msg.sender not in rnd.order:
            return False
        i = rnd.order.index(msg.sender)
        n = rnd.n
        if msg.kind == Kind.SHUFFLE:
            consumer = rnd.order[i + 1] if i + 1 < n else rnd.order[0]
        elif i < n - 2:
            consumer = rnd.order[i + 1]
        else:
            return False  # the final locks (or a bogus LOCK that process will reject)
        return consumer != self.seat

    def handle(self, msg: Message, link: int | None = None) -> list[Message]:
        """Authenticate, validate and record one incoming message; return messages to send.

        Raises ProtocolViolation naming the seat to blame; the message is not applied.
        ``link``: see :meth:`authenticate`.
        """
        self.authenticate(msg, link)
        return self.process(msg)

    def process(self, msg: Message) -> list[Message]:
        """The content checks and state update for an authenticated message."""
        if msg.round_id == 0:
            return self._handle_setup(msg)
        if msg.round_id > self._current:
            # Per sender, and blamed on it: these frames are signed and in sequence, so
            # only the sender can have made so many (not the relay).
            if sum(m.sender == msg.sender for m in self._buffer) >= _MAX_BUFFERED:
                raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "flood")
            self._buffer.append(msg)
            return []
        rnd = self._rounds[msg.round_id]
        if rnd.closed:
            return []  # (authenticated, and moot: see _authenticate)
        if msg.sender not in rnd.order:
            raise ProtocolViolation(msg.sender, E.WRONG_SENDER, "not in this round")
        rnd.frames[(msg.sender, msg.seq)] = msg
        handler = {
            Kind.SHUFFLE: self._on_shuffle,
            Kind.LOCK: self._on_lock,
            Kind.KEYS: self._on_keys,
            Kind.CLAIM: self._on_claim,
            Kind.AUDIT: self._on_audit,
            Kind.COMPLAIN: self._on_complain,
            Kind.ESCROW: self._on_escrow,
            Kind.RELEASE: self._on_release,
            Kind.EVIDENCE: self._on_evidence,
            Kind.COMMIT: self._on_commit,
        }.get(msg.kind)
        if handler is None:
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, msg.kind.name)
        try:
            handler(rnd, msg)
        except ProtocolViolation:
            # Blame the sender only for what it provably signed: check the deferred
            # signatures now (a forgery names the relay instead) - all of them, since
            # the check may have failed against a forged earlier frame (e.g. a pass
            # compared with its forged input).
            pending, rnd.deferred_sigs = rnd.deferred_sigs, []
            for m in pending:
                try:
                    self._authenticate_sig(m)
                except ProtocolViolation as exc:  # a forgery is in my state: void here
                    rnd.verdict = Verdict(rnd.spec.round_id, False, ((exc.seat, exc.code),), None)
                    raise exc from None
            raise
        return []

    def _check_elements(
        self,
        rnd: _Round,
        sender: int,
        values: Sequence[int],
        seen: Iterable[int],
        consumer: int | None,
    ) -> None:
        """Duplicate checks at once; range and subgroup (Jacobi) tests in the background.

        The Jacobi tests need not delay the chain: every exponent an honest seat
        applies before releasing values is even (:func:`app.protocol.keys.even_exponent`),
        so a non-residue cannot leak its Legendre symbol through this seat. The tests
        run as background work (before the audit) and name the sender on this seat.
        ``consumer`` is the seat that exponentiates these values next.
        """
        if not values:
            raise ProtocolViolation(sender, E.BAD_LENGTH, "no values")
        if len(set(values)) != len(values) or not set(seen).isdisjoint(values):
            raise ProtocolViolation(sender, E.DUPLICATE_VALUE, "duplicate card")
        del consumer  # every seat defers the Jacobi test; kept to document the call sites
        p = self.group.p
        if not all(1 < v < p - 1 for v in values):  # cheap, and the kernels need it
            raise ProtocolViolation(sender, E.NOT_ELEMENT, "out of range")
        rnd.deferred_checks.append((sender, tuple(values)))

    def _check_subgroup(self, sender: int, values: Sequence[int]) -> None:
        self.checks += len(values)
        for v in values:
            if not self.group.is_element(v):
                raise ProtocolViolation(sender, E.NOT_ELEMENT, "outside the subgroup")

    def _run_deferred_sig(self, rnd: _Round) -> list[Message]:
        msg = rnd.deferred_sigs.pop(0)
        try:
            self._authenticate_sig(msg)
        except ProtocolViolation as exc:
            # A forged frame got into this round's state: the round is void here and
            # only the relay (the host, which checks every frame) can be named.
            self.accusations.append(exc)
            rnd.deferred_sigs.clear()
            rnd.verdict = Verdict(rnd.spec.round_id, False, ((exc.seat, exc.code),), None)
        return []

    def _run_deferred_checks(self, rnd: _Round) -> list[Message]:
        # a few values per step, so that urgent work arriving meanwhile waits little
        sender, values = rnd.deferred_checks.pop(0)
        head, rest = values[:_CHECKS_PER_STEP], values[_CHECKS_PER_STEP:]
        if rest:
            rnd.deferred_checks.insert(0, (sender, rest))
        try:
            self._check_subgroup(sender, head)
        except ProtocolViolation as exc:
            self.accusations.append(exc)
            rnd.deferred_checks = [c for c in rnd.deferred_checks if c[0] != sender]
        return []

    def _on_shuffle(self, rnd: _Round, msg: Message) -> None:
        i = rnd.order.index(msg.sender)
        if msg.sender in rnd.audits:
            # (its own AUDIT came first: the last shuffler's chunks sent before it were
            # still in flight when this seat revealed, which is no fault of anybody's)
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "shuffle after its audit")
        if (i > 0 and len(rnd.stages[i - 1]) < DECK_SIZE) or len(rnd.commits) < rnd.n:
            # the sender must have had its input and every commitment: an in-order
            # relay lost them
            raise ProtocolViolation(
                self._blame_link(msg.sender), E.OUT_OF_ORDER, "shuffle before its input"
            )
        stage = rnd.stages[i]
        if msg.start != len(stage) or msg.start + len(msg.values) > DECK_SIZE:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "shuffle range")
        consumer = rnd.order[i + 1] if i + 1 < rnd.n else rnd.order[0]
        self._check_elements(rnd, msg.sender, msg.values, stage, consumer)
        prev = rnd.enc.values if i == 0 else rnd.stages[i - 1]
        if not set(prev).isdisjoint(msg.values):
            raise ProtocolViolation(msg.sender, E.BAD_SHUFFLE, "value passed through unencrypted")
        stage.extend(msg.values)

    def _on_commit(self, rnd: _Round, msg: Message) -> None:
        if len(msg.data) != 32 or msg.values or msg.sender in rnd.commits:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "commitment")
        if rnd.stages[0]:
            # the first pass waits for every commitment: this one comes too late
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "commitment after the shuffle")
        rnd.commits[msg.sender] = msg.data

    def _on_lock(self, rnd: _Round, msg: Message) -> None:
        u = rnd.order.index(msg.sender)
        if u >= rnd.n - 1:
            raise ProtocolViolation(msg.sender, E.WRONG_SENDER, "the last shuffler does not lock")
        inp = rnd.stages[-1] if u == 0 else rnd.locks[u - 1]
        out = rnd.locks[u]
        if msg.start != len(out):
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "lock range")
        if msg.start + len(msg.values) > len(inp):
            # the locker must have had its input: an in-order relay lost it
            raise ProtocolViolation(self._blame_link(msg.sender), E.OUT_OF_ORDER, "lock input")
        consumer = rnd.order[u + 1] if u + 2 < rnd.n else None  # the last lock: opened only
        self._check_elements(rnd, msg.sender, msg.values, out, consumer)
        out.extend(msg.values)

    def _on_keys(self, rnd: _Round, msg: Message) -> None:
        positions = list(msg.data)
        if (
            not positions
            or len(positions) != len(msg.values)
            or len(set(positions)) != len(positions)
        ):
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "keys")
        for pos, key in zip(positions, msg.values, strict=True):
            if pos >= DECK_SIZE or msg.sender in rnd.keys.get(pos, {}):
                raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "key position")
            if not self.group.is_exponent(key):
                raise ProtocolViolation(msg.sender, E.NOT_EXPONENT, "key")
        for pos, key in zip(positions, msg.values, strict=True):
            rnd.keys.setdefault(pos, {})[msg.sender] = key

    def _on_claim(self, rnd: _Round, msg: Message) -> None:
        data = msg.data
        if len(data) < 4 or len(data) % 2 or len(msg.values) != (len(data) - 2) // 2:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "claim")
        try:
            kind = ClaimKind(data[0])
        except ValueError:
            raise ProtocolViolation(msg.sender, E.BAD_FRAME, "claim kind") from None
        total = data[1]
        pairs = tuple((data[k], data[k + 1]) for k in range(2, len(data), 2))
        positions = [p for p, _ in pairs]
        codes = [c for _, c in pairs]
        if msg.sender in rnd.claims and rnd.claims[msg.sender][0] == kind:
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "second claim")
        if any(c >= DECK_SIZE for c in codes) or len(set(positions)) != len(positions):
            raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "claim values")
        if not all(self.group.is_exponent(k) for k in msg.values):
            raise ProtocolViolation(msg.sender, E.NOT_EXPONENT, "claim key")
        mine = sorted(p for p, d in rnd.owner.items() if d == msg.sender)
        if kind == ClaimKind.PERSIAN:
            if positions != mine[:2] or len(positions) != 2 or any(c >= 4 for c in codes):
                raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "not a Persian 21")
        elif positions != mine:
            raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "not the claimer's cards")
        if total != oczko_total(codes):
            raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "false total")
        for pos, key in zip(positions, msg.values, strict=True):
            # Two signed keys for one position: one is false. Overwriting would let a
            # claim be checked with one key and the audit see another.
            if rnd.keys.get(pos, {}).get(msg.sender, key) != key:
                raise ProtocolViolation(msg.sender, E.BAD_KEY, "claim key differs from before")
        rnd.claims[msg.sender] = (kind, total, pairs)
        for pos, key in zip(positions, msg.values, strict=True):
            rnd.keys.setdefault(pos, {})[msg.sender] = key
        rnd.claim_log.append((msg.sender, pairs))
        rnd.unchecked_claims.append((msg.sender, pairs))

    def _on_complain(self, rnd: _Round, msg: Message) -> None:
        if len(msg.data) != 1:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "complaint")
        if msg.data[0] >= len(rnd.final):
            # nobody can have failed to open a position that is not locked yet
            raise ProtocolViolation(msg.sender, E.FALSE_COMPLAINT, "position not locked")
        # A complaint voids the round: dealing stops here at once, but this seat reveals
        # its seed only after the complainer's own AUDIT (see _reveal_due): a complaint
        # must not buy a seat everybody's cards while it keeps its own keys back.
        rnd.complaints.append((msg.sender, msg.data[0]))

    def _on_escrow(self, rnd: _Round, msg: Message) -> None:
        data = msg.data
        try:
            count, off, recs = data[0], 1, {}
            for _ in range(count):
                holder = data[off]
                size = int.from_bytes(data[off + 1 : off + 3], "big")
                recs[holder] = data[off + 3 : off + 3 + size]
                if len(recs[holder]) != size:
                    raise IndexError
                off += 3 + size
        except IndexError:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "escrow") from None
        if off != len(data):
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "escrow")
        if self.seat in recs:
            self._check_my_record(rnd, msg.sender, recs[self.seat])
        for holder, ct in recs.items():
            rnd.escrows[(msg.sender, holder)] = ct

    def _on_release(self, rnd: _Round, msg: Message) -> None:
        if len(msg.data) != 41:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "release")
        owner = msg.data[0]
        old = self._rounds.get(int.from_bytes(msg.data[1:9], "big"))
        if old is None or (owner, msg.sender) not in old.escrows:
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "no such escrow")
        if not old.suspended and owner not in self._dropped:
            # The owner has not dropped here (yet): opening its held hand now would show
            # it to a seat still to act. Kept until he drops here or the round is
            # suspended.
            old.early_releases.append((owner, msg.sender, msg.data[9:]))
            return
        self._apply_release(old, owner, msg.sender, msg.data[9:])

    def _on_audit(self, rnd: _Round, msg: Message) -> None:
        if msg.sender in rnd.audits or len(msg.data) != 32:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "audit")
        if _seed_commitment(msg.data) != rnd.commits.get(msg.sender):
            # not the seed it bound itself to before the shuffle (or none was bound)
            raise ProtocolViolation(msg.sender, E.COMMIT_MISMATCH, "round seed")
        last = rnd.order[-1]
        if msg.sender != last and msg.values:
            raise ProtocolViolation(msg.sender, E.BAD_AUDIT, "only the last shuffler sends cards")
        if msg.sender == last:
            stage = rnd.stages[-1]
            if msg.start != len(stage) or len(stage) + len(msg.values) != DECK_SIZE:
                if len(rnd.stages[-2]) == DECK_SIZE or msg.values:
                    raise ProtocolViolation(msg.sender, E.BAD_AUDIT, "rest of the deck")
            elif msg.values:
                self._check_elements(rnd, msg.sender, msg.values, stage, self.seat)
        # Another seat's AUDIT never makes this seat reveal: an early AUDIT would
        # otherwise open every hand (and the undealt deck) in the middle of a round.
        rnd.audits[msg.sender] = (msg.data, msg.values)

    # ------------------------------------------------------------------ work

    def has_work(self) -> bool:
        """True when :meth:`work` has something to do."""
        return any(self._next_job(rnd) is not None for rnd in self._open_rounds())

    def work(self) -> list[Message]:
        """Do one bounded step of pending computation; return the messages it produces.

        Priority: my shuffle pass, locking, keys, opening my cards, checking claims,
        then the audit (background).
        """
        for rnd in self._open_rounds():
            job = self._next_job(rnd)
            if job is not None:
                return job()
        return []

    def _open_rounds(self) -> list[_Round]:
        return [
            r
            for _, r in sorted(self._rounds.items())
            if r.verdict is None or any(o not in r.held for o in r.released)
        ]

    def _next_job(self, rnd: _Round):
        # A seat outside the order (a tiebreak's onlooker) only checks: the claims it
        # must open in the engine, the signatures, the values, and the audit.
        observer = rnd.secret is None
        me = -1 if observer else rnd.order.index(self.seat)
        n = rnd.n
        # A later round freezes this one (a dropout's fresh shuffle, or the next round
        # while this one's audit runs): no more shuffling, locking or dealing here.
        void = rnd.audit_wanted or bool(rnd.complaints)
        busy = not observer and not void and not rnd.frozen and rnd.verdict is None
        # 1. my shuffle pass (non-last shufflers): encrypt input as it arrives, release whole
        if busy and 0 <= me < n - 1 and not rnd.shuffle_sent:
            inp = rnd.enc.values if me == 0 else rnd.stages[me - 1]
            if len(rnd.my_encrypted) < len(inp):
                return lambda: self._encrypt_incoming(rnd, inp)
            if len(rnd.my_encrypted) == DECK_SIZE and (me or len(rnd.commits) == n):
                return lambda: self._release_shuffle(rnd)
        # 2. the last shuffler streams its per-card-keyed output up to the lock target
        last_ready = me == n - 1 and len(rnd.stages[-2]) == DECK_SIZE
        if busy and last_ready and len(rnd.stages[-1]) < rnd.lock_target:
            return lambda: self._last_shuffle_chunk(rnd)
        # 3. keys for dealt positions once they are locked (before locking more)
        if busy and rnd.pending_keys and all(p < len(rnd.final) for p in rnd.pending_keys[0]):
            return lambda: self._send_keys(rnd)
        # 4. open my own cards
        if not void and rnd.verdict is None and self._openable(rnd):
            return lambda: self._open_mine(rnd)
        # 5. locking, streamed in chunks
        if busy and 0 <= me < n - 1:
            inp = rnd.stages[-1] if me == 0 else rnd.locks[me - 1]
            if len(rnd.locks[me]) < min(len(inp), rnd.lock_target):
                return lambda: self._lock_chunk(rnd, inp)
        # 6. signatures deferred by authenticate (before anything judges others' data)
        if rnd.deferred_sigs and rnd.verdict is None:
            return lambda: self._run_deferred_sig(rnd)
        # 7. check others' claims (once their keys are all in)
        if not rnd.complaints and rnd.verdict is None and self._checkable_claim(rnd) is not None:
            return lambda: self._check_claim(rnd)
        # 8. open a dropped seat's released hand
        pend = [o for o in rnd.released if o not in rnd.held]
        if pend and all(len(rnd.final) > p for p in rnd.released[pend[0]]):
            return lambda: self._open_released(rnd, pend[0])
        # 9. deferred subgroup tests of values this seat does not exponentiate
        if rnd.deferred_checks:
            return lambda: self._run_deferred_checks(rnd)
        # 10. the audit (background)
        if rnd.verdict is not None:
            return None
        if not observer and not rnd.audit_sent and self._reveal_due(rnd):
            return lambda: self._send_audit(rnd)
        if (rnd.audit_sent or (observer and self._reveal_due(rnd))) and len(rnd.audits) == n:
            return lambda: self._run_audit(rnd)
        return None

    @staticmethod
    def _reveal_due(rnd: _Round) -> bool:
        """May this seat reveal its round seed (all its keys, hence every hand) now?

        Yes when the table ended the round here (``finish_round``) or this seat
        complained; after another seat's complaint only once that complainer revealed
        its own seed, and never in a suspended round, whose dealt cards stay in play.
        """
        if rnd.audit_wanted:
            return True
        return not rnd.suspended and any(c in rnd.audits for c, _ in rnd.complaints)

    def _encrypt_incoming(self, rnd: _Round, inp: Sequence[int]) -> list[Message]:
        assert rnd.secret is not None
        done = len(rnd.my_encrypted)
        rnd.my_encrypted.extend(self._pow_batch(inp[done:], rnd.secret.shuffle_key))
        return []

    def _release_shuffle(self, rnd: _Round) -> list[Message]:
        assert rnd.secret is not None
        perm = rnd.secret.permutation(DECK_SIZE)
        out = [rnd.my_encrypted[perm[j]] for j in range(DECK_SIZE)]
        if len(set(out)) != DECK_SIZE:
            # x and -x in my input (an even key maps both to one value): name the sender
            me = rnd.order.index(self.seat)
            sender = rnd.order[me - 1]
            rnd.frozen = True
            try:
                self._check_subgroup(sender, rnd.stages[me - 1])
                exc = ProtocolViolation(sender, E.DUPLICATE_VALUE, "x and -x")
            except ProtocolViolation as found:
                exc = found
            self.accusations.append(exc)
            return []
        rnd.shuffle_sent = True
        rnd.stages[rnd.order.index(self.seat)] = list(out)
        # Released as a whole, but in parts: the next shuffler encrypts part 1 while
        # part 2 is still on the air (one signature per part: more parts, more bytes).
        parts = max(1, min(rnd.spec.shuffle_parts, DECK_SIZE))
        bounds = [DECK_SIZE * k // parts for k in range(parts + 1)]
        return [
            self._send(Kind.SHUFFLE, rnd.spec.round_id, start=a, values=tuple(out[a:b]))
            for a, b in pairwise(bounds)
        ]

    def _last_shuffle_chunk(self, rnd: _Round) -> list[Message]:
        # Output position j = input[perm[j]] ^ e_j: each position costs the same whatever
        # perm[j] is, so streaming these in position order leaks nothing about perm.
        assert rnd.secret is not None
        stage = rnd.stages[-1]
        start = len(stage)
        end = min(rnd.lock_target, start + rnd.spec.chunk)
        perm = rnd.secret.permutation(DECK_SIZE)
        inp = rnd.stages[-2]
        vals = self._pow_many(
            [inp[perm[j]] for j in range(start, end)],
            [rnd.secret.card_key(j) for j in range(start, end)],
        )
        stage.extend(vals)
        return [self._send(Kind.SHUFFLE, rnd.spec.round_id, start=start, values=tuple(vals))]

    def _lock_chunk(self, rnd: _Round, inp: Sequence[int]) -> list[Message]:
        assert rnd.secret is not None
        me = rnd.order.index(self.seat)
        out = rnd.locks[me]
        start = len(out)
        end = min(len(inp), rnd.lock_target, start + rnd.spec.chunk)
        vals = self._pow_many(
            inp[start:end], [rnd.secret.lock_exponent(j) for j in range(start, end)]
        )
        out.extend(vals)
        return [self._send(Kind.LOCK, rnd.spec.round_id, start=start, values=tuple(vals))]

    def _send_keys(self, rnd: _Round) -> list[Message]:
        assert rnd.secret is not None
        positions = rnd.pending_keys.pop(0)
        keys = tuple(rnd.secret.card_key_inv(p) for p in positions)
        for p, k in zip(positions, keys, strict=True):
            rnd.keys.setdefault(p, {})[self.seat] = k  # verifying claims needs mine too
        return [self._send(Kind.KEYS, rnd.spec.round_id, values=keys, data=bytes(positions))]

    def _openable(self, rnd: _Round) -> list[int]:
        others = [s for s in rnd.order if s != self.seat]
        return [
            p
            for p, d in sorted(rnd.owner.items())
            if d == self.seat
            and p not in rnd.hand
            and p < len(rnd.final)
            and all(s in rnd.keys.get(p, {}) for s in others)
        ]

    def _open_exponent(self, rnd: _Round, pos: int, owner_key: int) -> int:
        keys = rnd.keys[pos]
        others = [keys[s] for s in rnd.order if s != rnd.owner[pos]]
        return self.group.prod_exp([*others, owner_key])

    def _open_mine(self, rnd: _Round) -> list[Message]:
        assert rnd.secret is not None
        positions = self._openable(rnd)
        exps = [self._open_exponent(rnd, p, rnd.secret.card_key_inv(p)) for p in positions]
        out: list[Message] = []
        for pos, value in zip(
            positions, self._pow_many([rnd.final[p] for p in positions], exps), strict=True
        ):
            code = rnd.enc.card_of(value)
            if code is None:
                # Somebody's key or lock is wrong: void the round, the audit names him.
                rnd.hand[pos] = -1
                rnd.complaints.append((self.seat, pos))
                # my seed opens my other cards: in a suspended round they are in play
                rnd.audit_wanted = not rnd.suspended
                out.append(self._send(Kind.COMPLAIN, rnd.spec.round_id, data=bytes([pos])))
            else:
                rnd.hand[pos] = code
        return out

    def _checkable_claim(self, rnd: _Round) -> tuple[int, tuple[tuple[int, int], ...]] | None:
        for claimer, pairs in rnd.unchecked_claims:
            others = [s for s in rnd.order if s != claimer]
            if all(
                p < len(rnd.final) and all(s in rnd.keys.get(p, {}) for s in others)
                for p, _ in pairs
            ):
                return claimer, pairs
        return None

    def _check_claim(self, rnd: _Round) -> list[Message]:
        entry = self._checkable_claim(rnd)
        assert entry is not None
        rnd.unchecked_claims.remove(entry)
        claimer, pairs = entry
        positions = [p for p, _ in pairs]
        exps = [self._open_exponent(rnd, p, rnd.keys[p][claimer]) for p in positions]
        opened = self._pow_many([rnd.final[p] for p in positions], exps)
        wrong = [p for v, (p, c) in zip(opened, pairs, strict=True) if rnd.enc.card_of(v) != c]
        if not wrong:
            # (a showdown claim after a Persian one covers its cards too)
            merged = {**dict(rnd.proven.get(claimer, ())), **dict(pairs)}
            rnd.proven[claimer] = tuple(sorted(merged.items()))
        if wrong:
            # the transcript check decides who lied (not in a suspended round: my seed
            # would open my own cards, still in play)
            rnd.audit_wanted = not rnd.suspended
            rnd.complaints.append((self.seat, wrong[0]))
            return [self._send(Kind.COMPLAIN, rnd.spec.round_id, data=bytes([wrong[0]]))]
        return []

    def _open_released(self, rnd: _Round, owner: int) -> list[Message]:
        positions = rnd.released[owner]
        if not all(s in rnd.keys.get(p, {}) for p in positions for s in rnd.order):
            rnd.held[owner] = None  # a deal key is missing: cannot be opened
            return []
        exps = [self._open_exponent(rnd, p, rnd.keys[p][owner]) for p in positions]
        codes = [
            rnd.enc.card_of(v) for v in self._pow_many([rnd.final[p] for p in positions], exps)
        ]
        rnd.held[owner] = None if None in codes else tuple(codes)  # type: ignore[arg-type]
        return []

    def _send_audit(self, rnd: _Round) -> list[Message]:
        assert rnd.secret is not None
        rnd.audit_sent = True
        rest: tuple[int, ...] = ()
        start = 0
        if self.seat == rnd.order[-1] and len(rnd.stages[-2]) == DECK_SIZE:
            stage = rnd.stages[-1]
            start = len(stage)
            perm = rnd.secret.permutation(DECK_SIZE)
            rest = tuple(
                self._pow_many(
                    [rnd.stages[-2][perm[j]] for j in range(start, DECK_SIZE)],
                    [rnd.secret.card_key(j) for j in range(start, DECK_SIZE)],
                )
            )
        rnd.audits[self.seat] = (rnd.secret.seed, rest)
        return [
            self._send(
                Kind.AUDIT, rnd.spec.round_id, start=start, values=rest, data=rnd.secret.seed
            )
        ]

    # ------------------------------------------------------------------ audit

    def _run_audit(self, rnd: _Round) -> list[Message]:
        from app.protocol.audit import audit_round

        rnd.verdict = self._with_evidence(rnd, audit_round(self, rnd))
        for seat, code in rnd.verdict.cheaters:
            self.accusations.append(ProtocolViolation(seat, code, f"round {rnd.spec.round_id}"))
        return self._evidence_for(rnd)

    def _evidence_for(self, rnd: _Round) -> list[Message]:
        """Publish the signed frames that contradict their sender's revealed seed.

        The others may hold a different (consistent) version of such a frame if its
        sender equivocated (only the host can: it delivers its own frames); with the
        evidence every seat sees two signed versions and names it.
        """
        assert rnd.verdict is not None
        out = []
        # Shuffle and lock frames too: a host that sent its victim another version of
        # its own locks got the victim named for a false complaint on every other seat.
        kinds = {
            E.BAD_KEY: (Kind.KEYS, Kind.CLAIM),
            E.BAD_LOCK: (Kind.LOCK,),
            E.BAD_SHUFFLE: (Kind.SHUFFLE,),
        }
        for x, code in rnd.verdict.cheaters:
            if code not in kinds or x not in rnd.audits:
                continue
            sec = RoundSecret(self.group, rnd.audits[x][0], rnd.spec.round_id, None)
            for (sender, _), msg in sorted(rnd.frames.items(), key=lambda kv: kv[0]):
                if sender != x or msg.kind not in kinds[code]:
                    continue
                positions = list(msg.data) if msg.kind == Kind.KEYS else list(msg.data[2::2])
                if msg.kind in (Kind.LOCK, Kind.SHUFFLE) or any(
                    k != sec.card_key_inv(p) for p, k in zip(positions, msg.values, strict=False)
                ):
                    frame = msg.encode(self.group)
                    out.append(self._send(Kind.EVIDENCE, rnd.spec.round_id, data=frame))
        return out

    @staticmethod
    def _with_evidence(rnd: _Round, verdict: Verdict) -> Verdict:
        """The audit's verdict after equivocation proven by EVIDENCE before it ran."""
        if not rnd.equivocators:
            return verdict
        cheaters = tuple(
            c for c in verdict.cheaters if not (c[1] == E.FALSE_COMPLAINT and c[0] in rnd.excused)
        )
        cheaters += tuple((x, E.EQUIVOCATION) for x in sorted(rnd.equivocators))
        return Verdict(verdict.round_id, False, tuple(dict.fromkeys(cheaters)), None)

    def _on_evidence(self, rnd: _Round, msg: Message) -> None:
        try:
            shown = Message.decode(msg.data, self.group)
        except ProtocolViolation:
            raise ProtocolViolation(msg.sender, E.BAD_FRAME, "evidence") from None
        pub = self._pubs.get(shown.sender)
        body = shown.body(self.group)
        if (
            shown.round_id != rnd.spec.round_id
            or pub is None
            or not verify(self.group, pub[0], self.table_id, body, shown.sig, check_pub=False)
        ):
            raise ProtocolViolation(msg.sender, E.BAD_FRAME, "evidence not signed")
        self._count([self.group.q, 1 << 128])
        mine = rnd.frames.get((shown.sender, shown.seq))
        if mine is None or mine == shown:
            return  # nothing I did not see myself: my own audit has judged it
        # Two different signed frames with one sequence number: proven equivocation.
        # Whoever complained because of the version he got is excused.
        exc = ProtocolViolation(shown.sender, E.EQUIVOCATION, f"seq {shown.seq}")
        rnd.equivocators.add(shown.sender)
        rnd.excused.add(msg.sender)  # also for an audit that has not run yet
        self.accusations = [
            a
            for a in self.accusations
            if not (a.seat == msg.sender and a.code == E.FALSE_COMPLAINT)
        ]
        self.accusations.append(exc)
        if rnd.verdict is not None:
            cheaters = tuple(
                c for c in rnd.verdict.cheaters if c != (msg.sender, E.FALSE_COMPLAINT)
            )
            if (shown.sender, E.EQUIVOCATION) not in cheaters:
                cheaters += ((shown.sender, E.EQUIVOCATION),)
            rnd.verdict = Verdict(rnd.spec.round_id, False, cheaters, None)
