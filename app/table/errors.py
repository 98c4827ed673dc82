"""Errors of the table layer, each with a stable code the UI translates."""

from __future__ import annotations

from typing import Any


class TableError(ValueError):
    """A table message or request that cannot be accepted; ``code`` says why.

    Codes: ``bad_message`` (malformed control message), ``table_full``,
    ``game_running`` (a new player while a match runs), ``bad_version``,
    ``bad_name``, ``bad_language``, ``bad_options``, ``not_host``, ``unknown_seat``.
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.details = details

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form: ``{"error": code, "message": ..., **details}``."""
        return {"error": self.code, "message": str(self), **self.details}
