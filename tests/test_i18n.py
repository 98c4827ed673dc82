"""Catalogs complete and not stale; the pure-Python msgfmt; language detection; codes."""

from __future__ import annotations

import ast
import gettext
import importlib.util
import io
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app import i18n
from app.i18n.codes import MESSAGES, error_message, message_for
from app.i18n.msgfmt import PoError, compile_po, parse_po

ROOT = Path(__file__).resolve().parents[1]


def _extractor():
    spec = importlib.util.spec_from_file_location(
        "extract_messages", ROOT / "tools" / "extract_messages.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def english():
    yield
    i18n.set_language("en")


def test_catalogs_complete_and_not_stale() -> None:
    tool = _extractor()
    messages = tool.extract(ROOT / "app")
    assert len(messages) > 100  # the scan really found the app's strings
    assert tool.check(messages) == []


def test_kv_strings_are_extracted() -> None:
    tool = _extractor()
    found = tool.scan_kv("Label:\n    text: tr._('Hold')\n    other: 3\n", "x.kv")
    assert [m.msgid for m in found] == ["Hold"]
    messages = tool.extract(ROOT / "app")
    assert any(
        loc.endswith(".kv:" + loc.split(":")[-1])
        for m in messages.values()
        for loc in m.locations
        if ".kv:" in loc
    )


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_compiled_catalog_translates_every_entry(lang: str) -> None:
    text = i18n.po_path(lang).read_text("utf-8")
    entries = [e for e in parse_po(text) if e.msgid]
    catalog = gettext.GNUTranslations(io.BytesIO(compile_po(text)))
    for e in entries:
        if e.msgid_plural is None:
            assert catalog.gettext(e.msgid) == e.msgstr[0]
        else:
            assert catalog.ngettext(e.msgid, e.msgid_plural, 1) == e.msgstr[0]


def test_translations_differ_from_english() -> None:
    # a real translation, not a copy of the msgid (a few words like "Blackjack" are equal)
    for lang in (lang for lang in i18n.LANGUAGES if lang != "en"):
        entries = [e for e in parse_po(i18n.po_path(lang).read_text("utf-8")) if e.msgid]
        same = [e.msgid for e in entries if e.msgstr.get(0) == e.msgid]
        assert len(same) < len(entries) * 0.1, same


def test_polish_plurals_have_three_forms() -> None:
    i18n.set_language("pl")
    forms = {i18n.ngettext("{n} card", "{n} cards", n).format(n=n) for n in (1, 2, 5, 22, 25)}
    assert forms == {"1 karta", "2 karty", "5 kart", "22 karty", "25 kart"}


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        # Czech: 1 / 2-4 / else, so 22 takes the "many" form, unlike Polish and Ukrainian
        ("cs", ["1 karta", "2 karty", "4 karty", "5 karet", "11 karet", "21 karet", "22 karet"]),
        # Ukrainian: like Polish, and 21 takes the singular
        ("uk", ["1 карта", "2 карти", "4 карти", "5 карт", "11 карт", "21 карта", "22 карти"]),
        (
            "fr",
            ["1 carte", "2 cartes", "4 cartes", "5 cartes", "11 cartes", "21 cartes", "22 cartes"],
        ),
        ("tr", ["1 kart", "2 kart", "4 kart", "5 kart", "11 kart", "21 kart", "22 kart"]),
    ],
)
def test_plural_forms_follow_each_language(lang: str, expected: list[str]) -> None:
    i18n.set_language(lang)
    counts = (1, 2, 4, 5, 11, 21, 22)
    shown = [i18n.ngettext("{n} card", "{n} cards", n).format(n=n) for n in counts]
    assert shown == expected
    # and French counts zero as singular, unlike English
    if lang == "fr":
        assert i18n.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 carte"


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_translations_keep_every_placeholder(lang: str) -> None:
    """A msgstr has exactly the ``{names}`` of its msgid (a missing one loses a value, an
    extra or misspelt one raises KeyError in ``.format`` on the player's phone)."""
    tool = _extractor()
    plural = re.search(r"nplurals=(\d+)", tool.PLURAL_FORMS[lang])
    assert plural is not None
    bad = []
    for e in parse_po(i18n.po_path(lang).read_text("utf-8")):
        if not e.msgid:
            continue
        if e.msgid_plural is not None:
            assert sorted(e.msgstr) == list(range(int(plural.group(1)))), e.msgid
        for i, text in e.msgstr.items():
            source = e.msgid if e.msgid_plural is None or i == 0 else e.msgid_plural
            if sorted(set(_PLACEHOLDER.findall(text))) != sorted(
                set(_PLACEHOLDER.findall(source))
            ) and (
                e.msgid_plural is None
                or set(_PLACEHOLDER.findall(text)) != set(_PLACEHOLDER.findall(e.msgid_plural))
            ):
                bad.append((e.msgid, text))
    assert bad == []


def _cmap(path: Path) -> set[int]:
    """The code points a TrueType font has glyphs for, read from its ``cmap`` table
    (formats 4 and 12, Windows Unicode subtables), without a font library."""
    data = path.read_bytes()
    tables = {
        data[12 + 16 * i : 16 + 16 * i]: struct.unpack(">II", data[20 + 16 * i : 28 + 16 * i])
        for i in range(struct.unpack(">H", data[4:6])[0])
    }
    base = tables[b"cmap"][0]
    points: set[int] = set()
    for i in range(struct.unpack(">H", data[base + 2 : base + 4])[0]):
        record = data[base + 4 + 8 * i : base + 12 + 8 * i]
        platform, encoding, offset = struct.unpack(">HHI", record)
        if (platform, encoding) not in ((3, 1), (3, 10), (0, 3), (0, 4)):
            continue
        sub = base + offset
        fmt = struct.unpack(">H", data[sub : sub + 2])[0]
        if fmt == 4:
            segs = struct.unpack(">H", data[sub + 6 : sub + 8])[0] // 2
            ends = struct.unpack(f">{segs}H", data[sub + 14 : sub + 14 + 2 * segs])
            at = sub + 16 + 2 * segs
            starts = struct.unpack(f">{segs}H", data[at : at + 2 * segs])
            deltas = struct.unpack(f">{segs}h", data[at + 2 * segs : at + 4 * segs])
            ranges_at = at + 4 * segs
            offsets = struct.unpack(f">{segs}H", data[ranges_at : ranges_at + 2 * segs])
            for k in range(segs):
                for c in range(starts[k], ends[k] + 1):
                    if c == 0xFFFF:
                        continue
                    if offsets[k] == 0:
                        glyph = (c + deltas[k]) & 0xFFFF
                    else:
                        where = ranges_at + 2 * k + offsets[k] + 2 * (c - starts[k])
                        glyph = struct.unpack(">H", data[where : where + 2])[0]
                        glyph = (glyph + deltas[k]) & 0xFFFF if glyph else 0
                    if glyph:
                        points.add(c)
        elif fmt == 12:
            groups = struct.unpack(">I", data[sub + 12 : sub + 16])[0]
            for k in range(groups):
                first, last, glyph = struct.unpack(
                    ">III", data[sub + 16 + 12 * k : sub + 28 + 12 * k]
                )
                points.update(range(first, last + 1))
    return points


def test_the_app_fonts_cover_every_catalog() -> None:
    """The app ships no font of its own: labels use Kivy's bundled Roboto (regular and
    bold), the card faces and a few symbols DejaVu Sans. Every character of every
    translation and language name must have a glyph in them, or a phone in that
    language shows empty boxes (tofu)."""
    import kivy

    fonts = Path(kivy.__file__).parent / "data" / "fonts"
    names = ("Roboto-Regular.ttf", "Roboto-Bold.ttf", "DejaVuSans.ttf")
    covered = {name: _cmap(fonts / name) for name in names}
    assert all(len(c) > 500 for c in covered.values())  # the parser really read the cmap
    assert ord("Ж") in covered["Roboto-Regular.ttf"]  # Cyrillic is there ...
    assert ord("你") not in covered["Roboto-Regular.ttf"]  # ... CJK is not: the check bites
    for lang, name in i18n.LANGUAGES.items():
        texts = [name] + [
            t for e in parse_po(i18n.po_path(lang).read_text("utf-8")) for t in e.msgstr.values()
        ]
        used = {c for t in texts for c in t if c not in "\n\t"}
        for font, points in covered.items():
            missing = sorted(c for c in used if ord(c) not in points)
            assert not missing, f"{lang}: {font} lacks {missing}"


def test_switch_language_tells_listeners() -> None:
    seen: list[str] = []
    i18n.add_listener(seen.append)
    try:
        i18n.set_language("de")
        assert i18n._("Draw") == "Ziehen"
        i18n.set_language("pl")
        assert i18n._("Hold") == "Zostaję"
    finally:
        i18n.remove_listener(seen.append)
    assert seen == ["de", "pl"]


def test_unknown_language_falls_back_to_english() -> None:
    assert i18n.set_language("xx") == "en"
    assert i18n._("Draw") == "Draw"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANGUAGE": "ja:pl", "LANG": "en_US.UTF-8"}, "pl"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "es_MX.UTF-8"}, "es"),
        ({"LANG": "it_IT.UTF-8"}, "it"),
        ({"LANG": "cs_CZ.UTF-8"}, "cs"),
        ({"LC_MESSAGES": "uk_UA.UTF-8", "LANG": "en_GB.UTF-8"}, "uk"),
        ({"LANG": "tr_TR.UTF-8"}, "tr"),
        ({"LC_ALL": "pl_PL.UTF-8", "LANG": "de_DE.UTF-8"}, "pl"),
        ({"LANG": "C"}, "en"),
        ({}, "en"),
        ({"LC_ALL": "ja_JP", "LANG": "de_DE"}, "en"),  # LC_ALL set: it decides
    ],
)
def test_desktop_language(env: dict, expected: str) -> None:
    assert i18n.detect_language("linux", env) == expected


def test_android_language_off_a_phone_falls_back() -> None:
    # not on a phone: the desktop rules apply, nothing crashes, no JVM is started
    assert i18n.detect_language("android", {"LANG": "de_AT.UTF-8"}) == "de"


_ANDROID_LANGUAGE = """
import sys, jnius_config
jnius_config.add_options("-Duser.language=" + sys.argv[1], "-Duser.country=" + sys.argv[2])
from app import i18n
print(i18n.detect_language(None, {"LANG": "de_DE.UTF-8"}), i18n.android_language())
"""


@pytest.mark.parametrize(
    ("language", "country", "expected"),
    [
        ("pl", "PL", "pl pl"),  # the phone's language wins over the environment's
        ("en", "GB", "en en"),
        ("uk", "UA", "uk uk"),
        ("ja", "JP", "de ja"),  # not shipped: the fallback rules apply
    ],
)
def test_android_language_is_read_from_the_jvm(language, country, expected) -> None:
    """The Android path for real: on a "phone" (ANDROID_ARGUMENT set, as
    python-for-android does) pyjnius asks a JVM's java.util.Locale, whose default the
    JVM takes from user.language/user.country as a phone's from its settings."""
    from test_transport_android import find_java_home

    home = find_java_home()
    if home is None:
        pytest.fail("no JDK found: install openjdk-17-jdk-headless or set JAVA_HOME")
    env = dict(os.environ, JAVA_HOME=str(home), ANDROID_ARGUMENT="/data/app")
    done = subprocess.run(
        [sys.executable, "-c", _ANDROID_LANGUAGE, language, country],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == expected.split()


def test_po_parse_errors_name_the_line() -> None:
    with pytest.raises(PoError, match=":2:"):
        parse_po('msgid "a"\nmsgstr x\n', "bad.po")


def test_fuzzy_and_empty_entries_are_left_out() -> None:
    po = 'msgid "a"\nmsgstr ""\n\n#, fuzzy\nmsgid "b"\nmsgstr "B"\n\nmsgid "c"\nmsgstr "C"\n'
    catalog = gettext.GNUTranslations(io.BytesIO(compile_po(po)))
    assert (catalog.gettext("a"), catalog.gettext("b"), catalog.gettext("c")) == ("a", "b", "C")


def test_codes_translate_with_details() -> None:
    i18n.set_language("de")
    assert message_for("player_left", name="Ala") == "Ala hat den Tisch verlassen."
    assert "{" not in message_for("player_left")  # missing detail: no crash, no braces
    assert "mystery" in message_for("mystery")


def test_engine_error_codes_have_messages() -> None:
    """Every IllegalAction code the engines raise has a translated message."""
    codes: set[str] = set()
    for path in (ROOT / "app").rglob("*.py"):
        if "views" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            first = node.args[0] if node.args else None
            if (
                name in ("IllegalAction", "SessionError")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                codes.add(first.value)
            elif name in ("RulesError", "need"):  # (..., code="invalid_rules"); need: the
                # check of TableRules that raises RulesError with its code
                code = {k.arg: k.value for k in node.keywords}.get("code")
                codes.add(code.value if isinstance(code, ast.Constant) else "invalid_rules")
    # the protocol's stable codes are module constants: BAD_KEY = "bad_key"
    errors = ROOT / "app" / "protocol" / "errors.py"
    if errors.exists():
        for node in ast.parse(errors.read_text("utf-8")).body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
                and all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets)
            ):
                codes.add(node.value.value)
    missing = sorted(codes - set(MESSAGES))
    assert not missing, f"add these codes to app/i18n/codes.py: {missing}"


def test_error_message_of_plain_exception() -> None:
    assert error_message(OSError("disk full")).endswith("disk full")


@given(
    st.lists(
        st.tuples(
            st.text(
                st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                min_size=1,
                max_size=120,
            ),
            st.text(
                st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                min_size=1,
                max_size=120,
            ),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda t: t[0],
    )
)
def test_catalog_writer_and_parser_round_trip(pairs: list[tuple[str, str]]) -> None:
    """Whatever a msgid holds (quotes, backslashes, newlines, long lines, any script; NUL
    is gettext's plural separator), the written .po parses back to the same text and
    compiles to a working catalog."""
    tool = _extractor()
    messages = [tool.Message(m, None, ["x.py:1"]) for m, _t in pairs]
    translations = {(m, None): {0: t} for m, t in pairs}
    text = tool.render_catalog(messages, "de", translations)
    parsed = {e.msgid: e.msgstr[0] for e in parse_po(text) if e.msgid}
    assert parsed == dict(pairs)
    catalog = gettext.GNUTranslations(io.BytesIO(compile_po(text)))
    for m, t in pairs:
        assert catalog.gettext(m) == t


def test_device_services_are_harmless_on_the_desktop() -> None:
    from app.views.setup.device import system_bar_insets, vibrate

    assert vibrate() is False
    assert system_bar_insets() is None


def test_every_language_but_english_writes_a_decimal_comma() -> None:
    assert {lang: i18n.decimal_mark(lang) for lang in i18n.LANGUAGES} == {
        lang: "." if lang == "en" else "," for lang in i18n.LANGUAGES
    }
    i18n.set_language("tr")
    assert i18n.localize_decimal("+0.25") == "+0,25"


def test_no_view_keeps_its_own_list_of_languages() -> None:
    """Language-specific behaviour lives in app.i18n (one list); a check like
    ``get_language() in ("de", "pl")`` elsewhere forgets every language added later."""
    found = []
    for path in (ROOT / "app").rglob("*.py"):
        if path.parent.name == "i18n":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Call)
                and getattr(node.left.func, "id", getattr(node.left.func, "attr", ""))
                == "get_language"
                and any(
                    isinstance(c, (ast.Tuple, ast.List, ast.Set, ast.Constant))
                    for c in node.comparators
                )
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
