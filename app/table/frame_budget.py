"""What one sender's dealer frames may cost a phone: a budget per sender and deck.

Every dealer frame is kept (for the audit), relayed by the host to every guest, and
checked at the price of one or two modular exponentiations. Unlimited, a single
sender could make every phone buffer, relay and verify without end: frames for a
deck far in the future, thousands of ``EVIDENCE`` or ``ESCROW`` frames, or megabytes
of valid-looking traffic that overflows an honest guest's slow link. So each phone
charges every dealer frame to its sender and deck before its dealer sees it:

* a frame for a deck the table has not started (``deck`` above the newest one the
  host announced) is refused (``ahead``): the host starts a deck before anybody may
  send for it, so nothing honest is ever ahead;
* per sender and deck at most :data:`DECK_FRAMES` frames and :data:`DECK_BYTES` bytes,
  and per protocol kind the counts of :data:`KIND_LIMITS` (``flood``).

The limits are four times what an honest seat sends at a 7-seat table (measured: 22
frames, 98 group values and 4 KB of data per sender and deck; ~71 KB at ffdhe3072),
so an honest phone never reaches them. The host charges the seat whose link a frame
came on and drops it past a limit; a guest charges the sender a frame names and, past
a limit, names the host (an honest host refuses to relay any frame over the budget,
so only a host that did not can make a guest count one).

>>> budget = FrameBudget()
>>> budget.charge(1, b"{}", deck=1, newest=1)
>>> budget.charge(1, b"{}", deck=2, newest=1)
Traceback (most recent call last):
app.table.errors.TableError: a frame for deck 2; the table is at deck 1
"""

from __future__ import annotations

import struct
from collections import Counter

from app.bluetooth.framing import DEFAULT_MAX_FRAME, OVERHEAD
from app.bluetooth.link import DEFAULT_INBOX_QUOTA, DEFAULT_MAX_PENDING, READ_SIZE
from app.protocol.messages import HEADER_LEN, STUB_VERSION, VERSION, Kind
from app.protocol.reveal import max_audit_data
from app.table.errors import TableError
from app.table.lobby import MAX_UNSEATED

#: Frames one sender may send for one deck (its set-up counts as deck 0).
DECK_FRAMES = 96
#: Bytes one sender may send for one deck.
DECK_BYTES = 288 << 10
#: Frames of these protocol kinds one sender may send for one deck.
KIND_LIMITS: dict[int, int] = {
    Kind.HELLO: 2,
    Kind.SEED: 2,
    Kind.CLAIM: 4,
    Kind.AUDIT: 2,
    Kind.COMPLAIN: 16,
    Kind.ESCROW: 8,  # sent again as more seats finish their turn: at most 6 times
    Kind.RELEASE: 8,
    Kind.EVIDENCE: 32,
}
_ROUND_ID = struct.Struct(">Q")

#: A casino shoe's kinds with a fixed count per sender and shoe (its passes, locks and
#: keys grow with the cards opened: they count in the shoe's frames and bytes); a shoe
#: never uses claims, escrows or releases.
SHOE_KIND_LIMITS: dict[int, int] = {
    Kind.HELLO: 2,
    Kind.SEED: 2,
    Kind.CLAIM: 0,
    Kind.AUDIT: 2,
    Kind.COMPLAIN: 16,
    Kind.ESCROW: 0,
    Kind.RELEASE: 0,
    Kind.EVIDENCE: 32,
    Kind.COMMIT: 4,
}
#: Bytes of a frame beside its group values (header, signature, lengths), at most.
FRAME_OVERHEAD = 256


def protocol_header(frame: bytes) -> tuple[int, int, int] | None:
    """``(kind, sender, round_id)`` of an SRA protocol frame, None for another dealer's
    frame (the content is checked by the dealer; here only what the budget needs)."""
    if len(frame) < HEADER_LEN or frame[0] not in (VERSION, STUB_VERSION):
        return None
    return frame[2], frame[3], _ROUND_ID.unpack_from(frame, 4)[0]


class FrameBudget:
    """The dealer frames each sender has sent per deck, against the limits above (the
    Oczko table's by default; a casino table's from :meth:`for_shoe`)."""

    def __init__(
        self,
        *,
        frames: int = DECK_FRAMES,
        size: int = DECK_BYTES,
        kinds: dict[int, int] | None = None,
        frame_size: int = DEFAULT_MAX_FRAME,
    ) -> None:
        self.frames, self.size, self.frame_size = frames, size, frame_size
        self.kinds = KIND_LIMITS if kinds is None else kinds
        self._spent: dict[tuple[int, int], tuple[list[int], Counter[int]]] = {}

    @classmethod
    def for_shoe(cls, decks: int, element: int) -> FrameBudget:
        """A casino table's budget per sender and shoe of ``decks`` decks, group values
        of ``element`` bytes: four times what an honest seat sends at most (a pass, a
        lock and a key per card, each card opened alone: three values and three frames
        a card), and no frame larger than a whole pass or an honest AUDIT (its seed and
        the attested passes and locks of the host, one a card at most, issue 30). The
        same on every phone.

        >>> b = FrameBudget.for_shoe(1, 64)
        >>> b.frames, b.size, b.frame_size
        (688, 260096, 6444)
        """
        cards = 52 * decks
        honest_frames = 3 * cards + 16
        honest_bytes = 3 * cards * element + honest_frames * (element + FRAME_OVERHEAD)
        return cls(
            frames=4 * honest_frames,
            size=4 * honest_bytes,
            kinds=SHOE_KIND_LIMITS,
            frame_size=max(cards * element + 2 * element, max_audit_data(element, cards + 2))
            + FRAME_OVERHEAD,
        )

    def charge(self, sender: int, frame: bytes, *, deck: int, newest: int) -> None:
        """Count ``frame`` of ``sender`` for ``deck``; :class:`TableError` ``ahead``
        or ``flood`` if the table must refuse it (nothing is counted then)."""
        if deck > newest:
            raise TableError("ahead", f"a frame for deck {deck}; the table is at deck {newest}")
        if len(frame) > self.frame_size:
            raise TableError("flood", f"seat {sender}: a frame of {len(frame)} bytes")
        totals, kinds = self._spent.get((sender, deck), ([0, 0], Counter()))
        header = protocol_header(frame)
        kind = header[0] if header is not None else None
        if totals[0] + 1 > self.frames or totals[1] + len(frame) > self.size:
            raise TableError("flood", f"seat {sender} sent over its budget for deck {deck}")
        if kind in self.kinds and kinds[kind] + 1 > self.kinds[kind]:
            raise TableError("flood", f"seat {sender}: too many frames of kind {kind}")
        totals[0] += 1
        totals[1] += len(frame)
        if kind is not None:
            kinds[kind] += 1
        self._spent[(sender, deck)] = (totals, kinds)

    def new_setup(self) -> None:
        """The table is set up anew (a player is back): set-up frames count afresh."""
        for key in [k for k in self._spent if k[1] == 0]:
            del self._spent[key]


def frame_deck(frame: bytes, dealer: object) -> tuple[int | None, int]:
    """``(sender, deck)`` of a dealer frame: from the SRA header, else from the dealer
    (``deck_of``; the open test dealer), else (None, 0)."""
    header = protocol_header(frame)
    if header is not None:
        return header[1], header[2]
    deck_of = getattr(getattr(dealer, "current", dealer), "deck_of", None)
    return None, (deck_of(frame) if deck_of is not None else 0)


def buffer_bound(seats: int, *, host: bool = True) -> int:
    """Bytes of frames a phone at a table of ``seats`` may hold at once, at most: per
    link its inbox quota, what its reader holds (a frame half in, one waiting for
    room) and its send queue; the host also links not seated yet (a few frames each,
    nothing much to send); and the early frames its dealer keeps for a deck that the
    table started and this phone not yet (within the budget of every other seat).

    >>> round(buffer_bound(7) / 2**20, 1), round(buffer_bound(7, host=False) / 2**20, 1)
    (39.9, 6.7)
    """
    reader = 2 * DEFAULT_MAX_FRAME + OVERHEAD + READ_SIZE
    link = DEFAULT_INBOX_QUOTA + reader + DEFAULT_MAX_PENDING
    links = seats - 1 if host else 1
    strangers = MAX_UNSEATED * (DEFAULT_INBOX_QUOTA + reader) if host else 0
    early = (seats - 1) * DECK_BYTES
    return links * link + strangers + early
