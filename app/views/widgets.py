"""What the views call on Kivy objects, as Protocols.

Kivy ships no type hints, so its classes are ``Any`` to mypy (pyproject.toml); these
Protocols state the part of a widget's interface that our code relies on, so a mixin or a
helper that takes a widget is still checked. A Kivy property reads as its value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Dispatcher(Protocol):
    """A Kivy ``EventDispatcher``: properties and events observers can bind to."""

    def fbind(self, name: str, func: Callable[..., object], *args: Any, **kwargs: Any) -> int:
        """Call ``func`` when property or event ``name`` changes or fires."""
        ...

    def bind(self, **handlers: Callable[..., object]) -> None:
        """``bind(on_release=f, text=g)``: the keyword form of :meth:`fbind`."""
        ...


class Pressable(Protocol):
    """A button as a finger (or a demo) presses it."""

    text: str
    disabled: bool

    def dispatch(self, event: str, *args: Any, **kwargs: Any) -> object:
        """Fire ``event`` (``on_press``, ``on_release``) on the widget."""
        ...


class TextWidget(Dispatcher, Protocol):
    """A Label or Button: its text and the font it is drawn in."""

    text: str
    width: float
    font_size: float
    font_name: str
    bold: bool
