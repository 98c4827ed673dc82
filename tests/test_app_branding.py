"""Custom (venue) edition: a good branding file is used, a bad one gives the standard app."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.branding import FILE_NAME, STANDARD_COLOURS, load_branding

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BLU21_BRANDING", raising=False)


def write(tmp_path: Path, data) -> Path:
    (tmp_path / FILE_NAME).write_text(data if isinstance(data, str) else json.dumps(data))
    return tmp_path


def test_no_file_is_the_standard_app(tmp_path: Path) -> None:
    assert load_branding(tmp_path) is None


def test_good_file(tmp_path: Path) -> None:
    (tmp_path / "logo.png").write_bytes(PNG)
    b = load_branding(
        write(
            tmp_path,
            {
                "name": "Café Karo",
                "logo": "logo.png",
                "welcome": {"de": "Willkommen!", "en": "Welcome!"},
                "colours": {"primary": "#0b6e4f", "accent": "#f2c14e80"},
            },
        )
    )
    assert b is not None and b.name == "Café Karo" and b.logo == (tmp_path / "logo.png").resolve()
    assert (b.welcome_text("de"), b.welcome_text("pl")) == ("Willkommen!", "Welcome!")
    assert b.colour("primary")[:2] == (11 / 255, 110 / 255)
    assert b.colour("accent")[3] == 128 / 255
    assert b.colour("background") == STANDARD_COLOURS["background"]


@pytest.mark.parametrize(
    "data",
    [
        "{broken",
        [1],
        {"welcome": {}},
        {"name": ""},
        {"name": "X", "colours": {"primary": "red"}},
        {"name": "X", "colours": {"sparkle": "#000000"}},
        {"name": "X", "logo": "missing.png"},
        {"name": "X", "welcome": {"de": 5}},
        {"name": "X", "logo": 7},
    ],
)
def test_bad_file_is_the_standard_app_with_a_warning(
    tmp_path: Path, data, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="app.branding"):
        assert load_branding(write(tmp_path, data)) is None
    assert "standard app" in caplog.text


def test_env_variable_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "venue.json"
    other.write_text(json.dumps({"name": "Bar Oczko"}))
    write(tmp_path, {"name": "Ignored"})
    monkeypatch.setenv("BLU21_BRANDING", str(other))
    assert load_branding(tmp_path).name == "Bar Oczko"
