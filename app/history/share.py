"""Sharing the history on Android: the system's share sheet (``Intent.ACTION_SEND``
through pyjnius) with the history as CSV text, for mail, chat or a notes app.

Text, not a file: a file would need a ``FileProvider`` declared in the app's manifest;
text needs nothing. An Intent's extras travel through Binder's buffer (about 1 MB for
everything in flight), so the text is bounded: the newest rounds that fit in
:data:`MAX_CHARS`, and the player is told how many went in. The complete export (JSON
and CSV files) is written to the app's data dir as on the desktop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.history.export import csv_lines
from app.history.model import RoundRecord

#: characters of CSV put into the share intent (UTF-16 in the Parcel: ~2 bytes each)
MAX_CHARS = 200_000


def share_payload(rounds: Sequence[RoundRecord], limit: int = MAX_CHARS) -> tuple[str, int]:
    """CSV of the newest of ``rounds`` (given oldest first) that fit in ``limit``
    characters, oldest first; and how many rounds it holds.

    >>> from app.history.model import RoundRecord
    >>> r = RoundRecord("oczko", "practice", "s", 1, 0.0, 1.0, "A", "won", "0", "1")
    >>> text, n = share_payload([r] * 10, limit=600)
    >>> n < 10 and len(text) <= 600 and text.startswith("id,game")
    True
    """
    header, *lines = csv_lines(rounds)
    size, n = len(header), 0
    for line in reversed(lines):  # newest first, while they fit
        if size + len(line) > limit:
            break
        size, n = size + len(line), n + 1
    return header + "".join(lines[len(lines) - n :]), n


def share_text(subject: str, text: str, chooser_title: str) -> Any:
    """Open Android's share sheet with ``text`` (plain text); returns the chooser Intent.
    Raises ImportError off Android (no pyjnius / no activity)."""
    from jnius import autoclass

    intent_class = autoclass("android.content.Intent")
    activity = autoclass("org.kivy.android.PythonActivity").mActivity
    intent = intent_class(intent_class.ACTION_SEND)
    intent.setType("text/plain")
    intent.putExtra(intent_class.EXTRA_SUBJECT, subject)
    intent.putExtra(intent_class.EXTRA_TEXT, text)
    chooser = intent_class.createChooser(intent, chooser_title)
    activity.startActivity(chooser)
    return chooser
