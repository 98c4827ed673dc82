"""App-generated player ids: how a table knows a player, whatever link he uses.

A phone cannot read its own Bluetooth address (Android returns 02:00:00:00:00:00),
and a transport address changes when a player rejoins from a new link; so each
installation makes a random id once, keeps it with its preferences, and sends it in
the table's join message.

>>> len(new_player_id())
32
>>> is_player_id(new_player_id()), is_player_id("AA:BB:CC:DD:EE:FF")
(True, False)
"""

from __future__ import annotations

import re
import secrets

_PLAYER_ID = re.compile(r"[0-9a-f]{32}")


def new_player_id() -> str:
    """A fresh random player id: 32 lowercase hex digits (128 bits from ``secrets``)."""
    return secrets.token_hex(16)


def is_player_id(text: str) -> bool:
    """True if ``text`` has the form of a player id."""
    return _PLAYER_ID.fullmatch(text) is not None
