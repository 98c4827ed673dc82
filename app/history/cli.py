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


def app_data_dir() -> Path:
    """The app's data dir as the app uses it: ``$BLU21_DATA_DIR``, else Kivy's
    ``App.user_data_dir`` for an app named "blu21" (computed here without Kivy)."""
    from app.prefs import app_data_dir as data_dir

    return data_dir()


def _parser(prog: str, doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=doc)
    p.add_argument("--game", choices=GAMES, help="only this game")
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, help="the app's data dir (default: as the app)")
    where.add_argument("--db", type=Path, help="a history database file")
    return p


def _open(ns: argparse.Namespace) -> Any:
    from app.history.store import FILE_NAME, HistoryStore

    path = ns.db or (ns.data_dir or app_data_dir()) / FILE_NAME
    if not path.exists():
        return None, path
    return HistoryStore(path, repair=False), path


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
    return (
        f"{r.id:>6}  {when}  {r.game:<9} {r.mode:<8} round {r.number:<3} "
        f"{r.result:<5} {score:<24} {extra}"
    ).rstrip()


def history_main(argv: Sequence[str]) -> int:
    """``blu21 history [--game G] [--limit N] [--json] [--data-dir DIR | --db FILE]``."""
    p = _parser("blu21 history", "The stored rounds, newest first.")
    p.add_argument("--limit", type=int, default=50, help="at most N rounds (0: all)")
    ns = p.parse_args(list(argv))
    from app.history.store import HistoryError

    try:
        store, path = _open(ns)
        if store is None:
            rounds = []
        else:
            with store:
                rounds = store.rounds(ns.game, limit=ns.limit or None, detail=ns.json)
    except HistoryError as exc:
        return _fail("blu21 history", exc)
    if ns.json:
        json.dump([r.to_json() for r in rounds], sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    elif not rounds:
        print(f"no rounds stored in {path}")
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
    except HistoryError as exc:
        return _fail("blu21 stats", exc)
    if ns.game:
        stats = {ns.game: stats[ns.game]}
    if ns.json:
        json.dump(stats, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for game, values in stats.items():
        print(f"{game}:")
        for key, value in values.items():
            if key.startswith("chart_") or key == "game":
                continue
            if key == "ev_lost_sessions":
                for s in value:
                    print(
                        f"  session {s['session']}: {s['mistakes']} of {s['decisions']} "
                        f"decisions below best play, EV lost {s['ev_lost']:.2f} chips"
                    )
                continue
            print(f"  {key:<14} {value}")
    return 0
