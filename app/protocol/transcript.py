"""The per-round transcript: what one seat knows of one shuffle, as public, typed state.

A :class:`Round` is one deck of the table (one SRA shuffle among ``spec.order``): the
signed passes and locks every seat received, the keys broadcast for dealt positions,
the claims, complaints and escrow records, this seat's own secret and opened cards,
and the audit's :class:`Verdict`. The modules over it each own one concern and
change only their part of it:

* :mod:`app.protocol.setup` - the table set-up (keys, table seeds, fingerprint);
* :mod:`app.protocol.shuffle` - commitments, the shuffle passes and the locking pass;
* :mod:`app.protocol.deal` - dealt positions, card keys, opening cards, claims, complaints;
* :mod:`app.protocol.escrow` - a held hand escrowed for the showdown should its owner drop;
* :mod:`app.protocol.audit` - the seed reveal, the audit (a pure function of a
  :class:`Round` and the group) and the evidence of equivocation.

:class:`app.protocol.seat.Seat` holds the rounds of one seat and routes frames and
background work to these modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.protocol.encoding import DECK_SIZE, CardEncoding
from app.protocol.group import DEFAULT_GROUP, Group
from app.protocol.keys import RoundSecret, digest
from app.protocol.messages import ClaimKind, Message

MAX_SEATS = 7

#: The "drawer" of a position opened to everybody (a casino shoe's face-up card):
#: every seat of the order gives its key for it and every seat opens it.
PUBLIC = -1

#: A claim's cards: ``(position, card code)`` pairs.
Pairs = tuple[tuple[int, int], ...]


def seed_commitment(seed: bytes) -> bytes:
    """The commitment to a round seed every seat publishes before any pass exists."""
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
    demand when :meth:`app.protocol.seat.Seat.reveal` or ``extend`` asks for them.
    ``lock_chunk`` is the streaming granularity of the locking pass.

    ``size``: the cards in the round, 52 (one deck) or ``52 * decks`` for a casino
    shoe of 1-8 decks (:func:`app.protocol.encoding.round_sizes`). The shuffle passes
    cover all of them; only the locked positions cost per-card work.
    """

    round_id: int
    order: tuple[int, ...]
    lock_ahead: int = 0
    lock_chunk: int = 0
    shuffle_parts: int = 1  # frames per shuffle pass (all released together)
    size: int = DECK_SIZE

    @classmethod
    def shoe(cls, round_id: int, order: tuple[int, ...], decks: int, margin: int) -> RoundSpec:
        """A casino shoe of ``decks`` decks: ``margin`` positions locked ahead of the
        cards opened; one shuffle frame per deck (the next shuffler encrypts deck 1
        while deck 2 is on the air, and no frame comes near a link's size limit)."""
        return cls(round_id, order, lock_ahead=margin, shuffle_parts=decks, size=DECK_SIZE * decks)

    @property
    def decks(self) -> int:
        """Decks in the round."""
        return self.size // DECK_SIZE

    @property
    def whole_deck_audit(self) -> bool:
        """Does the audit open the whole final deck (the 52-card round: every card is
        checked to be in it once), or only its locked positions (a shoe: the cards in
        play are checked against the committed permutations, the rest never mattered)?"""
        return self.size == DECK_SIZE

    @property
    def initial_lock(self) -> int:
        """Positions locked at the start (default: the deal plus one spare per seat)."""
        return min(self.size, self.lock_ahead or 3 * len(self.order))

    @property
    def chunk(self) -> int:
        """Positions per streamed message (default ``max(4, seats)``: one signature per
        deal round keeps the bytes within 10% of the raw group elements)."""
        return self.lock_chunk or max(4, len(self.order))


@dataclass(frozen=True)
class Verdict:
    """The audit's result for one round: ``deck`` is the opened code per position (all
    of them in a 52-card round, the locked ones in a shoe; the card is ``code % 52``)."""

    round_id: int
    ok: bool
    cheaters: tuple[tuple[int, str], ...]
    deck: tuple[int, ...] | None


@dataclass
class Claim:
    """A seat's signed claim of its cards (the latest of each seat counts)."""

    kind: ClaimKind
    total: int
    pairs: Pairs


@dataclass
class Round:
    """One seat's transcript of one round (see the module docstring)."""

    spec: RoundSpec
    secret: RoundSecret | None  # None: this seat only follows (not in the order)
    enc: CardEncoding
    shuffle_bits: int | None = None
    commits: dict[int, bytes] = field(default_factory=dict)  # seat -> H(round seed)
    recv_seq: dict[int, int] = field(default_factory=dict)
    stages: list[list[int]] = field(default_factory=list)  # shuffle outputs by order index
    locks: list[list[int]] = field(default_factory=list)  # lock outputs by locker index
    lock_target: int = 0
    my_encrypted: list[int] = field(default_factory=list)
    shuffle_sent: bool = False
    owner: dict[int, int] = field(default_factory=dict)  # dealt position -> drawer
    keys: dict[int, dict[int, int]] = field(default_factory=dict)  # position -> seat -> key
    pending_keys: list[tuple[int, ...]] = field(default_factory=list)
    hand: dict[int, int] = field(default_factory=dict)  # my opened cards (-1: did not open)
    public: dict[int, int] = field(default_factory=dict)  # opened public codes (-1: did not)
    claims: dict[int, Claim] = field(default_factory=dict)
    # every claim ever made (a later showdown claim must not hide a false Persian 21)
    claim_log: list[tuple[int, Pairs]] = field(default_factory=list)
    unchecked_claims: list[tuple[int, Pairs]] = field(default_factory=list)
    # claims this seat has opened and found true (claimer -> pairs): only these count
    proven: dict[int, Pairs] = field(default_factory=dict)
    complaints: list[tuple[int, int]] = field(default_factory=list)  # (complainer, position)
    audit_wanted: bool = False
    audit_sent: bool = False
    audits: dict[int, tuple[bytes, tuple[int, ...]]] = field(default_factory=dict)
    frozen: bool = False
    suspended: bool = False  # a dropout interrupted it: its dealt cards are still in play
    closed: bool = False  # given up unaudited (close_round): late frames are ignored
    early_releases: list[tuple[int, int, bytes]] = field(default_factory=list)
    deferred_sigs: list[Message] = field(default_factory=list)
    #: stubs whose bodies the relay still owes, oldest first (:func:`shuffle.on_stub`)
    withheld: list[Message] = field(default_factory=list)
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
    #: seat -> its AUDIT's input attestations: ``(seq, digest, signature)`` of each frame
    #: of the host it computed on, as it received it (:mod:`app.protocol.reveal`)
    attested: dict[int, tuple[tuple[int, bytes, bytes], ...]] = field(default_factory=dict)
    #: (seat, kind) of steps computed on another version of the host's frames than mine
    #: (proven by the seat's attestation): the audit does not judge them on my copy
    unjudged: set[tuple[int, int]] = field(default_factory=set)
    false_attesters: set[int] = field(default_factory=set)  # attested what the host never signed

    @classmethod
    def begin(
        cls, spec: RoundSpec, secret: RoundSecret | None, enc: CardEncoding, bits: int | None
    ) -> Round:
        """A fresh transcript: empty passes and locks, the initial lock target."""
        rnd = cls(spec, secret, enc, bits)
        rnd.stages = [[] for _ in spec.order]
        rnd.locks = [[] for _ in spec.order[:-1]]
        rnd.lock_target = spec.initial_lock
        return rnd

    @property
    def round_id(self) -> int:
        """The round's id (the table's deck number)."""
        return self.spec.round_id

    @property
    def size(self) -> int:
        """Cards in the round (52, or ``52 * decks`` for a shoe)."""
        return self.spec.size

    @property
    def order(self) -> tuple[int, ...]:
        """The shuffle order."""
        return self.spec.order

    @property
    def n(self) -> int:
        """The number of seats in the shuffle."""
        return len(self.spec.order)

    @property
    def final(self) -> list[int]:
        """The fully locked cards (output of the last locker)."""
        return self.locks[-1]

    def positions_of(self, seat: int) -> list[int]:
        """The positions dealt to ``seat``, in order."""
        return sorted(p for p, d in self.owner.items() if d == seat)

    def keys_in(self, position: int, but: int) -> bool:
        """True once ``position`` is locked and every seat's key but ``but``'s is in."""
        have = self.keys.get(position, {})
        return position < len(self.final) and all(s in have for s in self.order if s != but)
