"""What a host's table shell takes from the :class:`~app.table.lobby.HostLobby` it holds.

Both hosts (:class:`~app.table.host_table.HostTable`, Oczko, and
:class:`~app.table.casino_host.CasinoHost`, casino) seat their guests through a lobby
held by composition and run their own timers beside the lobby's; this base gives them
the lobby's address, inbox, notices and links, and the one way to wait on links and
timers together.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

from app.bluetooth.link import Link
from app.table.clock import Timers
from app.table.lobby import HostLobby, Notice


class LobbyShell:
    """A host's table shell around its :class:`HostLobby` (``lobby``) and the table's
    own timers (``timers``; the lobby keeps its own)."""

    lobby: HostLobby
    timers: Timers

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
