"""The vocabulary both hosts' sequencers share: the table's stage, the events every
table hears and the effects every table asks for (no I/O).

A host is one pure function ``step(book, event, facts) -> (book, effects)`` per game
(:mod:`app.table.oczko.sequencer` for Oczko, :mod:`app.table.casino.sequencer` for the
casino) over the values below; each game's book module (:mod:`app.table.oczko.book`,
:mod:`app.table.casino.book`) adds only what its game alone has (its book, its facts,
its reports and its readmission). A player is named by ``Who``: his seat at an Oczko
table, his player id at a casino table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

#: how a game names a player: a seat (Oczko) or a player id (casino)
Who = TypeVar("Who", int, str)
#: what a game announces: a public event (Oczko) or an announcement (casino)
M = TypeVar("M")
#: what a watchdog's timer runs for (a timer runs anew when it changes)
K = TypeVar("K")


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


# -- the stall watchdog -----------------------------------------------------------------


def rearm(
    armed: Mapping[str, K], wanted: Mapping[str, K], seconds: Callable[[K], float]
) -> list[SetTimer | CancelTimer]:
    """The watchdog's timers from those ``armed`` to those ``wanted`` (timer name -> what
    it runs for: who holds the table up, at which step): a timer no longer wanted is
    cancelled, one whose reason changed runs anew for its whole time, the others run
    on. Both hosts drop whoever keeps the table waiting this way (Oczko: one ``stall``
    timer for the blockers; casino: one ``stall:<player>`` per phone that owes a step).

    >>> rearm({"stall:p1": 1}, {"stall:p1": 2, "stall:p2": 1}, lambda k: 10.0 * k)
    [SetTimer(name='stall:p1', seconds=20.0), SetTimer(name='stall:p2', seconds=10.0)]
    >>> rearm({"stall": 1}, {}, float)
    [CancelTimer(name='stall')]
    """
    effects: list[SetTimer | CancelTimer] = [
        CancelTimer(name) for name in sorted(armed) if name not in wanted
    ]
    effects += [SetTimer(n, seconds(k)) for n, k in sorted(wanted.items()) if armed.get(n) != k]
    return effects
