"""The Kivy drivers' hang guard (tests/kivy_driver.py): a driver process is killed only
once it has stopped beating, never for the time a (loaded) machine takes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from kivy_driver import PROGRESS_ENV, run_driver

# Longer than the default per-test limit (pyproject.toml): the driver's own tests start Kivy
# processes.
pytestmark = pytest.mark.timeout(600)


def _script(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "driver.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, os, sys, time
            from pathlib import Path
            out = Path(sys.argv[1])
            beats = Path(os.environ["{PROGRESS_ENV}"])
            """
        )
        + textwrap.dedent(body)
    )
    return script


def test_a_driver_that_never_beats_is_killed_as_hung(tmp_path: Path) -> None:
    script = _script(tmp_path, "time.sleep(600)\n")  # (hung from its start)
    with pytest.raises(AssertionError, match="hung: no progress for 1 s"):
        run_driver(script, tmp_path, stall=1.0)


def test_a_driver_that_stops_beating_is_killed_as_hung(tmp_path: Path) -> None:
    script = _script(tmp_path, 'beats.write_text("1")\ntime.sleep(600)\n')
    with pytest.raises(AssertionError, match="hung: no progress"):
        run_driver(script, tmp_path, stall=1.0)


def test_a_driver_that_finishes_gives_its_result(tmp_path: Path) -> None:
    script = _script(
        tmp_path, 'beats.write_text("1")\n(out / "result.json").write_text(json.dumps({"ok": 1}))\n'
    )
    assert run_driver(script, tmp_path, stall=600.0) == {"ok": 1}
