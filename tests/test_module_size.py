"""No module in app/ grows past 800 lines unless docs/architecture.md says why (issue 15).

A long module is where concerns pile up unnoticed; the limit makes a split a decision. The
exceptions are read from the doc's section "Modules above 800 lines", one bullet per module:
"- `app/x.py` (N lines): the reason". An entry whose module no longer exists or is back under
the limit fails too, so the list only holds what is true.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
LIMIT = 800
SECTION = "## Modules above 800 lines"


def _lines(path: Path) -> int:
    return len(path.read_text("utf-8").splitlines())


def _sizes() -> dict[str, int]:
    return {
        path.relative_to(ROOT).as_posix(): _lines(path)
        for path in sorted((ROOT / "app").rglob("*.py"))
    }


def documented_exceptions(text: str) -> dict[str, str]:
    """The modules the doc's section lists, with the reason given for each.

    >>> documented_exceptions("# A\\n## Modules above 800 lines\\n\\n- `app/x.py`: why\\n## B\\n")
    {'app/x.py': 'why'}
    """
    if SECTION not in text:
        raise AssertionError(f"docs/architecture.md has no section {SECTION!r}")
    body = text.split(SECTION, 1)[1]
    body = re.split(r"^## ", body, maxsplit=1, flags=re.M)[0]
    found: dict[str, str] = {}
    for line in body.splitlines():
        match = re.match(r"^[-*] `(app/[\w/]+\.py)`[^:]*:\s*(.*)$", line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def test_no_module_above_the_limit_without_a_reason() -> None:
    allowed = documented_exceptions(DOC.read_text("utf-8"))
    too_long = {path: n for path, n in _sizes().items() if n > LIMIT and path not in allowed}
    assert not too_long, (
        f"modules above {LIMIT} lines (split them, or say why in docs/architecture.md, "
        f"section {SECTION!r}): {too_long}"
    )


def test_every_listed_exception_is_real_and_explained() -> None:
    sizes = _sizes()
    for path, reason in documented_exceptions(DOC.read_text("utf-8")).items():
        assert path in sizes, f"{path} is listed in docs/architecture.md but does not exist"
        assert sizes[path] > LIMIT, f"{path} is {sizes[path]} lines now: drop it from the list"
        assert len(reason.split()) >= 5, f"{path}: give a reason, not {reason!r}"


def test_the_parser_reads_bullets_and_stops_at_the_next_section() -> None:
    text = (
        "## Modules above 800 lines\n\n"
        "- `app/a/b.py` (900 lines): one engine's whole state machine, kept together\n"
        "* `app/c.py`: the reason\n"
        "- app/d.py: not a path in backticks\n\n"
        "## Next\n- `app/e.py`: after the section\n"
    )
    assert documented_exceptions(text) == {
        "app/a/b.py": "one engine's whole state machine, kept together",
        "app/c.py": "the reason",
    }


#: at most this many modules (``.py`` files, ``__init__`` included) in one folder of app/
FOLDER_LIMIT = 20


def test_no_folder_of_app_holds_more_than_20_modules() -> None:
    """A folder is one concern (docs/architecture.md, "The house"): past 20 modules it
    holds several, told apart by name prefixes; split it by concern instead."""
    crowded = {
        folder.relative_to(ROOT).as_posix(): n
        for folder in [ROOT / "app", *(p for p in (ROOT / "app").rglob("*") if p.is_dir())]
        if "__pycache__" not in folder.parts
        and (n := len(list(folder.glob("*.py")))) > FOLDER_LIMIT
    }
    assert not crowded, f"folders of app/ above {FOLDER_LIMIT} modules: {crowded}"
