"""The networked casino table: every box of 2-7 players, the bets behind them, the
dealer, whose turn it is with its countdown, every player's chips, and this player's
legal actions. The screen renders :func:`app.views.casino_vm.present_casino` of the
table's snapshot and sends intents to the table (``app.controllers["casino"]``, a
:class:`app.views.casino_net.CasinoNet`); the engine copy on this phone decides what
is legal. The whole table fits the window without scrolling, as the one-phone table
does: its hand rows, fitting and action rows are :mod:`app.views.bj_table`'s.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.metrics import dp
from kivy.properties import NumericProperty, ObjectProperty, StringProperty

from app.i18n import N_, _
from app.views.base import BaseScreen
from app.views.bj_table import (
    BOX_FONT,
    action_grid,
    bet_widgets,
    box_rows,
    fit_rows,
    named_button,
    prompt_widgets,
    show_hand,
    side_bet_row,
)
from app.views.bj_vm import HandVM, chips
from app.views.casino_vm import CasinoBoxVM, CasinoVM, action_for, present_casino

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


def box_button_text(box: CasinoBoxVM) -> str:
    """A box while the bets are made: its number, its owner (or that it is free) and
    the chips on it.

    >>> from fractions import Fraction
    >>> b = CasinoBoxVM(3, "Ola", False, (), "", Fraction(30), Fraction(10), None, True,
    ...                 False, False, False)
    >>> box_button_text(b)
    'Box 3\\nOla\\n30'
    """
    text = _("Box {n}").format(n=box.number) + "\n" + (box.owner or _("free"))
    return text + (f"\n{chips(box.staked)}" if box.staked else "")


class CasinoScreen(BaseScreen):
    """A screen of the casino table (``app.controllers["casino"]``), following it from
    a Kivy ``Clock`` event while it is shown (:meth:`tick`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ticker: Any = None

    @property
    def net(self) -> Any:
        return self.app.controllers.get("casino")

    def on_enter(self, *_args: Any) -> None:
        if self._ticker is None:
            self._ticker = Clock.schedule_interval(self.tick, 0.1)

    def on_leave(self, *_args: Any) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    def tick(self, _dt: float = 0) -> None:
        """Follow the table (override)."""


class CasinoTableScreen(CasinoScreen):
    title = StringProperty(N_("Casino blackjack"))
    up = StringProperty("oczko_menu")
    vm = ObjectProperty(None, allownone=True)
    selected_box = NumericProperty(0)
    #: the round's result (once settled) and whose turn it is, and its lines
    turn_text = StringProperty("")
    turn_lines = NumericProperty(1)
    #: a cheater named by the audit and the newest table message, and their lines
    alert_text = StringProperty("")
    alert_lines = NumericProperty(2)
    #: the clock the deadlines are read on (the table's; tests inject their own)
    clock = staticmethod(time.monotonic)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the buttons now on screen by name ("hit", "box3", "chip10", "take3", ...)
        self.buttons: dict[str, Any] = {}
        self._row_pool: list[Any] = []
        self._seconds: int | None = None
        self._was_my_turn = False
        #: how many times the player was told it is his turn (tests)
        self.turn_alerts = 0
        self._fit_trigger = Clock.create_trigger(lambda _dt: self.fit_hands(), -1)
        self.fbind("height", self._fit_trigger)

    def game_in_progress(self) -> bool:
        return self.net is not None and not self.net.closed

    def can_return(self) -> bool:
        return self.net is not None

    def leave(self) -> None:
        """The player leaves the table (confirmed); the host's leaving ends it."""
        net = self.app.controllers.pop("casino", None)
        if net is not None:
            net.leave()

    # -- following the table ---------------------------------------------------------------
    def tick(self, _dt: float = 0) -> None:
        """A full re-render when the table changed, else the countdown once a second."""
        net = self.net
        if net is None:
            return
        if net.tick():
            self.refresh()
            return
        snap = net.snapshot()
        if snap is not None and snap.deadline is not None and self.vm is not None:
            vm = present_casino(snap, self.clock(), hosting=bool(net.hosting))
            if vm.seconds_left != self._seconds:
                # only the turn line changes: the buttons stay (a finger on one keeps
                # its tap), at most one new label texture a second
                self.vm, self._seconds = vm, vm.seconds_left
                self._set_turn_text(vm)

    # -- rendering -----------------------------------------------------------------------
    def refresh(self) -> None:
        net = self.net
        snap = None if net is None else net.snapshot()
        if snap is None:
            self.vm = None
            self.turn_text = _("No game in progress.")
            self.alert_text = ""
            self.ids.boxes.clear_widgets()
            self.ids.controls.clear_widgets()
            return
        vm = present_casino(snap, self.clock(), hosting=bool(net.hosting))
        self.vm = vm
        self._seconds = vm.seconds_left
        if vm.my_turn and not self._was_my_turn:
            self.your_turn()
        self._was_my_turn = vm.my_turn
        self._set_turn_text(vm)
        alerts = [vm.cheater] + ([vm.message] if vm.message and vm.message != vm.cheater else [])
        self.alert_text = "\n".join(a for a in alerts if a)
        self.alert_lines = 2 * max(1, self.alert_text.count("\n") + 1)  # two lines each
        self.buttons = {}
        self._render_boxes(vm)
        self._render_controls(vm)

    def _set_turn_text(self, vm: CasinoVM) -> None:
        self.turn_text = "\n".join(t for t in (vm.result, vm.turn) if t)
        self.turn_lines = self.turn_text.count("\n") + 1

    def your_turn(self) -> None:
        """A vibration and the chime when the table starts waiting for the player, as
        the settings say (the turn line is bold by itself)."""
        from app.views.sound import turn_alert

        turn_alert(self.app.prefs, self.app.data_dir)
        self.turn_alerts += 1

    def _button(
        self, name: str, text: str, callback: Any, enabled: bool = True, quiet: bool = False
    ) -> Any:
        return named_button(self.buttons, name, text, callback, enabled, quiet)

    def _betting(self, vm: CasinoVM) -> bool:
        """Boxes are buttons (take, choose) rather than hand rows."""
        return vm.stage in ("lobby", "betting") or (vm.stage == "settled" and not vm.hand_rows)

    def _render_boxes(self, vm: CasinoVM) -> None:
        area = self.ids.boxes
        area.clear_widgets()
        if vm.over:  # the table has ended: its message and the player's chips say all
            return
        if self._betting(vm):
            choosable = [b.number for b in vm.boxes if b.bet_range or b.can_leave]
            if self.selected_box not in choosable:
                self.selected_box = choosable[0] if choosable else 0
            area.cols = 4
            for box in vm.boxes:
                b = Factory.ChoiceButton(
                    text=box_button_text(box),
                    group="casino-box",
                    halign="center",
                    state="down" if box.number == self.selected_box else "normal",
                    height=dp(64),
                    base_font_size=BOX_FONT,
                )
                b.disabled = not (box.can_take or box.bet_range or box.can_leave)
                b.bind(on_release=lambda _b, n=box.number: self.choose_box(n))
                self.buttons[f"box{box.number}"] = b
                area.add_widget(b)
            self._fit_trigger()
            return
        rows = iter(self._row_pool)
        area.cols = 1
        four_colour = self.app.prefs.four_colour_deck
        if vm.dealer_cards:
            # the dealer is the first row: on a crowded table he takes the place a
            # second column leaves free instead of a row of his own above the boxes
            row = next(rows, None) or self._pooled()
            dealer = HandVM(0, vm.dealer_cards, vm.dealer_total, "", "", "", False)
            show_hand(row, dealer, _("Dealer"), "", four_colour)
            area.add_widget(row)
        for hand, title, detail in box_rows(vm.boxes):
            row = next(rows, None) or self._pooled()
            show_hand(row, hand, title, detail, four_colour)
            area.add_widget(row)
        self._fit_trigger()

    def _pooled(self) -> Any:
        row = Factory.BjHandRow()
        self._row_pool.append(row)
        return row

    def fit_hands(self) -> None:
        """Every box or hand in the room the screen leaves them (no scrolling)."""
        if self.vm is not None:
            fit_rows(self.ids.boxes, self.ids.area, self._betting(self.vm))

    def _render_controls(self, vm: CasinoVM) -> None:
        box = self.ids.controls
        box.clear_widgets()
        if vm.over:
            box.add_widget(self._button("menu", _("Back to the menu"), self.back_to_menu))
            return
        if vm.prompt is not None:
            for widget in prompt_widgets(vm.prompt, self._button, self.decide):
                box.add_widget(widget)
            return
        if self._betting(vm):
            chosen = next((b for b in vm.boxes if b.number == self.selected_box), None)
            for widget in bet_widgets(
                chosen and chosen.bet_range and (chosen.number, chosen.owner, chosen.bet_behind),
                chosen.bet_range if chosen else None,
                self._button,
                self.bet,
            ):
                box.add_widget(widget)
            row = side_bet_row(vm.side_bet, self._button, self.side_bet)
            if chosen is not None and chosen.can_leave:
                row.add_widget(
                    self._button(
                        "leave_box",
                        _("Give up box {n}").format(n=chosen.number),
                        lambda: self.leave_box(chosen.number),
                        quiet=True,
                    )
                )
            if vm.can_deal:  # (the deal comes once every player said so, or at the time)
                row.add_widget(self._button("deal", _("Deal"), self.deal))
            if row.children:
                box.add_widget(row)
            if vm.can_start:
                box.add_widget(self._button("start", _("Start the table"), self.start))
            return
        if any(vm.actions.values()):
            box.add_widget(
                action_grid(
                    vm.actions, box.width, self.app.prefs.left_handed, self._button, self.decide
                )
            )

    # -- intents -------------------------------------------------------------------------
    def _send(self, intent: str, *args: Any) -> None:
        net = self.net
        if net is None:
            return
        problem = net.send(intent, *args)
        if problem:
            self.app.notify(problem)
        self.refresh()

    def _act(self, kind: str, box: int | None = None, amount: Any = None) -> None:
        net = self.net
        snap = None if net is None else net.snapshot()
        action = None if snap is None else action_for(snap, kind, box, amount)
        if action is None:  # the table moved on since the button was drawn
            self.app.notify(_("That is not possible any more."))
            self.refresh()
            return
        self._send("act", action)

    def choose_box(self, number: int) -> None:
        """A free box: sit down at it; an own box or one to bet behind: choose it."""
        box = next((b for b in self.vm.boxes if b.number == number), None) if self.vm else None
        if box is not None and box.can_take:
            self.selected_box = number
            self._send("take_box", number)
            return
        self.selected_box = number
        self.refresh()

    def bet(self, amount: Fraction | int) -> None:
        self._act("bet", self.selected_box, amount)

    def side_bet(self, amount: Fraction | int) -> None:
        self._act("side_bet", None, amount)

    def leave_box(self, number: int) -> None:
        self._send("leave_box", number)

    def deal(self) -> None:
        """The player's bets are in."""
        self._send("bets_done")

    def start(self) -> None:
        self._send("start")

    def decide(self, kind: str, box: int | None = None, amount: Fraction | None = None) -> None:
        self._act(kind, box, amount)

    def back_to_menu(self) -> None:
        self.leave()
        self.app.go("oczko_menu", remember=False)
