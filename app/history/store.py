"""The history database: SQLite (standard library), one file in the app's data dir.

* Versioned schema (``PRAGMA user_version``) upgraded by :data:`MIGRATIONS`, each step
  in its own transaction.
* WAL journal, ``synchronous=NORMAL``: one short transaction per finished round; a
  process killed at any point leaves every committed round intact (a power cut may lose
  the last rounds, never the file).
* Bounded: past :attr:`HistoryStore.limit` rounds (the player's choice, kept in the
  database; default 10,000) the oldest are deleted in the same transaction.
* A corrupt or unreadable file (not a database, malformed pages, a schema from a newer
  app) is moved aside as ``history.db.corrupt-<time>`` and a fresh database started;
  :attr:`HistoryStore.moved_aside` says so, for the app to tell the player. A locked
  or unreachable file is not "corrupt": it raises :class:`HistoryError`.

This module is the only one in ``app.history`` that does I/O.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

from app.history.model import FACT_FIELDS, Facts, RoundRecord, dump_detail, load_detail
from app.history.stats import SUMMED, SessionTally, Tally, amount, from_tallies

log = logging.getLogger(__name__)

FILE_NAME = "history.db"
DEFAULT_LIMIT = 10_000
LIMIT_CHOICES = (1_000, 5_000, 10_000, 50_000)
MIN_LIMIT, MAX_LIMIT = 10, 1_000_000

_FACT_COLUMNS = """
    hands INTEGER NOT NULL DEFAULT 0, wins INTEGER NOT NULL DEFAULT 0,
    pushes INTEGER NOT NULL DEFAULT 0, losses INTEGER NOT NULL DEFAULT 0,
    blackjacks INTEGER NOT NULL DEFAULT 0, doubles_won INTEGER NOT NULL DEFAULT 0,
    splits_won INTEGER NOT NULL DEFAULT 0, decisions INTEGER NOT NULL DEFAULT 0,
    mistakes INTEGER NOT NULL DEFAULT 0, ev_lost REAL NOT NULL DEFAULT 0,
    persian INTEGER NOT NULL DEFAULT 0, bust INTEGER NOT NULL DEFAULT 0,
    held_total INTEGER, match_end TEXT
"""


def _v1(con: sqlite3.Connection) -> None:
    con.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute(
        f"""CREATE TABLE rounds (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL, mode TEXT NOT NULL, session TEXT NOT NULL,
            number INTEGER NOT NULL, started REAL NOT NULL, ended REAL NOT NULL,
            player TEXT NOT NULL, result TEXT NOT NULL,
            score_before TEXT NOT NULL, score_after TEXT NOT NULL,
            {_FACT_COLUMNS},
            detail BLOB NOT NULL)"""
    )
    con.execute("CREATE INDEX rounds_game ON rounds (game, id)")


#: schema version -> the step that creates it from the version before (index + 1).
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1,)
SCHEMA_VERSION = len(MIGRATIONS)

_COLUMNS = [
    *("id", "game", "mode", "session", "number", "started", "ended", "player", "result"),
    *("score_before", "score_after", *FACT_FIELDS),
]
_SUMMARY = ", ".join(_COLUMNS)
_INSERT = "INSERT INTO rounds ({}) VALUES ({})".format(
    ", ".join([*_COLUMNS[1:], "detail"]), ", ".join("?" * len(_COLUMNS))
)


class HistoryError(Exception):
    """The history cannot be used now; ``code`` is stable (translated by the app)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Corrupt(Exception):
    """The file is not a usable history database (moved aside when allowed)."""


def migrate(
    con: sqlite3.Connection,
    migrations: Sequence[Callable[[sqlite3.Connection], None]] = MIGRATIONS,
) -> int:
    """Bring the database up to ``len(migrations)``; returns the version it had.
    Raises :class:`Corrupt` for a version newer than this app knows."""
    version = int(con.execute("PRAGMA user_version").fetchone()[0])
    if version > len(migrations):
        raise Corrupt(f"schema version {version} is newer than this app ({len(migrations)})")
    for target in range(version + 1, len(migrations) + 1):
        con.execute("BEGIN IMMEDIATE")
        try:
            migrations[target - 1](con)
            con.execute(f"PRAGMA user_version = {target}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return version


_FIXED = _COLUMNS.index("score_after") + 1


def _row_record(row: Sequence[Any], detail: bytes | None) -> RoundRecord:
    # positional: the columns are in the dataclasses' field order (statistics build
    # 10,000 of these)
    return RoundRecord(
        *row[1:_FIXED],  # type: ignore[call-arg]  # (mypy counts no star-args)
        Facts(*row[_FIXED:]),
        None if detail is None else load_detail(detail),
        row[0],
    )


class HistoryStore:
    """The history database at ``path``. ``repair=False`` (the maintainer's commands)
    raises :class:`HistoryError` for a corrupt file instead of moving it aside.
    Usable from several threads (one lock; the game's worker thread writes)."""

    def __init__(self, path: str | Path, *, repair: bool = True, timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.repair = repair
        self.timeout = timeout  # seconds to wait for another process's write
        #: where a corrupt file was moved (None: the file was fine)
        self.moved_aside: Path | None = None
        self._lock = threading.RLock()
        self._con = self._open()

    # -- opening ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(
            self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
        )
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            migrate(con)
            ok = con.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise Corrupt(f"integrity check: {ok}")
            columns = [r[1] for r in con.execute("PRAGMA table_info(rounds)")]
            if columns[: len(_COLUMNS)] != _COLUMNS:
                raise Corrupt("the rounds table has unknown columns")
        except BaseException:
            con.close()
            raise
        return con

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HistoryError(
                "history_unavailable", f"cannot create {self.path.parent}: {exc}"
            ) from exc
        try:
            return self._connect()
        except sqlite3.OperationalError as exc:  # locked, no permission, disk full...
            raise HistoryError("history_unavailable", f"cannot open {self.path}: {exc}") from exc
        except (sqlite3.DatabaseError, Corrupt) as exc:
            if not self.repair:
                raise HistoryError("history_corrupt", f"{self.path} is unreadable: {exc}") from exc
            self.moved_aside = self._move_aside(exc)
        try:
            return self._connect()
        except (sqlite3.DatabaseError, Corrupt) as exc:
            raise HistoryError("history_unavailable", f"cannot open {self.path}: {exc}") from exc

    def _move_aside(self, why: BaseException) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
        log.warning("history %s is unreadable (%s); moved to %s", self.path, why, target)
        try:
            self.path.replace(target)
            for suffix in ("-wal", "-shm"):
                side = self.path.with_name(self.path.name + suffix)
                if side.exists():
                    side.replace(target.with_name(target.name + suffix))
        except OSError as exc:
            raise HistoryError("history_unavailable", f"cannot move {self.path}: {exc}") from exc
        return target

    def close(self) -> None:
        """Close the database (a checkpoint folds the WAL back into the file)."""
        with self._lock:
            self._con.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            con = self._con
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    # -- settings --------------------------------------------------------------------------
    @property
    def limit(self) -> int:
        """How many rounds are kept (the oldest beyond are deleted)."""
        with self._lock:
            row = self._con.execute("SELECT value FROM settings WHERE key='limit'").fetchone()
        try:
            value = int(row[0]) if row else DEFAULT_LIMIT
        except ValueError:
            return DEFAULT_LIMIT
        return value if MIN_LIMIT <= value <= MAX_LIMIT else DEFAULT_LIMIT

    def set_limit(self, limit: int) -> int:
        """Keep at most ``limit`` rounds from now on (older ones are deleted at once);
        returns how many were deleted. ValueError outside 10..1,000,000."""
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise ValueError(f"the limit must be a whole number, not {limit!r}")
        if not MIN_LIMIT <= limit <= MAX_LIMIT:
            raise ValueError(f"the limit must be between {MIN_LIMIT} and {MAX_LIMIT}")
        with self._transaction() as con:
            con.execute("INSERT OR REPLACE INTO settings VALUES ('limit', ?)", (str(limit),))
            return self._prune(con, limit)

    @staticmethod
    def _prune(con: sqlite3.Connection, limit: int) -> int:
        # rounds are only ever deleted oldest first (or all) and ids only grow, so the
        # stored ids are contiguous: the newest ``limit`` are those above max - limit
        # (two index look-ups, not a scan of ``limit`` rows)
        low, high = con.execute("SELECT min(id), max(id) FROM rounds").fetchone()
        if high is None or high - low + 1 <= limit:
            return 0
        return con.execute("DELETE FROM rounds WHERE id <= ?", (high - limit,)).rowcount

    # -- writing ---------------------------------------------------------------------------
    def add(self, record: RoundRecord) -> int:
        """Store a finished round (one transaction, pruning included); returns its id."""
        return self.add_many([record])[0]

    def add_many(self, records: Sequence[RoundRecord]) -> list[int]:
        """Store rounds in one transaction (an import; a round as it ends: :meth:`add`)."""
        limit = self.limit
        with self._transaction() as con:
            ids = [self._insert(con, r) for r in records]
            self._prune(con, limit)
        return ids

    @staticmethod
    def _insert(con: sqlite3.Connection, record: RoundRecord) -> int:
        f = record.facts
        values = (
            record.game, record.mode, record.session, record.number, record.started,
            record.ended, record.player, record.result, record.score_before,
            record.score_after, *(getattr(f, k) for k in FACT_FIELDS),
            dump_detail(record.detail or {}),
        )  # fmt: skip
        cur = con.execute(_INSERT, values)
        return int(cur.lastrowid or 0)

    def amend(
        self, round_id: int, facts: Facts | None = None, detail: dict[str, Any] | None = None
    ) -> bool:
        """Replace a stored round's facts and/or detail (an audit verdict or the match
        end that came in after the round was stored); False if it is gone (pruned)."""
        sets, values = [], []
        if facts is not None:
            sets += [f"{k} = ?" for k in FACT_FIELDS]
            values += [getattr(facts, k) for k in FACT_FIELDS]
        if detail is not None:
            sets.append("detail = ?")
            values.append(dump_detail(detail))
        if not sets:
            return True
        with self._transaction() as con:
            sql = f"UPDATE rounds SET {', '.join(sets)} WHERE id = ?"
            cur = con.execute(sql, (*values, round_id))
            return cur.rowcount == 1

    def delete_all(self) -> int:
        """Delete every round (the limit setting stays); returns how many."""
        with self._transaction() as con:
            n = con.execute("DELETE FROM rounds").rowcount
        with self._lock:
            self._con.execute("VACUUM")  # give the space back, leave nothing readable
        return n

    # -- reading ---------------------------------------------------------------------------
    def count(self, game: str | None = None) -> int:
        """How many rounds are stored (of ``game``)."""
        where, args = _where(game)
        with self._lock:
            return int(
                self._con.execute(f"SELECT count(*) FROM rounds {where}", args).fetchone()[0]
            )

    def rounds(
        self,
        game: str | None = None,
        *,
        limit: int | None = None,
        offset: int = 0,
        newest_first: bool = True,
        detail: bool = True,
    ) -> list[RoundRecord]:
        """Stored rounds (of ``game``), newest first by default; ``detail=False`` leaves
        the JSON part unread (lists, statistics)."""
        where, args = _where(game)
        order = "DESC" if newest_first else "ASC"
        cols = _SUMMARY + (", detail" if detail else "")
        sql = f"SELECT {cols} FROM rounds {where} ORDER BY id {order} LIMIT ? OFFSET ?"
        with self._lock:
            cur = self._con.execute(sql, (*args, -1 if limit is None else limit, offset))
            rows = cur.fetchall()
        n = len(_COLUMNS)
        return [_row_record(row[:n], row[n] if detail else None) for row in rows]

    def round(self, round_id: int) -> RoundRecord | None:
        """One stored round with its detail, or None."""
        with self._lock:
            row = self._con.execute(
                f"SELECT {_SUMMARY}, detail FROM rounds WHERE id = ?", (round_id,)
            ).fetchone()
        return None if row is None else _row_record(row[:-1], row[-1])

    def stats(self) -> dict[str, dict[str, Any]]:
        """Both games' statistics over every stored round: counted by SQL, formatted by
        :func:`app.history.stats.from_tallies` (equal to
        :func:`app.history.stats.statistics` of the rounds)."""
        with self._lock:
            return from_tallies(self._tally("oczko"), self._tally("blackjack"))

    def _tally(self, game: str) -> Tally:
        con = self._con
        sums = ", ".join(f"total({k})" for k in SUMMED)
        row = con.execute(
            f"""SELECT count(*), total(result = 'won'), {sums},
                total(match_end IS NOT NULL), total(match_end = 'won'),
                count(held_total), total(held_total)
            FROM rounds WHERE game = ?""",
            (game,),
        ).fetchone()
        n, won, *rest = row
        summed = dict(zip(SUMMED, rest[: len(SUMMED)], strict=True))
        counts = {k: int(v) for k, v in summed.items() if k != "ev_lost"}
        matches, match_wins, holds, hold_sum = (int(x) for x in rest[len(SUMMED) :])
        sessions = con.execute(
            """SELECT g.session, r.started, g.n, g.won, g.decisions, g.mistakes, g.ev_lost
            FROM (SELECT session, min(id) AS first, count(*) AS n,
                         total(result = 'won') AS won, total(decisions) AS decisions,
                         total(mistakes) AS mistakes, total(ev_lost) AS ev_lost
                  FROM rounds WHERE game = ? GROUP BY session) AS g
            JOIN rounds AS r ON r.id = g.first ORDER BY g.first""",
            (game,),
        )
        if game == "oczko":
            rows = con.execute(
                "SELECT result = 'won' FROM rounds WHERE game = ? ORDER BY id", (game,)
            )
            series: tuple[int | Fraction, ...] = tuple(int(w) for (w,) in rows)
        else:
            rows = con.execute(
                "SELECT score_before, score_after FROM rounds WHERE game = ? ORDER BY id", (game,)
            )
            series = tuple(amount(a) - amount(b) for b, a in rows)
        return Tally(
            rounds=n,
            won=int(won),
            sums={**counts, "ev_lost": summed["ev_lost"]},
            matches=matches,
            match_wins=match_wins,
            holds=holds,
            hold_sum=hold_sum,
            sessions=tuple(
                SessionTally(s, started, int(k), int(w), int(d), int(m), ev)
                for s, started, k, w, d, m, ev in sessions
            ),
            series=series,
        )


def _where(game: str | None) -> tuple[str, tuple[Any, ...]]:
    return ("WHERE game = ?", (game,)) if game else ("", ())


def open_store(data_dir: str | Path, *, repair: bool = True) -> HistoryStore:
    """The history store in ``data_dir`` (``history.db``)."""
    return HistoryStore(Path(data_dir) / FILE_NAME, repair=repair)
