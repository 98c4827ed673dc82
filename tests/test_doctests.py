"""Every usage example in a docstring runs and holds: the modules are discovered, not listed.

A module takes part when its source has a ``>>>`` line: every ``app/**/*.py`` file, and the
compiled modules under ``app.native`` through their ``native/*.pyx`` sources (Cython keeps the
docstrings). A module with a ``>>>`` line whose examples doctest does not find fails too, so
an example cannot silently stop running.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _discover() -> list[str]:
    names = [
        _module_name(path)
        for path in sorted((ROOT / "app").rglob("*.py"))
        if ">>>" in path.read_text("utf-8")
    ]
    names += [
        f"app.native.{path.stem}"
        for path in sorted((ROOT / "native").glob("*.pyx"))
        if ">>>" in path.read_text("utf-8")
    ]
    return names


MODULES = _discover()


def test_discovery_finds_the_examples() -> None:
    # The examples of the cards, the engines, the protocol and the native modexp among them.
    for name in ("app.cards", "app.rules.oczko", "app.protocol.messages", "app.native.sra"):
        assert name in MODULES
    assert len(MODULES) >= 40


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags)
    assert result.attempted > 0, f"{name} has a >>> line that doctest does not run"
    assert result.failed == 0, f"{name}: {result.failed} example(s) failed, shown above"
