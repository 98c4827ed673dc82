"""Errors shared by the rules engines.

An illegal action raises :class:`IllegalAction` and changes nothing. Its ``code`` is
a stable identifier (``"not_your_turn"``, ``"bet_above_limit"`` ...) that the UI
translates through gettext; the message is English, for logs and developers.
"""

from __future__ import annotations

from typing import Any


class IllegalAction(ValueError):
    """An action the rules do not allow in the current state."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.details = details

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form: ``{"error": code, "message": ..., **details}``."""
        return {"error": self.code, "message": str(self), **self.details}
