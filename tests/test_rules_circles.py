"""No import circles inside the rules (issue 31, item 6).

Every ``import`` of a module in ``app/rules`` is read from the source, function-level
ones and those under ``if TYPE_CHECKING:`` included (a circle kept "for type hints only"
is still a circle a reader has to untangle), and the graph of rules module -> rules
module must have no cycle. Shared types live in a module both sides import (for
blackjack: ``blackjack.state`` and ``blackjack.legal``, read by the view and the
machine; for Oczko: ``oczko.round``, ``oczko.actions``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "app.rules"


def rules_modules() -> dict[str, Path]:
    """``{module name: path}`` of every module in ``app/rules`` and its game packages
    (a package's ``__init__`` under the package's name)."""
    folder = ROOT / "app" / "rules"
    out = {}
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imported(source: str, module: str, known: Iterable[str], is_package: bool = False) -> set[str]:
    """The rules modules ``module`` imports anywhere in ``source`` (``import a.b``,
    ``from a.b import c``, ``from a import b`` where ``b`` is a module, relative
    imports)."""
    names = set(known)
    package = module if module == PACKAGE or is_package else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                head = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*head, base] if base else head)
            # ``from pkg import sub`` imports the module ``sub`` (its package is only the
            # parent every submodule has); ``from mod import name`` imports ``mod``
            candidates = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in names else base
                for alias in node.names
            ]
        else:
            continue
        found |= {c for c in candidates if c in names and c != PACKAGE}
    found.discard(module)
    return found


def graph() -> dict[str, set[str]]:
    """Rules module -> the rules modules it imports."""
    modules = rules_modules()
    return {
        m: imported(path.read_text("utf-8"), m, modules, path.stem == "__init__")
        for m, path in modules.items()
    }


def circles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_rules_have_no_import_circle() -> None:
    g = graph()
    assert len(g) > 15 and sum(map(len, g.values())) > 30  # the scan really read them
    found = circles(g)
    assert found == [], "import circles in app/rules:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_a_circle_is_caught_whatever_the_import_looks_like() -> None:
    known = ["app.rules.a", "app.rules.b", "app.rules.c"]
    # a type-checking import, a function-level import, a relative one, "from pkg import"
    a = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.rules.b import B\n"
    b = "def f():\n    from .c import C\n"
    c = "from app.rules import a\n"
    edges = {
        "app.rules.a": imported(a, "app.rules.a", known),
        "app.rules.b": imported(b, "app.rules.b", known),
        "app.rules.c": imported(c, "app.rules.c", known),
    }
    assert edges == {
        "app.rules.a": {"app.rules.b"},
        "app.rules.b": {"app.rules.c"},
        "app.rules.c": {"app.rules.a"},
    }
    assert circles(edges) == [known]
    assert circles({"app.rules.a": {"app.rules.b"}, "app.rules.b": set()}) == []
