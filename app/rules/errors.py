"""Errors shared by the rules engines.

An illegal action raises :class:`IllegalAction` and changes nothing. Its ``code`` is
a stable identifier (``"not_your_turn"``, ``"bet_above_limit"`` ...) that the UI
translates through gettext; the message is English, for logs and developers.
"""

from __future__ import annotations

from app.errors import CodedError


class IllegalAction(CodedError, ValueError):
    """An action the rules do not allow in the current state."""


class ScenarioError(ValueError):
    """A scenario file is malformed or asks for something the rules forbid."""
