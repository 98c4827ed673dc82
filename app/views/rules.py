"""The rules of each game, as the game menu shows them."""

from __future__ import annotations

from pathlib import Path

from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import StringProperty

from app.i18n import N_
from app.views.base import BaseScreen
from app.views.rules_text import blackjack_rules, oczko_rules

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


class RulesScreen(BaseScreen):
    """A scrolling page of headings and paragraphs."""

    def texts(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def refresh(self) -> None:
        page = self.ids.page
        page.clear_widgets()
        for kind, text in self.texts():
            widget = Factory.Heading() if kind == "h" else Factory.Body()
            widget.text = text
            page.add_widget(widget)
        self.ids.scroll.scroll_y = 1


class OczkoRulesScreen(RulesScreen):
    title = StringProperty(N_("Rules of Oczko"))
    up = StringProperty("oczko_menu")

    def texts(self) -> list[tuple[str, str]]:
        return oczko_rules()


class BlackjackRulesScreen(RulesScreen):
    title = StringProperty(N_("Rules of Blackjack"))
    up = StringProperty("bj_menu")

    def texts(self) -> list[tuple[str, str]]:
        return blackjack_rules()
