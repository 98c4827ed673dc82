"""The import direction of the house (docs/architecture.md), checked on every module.

Data flows one way: a transport delivers bytes -> the table decodes them -> the rules and
the protocol compute -> the views render. Imports point the other way, downward: the views
sit above everything, the table uses transports, rules and protocol; rules and protocol use
only cards and the native core; the native core is a leaf. Every ``import`` in ``app/``,
function-level ones included, is read from the source and checked against ``ALLOWED``; a new
arrow against the direction fails here. ``KNOWN`` lists the arrows that are still wrong
today, each with the reason it is not fixed yet; it may only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: layer -> the layers it may import (its own is always allowed).
ALLOWED: dict[str, set[str]] = {
    "native": set(),
    "base": {"native"},  # cards, hands, errors, branding, spawn: shared leaves
    "i18n": {"base"},
    "prefs": {"base", "i18n"},
    "rules": {"base", "native"},
    "protocol": {"base", "native"},
    "strategy": {"base", "native", "rules"},
    "bluetooth": {"base"},
    "table": {"base", "native", "rules", "protocol", "bluetooth", "strategy", "i18n"},
    "history": {"base", "rules", "prefs", "strategy", "i18n"},
    "tools": {"base", "native", "rules", "strategy", "i18n", "prefs", "table", "protocol",
              "bluetooth", "history"},  # command-line entry points (replay, cli)
    "views": {"base", "native", "rules", "strategy", "i18n", "prefs", "table", "history",
              "protocol"},
    # app/cli.py, app/__main__.py (i18n: the tools speak the terminal's language)
    "top": {"tools", "views", "base", "i18n"},
}

#: (importing module, imported module prefix): why the arrow is still there.
KNOWN: dict[tuple[str, str], str] = {}

_LAYER_OF_PACKAGE = {
    "native": "native",
    "rules": "rules",
    "protocol": "protocol",
    "strategy": "strategy",
    "bluetooth": "bluetooth",
    "table": "table",
    "views": "views",
    "i18n": "i18n",
    "history": "history",
    "sim": "tools",  # the phone and link simulation, the soak
    "terminal": "tools",  # the terminal tables (blu21 table, blu21 casino)
}
_LAYER_OF_MODULE = {
    "cards": "base",
    "hands": "base",
    "errors": "base",
    "branding": "base",
    "spawn": "base",
    "jsonfile": "base",
    "prefs": "prefs",
    "replay": "tools",
    "cli": "top",
    "__main__": "top",
}


def layer(module: str) -> str:
    """The layer of a module name under ``app``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "top"
    if parts[1] in _LAYER_OF_PACKAGE:
        name = _LAYER_OF_PACKAGE[parts[1]]
        # The command-line front ends inside a package are tools, above their package.
        return "tools" if parts[-1] == "cli" and name not in ("views",) else name
    return _LAYER_OF_MODULE[parts[1]]


def imports() -> list[tuple[str, str]]:
    """Every (importer, imported) pair of app modules, read from the source."""
    pairs = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "app":
                names = [f"app.{alias.name}" for alias in node.names]  # from app import i18n
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            pairs += [(module, name) for name in names if name.split(".")[0] == "app"]
    return pairs


def _known(importer: str, imported: str) -> bool:
    return any(
        importer == k_importer and (imported + ".").startswith(k_prefix + ".")
        for k_importer, k_prefix in KNOWN
    )


def violations(pairs: list[tuple[str, str]]) -> list[str]:
    """The pairs that import against the direction and are not in ``KNOWN``."""
    return [
        f"{importer} ({layer(importer)}) -> {imported} ({layer(imported)})"
        for importer, imported in pairs
        if layer(imported) != layer(importer)
        and layer(imported) not in ALLOWED[layer(importer)]
        and not _known(importer, imported)
    ]


def test_every_import_goes_down() -> None:
    found = imports()
    assert len(found) > 100  # the scan really read the package
    wrong = violations(found)
    assert wrong == [], "imports against the direction:\n" + "\n".join(wrong)


def test_known_exceptions_are_still_real() -> None:
    # A fixed arrow must leave KNOWN, so the list only shrinks.
    found = imports()
    for importer, prefix in KNOWN:
        assert any(
            i == importer and (m + ".").startswith(prefix + ".") for i, m in found
        ), f"{importer} -> {prefix} is gone: remove it from KNOWN"


def test_a_new_arrow_against_the_direction_is_caught() -> None:
    bad = [
        ("app.rules.oczko", "app.views.app"),  # the rules reading the screen
        ("app.native", "app.cards"),  # the native core is a leaf
        ("app.views.blackjack.table", "app.bluetooth.tcp"),  # a view picking a transport
        ("app.views.oczko.network", "app.terminal.commands"),  # a view picking the dealer
        ("app.protocol.seat", "app.table.oczko.guest"),  # the protocol knowing the table
    ]
    assert len(violations(bad)) == len(bad)
    assert violations([("app.table.oczko.guest", "app.protocol.seat")]) == []
