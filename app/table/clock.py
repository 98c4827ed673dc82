"""Time for the table, passed in: the real monotonic clock, or a fake one for tests.

Nothing in the table reads the time by itself, so turn timers and heartbeats can be
tested (and replayed) exactly.

>>> clock = FakeClock()
>>> timers = Timers(clock)
>>> timers.set("turn", 30.0)
>>> clock.advance(29.9); timers.due()
[]
>>> clock.advance(0.1); timers.due()
['turn']
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Seconds from an arbitrary origin, never going backwards."""

    def now(self) -> float: ...


class SystemClock:
    """The real clock (``time.monotonic``)."""

    def now(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go backwards")
        self._now += seconds


class Timers:
    """Named deadlines on a :class:`Clock`: set, cancel, ask which are due."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._deadlines: dict[str, float] = {}

    def set(self, name: str, seconds: float) -> None:
        """(Re)arm ``name`` to fire ``seconds`` from now."""
        self._deadlines[name] = self.clock.now() + seconds

    def cancel(self, name: str) -> None:
        """Disarm ``name`` (no error if it is not armed)."""
        self._deadlines.pop(name, None)

    def remaining(self, name: str) -> float | None:
        """Seconds left on ``name`` (>= 0), None if not armed."""
        deadline = self._deadlines.get(name)
        return None if deadline is None else max(0.0, deadline - self.clock.now())

    def next_in(self) -> float | None:
        """Seconds until the earliest deadline (>= 0), None if none is armed."""
        if not self._deadlines:
            return None
        return max(0.0, min(self._deadlines.values()) - self.clock.now())

    def due(self) -> list[str]:
        """Disarm and return the timers whose deadline has passed, earliest first."""
        now = self.clock.now()
        fired = sorted((d, n) for n, d in self._deadlines.items() if d <= now)
        for _, name in fired:
            del self._deadlines[name]
        return [name for _, name in fired]
