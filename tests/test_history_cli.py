"""``blu21 history`` and ``blu21 stats``: the app's database read from the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.history.cli import app_data_dir
from app.history.model import Facts, RoundRecord
from app.history.store import open_store


def _rounds() -> list[RoundRecord]:
    out = []
    for i in range(6):
        oczko = i % 2 == 1
        record = RoundRecord(
            game="oczko" if oczko else "blackjack",
            mode="practice" if oczko else "casino",
            session=f"s{i // 4}",
            number=i + 1,
            started=1.7e9 + i,
            ended=1.7e9 + i + 0.5,
            player="Zoë",
            result=("won", "lost", "push")[i % 3],
            score_before=str(1000 + i),
            score_after=str(1000 + 2 * i),
            facts=Facts(hands=1, wins=i % 2, held_total=15 + i),
            detail={"events": [{"event": "x", "i": i}]},
        )
        out.append(record)
    return out


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    with open_store(tmp_path) as s:
        for r in _rounds():
            s.add(r)
    return tmp_path


def test_history_text_and_json(data_dir, capsys):
    assert main(["history", "--data-dir", str(data_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6
    assert lines[0].split()[0] == "6"  # newest first
    assert "oczko" in lines[0] and "points" in lines[0]
    assert main(["history", "--db", str(data_dir / "history.db"), "--json", "--game", "oczko"]) == 0
    data = json.loads(capsys.readouterr().out)
    with open_store(data_dir) as s:
        assert [RoundRecord.from_json(d) for d in data] == s.rounds("oczko")
    assert main(["history", "--data-dir", str(data_dir), "--limit", "2"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_stats_json_equals_the_store(data_dir, capsys):
    assert main(["stats", "--data-dir", str(data_dir), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    with open_store(data_dir) as s:
        want = json.loads(json.dumps(s.stats()))
    assert got == want
    assert main(["stats", "--data-dir", str(data_dir), "--game", "blackjack"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Blackjack:") and "Oczko" not in out  # the statistics screen's lines


def test_the_default_path_is_the_apps(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("BLU21_DATA_DIR", str(tmp_path / "app"))
    assert app_data_dir() == tmp_path / "app"
    monkeypatch.delenv("BLU21_DATA_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert app_data_dir() == tmp_path / "cfg" / "blu21"  # Kivy's user_data_dir on Linux
    assert main(["history"]) == 0  # nothing stored there yet: said, nothing created
    assert "no rounds stored" in capsys.readouterr().out
    assert not (tmp_path / "cfg" / "blu21" / "history.db").exists()


def test_a_damaged_file_is_reported_and_left_alone(tmp_path, capsys):
    db = tmp_path / "history.db"
    db.write_bytes(b"\x00garbage" * 300)
    assert main(["history", "--db", str(db)]) == 2
    assert "unreadable" in capsys.readouterr().err
    assert main(["stats", "--db", str(db)]) == 2
    assert db.read_bytes() == b"\x00garbage" * 300
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_the_csv_export_says_when_in_local_iso_time(monkeypatch) -> None:
    """Issue 37, item 10: the CSV had raw Unix float timestamps."""
    import csv
    import io
    import time
    from datetime import datetime, timedelta

    from app.history.export import to_csv_text

    monkeypatch.setenv("TZ", "Europe/Warsaw")
    time.tzset()
    try:
        rows = list(csv.DictReader(io.StringIO(to_csv_text(_rounds()))))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert len(rows) == 6
    for row, record in zip(rows, _rounds(), strict=True):
        for column in ("started", "ended"):
            when = datetime.fromisoformat(row[column])
            assert when.utcoffset() == timedelta(hours=1)  # Warsaw in winter, said
            assert abs(when.timestamp() - getattr(record, column)) < 1
    assert rows[0]["started"] == "2023-11-14T23:13:20+01:00"
