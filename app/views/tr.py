"""Live-switchable translations for .kv rules: ``text: tr._("Draw")``.

Kivy re-evaluates a kv expression when a property it reads changes. ``tr._`` looks
like a property access to the kv compiler, so it calls ``tr.fbind("_", ...)``; we keep
those callbacks and call them after a language switch, so every label re-renders in
the new language without rebuilding screens (the pattern of Kivy's i18n example).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.event import Observable

from app import i18n

_Observer = tuple[Callable[..., object], tuple[Any, ...], dict[str, Any]]


class Translator(Observable):
    """``tr._(msgid)`` translates; ``fbind("_")`` observers re-run on a switch."""

    def __init__(self) -> None:
        super().__init__()
        # (callback, its extra arguments, its keywords) as kv's fbind passed them
        self._observers: list[_Observer] = []
        i18n.add_listener(self._on_switch)

    def _(self, msgid: str) -> str:
        return i18n._(msgid)

    def fbind(self, name: str, func: Callable[..., object], *largs: Any, **kwargs: Any) -> int:
        if name == "_":
            self._observers.append((func, largs, kwargs))
            return 0
        uid: int = super().fbind(name, func, *largs, **kwargs)
        return uid

    def funbind(self, name: str, func: Callable[..., object], *largs: Any, **kwargs: Any) -> None:
        if name == "_":
            key = (func, largs, kwargs)
            if key in self._observers:
                self._observers.remove(key)
            return
        super().funbind(name, func, *largs, **kwargs)

    def _on_switch(self, _lang: str) -> None:
        alive: list[_Observer] = []
        for func, largs, kwargs in self._observers:
            try:
                func(*largs, None, None)
            except ReferenceError:
                continue  # the widget is gone: forget it
            alive.append((func, largs, kwargs))
        self._observers = alive


tr = Translator()
