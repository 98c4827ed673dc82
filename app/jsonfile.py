"""Reading a JSON file a user names on the command line, with errors that say what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json_object(path: str | Path, what: str) -> dict[str, Any]:
    """The JSON object in ``path``; ValueError naming ``what`` the file should hold when it
    is missing, unreadable, not JSON or not an object."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{what} {path} is not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} {path}: expected a JSON object")
    return data
