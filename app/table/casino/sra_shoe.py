"""The real shoe: a casino table's 1-8 decks shuffled across every phone with SRA.

One shoe is one protocol round (``round_id = shoe``) of ``52 * decks`` card encodings
(:attr:`app.protocol.transcript.RoundSpec.size`). Every seat's shuffle pass covers the
whole shoe; only the positions opened (plus a margin locked ahead, so the next card
never waits for the locking chain) get per-card work. Every card is opened to
everybody: each seat of the shoe's order publishes its key for the position and every
phone, followers included, opens the same card (:meth:`app.protocol.seat.Seat.open_public`).
A key that does not open is a complaint: the shoe is void and its audit names the seat
whose key (or lock, or pass) was false. The cut card comes from the table's joint seed
and the shoe id (:func:`app.protocol.setup.cut_card`). The next shoe may be started
while this one is played: its shuffle runs in :meth:`work` whenever the current shoe
has nothing urgent.

The frame plumbing (decoding, who is blamed for bytes that are no frame, the host's
authentication before relaying, background work and accusations) is
:class:`~app.table.oczko.sra_deck.SraDealer`'s; its Oczko methods (private deals, claims,
escrow) are not part of :class:`~app.table.casino.shoe_dealer.ShoeDealer` and a shoe never
uses them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.protocol.encoding import DECK_SIZE, MAX_DECKS
from app.protocol.errors import ProtocolUsageError
from app.protocol.group import DEFAULT_GROUP, Group
from app.protocol.keys import Rng
from app.protocol.transcript import Round, RoundSpec
from app.table.dealer import DeckVerdict
from app.table.oczko.sra_deck import SraDealer

#: Positions locked ahead of the last one opened: a casino round's first deal (seven
#: boxes, two cards each, the dealer's card) plus a few hits, so opening never waits
#: for the locking chain; more is locked in the background as cards are opened.
LOCK_MARGIN = 20


class SraShoe(SraDealer):
    """A :class:`~app.table.casino.shoe_dealer.ShoeDealer` over :class:`app.protocol.seat.Seat`."""

    def __init__(
        self,
        seat: int,
        players: int,
        *,
        host: int = 0,
        group: Group = DEFAULT_GROUP,
        rng: Rng | None = None,
        margin: int = LOCK_MARGIN,
    ) -> None:
        super().__init__(seat, players, host=host, group=group, rng=rng)
        if margin < 1:
            raise ValueError("the lock margin must be >= 1")
        self._margin = margin
        self._gone: set[int] = set()

    def _round(self, shoe: int) -> Round | None:
        try:
            return self._seat.round(shoe)
        except ProtocolUsageError:
            return None

    def start_shoe(self, shoe: int, order: Sequence[int], decks: int) -> list[bytes]:
        """Shoe ``shoe`` of ``decks`` decks shuffled among ``order`` (see ShoeDealer)."""
        if not 1 <= decks <= MAX_DECKS:
            raise ValueError(f"a shoe holds 1..{MAX_DECKS} decks")
        spec = RoundSpec.shoe(shoe, tuple(order), decks, self._margin)
        return self._encode(self._seat.start_round(spec))

    def shuffled(self, shoe: int) -> bool:
        """Every pass is in and the first ``margin`` positions are locked."""
        rnd = self._round(shoe)
        if rnd is None:
            return False
        passes = all(len(stage) == rnd.size for stage in rnd.stages[:-1])
        return passes and len(rnd.final) >= rnd.spec.initial_lock

    def cut(self, shoe: int, low: int, high: int) -> int:
        """The cut card's position from the joint seed and the shoe id (see ShoeDealer)."""
        return int(self._seat.cut_card(shoe, low, high))

    def open(self, shoe: int, positions: Sequence[int]) -> list[bytes]:
        """Open ``positions`` to everybody; lock ``margin`` more in the background."""
        if not positions:
            return []
        out = self._seat.open_public(shoe, list(positions))
        self._seat.extend(shoe, max(positions) + 1 + self._margin)
        return self._encode(out)

    def card(self, shoe: int, position: int) -> int | None:
        """The card (0-51) at an opened position; None until every key is in (or when
        it did not open: then :meth:`disputed` is true)."""
        rnd = self._round(shoe)
        code = None if rnd is None else rnd.public.get(position)
        return None if code is None or code < 0 else code % DECK_SIZE

    def key_in(self, shoe: int, position: int, seat: int) -> bool:
        """``seat``'s key for ``position`` is in here (see ShoeDealer)."""
        rnd = self._round(shoe)
        if rnd is None:
            return False
        code = rnd.public.get(position)
        if code is not None:
            return code >= 0
        return seat in rnd.keys.get(position, {})

    def waiting_for(self, shoe: int) -> set[int]:
        """Whose pass, lock or key this phone still lacks (0: the set-up; a shoe not
        started here: nobody's)."""
        if not shoe:
            return set(self._seat.waiting_for(0))
        rnd = self._round(shoe)
        return set() if rnd is None else set(self._seat.waiting_for(shoe, rnd.spec.initial_lock))

    def progress(self, shoe: int) -> float:
        """0..1: the set-up (0) or the shoe's shuffle and the locking of its margin."""
        return 0.0 if shoe and self._round(shoe) is None else super().progress(shoe)

    def verdict(self, shoe: int) -> DeckVerdict | None:
        """The shoe's audit (None while it runs, or for a shoe not started here); a
        shoe closed because a seed it needs left with its seat is ``unaudited``
        (nobody named: leaving is no proof of cheating, and no pass can be checked
        without his seed; issue 30)."""
        rnd = self._round(shoe)
        if rnd is None:
            return None
        if rnd.closed and rnd.verdict is not None and not rnd.verdict.cheaters:
            return DeckVerdict(False, (), unaudited=True)
        return super().verdict(shoe)

    def dropped(self, seat: int) -> None:
        """``seat`` left: a shoe whose audit still needs his seed is closed unaudited."""
        self._gone.add(seat)
        self._seat.dropped(seat)
        for shoe in self._seat.rounds():
            rnd = self._seat.round(shoe)
            if rnd.audit_wanted or rnd.complaints:
                self._close_if_orphaned(rnd)

    def _close_if_orphaned(self, rnd: Round) -> bool:
        """Close a shoe whose audit waits for a seed that left with its seat."""
        if rnd.verdict is None and any(s in self._gone and s not in rnd.audits for s in rnd.order):
            self._seat.suspend_round(rnd.round_id)
            self._seat.close_round(rnd.round_id)
            return True
        return False

    def finish_shoe(self, shoe: int) -> list[bytes]:
        """Start the shoe's audit: my seed goes out in :meth:`work` (a shoe not started
        here: nothing to audit)."""
        rnd = self._round(shoe)
        if rnd is not None and not self._close_if_orphaned(rnd):
            self._seat.finish_round(shoe)
        return []


def sra_shoe_factory(group: Group = DEFAULT_GROUP) -> Callable[[int, int], SraShoe]:
    """A shoe factory ``(my seat, players) -> SraShoe`` for the casino table."""
    return lambda seat, players: SraShoe(seat, players, group=group)
