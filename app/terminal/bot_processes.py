"""The terminal demos' bot guests: each a ``blu21`` child process that plays one seat
and, at the end, prints its view of the result on one ``RESULT <json>`` line that the
demo's host compares with its own (the Oczko ``table`` and the ``casino`` demos)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable, Sequence
from typing import Any

from app.spawn import blu21_command

#: what starts a bot's result line
RESULT = "RESULT "


def start_bots(argvs: Iterable[Sequence[str]]) -> list[subprocess.Popen[str]]:
    """Start one ``blu21 ARGV...`` child per argv, its output (stderr too) piped as text."""
    return [
        subprocess.Popen(
            blu21_command(*argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for argv in argvs
    ]


def print_result(result: Any) -> None:
    """A bot's result line (the JSON the host reads back with :func:`result_in`)."""
    print(RESULT + json.dumps(result), flush=True)


def result_in(output: str) -> Any:
    """The result a bot printed in ``output`` (None if it printed none)."""
    line = next((x for x in output.splitlines() if x.startswith(RESULT)), None)
    return json.loads(line[len(RESULT) :]) if line else None


def print_tail(i: int, bot: subprocess.Popen[str], output: str, lines: int = 15) -> None:
    """Show the last ``lines`` of bot ``i``'s output and its exit code (after a failure)."""
    tail = "\n".join(output.splitlines()[-lines:])
    print(f"--- Bot{i} (exit {bot.returncode}):\n{tail}", flush=True)


def stop_bots(bots: Iterable[subprocess.Popen[str]]) -> None:
    """Kill the bots still running (the demo ends or failed) and reap them."""
    for bot in bots:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


__all__ = ["RESULT", "print_result", "print_tail", "result_in", "start_bots", "stop_bots"]
