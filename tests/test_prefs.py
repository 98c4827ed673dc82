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
