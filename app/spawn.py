"""Starting another ``blu21`` process that imports the same installed package as this one.

``python -m app`` puts the current folder first on ``sys.path``; run from a clone of the
repository, a child would then import the uncompiled source tree (no native modules) instead
of the installed package. ``-P`` (Python 3.11+) leaves the current folder off the path, so a
child finds ``app`` exactly where its parent did, whatever folder it is started from.

>>> blu21_command("table", "--join", "127.0.0.1:5000")[1:]
['-P', '-m', 'app', 'table', '--join', '127.0.0.1:5000']
"""

from __future__ import annotations

import sys


def blu21_command(*args: str) -> list[str]:
    """The argv that runs ``blu21 ARGS...`` in a child process with this interpreter."""
    return [sys.executable, "-P", "-m", "app", *args]
