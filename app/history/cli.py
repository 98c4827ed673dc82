"""``blu21 history`` and ``blu21 stats``: the app's hand history from the terminal.

Both read the database the app writes (``history.db`` in the app's data dir:
``$BLU21_DATA_DIR``, else where Kivy keeps the app's data on this platform), so a
maintainer can check what a player reports. ``--data-dir`` or ``--db`` point elsewhere.
A damaged file is reported and left as it is (the app moves it aside itself).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.history.model import GAMES
from app.i18n import _
from app.i18n.args import ToolParser


def app_data_dir() -> Path:
    """The app's data dir as the app uses it: ``$BLU21_DATA_DIR``, else Kivy's
    ``App.user_data_dir`` for an app named "blu21" (computed here without Kivy)."""
    from app.prefs import app_data_dir as data_dir

    return data_dir()


def _parser(prog: str, doc: str) -> argparse.ArgumentParser:
    p = ToolParser(prog=prog, description=doc)
    p.add_argument("--game", choices=GAMES, help="only this game")
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, help="the app's data dir (default: as the app)")
    where.add_argument("--db", type=Path, help="a history database file")
    return p


class _Missing(Exception):
    """A file or folder named on the command line is not there (nothing is created)."""


def _open(ns: argparse.Namespace) -> Any:
    """(store, path): the store is None where the app has stored nothing yet; a
    ``--db`` or ``--data-dir`` that does not exist is :class:`_Missing` (a mistyped
    path must not read as an empty history, nor leave a new file behind)."""
    from app.history.store import FILE_NAME, HistoryStore

    if ns.db is not None and not ns.db.is_file():
        raise _Missing(_("the file {path} does not exist").format(path=ns.db))
    if ns.data_dir is not None and not ns.data_dir.is_dir():
        raise _Missing(_("the folder {path} does not exist").format(path=ns.data_dir))
    path = ns.db or (ns.data_dir or app_data_dir()) / FILE_NAME
    if not path.exists():
        return None, path
    return HistoryStore(path, repair=False), path


def _positive(text: str) -> int:
    """``--limit``: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(
            _("a whole number of at least 1, not '{text}'").format(text=text)
        )
    return n


def _fail(prog: str, exc: Exception) -> int:
    print(f"{prog}: {exc}", file=sys.stderr)
    return 2


def _line(r: Any) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.ended))
    f = r.facts
    if r.game == "oczko":
        extra = (
            f"held {f.held_total}" if f.held_total is not None
            else "persian 21" if f.persian else "bust" if f.bust else ""
        )  # fmt: skip
        score = f"points {r.score_before}->{r.score_after}"
    else:
        extra = f"hands {f.hands}, mistakes {f.mistakes} (ev lost {f.ev_lost:.2f})"
        score = f"chips {r.score_before}->{r.score_after}"
    detail = r.detail or {}
    if "audit" in detail:  # a networked round: its audit's verdict, and whom it named
        named = ", ".join(detail.get("named") or ())
        extra += f"; audit {detail['audit']}" + (f", named {named}" if named else "")
    return (
        f"{r.id:>6}  {when}  {r.game:<9} {r.mode:<8} round {r.number:<3} "
        f"{r.result:<5} {score:<24} {extra}"
    ).rstrip()


def history_main(argv: Sequence[str]) -> int:
    """``blu21 history [--game G] [--limit N | --all] [--json] [--data-dir DIR | --db FILE]``."""
    p = _parser("blu21 history", "The stored rounds, newest first.")
    many = p.add_mutually_exclusive_group()
    many.add_argument("--limit", type=_positive, default=50, help="at most N rounds (50)")
    many.add_argument("--all", action="store_true", help="every stored round")
    ns = p.parse_args(list(argv))
    from app.history.store import HistoryError

    try:
        store, path = _open(ns)
        if store is None:
            rounds = []
        else:
            with store:
                # (the text lines show a networked round's audit verdict: detail too)
                rounds = store.rounds(ns.game, limit=None if ns.all else ns.limit)
    except (HistoryError, _Missing) as exc:
        return _fail("blu21 history", exc)
    if ns.json:
        json.dump([r.to_json() for r in rounds], sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    elif not rounds:
        print(_("no rounds stored in {path}").format(path=path))
    else:
        for r in rounds:
            print(_line(r))
    return 0


def stats_main(argv: Sequence[str]) -> int:
    """``blu21 stats [--game G] [--json] [--data-dir DIR | --db FILE]``."""
    ns = _parser("blu21 stats", "Statistics over the stored rounds.").parse_args(list(argv))
    from app.history.stats import statistics
    from app.history.store import HistoryError

    try:
        store, _path = _open(ns)
        if store is None:
            stats = statistics([])
        else:
            with store:
                stats = store.stats()
    except (HistoryError, _Missing) as exc:
        return _fail("blu21 stats", exc)
    if ns.game:
        stats = {ns.game: stats[ns.game]}
    if ns.json:
        json.dump(stats, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    from app.history.messages import stats_lines

    for game, values in stats.items():  # the lines of the app's statistics screen
        print(f"{_('Oczko') if game == 'oczko' else _('Blackjack')}:")
        for line in stats_lines(game, values):
            print(f"  {line}")
    return 0
