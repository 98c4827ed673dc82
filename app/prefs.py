"""Player preferences, kept as JSON in the app's user data directory.

>>> p = Prefs()
>>> p.language, p.turn_time, p.oczko_rounds
('auto', 30, 5)
>>> Prefs.from_json({"turn_time": 45, "bogus": 1})[0].turn_time
45

Loading never raises: a missing file gives the defaults, a corrupt or unreadable file
gives the defaults plus a warning code (shown translated by the UI); a single bad field
falls back to its default and the rest is kept. Saving is atomic (write + rename), so a
crash mid-save never leaves a half-written file.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.i18n import LANGUAGES

log = logging.getLogger(__name__)

FILE_NAME = "prefs.json"
LANGUAGE_CHOICES = ("auto", *LANGUAGES)  # "auto": the device language
ANIMATION_SPEEDS = ("off", "fast", "normal", "slow")
TURN_TIMES = (15, 30, 45, 60, 90)  # longer timers are an accessibility option
ROUND_CHOICES = (1, 3, 5, 7, 9)

#: Bounds of the whole-number preferences. ``turn_time`` and ``oczko_rounds`` go to the
#: tables this phone hosts: they are the tables' own bounds (``TURN_TIME_RANGE`` and
#: ``ROUNDS_RANGE`` of app.table.messages, which every guest checks; the layers keep
#: prefs below the table, so tests/test_prefs.py checks that the two agree).
INT_LIMITS: dict[str, tuple[int, int]] = {
    "turn_time": (5, 600),
    "oczko_rounds": (1, 99),
    "bots": (1, 6),
}

#: Warning codes returned by :func:`load_prefs` (translated in app.i18n.codes).
CORRUPT = "prefs_corrupt"
PARTLY_INVALID = "prefs_partly_invalid"


@dataclass(frozen=True)
class Prefs:
    """Every preference with its default. ``table_rules`` is the casino engine's
    rule set as a JSON dict (preset name + fields), validated by the engine on use."""

    language: str = "auto"
    animation_speed: str = "normal"
    large_cards: bool = False
    four_colour_deck: bool = False
    left_handed: bool = False
    vibrate_on_turn: bool = True
    sound_on_turn: bool = False
    show_hints: bool = False
    player_name: str = ""
    turn_time: int = 30
    oczko_rounds: int = 5
    bots: int = 2
    bj_preset: str = "classic"
    table_rules: dict[str, Any] = field(default_factory=dict)
    #: the player was told that the ace always counts 11 in Oczko (once, issue 37)
    seen_ace_hint: bool = False

    def replace(self, **changes: Any) -> Prefs:
        """A copy with ``changes`` applied (validated like a loaded file)."""
        merged = {**self.to_json(), **changes}
        prefs, bad = Prefs.from_json(merged)
        if bad:
            raise ValueError(f"invalid preference values: {', '.join(bad)}")
        return prefs

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict of all fields."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> tuple[Prefs, list[str]]:
        """Prefs from a decoded JSON value, and the names of fields that were invalid."""
        if not isinstance(data, dict):
            return cls(), ["<file>"]
        defaults = cls()
        values: dict[str, Any] = {}
        bad: list[str] = []
        for f in dataclasses.fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if _valid(f.name, value, getattr(defaults, f.name)):
                values[f.name] = value
            else:
                bad.append(f.name)
        return cls(**values), bad


def _valid(name: str, value: Any, default: Any) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        lo, hi = INT_LIMITS.get(name, (0, 10**9))
        return lo <= value <= hi
    if name == "language":
        return value in LANGUAGE_CHOICES
    if name == "animation_speed":
        return value in ANIMATION_SPEEDS
    if isinstance(default, str):
        return isinstance(value, str) and len(value) <= 64
    if isinstance(default, dict):
        return isinstance(value, dict) and all(isinstance(k, str) for k in value)
    return False


def platform_data_dir(platform: str | None = None) -> Path:
    """Where a desktop keeps the app's data: the folder Kivy's ``App.user_data_dir``
    names for an app called "blu21" (computed without Kivy), e.g.
    ``$XDG_CONFIG_HOME/blu21`` or ``~/.config/blu21`` on Linux. Not created here: see
    :func:`make_data_dir`."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return Path(os.environ.get("APPDATA") or Path.home()) / "blu21"
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "blu21"
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "blu21"


def app_data_dir() -> Path:
    """The app's data dir as the app uses it: ``$BLU21_DATA_DIR``, else
    :func:`platform_data_dir`."""
    env = os.environ.get("BLU21_DATA_DIR")
    return Path(env) if env else platform_data_dir()


def make_data_dir(path: Path) -> Path:
    """Create ``path`` with every missing parent (a fresh account or container has no
    ``~/.config`` yet: Kivy's own ``user_data_dir`` makes only the last folder and fails
    there); returns it."""
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_data_dir() -> Path:
    """The user data directory outside Kivy (XDG on the desktop); the app passes its own."""
    env = os.environ.get("BLU21_DATA_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "blu21"


def load_prefs(data_dir: Path | str) -> tuple[Prefs, str | None]:
    """Read the preferences; returns (prefs, warning code or None). Never raises."""
    path = Path(data_dir) / FILE_NAME
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return Prefs(), None
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read %s: %s; using defaults", path, exc)
        return Prefs(), CORRUPT
    try:
        data = json.loads(text)
    except ValueError as exc:
        log.warning("corrupt preferences %s: %s; using defaults", path, exc)
        return Prefs(), CORRUPT
    prefs, bad = Prefs.from_json(data)
    if bad == ["<file>"]:
        log.warning("preferences %s are not a JSON object; using defaults", path)
        return prefs, CORRUPT
    if bad:
        log.warning("invalid preferences in %s: %s; defaults used for them", path, bad)
        return prefs, PARTLY_INVALID
    return prefs, None


def save_prefs(data_dir: Path | str, prefs: Prefs) -> None:
    """Write the preferences atomically (OSError propagates: the caller shows it)."""
    directory = Path(data_dir)
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".prefs-", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(prefs.to_json(), fh, indent=1, sort_keys=True)
        os.replace(tmp, directory / FILE_NAME)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
