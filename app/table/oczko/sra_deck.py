"""The real dealer: one SRA mental-poker seat (:mod:`app.protocol`) behind the table's
:class:`~app.table.dealer.Dealer` interface.

Nobody, not even the host, learns another player's cards before they are proven; the
host relays every frame after its own seat authenticated it; a cheat is named by the
seat that detects it (:class:`~app.table.dealer.DealerViolation`). A deck of the table
is one protocol round (``round_id = deck``, strictly increasing); every phone starts
and deals every deck (seats outside the deck's order only follow, so they can check
and relay its frames). A held hand is escrowed with the seats that have finished
their turn, so it can be opened at the showdown if its owner drops out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

from app.protocol import shuffle
from app.protocol.errors import ProtocolUsageError, ProtocolViolation
from app.protocol.group import DEFAULT_GROUP, Group
from app.protocol.keys import Rng
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.seat import Seat
from app.protocol.transcript import RoundSpec, TableConfig
from app.table.dealer import CLAIM_PERSIAN, DealerViolation, DeckVerdict

_KINDS = {CLAIM_PERSIAN: ClaimKind.PERSIAN}
#: Frames per shuffle pass (docs/protocol.md, "What players wait for").
SHUFFLE_PARTS = 2


class SraDealer:
    """A :class:`~app.table.dealer.Dealer` over :class:`app.protocol.seat.Seat`."""

    def __init__(
        self,
        seat: int,
        players: int,
        *,
        host: int = 0,
        group: Group = DEFAULT_GROUP,
        rng: Rng | None = None,
    ) -> None:
        self.seat = seat
        self._group = group
        self._host = host
        self._seat = Seat(seat, TableConfig(players, host, group), rng)
        self._authenticated: bytes | None = None
        self._suspended: set[int] = set()
        self._escrowed: dict[int, frozenset[int]] = {}
        self._proved: set[int] = set()  # decks whose cards I have claimed
        self._told: list[ProtocolViolation] = []  # the seat's accusations the table heard

    def _encode(self, messages: list[Message]) -> list[bytes]:
        return [m.encode(self._group) for m in messages]

    def _decode(self, frame: bytes) -> Message:
        try:
            return Message.decode(frame, self._group)
        except ProtocolViolation as exc:
            # Bytes that are no frame were signed by nobody: a guest blames the host,
            # whose link they came on, never the seat a garbage byte names.
            seat = exc.seat if self.seat == self._host else self._host
            raise DealerViolation(seat, exc.code, exc.detail) from exc

    def hello(self) -> list[bytes]:
        return self._encode(self._seat.hello())

    @property
    def ready(self) -> bool:
        return bool(self._seat.ready)

    def leave_out(self, seat: int) -> list[bytes]:
        return self._encode(self._seat.leave_out(seat))

    @property
    def fingerprint(self) -> str:
        return f"{self._seat.fingerprint:06d}" if self.ready else "pending"

    def authenticate(self, frame: bytes) -> None:
        msg = self._decode(frame)
        try:
            self._seat.authenticate(msg)
        except ProtocolViolation as exc:
            raise DealerViolation(exc.seat, exc.code, exc.detail) from exc
        self._authenticated = frame

    def precheck(self, frames: Sequence[bytes]) -> None:
        """Check the signatures of frames about to be read, in one batch (see
        :mod:`app.table.prechecks`): nothing is judged, a frame that fails here is
        checked again where it is read, and named there."""
        msgs = []
        for frame in frames:
            with contextlib.suppress(ProtocolViolation):
                msgs.append(Message.decode(frame, self._group))
        self._seat.precheck(msgs)

    def handle(self, frame: bytes) -> list[bytes]:
        msg = self._decode(frame)
        try:
            if frame is self._authenticated or frame == self._authenticated:
                # The host checked it before relaying: the sequence number is consumed.
                self._authenticated = None
                return self._encode(self._seat.process(msg))
            return self._encode(self._seat.handle(msg))
        except ProtocolViolation as exc:
            raise DealerViolation(exc.seat, exc.code, exc.detail) from exc

    def has_work(self) -> bool:
        return self._untold() is not None or bool(self._seat.has_work())

    def _untold(self) -> ProtocolViolation | None:
        told = self._told
        return next((a for a in self._seat.accusations if all(a is not t for t in told)), None)

    def work(self) -> list[bytes]:
        # What the seat found in the background (a value outside the group, x and -x in
        # a pass, a forgery, the audit's cheaters) reaches the table here, one at a
        # time and before the next step, so no frame of a step is lost with it.
        found = self._untold()
        if found is not None:
            self._told.append(found)
            raise DealerViolation(found.seat, found.code, found.detail)
        try:
            return self._encode(self._seat.work())
        except ProtocolViolation as exc:
            raise DealerViolation(exc.seat, exc.code, exc.detail) from exc

    def disputed(self, deck: int) -> bool:
        """True once somebody complained about ``deck``: the round is void, its audit
        names the cheater (or the seat that keeps the seed it owes)."""
        try:
            return bool(self._seat.disputed(deck))
        except ProtocolUsageError:
            return False

    def start_deck(self, deck: int, order: Sequence[int]) -> list[bytes]:
        # A pass goes out in SHUFFLE_PARTS frames: the next shuffler encrypts the first
        # part while the rest is still on the air (the pass is still released whole).
        spec = RoundSpec(deck, tuple(order), shuffle_parts=SHUFFLE_PARTS)
        return self._encode(self._seat.start_round(spec))

    def extend(self, deck: int, upto: int) -> None:
        """Lock positions up to ``upto`` in the background (a public event: every phone
        calls it at the same point of the match)."""
        with contextlib.suppress(ProtocolUsageError):  # (a deck never started here)
            self._seat.extend(deck, upto)

    def first_reader(self, frame: bytes) -> int | None:
        """The seat that computes next on ``frame`` (a relay sends it there first; the
        others only check it), or None if everybody needs it alike or it is no frame
        of a deck this phone has started."""
        try:
            msg = Message.decode(frame, self._group)
            rnd = self._seat.round(msg.round_id) if msg.round_id else None
        except (ProtocolViolation, ProtocolUsageError):
            return None
        if rnd is None or msg.sender not in rnd.order:
            return None
        if msg.kind in (Kind.SHUFFLE, Kind.LOCK):
            return shuffle.consumer(rnd, msg)
        if msg.kind == Kind.KEYS:
            owners = {rnd.owner.get(p) for p in msg.data}
            return owners.pop() if len(owners) == 1 else None  # (a draw: the drawer)
        return None

    def withhold(self, frame: bytes) -> bytes | None:
        """The stub a relay may send now to a guest that is not ``first_reader`` of
        ``frame`` (its body later: the guest only checks it, and only its audit needs
        it), or None if every guest needs the frame itself (docs/protocol.md, "Bodies
        later")."""
        try:
            msg = Message.decode(frame, self._group)
            rnd = self._seat.round(msg.round_id) if msg.round_id else None
        except (ProtocolViolation, ProtocolUsageError):
            return None
        if rnd is None or shuffle.consumer(rnd, msg) is None:
            return None
        return msg.stub().encode(self._group)

    def deal(self, deck: int, assignments: Sequence[tuple[int, int]]) -> list[bytes]:
        return self._encode(self._seat.reveal(deck, list(assignments)))

    def card(self, deck: int, position: int) -> int | None:
        code = self._seat.hand(deck).get(position)
        return None if code is None or code < 0 else code  # -1: it did not open (complaint)

    def progress(self, deck: int) -> float:
        return float(self._seat.progress(deck))

    def waiting_for(self, deck: int) -> set[int]:
        return set(self._seat.waiting_for(deck))

    def keys_owed(self, deck: int) -> set[int]:
        return set(self._seat.keys_owed(deck))

    def shared(self, deck: int, position: int, seat: int) -> bool:
        return bool(self._seat.gave_key(deck, position, seat))

    def claim(self, deck: int, kind: str) -> list[bytes]:
        claim_kind = _KINDS.get(kind, ClaimKind.SHOWDOWN)
        try:
            frames = self._encode(self._seat.claim(deck, claim_kind))
            self._proved.add(deck)
            return frames
        except ProtocolUsageError:
            # A card of mine in this deck never opened: a host who did not void a card a
            # dropout cut off. The hand cannot be proven; the table forfeits it.
            return []

    def claimed(self, deck: int, seat: int) -> dict[int, int] | None:
        if seat == self.seat:  # my own hand counts as proven once my claim went out
            return dict(self._seat.hand(deck)) if deck in self._proved else None
        claimed = self._seat.claimed_cards(deck, seat)
        if claimed is not None:
            return claimed
        return self._seat.held_hand(deck, seat)

    def held(self, deck: int, finished: Sequence[int]) -> list[bytes]:
        """I hold: escrow my hand with the seats that have finished (again as more do)."""
        holders = frozenset(s for s in finished if s != self.seat)
        if not holders or self._escrowed.get(deck) == holders:
            return []
        self._escrowed[deck] = holders
        try:
            return self._encode(self._seat.escrow(deck, sorted(holders)))
        except ProtocolUsageError:
            return []  # a card of mine not open yet: escrowed once it is (called again)

    def suspend_deck(self, deck: int, voided: Sequence[int] = ()) -> None:
        self._suspended.add(deck)
        try:
            self._seat.suspend_round(deck, voided)
        except ProtocolUsageError as exc:  # the host announced a void of nothing dealt
            raise DealerViolation(self._host, "bad_void", str(exc)) from exc

    def left(self, seat: int) -> None:
        self._seat.dropped(seat)

    def release(self, deck: int, seat: int) -> list[bytes]:
        return self._encode(self._seat.release(deck, seat))

    def finish_deck(self, deck: int) -> list[bytes]:
        if deck in self._suspended:
            self._seat.close_round(deck)  # a dropout: it cannot be audited in full
            return []
        # (A deck whose round someone left at the showdown is not closed here: a phone
        # that ended the round before seeing him leave has sent its seed already, and
        # closing would make that seed a frame for a closed round. Its audit then waits
        # for the leaver's seed for good, which costs nothing.)
        return self._encode(self._seat.finish_round(deck))

    def deck_of(self, frame: bytes) -> int:
        """The deck (protocol round) a frame belongs to (0: the table set-up)."""
        try:
            return Message.decode(frame, self._group).round_id
        except ProtocolViolation:
            return 0

    def verdict(self, deck: int) -> DeckVerdict | None:
        v = self._seat.verdict(deck)
        if v is None:
            return None
        return DeckVerdict(bool(v.ok), tuple(seat for seat, _ in v.cheaters))

    def revealed(self, deck: int, seat: int) -> bool:
        try:
            return seat in self._seat.round(deck).audits
        except ProtocolUsageError:  # (a deck never started here)
            return False

    def complained(self, deck: int, seat: int) -> bool:
        try:
            return any(c == seat for c, _ in self._seat.round(deck).complaints)
        except ProtocolUsageError:
            return False


def sra_dealer_factory(group: Group = DEFAULT_GROUP) -> Callable[[int, int], SraDealer]:
    """A dealer factory for :class:`~app.table.oczko.guest.HostTable` / ``GuestTable``."""
    return lambda seat, players: SraDealer(seat, players, group=group)
