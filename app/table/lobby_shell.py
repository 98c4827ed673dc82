"""The one I/O shell of a host's table, around the :class:`~app.table.lobby.HostLobby`
it holds and the pure sequencer it runs.

Both hosts (:class:`~app.table.host_table.HostTable`, Oczko, and
:class:`~app.table.casino_host.CasinoHost`, casino) seat their guests through a lobby
held by composition and run their own timers beside the lobby's; this base gives them
the lobby's address, inbox, notices and links, the one way to wait on links and timers
together, and the one loop around the sequencer: observe the facts, step, perform the
effects, and drive until nothing more is due. The effects both games share
(:mod:`app.table.book`) are performed here; each game's host performs its own and says
how it observes its phone, names a seat, notes a notice and ends the table.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

from app.bluetooth.link import Link
from app.table.book import CancelTimer, Close, Drive, Drop, Say, SetTimer
from app.table.clock import Timers
from app.table.lobby import HostLobby, Notice

BookT = TypeVar("BookT")
EventT = TypeVar("EventT")
FactsT = TypeVar("FactsT")
EffectT = TypeVar("EffectT")


class LobbyShell(Generic[BookT, EventT, FactsT, EffectT]):
    """A host's table shell around its :class:`HostLobby` (``lobby``), the table's own
    timers (``timers``; the lobby keeps its own) and its sequencer's ``book``."""

    lobby: HostLobby
    timers: Timers
    book: BookT

    # -- the game's part ------------------------------------------------------------------

    def _sequence(
        self, book: BookT, event: EventT | Drive, facts: FactsT
    ) -> tuple[BookT, Sequence[EffectT]]:
        """The game's pure sequencer: one step."""
        raise NotImplementedError

    def _observe(self) -> FactsT:
        """What the host's phone knows now, for the sequencer."""
        raise NotImplementedError

    def _in_play(self) -> bool:
        """True once the table has begun (the host's phone holds the match)."""
        raise NotImplementedError

    def _ended(self) -> bool:
        """True once the table is over on this phone (nothing more is driven)."""
        return self.closed

    def _after_drive(self) -> None:
        """What the game does once nothing more is due (e.g. keep out who was named)."""

    def _perform_own(self, effect: EffectT) -> None:
        """Carry out an effect only this game has."""
        raise NotImplementedError

    def _say(self, code: str, details: Mapping[str, Any]) -> None:
        """A notice for the host's screen."""
        raise NotImplementedError

    def _drop(self, effect: Drop[Any]) -> None:
        """Close the link of the player ``effect`` names."""
        raise NotImplementedError

    def _end(self, reason: str) -> None:
        """End the table on every phone."""
        raise NotImplementedError

    # -- the loop around the sequencer ----------------------------------------------------

    def _feed(self, event: EventT | Drive) -> bool:
        """One step of the sequencer and its effects; False if it decided nothing."""
        if not self._in_play():
            return False
        before = self.book
        self.book, effects = self._sequence(before, event, self._observe())
        for effect in effects:
            self._perform(effect)
        return bool(effects) or self.book != before

    def _drive(self) -> None:
        """Let the sequencer decide until nothing more is due (each decision changes the
        table or the book, so this ends)."""
        while not self._ended() and self._feed(Drive()):
            pass
        self._after_drive()

    def _perform(self, effect: EffectT) -> None:
        """Carry out one effect: the shared ones here, the game's own by the game."""
        if isinstance(effect, SetTimer):
            self.timers.set(effect.name, effect.seconds)
        elif isinstance(effect, CancelTimer):
            self.timers.cancel(effect.name)
        elif isinstance(effect, Say):
            self._say(effect.code, effect.details)
        elif isinstance(effect, Drop):
            self._drop(effect)
        elif isinstance(effect, Close):
            self._end(effect.reason)
        else:
            self._perform_own(effect)

    # -- the lobby ------------------------------------------------------------------------

    @property
    def address(self) -> str:
        return self.lobby.address

    @property
    def inbox(self) -> queue.Queue[Any]:
        return self.lobby.inbox

    @property
    def closed(self) -> bool:
        return self.lobby.closed

    @property
    def notices(self) -> list[Notice]:
        return self.lobby.notices

    def wait_closed(self, timeout: float = 2.0) -> bool:
        """After closing: wait until every guest link has ended."""
        return self.lobby.wait_closed(timeout)

    def buffered_bytes(self) -> int:
        """Bytes of frames this phone holds now (see :meth:`HostLobby.buffered_bytes`)."""
        return self.lobby.buffered_bytes()

    def link_of(self, seat: int) -> Link | None:
        """The link of the guest at ``seat`` (None for the host or a disconnected seat)."""
        return self.lobby.link_of(seat)

    def _expired(self, wait: float) -> Iterator[str]:
        """Handle the links' events (up to ``wait`` s for the first, less if a table
        timer is due sooner), then yield each table timer that ran out and was not
        re-armed meanwhile (by the caller's handling of an earlier one). Consume it
        whole: the links are stepped on the first ``next``."""
        due = self.timers.next_in()
        self.lobby.step(wait if due is None else min(wait, due))
        for name in self.timers.due():
            if self.timers.remaining(name) is None:
                yield name


__all__ = ["LobbyShell"]
