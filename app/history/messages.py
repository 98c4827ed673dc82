"""The history's messages to the player (codes -> translated text)."""

from __future__ import annotations

from app.i18n import _


def notice_text(code: str) -> str:
    """The translated message of a history code (``history_reset``, ...)."""
    if code == "history_reset":
        return _(
            "Your hand history could not be read. It was put aside and a new one started; "
            "your game is not affected."
        )
    if code == "history_corrupt":
        return _("The hand history file is damaged.")
    return _("The hand history cannot be saved on this device right now.")
