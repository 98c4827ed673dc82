"""The ``blu21`` command: the app by default, tools as subcommands.

Each subcommand lives in its own module and is imported only when used, so
``blu21`` (the app) starts without loading the tools, and vice versa.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

#: subcommand -> (module:function, one-line help). The function takes argv (list[str]) -> int.
COMMANDS: dict[str, tuple[str, str]] = {
    "app": ("app.views.main:main", "run the app (the default)"),
    "replay": ("app.replay:main", "run a scenario file through a rules engine, print JSON"),
    "table": ("app.table.cli:table_main", "host or join a networked Oczko table in the terminal"),
    "casino": ("app.table.casino_cli:casino_main", "host or join a networked casino table"),
    "demo": (
        "app.table.cli:demo_main",
        "bots play a full Oczko match (or --game blackjack) over loopback",
    ),
    "soak": ("app.table.soak:main", "many simulated matches of phones with random faults"),
    "edge": ("app.strategy.cli:edge_main", "house edge and basic-strategy chart of table rules"),
    "sim": ("app.strategy.cli:sim_main", "Monte-Carlo simulation of table rules"),
    "screenshot": ("app.views.screenshot:main", "render a screen of the app to a PNG"),
    "history": ("app.history.cli:history_main", "the stored rounds (the app's hand history)"),
    "stats": ("app.history.cli:stats_main", "statistics over the stored rounds"),
}


def _usage() -> str:
    lines = ["usage: blu21 [COMMAND] [ARGS...]", "", "commands:"]
    lines += [f"  {name:<11} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run it from any folder; 'blu21 COMMAND --help' tells more."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``blu21`` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name = args.pop(0) if args and not args[0].startswith("-") else "app"
    if name not in COMMANDS:
        print(f"blu21: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    target, _ = COMMANDS[name]
    module_name, func_name = target.split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    try:
        status = int(func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
    except BrokenPipeError:
        return _reader_gone()
    return status


def _reader_gone() -> int:
    """The reader of stdout went away (``blu21 edge | head -3``): stop quietly, with the
    status of a tool ended by SIGPIPE, and keep Python's exit flush from failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + 13


if __name__ == "__main__":
    sys.exit(main())
