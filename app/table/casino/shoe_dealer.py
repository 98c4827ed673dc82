"""Where the casino table's cards come from: a shoe of 1-8 decks dealt face up.

At a casino table every card is dealt face up (the players' cards and the dealer's),
so the secret is the *order* of the cards still in the shoe, not who holds what: no
phone, the host's included, may know the next card before every phone opens it
together, and no coalition of all phones but one may choose the cards in play.

Every phone has a :class:`ShoeDealer` for its own seat. The table tells it the public
events (a shoe is started among the phones, the next positions are opened to
everybody, the shoe is finished) and relays the frames it produces; the dealer says
which card lies at an opened position once every phone gave its part.

* ``app/table/casino/sra_shoe.py`` (the real one): one SRA protocol round of ``52 * decks``
  card encodings per shoe; opening a position means every seat publishes its key for
  it, so every phone opens the same card, and a key that does not open is a complaint
  whose audit names the cheater.
* An open test dealer (``app/table/casino_*``) for tests of the table flow only.

A shoe id is strictly increasing over the table's life (a new shoe after the cut
card, or after a void). Positions of a shoe are opened in order from 0. Card codes
are 0-51 as in :mod:`app.cards` (a shoe's position holds ``code % 52`` of one of its
decks). The next shoe may be started while the current one is played: its shuffle
runs in the background (:meth:`ShoeDealer.work`) and the table deals from it only
when the current one reaches its cut card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.table.dealer import DeckVerdict, FrameDealer


class ShoeDealer(FrameDealer, Protocol):
    """One seat's side of the shoe protocol (frames are opaque bytes to the table; the
    set-up and frame handling as every :class:`~app.table.dealer.FrameDealer`)."""

    def start_shoe(self, shoe: int, order: Sequence[int], decks: int) -> list[bytes]:
        """Public event: shoe ``shoe`` of ``decks`` decks is shuffled among ``order``
        (the seats at the table when it starts; a later arrival only follows it)."""
        ...

    def shuffled(self, shoe: int) -> bool:
        """True once the shoe's shuffle is complete and positions can be opened."""
        ...

    def cut(self, shoe: int, low: int, high: int) -> int:
        """The cut card's position, uniform in ``low..high``, from the table's joint
        seed and the shoe id: equal on every phone, chosen by no phone."""
        ...

    def open(self, shoe: int, positions: Sequence[int]) -> list[bytes]:
        """Public event: ``positions`` (the next ones, in order) are opened to everybody."""
        ...

    def card(self, shoe: int, position: int) -> int | None:
        """The card code (0-51) at an opened position, None until every part is in."""
        ...

    def key_in(self, shoe: int, position: int, seat: int) -> bool:
        """Whether ``seat``'s part of opening ``position`` has come to this phone (so a
        phone may have opened the card with it) and the card did not fail to open."""
        ...

    def progress(self, shoe: int) -> float:
        """0..1: how far the shuffle of ``shoe`` (0: the set-up) has come, for the UI."""
        ...

    def waiting_for(self, shoe: int) -> set[int]:
        """Seats whose part this phone still lacks (to finish the shuffle of ``shoe`` or
        open its positions; 0: the set-up): whom to blame when the table waits too long."""
        ...

    def keys_owed(self, shoe: int) -> set[int]:
        """Seats whose key for a position opened in ``shoe`` is missing while the passes
        and locks before it are in: a key is due at once, so it is waited for less."""
        ...

    def disputed(self, shoe: int) -> bool:
        """True once somebody complained about ``shoe`` (a key that did not open): the
        table voids the round and only the shoe's audit can name the cheater."""
        ...

    def dropped(self, seat: int) -> None:
        """``seat`` left the table (a public event): the shoes he shuffled stay valid
        (his keys for opened positions are in); open ones he still owed parts of are
        voided by the table, which starts a fresh shoe without him."""
        ...

    def finish_shoe(self, shoe: int) -> list[bytes]:
        """The shoe is done (its cut card came out, or it was voided): start its audit."""
        ...

    def verdict(self, shoe: int) -> DeckVerdict | None:
        """The audit's result, None while it runs."""
        ...
