"""The ``blu21`` command: the app by default, tools as subcommands.

Each subcommand lives in its own module and is imported only when used, so
``blu21`` (the app) starts without loading the tools, and vice versa.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from app.i18n import _, detect_language, set_language

#: subcommand -> (module:function, one-line help). The function takes argv (list[str]) -> int.
COMMANDS: dict[str, tuple[str, str]] = {
    "app": ("app.views.main:main", "run the app (the default)"),
    "replay": ("app.replay:main", "run a scenario file through a rules engine, print JSON"),
    "table": (
        "app.terminal.commands:table_main",
        "host or join a networked Oczko table in the terminal",
    ),
    "casino": ("app.terminal.commands:casino_main", "host or join a networked casino table"),
    "demo": (
        "app.terminal.commands:demo_main",
        "bots play a full Oczko match (or --game blackjack) over loopback",
    ),
    "soak": ("app.sim.soak:main", "many simulated matches of phones with random faults"),
    "edge": ("app.strategy.cli:edge_main", "house edge and basic-strategy chart of table rules"),
    "sim": ("app.strategy.cli:sim_main", "Monte-Carlo simulation of table rules"),
    "screenshot": ("app.views.screenshot:main", "render a screen of the app to a PNG"),
    "history": ("app.history.cli:history_main", "the stored rounds (the app's hand history)"),
    "stats": ("app.history.cli:stats_main", "statistics over the stored rounds"),
}


def _usage() -> str:
    lines = ["usage: blu21 [--version] [COMMAND] [ARGS...]", "", "commands:"]
    lines += [f"  {name:<11} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run it from any folder; 'blu21 COMMAND --help' tells more."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``blu21`` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    # The terminal's language (LANG ...) for what the tools say; their --lang overrides it.
    set_language(detect_language())
    if args and args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    if args and args[0] in ("-V", "--version"):
        print(f"blu21 {_version()}")
        return 0
    name = args.pop(0) if args and not args[0].startswith("-") else "app"
    if name not in COMMANDS:
        print(f"blu21: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, func_name = COMMANDS[name][0].split(":")
    try:
        func = getattr(importlib.import_module(module_name), func_name)
        status = int(func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
    except BrokenPipeError:
        return _reader_gone()
    except KeyboardInterrupt:
        return _interrupted(f"blu21 {name}")
    return status


def _version() -> str:
    """The installed package's version (as pip shows it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("blu21")
    except PackageNotFoundError:  # run from a source folder that was never installed
        return "unknown"


def _interrupted(prog: str) -> int:
    """Ctrl-C: one line instead of a traceback, and the status of a tool ended by SIGINT
    (128 + 2), as shells expect."""
    lead = "\n" if sys.stderr.isatty() else ""  # past the ^C (or a progress line) shown
    print(f"{lead}{prog}: " + _("stopped (Ctrl-C)."), file=sys.stderr, flush=True)
    return 128 + 2


def _reader_gone() -> int:
    """The reader of stdout went away (``blu21 edge | head -3``): stop quietly, with the
    status of a tool ended by SIGPIPE, and keep Python's exit flush from failing again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + 13


if __name__ == "__main__":
    sys.exit(main())
