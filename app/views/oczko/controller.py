"""What the Oczko table screen needs from whoever runs the table.

:class:`app.views.oczko.practice.PracticeMatch` (bots on this phone) implements it;
the networked table (host or guest over Bluetooth) implements the same to use the
same screen. Times are ``now`` values from the screen's clock (``time.monotonic``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from app.rules.oczko.views import MatchView


@runtime_checkable
class OczkoTableController(Protocol):
    """The table screen's view of a running match."""

    #: player names by seat
    names: Sequence[str]
    #: seconds per decision
    turn_time: float
    #: a finished round's result is on screen until the player taps "Next round"
    awaiting_next: bool

    @property
    def over(self) -> bool:
        """The match has a winner."""
        ...

    def view(self) -> MatchView:
        """This phone's view of the match: ``app.rules.oczko.views.view_for(match, me)``
        (the one place that hides other players' cards)."""
        ...

    def time_left(self, now: float) -> float:
        """Seconds left for this phone's player to decide (0 when it is not his turn)."""
        ...

    def seat_time_left(self, now: float) -> tuple[int | None, float]:
        """The seat whose turn it is (None between turns) and his seconds left."""
        ...

    def tick(self, now: float) -> bool:
        """Let time pass (timeouts, bots, network messages); True if the match moved."""
        ...

    def draw(self, now: float) -> None:
        """The player draws (IllegalAction when not allowed: shown, nothing changes)."""
        ...

    def hold(self, now: float) -> None:
        """The player holds."""
        ...

    def next_round(self, now: float) -> None:
        """The player has seen the round's result."""
        ...

    def leave(self) -> None:
        """The player leaves the table."""
        ...


#: Optional attributes a networked controller may add: ``message`` (a translated table
#: message, e.g. ``message_for("player_left", name=...)``) and ``shuffle_progress``
#: (0..1 while the SRA shuffle runs, else None) with ``shuffle_note`` ((stage, seats): what
#: runs, ``setup``/``shuffle``/``ahead``, and the players this phone waits for).
OPTIONAL_ATTRIBUTES = ("message", "shuffle_progress", "shuffle_note")
