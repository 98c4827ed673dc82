"""Presenter of the lobbies (pure): who is seated, who is ready, can we start. The
player lines are the same in the Oczko and the casino lobby (:func:`player_line`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.i18n import _, ngettext


@dataclass(frozen=True)
class LobbyVM:
    """What the lobby screen shows."""

    players: tuple[str, ...]
    settings: str
    status: str
    can_start: bool


def player_line(name: str, ready: bool, detail: str = "") -> str:
    """A lobby's line for one player: ``Ann  ·  Box 1  ·  ready`` (``detail``: what
    the game adds, '' for none).

    >>> player_line("Ann", True)
    'Ann  ·  ready'
    """
    state = _("ready") if ready else _("not ready yet")
    return "  ·  ".join(part for part in (name, detail, state) if part)


def present_lobby(lobby: dict[str, Any] | None, hosting: bool) -> LobbyVM:
    """``lobby``: ``{"players": [(name, ready), ...], "rounds": 5, "turn_time": 30}``.

    The host may start only when 2-7 players sit and every one of them is ready.
    """
    if not lobby:
        return LobbyVM((), "", _("Waiting for the table…"), False)
    players = list(lobby.get("players", ()))
    lines = tuple(player_line(name, ready) for name, ready in players)
    settings = _("{rounds} rounds, {seconds} s per decision").format(
        rounds=lobby.get("rounds", 5), seconds=lobby.get("turn_time", 30)
    )
    everyone_ready = all(ready for _name, ready in players)
    n = len(players)
    can_start = hosting and 2 <= n <= 7 and everyone_ready
    if n < 2:
        status = _("Waiting for more players…")
    elif n > 7:
        status = _("At most seven players can sit at a table.")
    elif not everyone_ready:
        status = _("Waiting until everybody is ready…")
    elif hosting:
        status = ngettext(
            "{n} player ready. Start when you like.", "{n} players ready. Start when you like.", n
        ).format(n=n)
    else:
        status = _("Waiting for the host to start…")
    return LobbyVM(lines, settings, status, can_start)


def shown_address(address: str, local_ip: str | None = None) -> str:
    """The address guests type: a table listening on every network (``0.0.0.0``) is
    reached at this computer's address on the local network.

    >>> shown_address("127.0.0.1:5000"), shown_address("0.0.0.0:5000", "192.168.1.7")
    ('127.0.0.1:5000', '192.168.1.7:5000')
    """
    host, sep, port = address.rpartition(":")
    if not sep or host != "0.0.0.0":
        return address
    return f"{local_ip or lan_ip()}:{port}"


def lan_ip() -> str:
    """This computer's address on its local network (no packet is sent: the system
    only picks the route), else 127.0.0.1."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
            return str(sock.getsockname()[0])
    except OSError:
        return "127.0.0.1"
