"""The one shape of every error a player may see: a stable ``code`` the UI translates
through gettext (:func:`app.i18n.codes.message_for`), an English message for logs, and
``details`` to fill into the translated text."""

from __future__ import annotations

from typing import Any


class CodedError(Exception):
    """Base of :class:`~app.rules.errors.IllegalAction`,
    :class:`~app.table.errors.TableError` and :class:`~app.bluetooth.errors.TransportError`.

    >>> CodedError("table_full", "seven players sit already", seats=7).to_json()
    {'error': 'table_full', 'message': 'seven players sit already', 'seats': 7}
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.details = details

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {str(self)!r})"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form: ``{"error": code, "message": ..., **details}``."""
        return {"error": self.code, "message": str(self), **self.details}
