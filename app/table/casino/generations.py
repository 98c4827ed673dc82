"""A phone's shoe dealers over the table's life: a returning player sets them up anew.

A player who comes back to a casino table has a fresh phone state: his keys for the
shoes shuffled so far died with it. So every phone sets up a new shoe dealer (a new
table set-up among the players present) for the shoes from ``first_shoe`` on, while
the older shoes stay with the dealers that shuffled them (their audits still come
in). Frames are routed by the shoe they belong to (set-up frames: to the newest).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from app.table.casino.shoe_dealer import ShoeDealer
from app.table.dealer import DeckVerdict, Generations
from app.table.frame_budget import protocol_header


def shoe_of(frame: bytes) -> int:
    """The shoe a frame belongs to (0: the table set-up): the SRA round id, or the
    ``sh`` of the open test shoe's JSON frames."""
    header = protocol_header(frame)
    if header is not None:
        return header[2]
    try:
        shoe = json.loads(frame).get("sh", 0)
    except (ValueError, AttributeError, UnicodeDecodeError):
        return 0
    return shoe if isinstance(shoe, int) and not isinstance(shoe, bool) else 0


class ShoeGenerations(Generations[ShoeDealer]):
    """A :class:`~app.table.casino.shoe_dealer.ShoeDealer` over dealers set up one after the
    other (``first_shoe`` of each, ascending)."""

    def rekey(self, first_shoe: int, dealer: ShoeDealer, absent: Sequence[int]) -> list[bytes]:
        """From ``first_shoe`` on, deal with ``dealer``, set up without ``absent``."""
        self._gens.append((first_shoe, dealer))
        out = dealer.hello()
        for seat in absent:
            out += dealer.leave_out(seat)
        return out

    def _for(self, shoe: int) -> ShoeDealer | None:
        if shoe == 0:
            return self.current
        found = None
        for first, dealer in self._gens:
            if first <= shoe:
                found = dealer
        return found

    def _route(self, frame: bytes) -> ShoeDealer | None:
        return self._for(shoe_of(frame))

    def work(self) -> list[bytes]:
        for _, d in reversed(self._gens):
            if d.has_work():
                return d.work()
        return []

    def _shoe(self, shoe: int) -> ShoeDealer:
        dealer = self._for(shoe)
        assert dealer is not None, f"no dealer for shoe {shoe}"
        return dealer

    def start_shoe(self, shoe: int, order: Sequence[int], decks: int) -> list[bytes]:
        return self._shoe(shoe).start_shoe(shoe, order, decks)

    def shuffled(self, shoe: int) -> bool:
        return self._shoe(shoe).shuffled(shoe)

    def cut(self, shoe: int, low: int, high: int) -> int:
        return self._shoe(shoe).cut(shoe, low, high)

    def open(self, shoe: int, positions: Sequence[int]) -> list[bytes]:
        return self._shoe(shoe).open(shoe, positions)

    def card(self, shoe: int, position: int) -> int | None:
        dealer = self._for(shoe)
        return None if dealer is None else dealer.card(shoe, position)

    def key_in(self, shoe: int, position: int, seat: int) -> bool:
        dealer = self._for(shoe)
        return dealer is not None and dealer.key_in(shoe, position, seat)

    def progress(self, shoe: int) -> float:
        dealer = self._for(shoe)
        return 0.0 if dealer is None else dealer.progress(shoe)

    def waiting_for(self, shoe: int) -> set[int]:
        dealer = self._for(shoe)
        return set() if dealer is None else dealer.waiting_for(shoe)

    def keys_owed(self, shoe: int) -> set[int]:
        dealer = self._for(shoe)
        return set() if dealer is None else dealer.keys_owed(shoe)

    def disputed(self, shoe: int) -> bool:
        dealer = self._for(shoe)
        return dealer is not None and dealer.disputed(shoe)

    def dropped(self, seat: int) -> None:
        for _, dealer in self._gens:
            dealer.dropped(seat)

    def finish_shoe(self, shoe: int) -> list[bytes]:
        dealer = self._for(shoe)
        return [] if dealer is None else dealer.finish_shoe(shoe)

    def verdict(self, shoe: int) -> DeckVerdict | None:
        dealer = self._for(shoe)
        return None if dealer is None else dealer.verdict(shoe)


__all__ = ["ShoeGenerations", "shoe_of"]
