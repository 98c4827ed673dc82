"""What the terminal table commands (``blu21 table`` and ``blu21 casino``) share: the
arguments that host or join a table over TCP, and how a failure is told."""

from __future__ import annotations

import argparse
import sys

from app.i18n import LANGUAGES


def table_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """A parser with ``--host`` or ``--join HOST:PORT`` (one is required), the host's
    ``--port`` and ``--bind``, and the player's ``--name`` and ``--lang``."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--host", action="store_true", help="host a table")
    mode.add_argument("--join", metavar="HOST:PORT", help="join the table at HOST:PORT")
    p.add_argument("--port", type=int, default=0, help="port to listen on (host; 0: any)")
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (host)")
    p.add_argument("--name", default="Player")
    p.add_argument("--lang", default="en", choices=sorted(LANGUAGES), help="language")
    return p


def failed(prog: str, exc: Exception) -> int:
    """Tell on stderr why ``prog`` stopped (the error's stable code, if it has one); 1."""
    code = getattr(exc, "code", "error")
    print(f"{prog}: {code}: {exc}", file=sys.stderr)
    return 1


__all__ = ["failed", "table_parser"]
