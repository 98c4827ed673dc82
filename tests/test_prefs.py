"""Preferences: defaults, round trip, corrupt and partly invalid files never crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.prefs import CORRUPT, FILE_NAME, PARTLY_INVALID, Prefs, load_prefs, save_prefs


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    assert load_prefs(tmp_path) == (Prefs(), None)


def test_round_trip(tmp_path: Path) -> None:
    prefs = Prefs().replace(
        language="pl", turn_time=60, four_colour_deck=True, table_rules={"preset": "european"}
    )
    save_prefs(tmp_path / "sub", prefs)
    assert load_prefs(tmp_path / "sub") == (prefs, None)
    assert not [p for p in (tmp_path / "sub").iterdir() if p.name != FILE_NAME]  # no temp files


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00", b"[1, 2]", b"", b"null"])
def test_corrupt_file_gives_defaults_and_a_warning(tmp_path: Path, content: bytes) -> None:
    (tmp_path / FILE_NAME).write_bytes(content)
    assert load_prefs(tmp_path) == (Prefs(), CORRUPT)


def test_bad_fields_fall_back_one_by_one(tmp_path: Path) -> None:
    data = {"language": "klingon", "turn_time": 45, "large_cards": "yes", "bots": 99}
    (tmp_path / FILE_NAME).write_text(json.dumps(data))
    prefs, warning = load_prefs(tmp_path)
    assert warning == PARTLY_INVALID
    assert (prefs.language, prefs.turn_time, prefs.large_cards, prefs.bots) == (
        "auto",
        45,
        False,
        Prefs().bots,
    )


def test_replace_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="turn_time"):
        Prefs().replace(turn_time=-1)


def test_unreadable_directory_entry(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).mkdir()  # a directory where the file should be
    assert load_prefs(tmp_path) == (Prefs(), CORRUPT)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.sampled_from([*list(Prefs().to_json()), "x"]), json_values))
def test_any_json_object_loads(data: dict) -> None:
    prefs, bad = Prefs.from_json(data)
    assert isinstance(prefs, Prefs)
    assert set(bad) <= set(data)
    # what was accepted survives a round trip unchanged
    assert Prefs.from_json(prefs.to_json()) == (prefs, [])


def test_first_start_in_a_fresh_home_makes_its_folders(tmp_path: Path) -> None:
    """Issue 37, item 3: a fresh account or container has no ~/.config; the first start
    failed there (Kivy's user_data_dir makes only the last folder)."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KIVY", "SDL", "XDG_", "BLU21_")) and k != "DISPLAY"
    }
    env["HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-P", "-m", "app", "app", "--measure"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,  # hang guard, not a speed target
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["app"] == "blu21"
    data = home / ".config" / "blu21"  # where Kivy's user_data_dir puts an app's data
    assert data.is_dir() and (data / "history.db").is_file()


def test_the_desktop_data_dir_is_kivys(monkeypatch, tmp_path: Path) -> None:
    from app.prefs import app_data_dir, make_data_dir, platform_data_dir

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("BLU21_DATA_DIR", raising=False)
    assert platform_data_dir("linux") == app_data_dir() == tmp_path / "cfg" / "blu21"
    monkeypatch.setenv("XDG_CONFIG_HOME", "")  # set but empty: the default, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert platform_data_dir("linux") == tmp_path / "h" / ".config" / "blu21"
    assert make_data_dir(platform_data_dir("linux")).is_dir()
    monkeypatch.setenv("APPDATA", str(tmp_path / "roaming"))
    assert platform_data_dir("win32") == tmp_path / "roaming" / "blu21"


def test_the_hosted_tables_options_have_the_tables_bounds() -> None:
    """Issue 37, item 4: what the app's host screens take from the preferences is what
    every guest accepts (one rule: the table's; prefs may not import the table)."""
    from app.prefs import INT_LIMITS, TURN_TIMES
    from app.table.messages import ROUNDS_RANGE, TURN_TIME_RANGE

    assert INT_LIMITS["turn_time"] == TURN_TIME_RANGE
    assert INT_LIMITS["oczko_rounds"] == ROUNDS_RANGE
    assert all(TURN_TIME_RANGE[0] <= t <= TURN_TIME_RANGE[1] for t in TURN_TIMES)
