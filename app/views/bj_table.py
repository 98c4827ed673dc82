"""The blackjack table (boxes 1-7, bets, insurance, every legal action) and the session
summary. The screen renders :func:`app.views.bj_vm.present` and sends intents to the
:class:`app.views.bj_game.BlackjackGame`; the engine decides what is legal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.factory import Factory
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout

import app.views.cardtex  # noqa: F401  (defines HandView, used by the kv rules)
from app.i18n import N_, _
from app.i18n.codes import error_message
from app.views.base import BaseScreen
from app.views.bj_vm import BlackjackTableVM, chip_choices, chips, present, summary_lines
from app.views.theme import theme

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

ACTION_LABELS = {
    "hit": N_("Hit"),
    "stand": N_("Stand"),
    "double": N_("Double"),
    "split": N_("Split"),
    "surrender": N_("Surrender"),
}


class BlackjackTableScreen(BaseScreen):
    title = StringProperty(N_("Blackjack"))
    up = StringProperty("bj_menu")
    vm = ObjectProperty(None, allownone=True)
    selected_box = NumericProperty(0)

    #: the deck of the next session (demos and tests seed it or script the shoe)
    demo_rng: Any = None
    demo_shoe: Any = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the buttons now on screen by name ("hit", "deal", "box3", "chip10", ...)
        self.buttons: dict[str, Any] = {}
        self._title_pool: list[Any] = []
        self._row_pool: list[Any] = []

    @property
    def game(self):
        return self.app.controllers.get("blackjack")

    def start_session(self, rng: Any = None) -> None:
        """A new session with the saved table rules (a bot box owner when betting behind)."""
        from app.views.bj_game import BlackjackGame, saved_rules

        rules, warning = saved_rules(self.app.prefs)
        if warning:
            self.app.notify(warning)
        me = self.app.prefs.player_name or "you"
        bots = [_("Bruno (bot)")] if rules.betting_behind else []
        rng, shoe = rng or self.demo_rng, self.demo_shoe
        self.demo_rng = self.demo_shoe = None  # a seeded or scripted deck: one session
        self.app.controllers["blackjack"] = BlackjackGame(rules, me, bots, rng, shoe=shoe)
        self.selected_box = 0

    def game_in_progress(self) -> bool:
        return self.game is not None and not self.game.over

    def can_return(self) -> bool:
        return self.game_in_progress()  # the settings opened at the table go back to it

    def leave(self) -> None:
        self.app.controllers.pop("blackjack", None)

    # -- rendering -----------------------------------------------------------------------
    def refresh(self) -> None:
        g = self.game
        if g is None or g.round is None:
            self.vm = None
            return
        vm = present(g, hints=self.app.prefs.show_hints)
        self.vm = vm
        self.ids.dealer.cards = list(vm.dealer_cards)
        self.ids.dealer.four_colour = self.app.prefs.four_colour_deck
        self.buttons = {}
        self._render_boxes(vm)
        self._render_controls(vm)

    def _button(self, name: str, text: str, callback, enabled: bool = True, quiet=False):
        b = (Factory.QuietButton if quiet else Factory.AppButton)(text=text)
        b.disabled = not enabled
        b.bind(on_release=lambda *_a: callback())
        self.buttons[name] = b
        return b

    def _render_boxes(self, vm: BlackjackTableVM) -> None:
        area = self.ids.boxes
        area.clear_widgets()
        if vm.phase == "betting":
            if not self.selected_box or not any(
                b.number == self.selected_box and b.bet_range for b in vm.boxes
            ):
                self.selected_box = next((b.number for b in vm.boxes if b.bet_range), 0)
            grid = GridLayout(cols=4, spacing=dp(4), size_hint_y=None)
            grid.bind(minimum_height=grid.setter("height"))
            for box in vm.boxes:
                stake = box.hands[0].stakes if box.hands else ""
                text = _("Box {n}").format(n=box.number) + ("\n" + stake if stake else "")
                b = Factory.ChoiceButton(
                    text=text,
                    group="bj-box",
                    halign="center",
                    state="down" if box.number == self.selected_box else "normal",
                    height=dp(64),
                    font_size=dp(13),
                )
                b.disabled = box.bet_range is None and not box.hands
                b.bind(on_release=lambda _b, n=box.number: self.select_box(n))
                self.buttons[f"box{box.number}"] = b
                grid.add_widget(b)
            area.add_widget(grid)
            return
        # rows come from a pool: a move updates them instead of building new widgets
        titles, rows = iter(self._title_pool), iter(self._row_pool)
        for box in vm.boxes:
            if not box.hands:
                continue
            title = next(titles, None) or self._pooled(self._title_pool, "Body", bold=True)
            title.text = _("Box {n}").format(n=box.number) + f" · {box.owner}"
            area.add_widget(title)
            for hand in box.hands:
                row = next(rows, None) or self._pooled(self._row_pool, "BjHandRow")
                row.hand = hand
                row.ids.cards.cards = list(hand.cards)
                row.ids.cards.four_colour = self.app.prefs.four_colour_deck
                area.add_widget(row)

    @staticmethod
    def _pooled(pool: list, kind: str, **kwargs: Any) -> Any:
        widget = getattr(Factory, kind)(**kwargs)
        pool.append(widget)
        return widget

    def _render_controls(self, vm: BlackjackTableVM) -> None:
        box = self.ids.controls
        box.clear_widgets()
        if vm.prompt is not None:
            box.add_widget(Factory.Body(text=vm.prompt.text, halign="center"))
            row = BoxLayout(size_hint_y=None, height=dp(56), spacing=dp(6))
            for action, label, amount in vm.prompt.choices:
                row.add_widget(
                    self._button(
                        action, label, lambda a=action, m=amount: self.decide(a, vm.prompt.box, m)
                    )
                )
            box.add_widget(row)
        elif vm.phase == "betting":
            chosen = next((b for b in vm.boxes if b.number == self.selected_box), None)
            if chosen and chosen.bet_range:
                lo, hi = chosen.bet_range
                what = (
                    _("Bet behind on box {n}:") if chosen.behind else _("Bet on box {n}:")
                ).format(n=chosen.number)
                box.add_widget(Factory.Caption(text=what))
                row = GridLayout(cols=3, size_hint_y=None, spacing=dp(4))
                row.bind(minimum_height=row.setter("height"))
                for value in chip_choices(lo, hi):
                    row.add_widget(
                        self._button(
                            f"chip{value}", chips(value), lambda v=value: self.bet(v), quiet=True
                        )
                    )
                box.add_widget(row)
            if vm.side_bet is not None:
                lo, _hi = vm.side_bet
                box.add_widget(
                    self._button(
                        "side_bet",
                        _("Dealer busts bet: {amount}").format(amount=chips(lo)),
                        lambda: self.side_bet(lo),
                        quiet=True,
                    )
                )
            again = BoxLayout(size_hint_y=None, height=theme.touch, spacing=dp(4))
            g = self.game
            again.add_widget(self._button("rebet", _("Rebet"), self.rebet, g.can_rebet, quiet=True))
            again.add_widget(
                self._button("clear", _("Clear bets"), self.clear_bets, g.can_clear, quiet=True)
            )
            box.add_widget(again)
            box.add_widget(self._button("deal", _("Deal"), self.deal, vm.can_deal))
        elif vm.phase == "settled":
            last = self.game.session.rounds_played + 1 >= self.game.rules.rounds
            label = _("Session summary") if last else _("Next round")
            box.add_widget(self._button("next", label, self.next_round))
        else:
            grid = GridLayout(cols=3, size_hint_y=None, spacing=dp(4))
            grid.bind(minimum_height=grid.setter("height"))
            labels = list(ACTION_LABELS.items())
            if self.app.prefs.left_handed:  # mirrored, the main actions under the left thumb
                labels = labels[2::-1] + labels[:2:-1]
            for kind, label in labels:
                grid.add_widget(
                    self._button(
                        kind, _(label), lambda k=kind: self.decide(k), vm.actions.get(kind, False)
                    )
                )
            box.add_widget(grid)

    # -- intents -------------------------------------------------------------------------
    def _do(self, func, *args) -> None:
        try:
            func(*args)
        except ValueError as exc:  # IllegalAction / SessionError: shown, nothing changes
            self.app.notify(error_message(exc))
        self.refresh()

    def select_box(self, number: int) -> None:
        self.selected_box = number
        self.refresh()

    def bet(self, amount) -> None:
        self._do(self.game.bet, self.selected_box, amount)

    def side_bet(self, amount) -> None:
        self._do(self.game.side_bet, amount)

    def rebet(self) -> None:
        self._do(self.game.rebet)

    def clear_bets(self) -> None:
        self._do(self.game.clear_bets)

    def deal(self) -> None:
        self._do(self.game.deal)

    def decide(self, kind: str, box: int | None = None, amount=None) -> None:
        if kind == "insure":
            self._do(self.game.insure, box, amount)
        else:
            self._do(self.game.decide, kind, box)

    def next_round(self) -> None:
        g = self.game
        self._do(g.next_round)
        if g.over:
            summary = self.app.screen("bj_summary")
            summary.lines = summary_lines(g.session.summary(), g.me)
            self.app.controllers.pop("blackjack", None)
            self.app.go("bj_summary", remember=False)


class SessionSummaryScreen(BaseScreen):
    title = StringProperty(N_("Session summary"))
    up = StringProperty("bj_menu")

    def can_return(self) -> bool:
        return False  # a summary is seen once; back goes to the menu

    lines = ListProperty([])

    def refresh(self) -> None:
        grid = self.ids.lines
        grid.clear_widgets()
        for label, value in self.lines:
            grid.add_widget(Factory.Body(text=label))
            grid.add_widget(Factory.Body(text=value, halign="right", bold=True))
