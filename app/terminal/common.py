"""What the terminal table commands (``blu21 table`` and ``blu21 casino``) share: the
arguments that host or join a table over TCP and play a seat there, the typed lines,
and how a failure is told. The one terminal table tool is :mod:`app.terminal.commands`; each
game adds its own arguments and loop (Oczko's in ``cli``, the casino's in
:mod:`app.terminal.casino`)."""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Protocol

from app.i18n import LANGUAGES, get_language
from app.i18n.args import ToolParser


def table_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """A parser with ``--host`` or ``--join HOST:PORT`` (one is required), the host's
    ``--port`` and ``--bind``, and the player's ``--name`` and ``--lang`` (default: the
    terminal's language, as ``blu21`` found it)."""
    p = ToolParser(prog=prog, description=description)
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--host", action="store_true", help="host a table")
    mode.add_argument("--join", metavar="HOST:PORT", help="join the table at HOST:PORT")
    p.add_argument(
        "--port", type=bounded((0, 65535)), default=0, help="port to listen on (host; 0: any)"
    )
    p.add_argument("--bind", default="127.0.0.1", help="address to listen on (host)")
    p.add_argument("--name", default="Player")
    p.add_argument("--lang", default=get_language(), choices=sorted(LANGUAGES), help="language")
    return p


def seat_arguments(p: argparse.ArgumentParser, turn_time: tuple[int, int]) -> None:
    """What both games' terminal tables take to play a seat: ``--turn-time`` (within
    ``turn_time``, the bounds every guest checks), ``--bot``, the host's
    ``--start-with``, ``--dealer``, ``--quiet``, ``--result-json`` and ``--no-history``."""
    p.add_argument(
        "--turn-time",
        type=bounded(turn_time),
        default=30,
        help="host: seconds per decision ({}-{})".format(*turn_time),
    )
    p.add_argument("--bot", action="store_true", help="let the bot play this seat")
    p.add_argument("--start-with", type=int, default=0, help="host: start at N ready players")
    p.add_argument("--dealer", choices=["sra", "open"], default=None)
    p.add_argument("--quiet", action="store_true", help="print only the final result")
    p.add_argument("--result-json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--no-history",
        action="store_true",
        help="keep no record of this table's rounds (the demo's bots)",
    )


def stdin_lines() -> queue.Queue[str]:
    """The lines the player types, stripped, read on a thread of their own; ``quit``
    when the input ends."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            lines.put(line.strip())
        lines.put("quit")

    threading.Thread(target=read, daemon=True).start()
    return lines


class Steps(Protocol):
    """What the driving loop calls of a table (either game's host or guest)."""

    def step(self, wait: float = 0.0) -> None: ...


class Deadline:
    """When a terminal table stops at the latest: ``seconds`` from now, or sooner
    (:meth:`linger`)."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def passed(self) -> bool:
        """Whether the time is up."""
        return time.monotonic() >= self.at

    def linger(self, seconds: float) -> None:
        """Stop within ``seconds`` at the latest (a guest whose table is over stays
        until the host ends it, so that he leaves nobody's round unfinished)."""
        self.at = min(self.at, time.monotonic() + seconds)


def drive(
    table: Steps,
    *,
    over: Callable[[], bool],
    after_step: Callable[[Deadline], bool],
    on_step: Callable[[Steps], None],
    commands: queue.Queue[str] | None,
    on_line: Callable[[str], None],
    seconds: float,
) -> None:
    """The terminal table's loop, both games: step ``table`` until it is ``over``,
    ``after_step`` says stop (True; it may shorten the deadline) or ``seconds`` pass;
    ``on_step(table)`` after each step (the history), each typed line to ``on_line``."""
    deadline = Deadline(seconds)
    while not deadline.passed() and not over():
        table.step(0.05)
        on_step(table)
        if after_step(deadline):
            return
        while commands is not None and not commands.empty():
            on_line(commands.get())


def bounded(limits: tuple[int, int]) -> Callable[[str], int]:
    """An argparse type: a whole number within ``limits``, the table's own bounds that
    every guest checks (e.g. :data:`app.table.messages.TURN_TIME_RANGE`), so a host
    never opens a table its guests would leave; refused in one translated line.

    >>> bounded((5, 600))("30")
    30
    >>> bounded((5, 600))("1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: a whole number from 5 to 600, not '1'
    """
    low, high = limits

    def parse(text: str) -> int:
        from app.i18n import _

        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                _("a whole number from {low} to {high}, not '{text}'").format(
                    low=low, high=high, text=text
                )
            )
        return value

    return parse


def failure_line(prog: str, exc: Exception) -> str:
    """One line telling why ``prog`` stopped: the translated message of the error's
    stable code when there is one, then the code and the English detail (for whoever
    reads a player's report); never a traceback.

    >>> from app.bluetooth.errors import TransportError
    >>> failure_line("blu21 casino", TransportError("bad_address", "got 'foo:bar'"))
    "blu21 casino: That is not a table address. (bad_address: got 'foo:bar')"
    >>> failure_line("blu21 x", ValueError("bad\\nvalue"))
    'blu21 x: bad value'
    """
    from app.i18n.codes import MESSAGES, error_message

    code = getattr(exc, "code", None)
    detail = str(exc)
    if isinstance(code, str) and code in MESSAGES:
        text = f"{error_message(exc)} ({code}: {detail})"
    elif isinstance(code, str):
        text = f"{code}: {detail}"
    else:
        text = detail or type(exc).__name__
    return f"{prog}: {' '.join(text.split())}"


def failed(prog: str, exc: Exception) -> int:
    """Tell on stderr, in one line, why ``prog`` stopped (:func:`failure_line`); 1."""
    print(failure_line(prog, exc), file=sys.stderr)
    return 1


__all__ = [
    "Deadline",
    "bounded",
    "drive",
    "failed",
    "failure_line",
    "seat_arguments",
    "stdin_lines",
    "table_parser",
]
