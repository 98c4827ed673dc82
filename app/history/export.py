"""Export of the history: every stored round as JSON (complete) and CSV (one line per
round, the fixed part), written as files."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from app.history.model import FACT_FIELDS, RoundRecord

CSV_COLUMNS = (
    "id", "game", "mode", "session", "number", "started", "ended", "player", "result",
    "score_before", "score_after", *FACT_FIELDS,
)  # fmt: skip


def to_json_text(rounds: Iterable[RoundRecord]) -> str:
    """The rounds as a JSON array (oldest first)."""
    return json.dumps([r.to_json() for r in rounds], ensure_ascii=False, indent=1)


def csv_lines(rounds: Iterable[RoundRecord]) -> list[str]:
    """The CSV header line and one line per round (each ending in CRLF, as csv writes)."""
    out = io.StringIO()
    w = csv.writer(out)
    lines = []
    for row in _rows(rounds):
        w.writerow(row)
        lines.append(out.getvalue())
        out.seek(0)
        out.truncate()
    return lines


#: columns that hold a moment: written as local time in ISO 8601 (a spreadsheet reads
#: it as a date; the JSON export keeps the exact Unix time)
TIME_COLUMNS = ("started", "ended")


def local_time(unix: float) -> str:
    """A moment as ISO 8601 local time with its UTC offset, to the second.

    >>> datetime.fromisoformat(local_time(1700000000.25)).timestamp()
    1700000000.0
    """
    return datetime.fromtimestamp(unix).astimezone().isoformat(timespec="seconds")


def _rows(rounds: Iterable[RoundRecord]) -> Iterable[Sequence[Any]]:
    yield CSV_COLUMNS
    for r in rounds:
        row: dict[str, Any] = {**r.to_json(), **r.facts.to_json()}
        for column in TIME_COLUMNS:
            row[column] = local_time(row[column])
        yield ["" if row[c] is None else row[c] for c in CSV_COLUMNS]


def to_csv_text(rounds: Iterable[RoundRecord]) -> str:
    """The rounds' fixed part as CSV with a header line."""
    return "".join(csv_lines(rounds))


def export_files(store: Any, directory: Path) -> list[Path]:
    """Write ``blu21-history-<time>.json`` and ``.csv`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    rounds = store.rounds(newest_first=False)
    paths = [directory / f"blu21-history-{stamp}.json", directory / f"blu21-history-{stamp}.csv"]
    paths[0].write_text(to_json_text(rounds), encoding="utf-8")
    paths[1].write_text(to_csv_text(rounds), encoding="utf-8", newline="")
    return paths
