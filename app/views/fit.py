"""Text that fits its box: the font shrinks (to 60 % at most) until the longest word of
the text fits the width, so a narrow phone never breaks a word inside ("Verdoppel/n")."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol

from kivy.core.text import Label as CoreLabel
from kivy.metrics import dp
from kivy.properties import NumericProperty
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.togglebutton import ToggleButton

from app.views.widgets import TextWidget

#: the font never shrinks below this share of its size
SMALLEST = 0.6


@lru_cache(maxsize=2048)
def widest_word(words: tuple[str, ...], size: float, bold: bool, font_name: str) -> float:
    """The width of the widest of ``words`` (measured once per text and font)."""
    core = CoreLabel(font_size=size, bold=bold, font_name=font_name)
    core.resolve_font_name()
    return max(float(core.get_extents(word)[0]) for word in words)


@lru_cache(maxsize=4096)
def _word_width(word: str, size: float, bold: bool, font_name: str) -> float:
    core = CoreLabel(font_size=size, bold=bold, font_name=font_name)
    core.resolve_font_name()
    return float(core.get_extents(word)[0])


def wrapped_lines(text: str, width: float, size: float, bold: bool, font_name: str) -> int:
    """How many lines ``text`` takes at ``size`` wrapped (words whole) in ``width``: a
    box can be made that tall instead of shrinking its font."""
    if width <= 1:  # (not laid out yet)
        return 1
    lines = 0
    for paragraph in text.split("\n"):
        lines += 1
        used = 0.0
        space = _word_width(" ", size, bold, font_name)
        for word in paragraph.split():
            w = _word_width(word, size, bold, font_name)
            if used and used + space + w > width:
                lines += 1
                used = w
            else:
                used += (space if used else 0.0) + w
    return lines


class _Fitting(TextWidget, Protocol):
    base_font_size: float
    side_padding: float

    def _fit(self, *_args: object) -> None: ...


class FitText:
    """Mixin for a Label (or Button): set ``base_font_size`` instead of ``font_size``;
    ``side_padding`` is the room the text box leaves on both sides together."""

    base_font_size = NumericProperty(dp(16))
    side_padding = NumericProperty(dp(16))

    def __init__(self: _Fitting, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fbind("width", self._fit)
        self.fbind("text", self._fit)
        self.fbind("base_font_size", self._fit)
        self.fbind("side_padding", self._fit)
        self._fit()

    def _fit(self: _Fitting, *_args: object) -> None:
        room = self.width - self.side_padding
        words = self.text.split()
        size = self.base_font_size
        if room > 0 and words:
            widest = widest_word(tuple(words), size, bool(self.bold), self.font_name)
            if widest > room:
                size = max(size * SMALLEST, size * room / widest * 0.98)
        if abs(self.font_size - size) > 0.25:
            self.font_size = size


class FitButton(FitText, Button):
    """A button whose label's words always fit (see :class:`FitText`)."""


class FitToggleButton(FitText, ToggleButton):
    """A toggle button whose label's words always fit."""


class FitLabel(FitText, Label):
    """A label whose words always fit its width."""

    side_padding = NumericProperty(0)
