"""Translations: gettext catalogs (en, de, pl, fr, es, it, cs, uk, tr), the device language,
live switching.

Every user-facing string goes through :func:`_` (or :func:`ngettext`); strings that
must be translated later are marked with :func:`N_`. The catalogs are the ``.po``
files in ``locales/<lang>/LC_MESSAGES/blu21.po``; they are compiled to ``.mo`` in
memory by :mod:`app.i18n.msgfmt` the first time a language is used (a few ms), so a
fresh clone, the Android build and the tests all read the same source files and no
compiled file can go stale.

>>> set_language("de")
'de'
>>> _("Draw")
'Ziehen'
>>> set_language("en")
'en'
>>> _("Draw")
'Draw'
"""

from __future__ import annotations

import gettext
import io
import logging
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

DOMAIN = "blu21"
LOCALES_DIR = Path(__file__).with_name("locales")
#: Shipped languages, each with its name in its own language (for the settings menu). The
#: one list: the settings choices, the ``--lang`` options, detection and the catalog checks
#: all follow it. A new language: add it here and to tools/extract_messages.py (LANGS,
#: PLURAL_FORMS), then fill its .po.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "pl": "Polski",
    "fr": "Français",
    "es": "Español",
    "it": "Italiano",
    "cs": "Čeština",
    "uk": "Українська",
    "tr": "Türkçe",
}
DEFAULT_LANGUAGE = "en"

_catalogs: dict[str, gettext.NullTranslations] = {}
_current: gettext.NullTranslations = gettext.NullTranslations()
_language = DEFAULT_LANGUAGE
_listeners: list[Callable[[str], None]] = []


def po_path(lang: str) -> Path:
    """Path of the .po catalog of ``lang``."""
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def load_catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (cached). Unknown languages raise ValueError."""
    if lang not in LANGUAGES:
        raise ValueError(f"unsupported language {lang!r}; known: {', '.join(LANGUAGES)}")
    if lang not in _catalogs:
        from app.i18n.msgfmt import compile_po

        path = po_path(lang)
        mo = compile_po(path.read_text("utf-8"), str(path))
        _catalogs[lang] = gettext.GNUTranslations(io.BytesIO(mo))
    return _catalogs[lang]


def set_language(lang: str) -> str:
    """Switch the language of :func:`_`; listeners are told. Returns the language in force.

    An unsupported language falls back to English (logged), never raises.
    """
    global _current, _language
    if lang not in LANGUAGES:
        log.warning("language %r not shipped; using %s", lang, DEFAULT_LANGUAGE)
        lang = DEFAULT_LANGUAGE
    _current = load_catalog(lang)
    changed = lang != _language
    _language = lang
    if changed:
        for listener in list(_listeners):
            listener(lang)
    return lang


def get_language() -> str:
    """The language :func:`_` translates into."""
    return _language


#: languages that write eight and a half as ``8.5``; every other shipped one writes ``8,5``
_DECIMAL_POINT = frozenset({"en"})


def decimal_mark(lang: str | None = None) -> str:
    """The decimal mark of ``lang`` (default: the current language): ``"."`` (en) or
    ``","`` (de, pl, fr, es, it, cs, uk, tr); what separates the whole from the fraction
    in every amount the player reads.

    >>> decimal_mark("en"), decimal_mark("fr"), decimal_mark("uk")
    ('.', ',', ',')
    """
    return "." if (lang or _language) in _DECIMAL_POINT else ","


def localize_decimal(number: str, lang: str | None = None) -> str:
    """``number`` as formatted by Python (``"+0.25"``) with the decimal mark of ``lang``
    (default: the current language).

    >>> localize_decimal("-1.50", "cs"), localize_decimal("-1.50", "en")
    ('-1,50', '-1.50')
    """
    return number.replace(".", decimal_mark(lang))


def add_listener(callback: Callable[[str], None]) -> None:
    """Call ``callback(lang)`` after every language switch."""
    _listeners.append(callback)


def remove_listener(callback: Callable[[str], None]) -> None:
    """Undo :func:`add_listener` (no error if absent)."""
    if callback in _listeners:
        _listeners.remove(callback)


def _(msgid: str) -> str:
    """Translate ``msgid`` into the current language."""
    return _current.gettext(msgid)


def ngettext(singular: str, plural: str, n: int) -> str:
    """Translate with the plural form for ``n`` (Polish, Czech and Ukrainian have three)."""
    return _current.ngettext(singular, plural, n)


def N_(msgid: str) -> str:
    """Mark ``msgid`` for extraction without translating it now."""
    return msgid


def normalize_language(tag: str | None) -> str | None:
    """``"de_AT.UTF-8"`` / ``"pl-PL"`` / ``"DE"`` -> the shipped language, else None.

    >>> normalize_language("pl_PL.UTF-8"), normalize_language("uk-UA"), normalize_language("ja_JP")
    ('pl', 'uk', None)
    >>> normalize_language("C")
    """
    if not tag:
        return None
    code = tag.replace("-", "_").split(".")[0].split("@")[0].split("_")[0].lower()
    return code if code in LANGUAGES else None


def android_language() -> str | None:
    """The device language from ``java.util.Locale`` (pyjnius, imported only here)."""
    if not hasattr(sys, "getandroidapilevel") and "ANDROID_ARGUMENT" not in os.environ:
        return None  # not on a phone (pyjnius may still be installed, e.g. for tests)
    try:
        from jnius import autoclass  # only on Android; slow import, so only when asked
    except ImportError:
        return None
    try:
        return str(autoclass("java.util.Locale").getDefault().getLanguage())
    except Exception:  # a JVM error must not stop the app from starting
        log.exception("could not read the Android locale")
        return None


def desktop_language(environ: Mapping[str, str] | None = None) -> str | None:
    """The first supported language in LANGUAGE, LC_ALL, LC_MESSAGES, LANG (POSIX order)."""
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        for part in value.split(":"):
            lang = normalize_language(part)
            if lang:
                return lang
        if value and var != "LANGUAGE":
            break  # the first set LC_* variable decides, as in POSIX
    return None


def detect_language(platform: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The device language, if shipped, else English.

    >>> detect_language("linux", {"LANG": "de_DE.UTF-8"})
    'de'
    >>> detect_language("linux", {"LANG": "fr_FR.UTF-8"})
    'fr'
    >>> detect_language("linux", {"LANG": "ja_JP.UTF-8"})
    'en'
    """
    if platform is None:
        platform = "android" if "ANDROID_ARGUMENT" in os.environ else "desktop"
    found = normalize_language(android_language()) if platform == "android" else None
    return found or desktop_language(environ) or DEFAULT_LANGUAGE
