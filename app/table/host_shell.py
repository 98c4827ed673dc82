"""The one I/O shell of a host's table, around the :class:`~app.table.lobby.HostLobby`
it holds and the pure sequencer it runs.

Both hosts (:class:`~app.table.oczko.host.HostTable`, Oczko, and
:class:`~app.table.casino.host.CasinoHost`, casino) seat their guests through a lobby
held by composition and run their own timers beside the lobby's; this base gives them
the lobby's address, inbox, notices and links, the one way to wait on links and timers
together, and the one loop around the sequencer: observe the facts, step, perform the
effects, and drive until nothing more is due. The effects both games share
(:mod:`app.table.book`) are performed here; each game's host performs its own and says
how it observes its phone, names a seat, notes a notice and ends the table.
"""

from __future__ import annotations

import hashlib
import queue
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

from app.bluetooth.link import Link, Listener
from app.protocol.errors import REPLAY
from app.table.book import CancelTimer, Close, Drive, Drop, Say, SetTimer
from app.table.clock import Clock, Timers
from app.table.dealer import DealerViolation
from app.table.errors import TableError
from app.table.frame_budget import FrameBudget
from app.table.lobby import HostLobby, MatchHooks, Notice
from app.table.messages import Options
from app.table.seating import Seating

BookT = TypeVar("BookT")
EventT = TypeVar("EventT")
FactsT = TypeVar("FactsT")
EffectT = TypeVar("EffectT")

#: How many of a guest's last accepted dealer frames the host remembers, to know a
#: duplicate of one when it comes again (a frame sent twice arrives right after itself).
REMEMBERED_FRAMES = 512


class LobbyShell(Generic[BookT, EventT, FactsT, EffectT]):
    """A host's table shell around its :class:`HostLobby` (``lobby``), the table's own
    timers (``timers``; the lobby keeps its own) and its sequencer's ``book``."""

    lobby: HostLobby
    timers: Timers
    book: BookT
    #: what each guest's dealer frames may cost (app.table.frame_budget)
    _budget: FrameBudget
    #: seat -> digests of the dealer frames last accepted from it (see :meth:`_take_frame`)
    _accepted: dict[int, OrderedDict[bytes, None]]

    def _open(
        self,
        listener: Listener,
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        options: Options | None,
        on_notice: Callable[[Notice], None] | None,
        budget: FrameBudget,
        hooks: MatchHooks,
    ) -> None:
        """Open the lobby (``hooks``, this shell's game, hears its guests' messages) and
        the table's own timers, with what each guest's dealer frames may cost."""
        self.lobby = HostLobby(
            listener,
            player_id=player_id,
            name=name,
            lang=lang,
            clock=clock,
            options=options,
            on_notice=on_notice,
            hooks=hooks,
        )
        self.timers = Timers(clock)
        self._budget = budget
        self._accepted = {}

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

    # -- the guests' dealer frames -------------------------------------------------------

    def _take_frame(
        self,
        seat: int,
        data: bytes,
        authenticate: Callable[[bytes], None],
        *,
        deck: int,
        newest: int,
    ) -> bool:
        """A guest's dealer frame: charged to the seat of the link it came on, before
        anything is kept or relayed (past his budget, or for a deck or shoe not yet
        announced, TableError ``flood`` / ``ahead``: the lobby drops him and every phone
        is told), then authenticated by this phone's dealer (TableError ``cheat``).

        False for a frame identical to one accepted from ``seat`` since the dealers were
        last set up, which the dealer refused as a replay: it was relayed and applied
        once, and its signed sequence number makes it a no-op now. It is ignored, not
        taken for a cheat: dropping its sender voided the round in play, even one other
        phones had already ended (issue 17). Only a refused frame is looked up: a new
        set-up's first frames may repeat the bytes of the last one's (the same keys from
        a test's seeded randomness), and they are new. (Copies count against the budget
        too: a guest repeating one is cut off like a flood.)"""
        self._budget.charge(seat, data, deck=deck, newest=newest)
        digest = hashlib.blake2b(data, digest_size=16).digest()
        try:
            authenticate(data)
        except DealerViolation as exc:
            if exc.code == REPLAY and digest in self._accepted.get(seat, ()):
                return False
            raise TableError("cheat", f"{exc.code}: {exc.detail}") from exc
        accepted = self._accepted.setdefault(seat, OrderedDict())
        accepted[digest] = None
        if len(accepted) > REMEMBERED_FRAMES:
            accepted.popitem(last=False)
        return True

    def _new_setup(self) -> None:
        """The dealers are set up anew (a player is back): set-up frames count afresh,
        and sequence numbers start anew."""
        self._budget.new_setup()
        self._accepted.clear()

    def _new_link(self, seat: int) -> None:
        """``seat`` is on a new phone: its frames are new."""
        self._accepted.pop(seat, None)

    # -- the lobby ------------------------------------------------------------------------

    def _bar(self, seat: int, *, absent: bool) -> None:
        """The player of ``seat`` was named for cheating: he stays out for the rest of
        the table. His id is refused at the door, and a link he came back on while
        ``absent`` (not yet readmitted) is closed."""
        if 0 < seat < len(self.lobby.seating.sitters):
            self.lobby.seating = self.lobby.seating.ban(seat)
        if absent and self.link_of(seat) is not None:
            self.lobby.drop_seat(seat, "banned", "named for cheating at this table")

    @property
    def seating(self) -> Seating:
        return self.lobby.seating

    @property
    def silence_limit(self) -> float:
        return self.lobby.silence_limit

    @silence_limit.setter
    def silence_limit(self, seconds: float) -> None:
        self.lobby.silence_limit = seconds

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
