"""Custom (venue) edition: logo, welcome text per language and colours from a branding file.

The file is JSON, looked for in this order: ``$BLU21_BRANDING``, ``<user data
dir>/branding.json``, ``app/branding.json`` (bundled by a venue build)::

    {"name": "Café Karo",
     "logo": "logo.png",                       # relative to the branding file, optional
     "welcome": {"de": "Willkommen!", "en": "Welcome!", "pl": "Witamy!"},
     "colours": {"primary": "#0b6e4f", "background": "#10241c", "accent": "#f2c14e"}}

Without a file the standard app runs (:func:`load_branding` returns None). A bad file
(unreadable, not JSON, wrong types, bad colour, missing logo) also gives the standard
app, with a logged warning: a venue's typo must never stop a player from playing.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FILE_NAME = "branding.json"
_HEX = re.compile(r"^#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
COLOUR_KEYS = ("primary", "background", "accent", "text")

#: The standard app's colours (RGBA 0..1).
STANDARD_COLOURS: dict[str, tuple[float, float, float, float]] = {
    "primary": (0.09, 0.45, 0.30, 1.0),
    "background": (0.05, 0.22, 0.15, 1.0),
    "accent": (0.95, 0.76, 0.31, 1.0),
    "text": (1.0, 1.0, 1.0, 1.0),
}


class BrandingError(ValueError):
    """A branding file that cannot be used; the message says why."""


def parse_colour(text: str) -> tuple[float, float, float, float]:
    """``"#rrggbb"`` or ``"#rrggbbaa"`` -> RGBA floats.

    >>> parse_colour("#ff8000")
    (1.0, 0.5019607843137255, 0.0, 1.0)
    """
    if not isinstance(text, str) or not _HEX.match(text):
        raise BrandingError(f"bad colour {text!r}: expected #rrggbb")
    h = text[1:]
    parts = [int(h[i : i + 2], 16) / 255 for i in range(0, len(h), 2)]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) == 4 else 1.0)


@dataclass(frozen=True)
class Branding:
    """A venue's branding, validated."""

    name: str
    welcome: dict[str, str] = field(default_factory=dict)
    colours: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    logo: Path | None = None

    def welcome_text(self, lang: str) -> str:
        """The welcome text in ``lang``, else English, else any, else ''."""
        return (
            self.welcome.get(lang)
            or self.welcome.get("en")
            or next(iter(self.welcome.values()), "")
        )

    def colour(self, key: str) -> tuple[float, float, float, float]:
        """A colour of the venue, or the standard one."""
        return self.colours.get(key, STANDARD_COLOURS[key])

    @classmethod
    def from_json(cls, data: Any, base_dir: Path) -> Branding:
        """Validate a decoded branding file; BrandingError on anything wrong."""
        if not isinstance(data, dict):
            raise BrandingError("branding file is not a JSON object")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 60:
            raise BrandingError("'name' must be a non-empty string of at most 60 characters")
        welcome = data.get("welcome", {})
        if not isinstance(welcome, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and len(v) <= 500 for k, v in welcome.items()
        ):
            raise BrandingError("'welcome' must map language codes to texts (<= 500 chars)")
        colours_in = data.get("colours", {})
        if not isinstance(colours_in, dict):
            raise BrandingError("'colours' must be an object")
        unknown = set(colours_in) - set(COLOUR_KEYS)
        if unknown:
            raise BrandingError(f"unknown colour keys: {sorted(unknown)}")
        colours = {k: parse_colour(v) for k, v in colours_in.items()}
        logo = None
        if "logo" in data:
            if not isinstance(data["logo"], str):
                raise BrandingError("'logo' must be a file name")
            logo = (base_dir / data["logo"]).resolve()
            if not logo.is_file():
                raise BrandingError(f"logo file not found: {logo}")
            if logo.suffix.lower() not in (".png", ".jpg", ".jpeg"):
                raise BrandingError("logo must be a PNG or JPEG file")
        return cls(name=name.strip(), welcome=dict(welcome), colours=colours, logo=logo)


def branding_candidates(data_dir: Path | str | None) -> list[Path]:
    """Where a branding file is looked for, in order."""
    paths = []
    if os.environ.get("BLU21_BRANDING"):
        paths.append(Path(os.environ["BLU21_BRANDING"]))
    if data_dir is not None:
        paths.append(Path(data_dir) / FILE_NAME)
    paths.append(Path(__file__).with_name(FILE_NAME))
    return paths


def load_branding(data_dir: Path | str | None = None) -> Branding | None:
    """The venue branding, or None for the standard app (bad file: logged, None)."""
    for path in branding_candidates(data_dir):
        if not path.exists():
            continue
        try:
            data = json.loads(path.read_text("utf-8"))
            return Branding.from_json(data, path.parent)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            log.warning("ignoring branding file %s: %s; starting the standard app", path, exc)
            return None
    return None
