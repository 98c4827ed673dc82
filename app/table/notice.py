"""A table message for the screen, the same for both games and both sides.

The lobby, the Oczko table and the casino table all tell their screen what happened
through a :class:`Notice`: a stable ``code`` (translated by the screens) and its
details. The casino snapshot calls the details ``params``; both names read the same.

>>> n = Notice("player_left", {"seat": 1, "reason": "left"})
>>> n.params is n.details, n.details["seat"]
(True, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Notice:
    """Something the UI may show: a stable ``code`` and its details."""

    code: str
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def params(self) -> Mapping[str, Any]:
        """The details (the casino screens' name for them)."""
        return self.details


__all__ = ["Notice"]
