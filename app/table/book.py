"""The vocabulary both hosts' sequencers share: the table's stage, the events every
table hears and the effects every table asks for (no I/O).

A host is one pure function ``step(book, event, facts) -> (book, effects)`` per game
(:mod:`app.table.host_sequencer` for Oczko, :mod:`app.table.casino_sequencer` for the
casino) over the values below; each game's book module (:mod:`app.table.host_book`,
:mod:`app.table.casino_book`) adds only what its game alone has (its book, its facts,
its reports and its readmission). A player is named by ``Who``: his seat at an Oczko
table, his player id at a casino table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

#: how a game names a player: a seat (Oczko) or a player id (casino)
Who = TypeVar("Who", int, str)
#: what a game announces: a public event (Oczko) or an announcement (casino)
M = TypeVar("M")


class Stage(StrEnum):
    """Where a host's table is (a string enum: ``stage == "play"`` reads as before)."""

    LOBBY = "lobby"  # seating players; no match yet
    SETUP = "setup"  # the dealers set up (Oczko: at the start, or after a player came back)
    PLAY = "play"  # rounds are dealt and played
    OVER = "over"  # the match has ended


# -- events -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Drive:
    """Decide the next public event, if one is due."""


@dataclass(frozen=True)
class Started:
    """The host closed the lobby: the table begins."""


@dataclass(frozen=True)
class Expired:
    """The timer ``name`` ran out (``turn``, ``bet``, ``drew``, ``pause``, ``stall``...)."""

    name: str


@dataclass(frozen=True)
class Gone(Generic[Who]):
    """The link of player ``who`` is gone (``reason``: left, lost, silent, cheat, ...)."""

    who: Who
    reason: str


@dataclass(frozen=True)
class Back(Generic[Who]):
    """Player ``who`` joined again on a new link (casino: signing with ``key``)."""

    who: Who
    key: str = ""


# -- effects ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Announce(Generic[M]):
    """Send ``message`` to every guest and apply it on the host's own phone."""

    message: M

    @property
    def event(self) -> M:
        """The announced public event (the Oczko name of :attr:`message`)."""
        return self.message


@dataclass(frozen=True)
class Say:
    """A notice for the host's screen (a stable code and its details)."""

    code: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SetTimer:
    """Arm (or re-arm) the timer ``name``."""

    name: str
    seconds: float


@dataclass(frozen=True)
class CancelTimer:
    """Disarm the timer ``name``."""

    name: str


@dataclass(frozen=True)
class Drop(Generic[Who]):
    """Close the link of player ``who`` (his ``Gone`` comes back as an event)."""

    who: Who
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class Close:
    """End the table on every phone (``reason``: a stable code every phone shows)."""

    reason: str
