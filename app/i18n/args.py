"""The ``blu21`` subcommands' argument parser: a bad argument is one translated line.

argparse prints its whole usage block above a terse English error; a player who typed
``blu21 table --bogus`` wants to read what is wrong and where to look, in his language:

    blu21 table: error: unknown argument: --bogus ('blu21 table --help' lists them)

:class:`ToolParser` says that (and exits 2, as argparse does); ``--help`` is unchanged.
argparse's own messages are recognised by their form and said again through the
catalogs; messages of an argument's own type check (``ArgumentTypeError``) come already
translated and are kept.

>>> _plain("unrecognized arguments: --bogus")
'unknown argument: --bogus'
>>> _plain("argument --lang: invalid choice: 'xx' (choose from de, en)")
"--lang: 'xx' is not one of de, en"
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import NoReturn

from app.i18n import N_, _

#: argparse's messages (their form in Python 3.11-3.13) -> ours, with the parts named
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"unrecognized arguments: (?P<args>.*)"), N_("unknown argument: {args}")),
    (
        re.compile(r"one of the arguments (?P<args>.*) is required"),
        N_("required: one of {args}"),
    ),
    (
        re.compile(r"the following arguments are required: (?P<args>.*)"),
        N_("required: {args}"),
    ),
    (
        re.compile(
            r"argument (?P<arg>\S+): invalid choice: (?P<value>.*?) \(choose from (?P<choices>.*)\)"
        ),
        N_("{arg}: {value} is not one of {choices}"),
    ),
    (
        re.compile(r"argument (?P<arg>\S+): expected (?:one|at least one) argument"),
        N_("{arg} needs a value"),
    ),
    (
        re.compile(r"argument (?P<arg>\S+): not allowed with argument (?P<other>\S+)"),
        N_("{arg} cannot be used together with {other}"),
    ),
    (
        re.compile(r"argument (?P<arg>\S+): invalid \w+ value: (?P<value>.*)"),
        N_("{arg}: {value} is not a number"),
    ),
    (
        re.compile(r"argument (?P<arg>\S+): ignored explicit argument (?P<value>.*)"),
        N_("{arg} takes no value, not {value}"),
    ),
)


def _plain(message: str) -> str:
    """argparse's ``message`` in the player's language (kept when its form is unknown:
    an argument's own type check has said it already)."""
    for pattern, form in _FORMS:
        m = pattern.fullmatch(message)
        if m is not None:
            return _(form).format(**m.groupdict())
    return message


class ToolParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one translated line on stderr (exit 2)."""

    def error(self, message: str) -> NoReturn:
        """Say what is wrong in one line and where the arguments are listed; exit 2."""
        hint = _("'{prog} --help' lists the arguments").format(prog=self.prog)
        line = _("error: {problem}").format(problem=_plain(message))
        self.exit(2, f"{self.prog}: {line} ({hint})\n")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        """argparse's exit, flushing stdout first (the line comes after what was said)."""
        sys.stdout.flush()
        super().exit(status, message)


__all__ = ["ToolParser"]
