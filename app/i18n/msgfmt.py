"""A small pure-Python msgfmt: gettext ``.po`` text -> ``.mo`` bytes.

Same logic as CPython's ``Tools/i18n/msgfmt.py`` (which is not installed with
Python, and not on Android), reduced to what our catalogs use: ``msgctxt`` is
not used, plural forms are (``msgid_plural`` / ``msgstr[N]``). Fuzzy and empty
entries are left out, as GNU msgfmt does.

>>> mo = compile_po('msgid ""\\nmsgstr "Content-Type: text/plain; charset=UTF-8\\\\n"\\n'
...                 'msgid "Draw"\\nmsgstr "Ziehen"\\n')
>>> import gettext, io
>>> gettext.GNUTranslations(io.BytesIO(mo)).gettext("Draw")
'Ziehen'
"""

from __future__ import annotations

import ast
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path


class PoError(ValueError):
    """A .po file that cannot be parsed; the message names the line."""


@dataclass
class PoEntry:
    """One catalog entry as written in the .po file."""

    msgid: str
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False
    obsolete: bool = False
    comments: list[str] = field(default_factory=list)

    @property
    def translated(self) -> bool:
        """True if every msgstr (every plural form) is non-empty."""
        return bool(self.msgstr) and all(self.msgstr.values())


def parse_po(text: str, source: str = "<po>") -> list[PoEntry]:
    """Parse .po text into entries (the header is the entry with msgid "")."""
    entries: list[PoEntry] = []
    cur: PoEntry | None = None
    section: tuple[str, int] | None = None
    comments: list[str] = []
    fuzzy = False

    def finish() -> None:
        nonlocal cur, section
        if cur is not None:
            entries.append(cur)
        cur, section = None, None

    # split on \n only: str.splitlines() would also split on characters such as U+2028
    # that may stand unescaped inside a string
    for lineno, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            continue
        if line.startswith("#"):
            if section is not None and section[0] == "msgstr":
                finish()
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            comments.append(raw)
            continue
        keyword, _, rest = line.partition(" ")
        if keyword == "msgid":
            if cur is not None and section is not None and section[0] == "msgstr":
                finish()
            cur = PoEntry(msgid="", fuzzy=fuzzy, obsolete=obsolete, comments=comments)
            comments, fuzzy = [], False
            section = ("msgid", 0)
        elif keyword == "msgid_plural":
            if cur is None:
                raise PoError(f"{source}:{lineno}: msgid_plural without msgid")
            cur.msgid_plural = ""
            section = ("msgid_plural", 0)
        elif keyword.startswith("msgstr"):
            if cur is None:
                raise PoError(f"{source}:{lineno}: msgstr without msgid")
            index = 0
            if keyword != "msgstr":
                try:
                    index = int(keyword[len("msgstr[") : -1])
                except ValueError as exc:
                    raise PoError(f"{source}:{lineno}: bad keyword {keyword!r}") from exc
            cur.msgstr[index] = ""
            section = ("msgstr", index)
        elif line.startswith('"'):
            rest = line
        else:
            raise PoError(f"{source}:{lineno}: cannot parse {raw!r}")
        if section is None or cur is None:
            raise PoError(f"{source}:{lineno}: string outside an entry")
        if not rest:
            continue
        try:
            value = ast.literal_eval(rest)
        except (ValueError, SyntaxError) as exc:
            raise PoError(f"{source}:{lineno}: bad string {rest!r}") from exc
        if not isinstance(value, str):
            raise PoError(f"{source}:{lineno}: not a string: {rest!r}")
        kind, index = section
        if kind == "msgid":
            cur.msgid += value
        elif kind == "msgid_plural":
            cur.msgid_plural = (cur.msgid_plural or "") + value
        else:
            cur.msgstr[index] += value
    finish()
    return entries


def compile_entries(entries: list[PoEntry]) -> bytes:
    """The .mo bytes for the translated, non-fuzzy, non-obsolete entries (plus the header)."""
    messages: dict[bytes, bytes] = {}
    for e in entries:
        if e.obsolete or (e.fuzzy and e.msgid):
            continue
        if e.msgid and not e.translated:
            continue
        if e.msgid_plural is not None:
            key = (e.msgid + "\0" + e.msgid_plural).encode()
            value = "\0".join(e.msgstr[i] for i in sorted(e.msgstr)).encode()
        else:
            key = e.msgid.encode()
            value = e.msgstr.get(0, "").encode()
        messages[key] = value
    keys = sorted(messages)
    ids = b""
    strs = b""
    offsets: list[tuple[int, int, int, int]] = []
    for k in keys:
        v = messages[k]
        offsets.append((len(ids), len(k), len(strs), len(v)))
        ids += k + b"\0"
        strs += v + b"\0"
    # Layout as in CPython's msgfmt.py: header, two index tables, then ids, then strs.
    keystart = 7 * 4 + 16 * len(keys)
    valuestart = keystart + len(ids)
    koffsets: list[int] = []
    voffsets: list[int] = []
    for o1, l1, o2, l2 in offsets:
        koffsets += [l1, o1 + keystart]
        voffsets += [l2, o2 + valuestart]
    header = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + len(keys) * 8, 0, 0)
    return (
        header
        + struct.pack(f"{len(koffsets)}i", *koffsets)
        + struct.pack(f"{len(voffsets)}i", *voffsets)
        + ids
        + strs
    )


def compile_po(text: str, source: str = "<po>") -> bytes:
    """Compile .po text to .mo bytes."""
    return compile_entries(parse_po(text, source))


def main(argv: list[str] | None = None) -> int:
    """``python -m app.i18n.msgfmt FILE.po...``: write FILE.mo beside each."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m app.i18n.msgfmt FILE.po...", file=sys.stderr)
        return 2
    for name in args:
        po = Path(name)
        po.with_suffix(".mo").write_bytes(compile_po(po.read_text("utf-8"), str(po)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
