#!/usr/bin/env python3
"""Extract translatable strings from app/**/*.py and app/**/*.kv into the gettext catalogs.

    python tools/extract_messages.py          # write app/i18n/blu21.pot, merge into each .po
    python tools/extract_messages.py --check  # exit 1: a catalog is missing, stale, untranslated

Python files are read with :mod:`ast`: every call ``_("...")``, ``N_("...")``,
``tr._("...")`` and ``ngettext("...", "...", n)`` whose arguments are string literals.
In .kv files, the Python expressions after ``key:`` are scanned for the same calls.
Merging keeps existing translations, adds new msgids with an empty msgstr (for a
translator to fill in) and drops obsolete ones. No Babel: this is 150 lines with the
standard library and handles our two file kinds exactly.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"
I18N = APP / "i18n"
LANGS = ("en", "de", "pl", "fr", "es", "it", "cs", "uk", "tr")
#: the standard gettext Plural-Forms of each language (GNU gettext manual, "Plural forms")
PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    "de": "nplurals=2; plural=(n != 1);",
    "pl": "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "fr": "nplurals=2; plural=(n > 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "it": "nplurals=2; plural=(n != 1);",
    "cs": "nplurals=3; plural=(n==1 ? 0 : n>=2 && n<=4 ? 1 : 2);",
    "uk": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4"
    " && (n%100<10 || n%100>=20) ? 1 : 2);",
    "tr": "nplurals=2; plural=(n != 1);",
}
SINGULAR_FUNCS = {"_", "N_"}
PLURAL_FUNCS = {"ngettext"}


@dataclass
class Message:
    """One msgid with where it was found."""

    msgid: str
    plural: str | None = None
    locations: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.msgid, self.plural)


def _func_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _str(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def scan_python(source: str, where: str, line_offset: int = 0) -> list[Message]:
    """Messages in Python ``source`` (a module or a single expression)."""
    found: list[Message] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _func_name(node.func)
        loc = f"{where}:{node.lineno + line_offset}"
        if name in SINGULAR_FUNCS and len(node.args) == 1:
            s = _str(node.args[0])
            if s is not None:
                found.append(Message(s, None, [loc]))
        elif name in PLURAL_FUNCS and len(node.args) == 3:
            s, p = _str(node.args[0]), _str(node.args[1])
            if s is not None and p is not None:
                found.append(Message(s, p, [loc]))
    return found


_KV_EXPR = re.compile(r"^\s*[\w.]+\s*:\s*(.+)$")


def scan_kv(text: str, where: str) -> list[Message]:
    """Messages in the property expressions of a .kv file (one-line expressions)."""
    found: list[Message] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if "_(" not in line and "ngettext(" not in line:
            continue
        match = _KV_EXPR.match(line)
        if not match:
            continue
        try:
            found += scan_python(match.group(1), where, lineno - 1)
        except SyntaxError as exc:
            raise SystemExit(f"{where}:{lineno}: cannot parse kv expression: {exc}") from exc
    return found


def extract(app_dir: Path = APP) -> dict[tuple[str, str | None], Message]:
    """All messages under ``app_dir``, in file order, locations merged."""
    messages: dict[tuple[str, str | None], Message] = {}
    files = sorted(app_dir.rglob("*.py")) + sorted(app_dir.rglob("*.kv"))
    for path in files:
        if path.parent.name == "i18n" and path.name in ("__init__.py", "msgfmt.py"):
            continue  # the machinery itself (doctests), not user-facing text
        rel = path.relative_to(app_dir.parent).as_posix()
        text = path.read_text("utf-8")
        found = scan_python(text, rel) if path.suffix == ".py" else scan_kv(text, rel)
        for m in found:
            if m.key in messages:
                messages[m.key].locations += m.locations
            else:
                messages[m.key] = m
    messages.pop(("", None), None)
    return messages


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(s: str) -> str:
    """A C string body, as gettext writes it; other control characters in octal."""
    return "".join(
        _ESCAPES.get(c) or (f"\\{ord(c):03o}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in s
    )


def _po_string(keyword: str, s: str, width: int = 76) -> str:
    if len(s) + len(keyword) + 3 <= width and "\n" not in s[:-1]:
        return f'{keyword} "{_escape(s)}"\n'
    # Wrap long strings at spaces (and after \n), as GNU gettext does.
    pieces = re.findall(r"[^ \n]* *\n?|.+", s)
    lines: list[str] = []
    cur = ""
    for piece in pieces:
        if not piece:
            continue
        if cur and len(_escape(cur + piece)) > width:
            lines.append(cur)
            cur = ""
        cur += piece
        if cur.endswith("\n"):
            lines.append(cur)
            cur = ""
    if cur:
        lines.append(cur)
    return f'{keyword} ""\n' + "".join(f'"{_escape(x)}"\n' for x in lines)


def nplurals_of(lang: str) -> int:
    """How many plural forms ``lang`` has, read from its Plural-Forms."""
    match = re.match(r"nplurals=(\d+);", PLURAL_FORMS[lang])
    assert match, lang
    return int(match.group(1))


def render_catalog(
    messages: list[Message], lang: str | None, translations: dict | None = None
) -> str:
    """A .po (``lang``) or .pot (``lang=None``) file text."""
    translations = translations or {}
    header = [
        "Project-Id-Version: blu21",
        f"Language: {lang or ''}",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=UTF-8",
        "Content-Transfer-Encoding: 8bit",
        f"Plural-Forms: {PLURAL_FORMS.get(lang or 'en')}",
    ]
    out = ["# blu21 messages. Generated by tools/extract_messages.py; translations by hand.\n"]
    out.append('msgid ""\nmsgstr ""\n' + "".join(f'"{h}\\n"\n' for h in header))
    nplurals = nplurals_of(lang or "en")
    for m in messages:
        entry = "\n" + "".join(f"#: {loc}\n" for loc in m.locations[:4])
        entry += _po_string("msgid", m.msgid)
        done = translations.get(m.key, {})
        if lang == "en" and not all(done.values() or [""]):
            # English is the source language: its msgstr is the msgid unless edited
            done = {0: m.msgid} if m.plural is None else {0: m.msgid, 1: m.plural}
        if m.plural is None:
            entry += _po_string("msgstr", done.get(0, ""))
        else:
            entry += _po_string("msgid_plural", m.plural)
            for i in range(nplurals):
                entry += _po_string(f"msgstr[{i}]", done.get(i, ""))
        out.append(entry)
    return "".join(out)


def _msgfmt():
    """app/i18n/msgfmt.py loaded from this checkout (whatever is installed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_blu21_msgfmt", I18N / "msgfmt.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up by name
    spec.loader.exec_module(module)
    return module


def _load_po(path: Path) -> dict[tuple[str, str | None], dict[int, str]]:
    parse_po = _msgfmt().parse_po
    if not path.exists():
        return {}
    return {
        (e.msgid, e.msgid_plural): e.msgstr
        for e in parse_po(path.read_text("utf-8"), str(path))
        if e.msgid and not e.obsolete
    }


def check(messages: dict[tuple[str, str | None], Message]) -> list[str]:
    """Problems with the catalogs: missing, untranslated or obsolete entries."""
    problems: list[str] = []
    for lang in LANGS:
        path = I18N / "locales" / lang / "LC_MESSAGES" / "blu21.po"
        have = _load_po(path)
        for key, m in messages.items():
            if key not in have:
                problems.append(f"{lang}: missing {m.msgid!r} ({m.locations[0]})")
            elif not all(have[key].values()) or not have[key]:
                problems.append(f"{lang}: untranslated {m.msgid!r} ({m.locations[0]})")
        for key in have:
            if key not in messages:
                problems.append(f"{lang}: obsolete {key[0]!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args(argv)
    messages = extract()
    if args.check:
        problems = check(messages)
        print("\n".join(problems) or f"{len(messages)} messages, catalogs complete")
        return 1 if problems else 0
    ordered = list(messages.values())
    (I18N / "blu21.pot").write_text(render_catalog(ordered, None), "utf-8")
    for lang in LANGS:
        path = I18N / "locales" / lang / "LC_MESSAGES" / "blu21.po"
        path.parent.mkdir(parents=True, exist_ok=True)
        old = _load_po(path)
        dropped = [k[0] for k in old if k not in messages]
        path.write_text(render_catalog(ordered, lang, old), "utf-8")
        missing = sum(1 for m in ordered if not all(old.get(m.key, {0: ""}).values()))
        print(f"{lang}: {len(ordered)} messages, {missing} to translate, {len(dropped)} dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
