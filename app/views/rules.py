"""The rules of each game, as the game menu shows them."""

from __future__ import annotations

from pathlib import Path

from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import ObjectProperty, StringProperty

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
    """The blackjack rules. A networked casino table opens it with its rules,
    ``app.go("rules_blackjack", table=rules, up=...)``: the page then starts with what
    differs at a table across phones; leaving the page forgets the table."""

    title = StringProperty(N_("Rules of Blackjack"))
    up = StringProperty("bj_menu")
    #: the networked table's TableRules (None: the rules page of the game menu)
    table = ObjectProperty(None, allownone=True)

    def texts(self) -> list[tuple[str, str]]:
        return blackjack_rules(self.table)

    def on_leave(self, *_args: object) -> None:
        self.table = None
        self.up = "bj_menu"
