"""Errors of the table layer, each with a stable code the UI translates."""

from __future__ import annotations

from app.errors import CodedError


class TableError(CodedError, ValueError):
    """A table message or request that cannot be accepted; ``code`` says why.

    Codes: ``bad_message`` (malformed control message), ``table_full``,
    ``game_running`` (a new player while a match runs), ``bad_version``,
    ``bad_name``, ``bad_language``, ``bad_options``, ``not_host``, ``unknown_seat``,
    ``flood`` (a peer sent more than the limits of :mod:`app.table.frame_budget` allow),
    ``ahead`` (a dealer frame for a deck the table has not started),
    ``no_secure_dealer`` (the SRA dealer cannot load: no networked table opens).
    """
