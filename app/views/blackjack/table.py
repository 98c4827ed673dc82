"""The blackjack table (boxes 1-7, bets, insurance, every legal action) and the session
summary. The screen renders :func:`app.views.blackjack.vm.present` and sends intents to the
:class:`app.views.blackjack.game.BlackjackGame`; the engine decides what is legal."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label

import app.views.cardtex  # noqa: F401  (defines HandView, used by the kv rules)
from app.i18n import N_, _
from app.i18n.codes import error_message
from app.views.base import BaseScreen
from app.views.blackjack.vm import BlackjackTableVM, chip_choices, chips, present, summary_lines
from app.views.cardtex import CARD_RATIO, CLOSEST_STEP
from app.views.fit import SMALLEST, widest_word
from app.views.theme import theme

#: a hand's cards are drawn at most this tall, and squeezed to no less (34 dp wide):
#: at 320x480 six hands fit so, with the dealer, the side bet, the hint and the actions
CARD_MOST, CARD_LEAST = dp(72), dp(49)
#: a hand row's height (and width) beyond its cards (padding and frame)
ROW_EXTRA = dp(8)
#: the share of a hand row's width (inside its padding) its cards get, and the most
#: they may take from the text when a long hand needs it
CARDS_SHARE, CARDS_MOST_SHARE = 0.32, 0.62
#: between a hand row's cards and its text
ROW_SPACING = dp(6)
#: no text on the tables is smaller (sp)
MIN_TEXT_SP = 12
#: the font of the box buttons while the bets are made
BOX_FONT = sp(12)


class SqueezeLabel(Label):
    """A label whose text fits its box both ways: the font shrinks (to 60 % at most,
    never under ``least_font_size``, :data:`MIN_TEXT_SP` unless set) until the longest
    word fits the width and the wrapped lines fit the height."""

    base_font_size = NumericProperty(dp(14))
    least_font_size = NumericProperty(sp(MIN_TEXT_SP))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # at once, not on the next frame: what is drawn always fits
        for name in ("size", "text", "base_font_size", "least_font_size", "bold"):
            self.fbind(name, self._fit)
        self._fit()

    def _fit(self, *_args: Any) -> None:
        self.text_size = (self.width, None)
        size = self.base_font_size
        # shrinks, but not under ``least_font_size``: the layout gives a long text lines
        floor = min(size, max(size * SMALLEST, self.least_font_size))
        words = tuple(self.text.split())
        if not words or self.width <= 1:
            self.font_size = size
            return
        widest = widest_word(words, size, bool(self.bold), self.font_name)
        if widest > self.width:
            size = max(floor, size * self.width / widest * 0.98)
        while True:
            self.font_size = size
            self.texture_update()
            if self.texture_size[1] <= self.height or size <= floor:
                return
            size = max(floor, size * 0.9)


class BjHandRow(BoxLayout):
    """One hand: its cards, the box it is on, its total, and its stakes or result."""

    hand = ObjectProperty(None, allownone=True)
    title = StringProperty("")
    #: in play what happened and the stakes; once settled the result (the player's own)
    detail = StringProperty("")
    card_height = NumericProperty(CARD_MOST)
    #: the width the cards get (see :func:`hand_room`)
    cards_width = NumericProperty(dp(90))


def hand_detail(result: str, status: str, stakes: str, you: str) -> str:
    """The last line of a hand row: the stakes while it is played, the result once it
    is settled; of the results of a box with bets behind only the player's own.

    >>> hand_detail("Bruno: won (+10)\\nYou: won (+5)", "", "", "You")
    'You: won (+5)'
    >>> hand_detail("", "stood", "You 10", "You")
    'stood · You 10'
    """
    if result:
        mine = [line for line in result.split("\n") if line.startswith(you + ":")]
        return mine[0] if mine else result
    return (status + " · " if status else "") + stakes


def box_rows(boxes: Iterable[Any]) -> Iterator[tuple[Any, str, str]]:
    """(hand, title, detail) of every hand row of ``boxes`` (each with ``number``,
    ``owner`` and ``hands``): the box and its owner, or which hand of a split box."""
    for box in boxes:
        for i, hand in enumerate(box.hands):
            title = _("Box {n}").format(n=box.number) + f" · {box.owner}"
            if len(box.hands) > 1:
                title = _("Box {box}, hand {hand}").format(box=box.number, hand=i + 1)
            yield hand, title, hand_detail(hand.result, hand.status, hand.stakes, _("You"))


def show_hand(row: Any, hand: Any, title: str, detail: str, four_colour: bool) -> None:
    """Fill a :class:`BjHandRow` (a pooled one is updated, not rebuilt)."""
    row.hand, row.title, row.detail = hand, title, detail
    row.ids.cards.cards = list(hand.cards)
    row.ids.cards.four_colour = four_colour


def hands_grid(count: int, width: float, height: float, spacing: float) -> tuple[int, float]:
    """Columns and row height for ``count`` hand rows in ``width`` x ``height``: one
    column while the cards stay at least :data:`CARD_LEAST` tall, else two or three
    (each column at least 150 dp wide); rows no taller than the cards need.

    >>> hands_grid(2, 304, 300, 4)[0], hands_grid(6, 304, 200, 4)[0]
    (1, 2)
    """
    best = (1, 0.0)
    for cols in (1, 2, 3):
        if cols > 1 and width / cols < dp(150):
            break
        rows = math.ceil(count / cols)
        row = min(CARD_MOST * theme.card_scale + ROW_EXTRA, (height - (rows - 1) * spacing) / rows)
        if row > best[1]:
            best = (cols, row)
        if row - ROW_EXTRA >= CARD_LEAST:
            return cols, row
    return best


Builder.load_file(str(Path(__file__).with_suffix(".kv")))

ACTION_LABELS = {
    "hit": N_("Hit"),
    "stand": N_("Stand"),
    "double": N_("Double"),
    "split": N_("Split"),
    "surrender": N_("Surrender"),
}


def dealer_card_height(screen_height: float) -> float:
    """The dealer's cards: smaller on a short screen, never under :data:`CARD_LEAST`."""
    return float(min(dp(80) * theme.card_scale, max(CARD_LEAST, screen_height * 0.13)))


def fit_rows(grid: Any, room: Any, betting: bool) -> None:
    """Lay the rows of ``grid`` out in ``room`` (no scrolling): the box buttons while
    the bets are made (48-64 dp tall), else the hand rows in one column, or two or
    three when the cards would get too small (:func:`hands_grid`)."""
    rows = list(grid.children)
    if not rows:
        return
    if betting:
        lines = math.ceil(len(rows) / grid.cols)
        each = (room.height - (lines - 1) * grid.spacing[1]) / lines
        for b in rows:
            b.height = max(theme.touch, min(dp(64), each))
        return
    cols, height = hands_grid(len(rows), room.width, room.height, grid.spacing[1])
    grid.cols = cols
    row_width = (room.width - (cols - 1) * grid.spacing[0]) / cols
    for row in rows:
        row.height = height
        row.cards_width, row.card_height = hand_room(
            len(row.ids.cards.cards), row_width, height - ROW_EXTRA
        )


def hand_room(cards: int, row_width: float, tallest: float) -> tuple[float, float]:
    """The width of a hand row's cards and their height: :data:`CARDS_SHARE` of the
    row (beside the text), more (up to :data:`CARDS_MOST_SHARE`) when the cards
    could be taller than that leaves them (``tallest``); the cards overlap as closely
    as HandView overlaps them (each rank corner shows beside the next card), and the
    hand never reaches into the row's text.

    >>> w, h = hand_room(2, 304, 64)           # one column at 320x480: as always
    >>> round(w), round(h)
    (93, 64)
    >>> w, h = hand_room(4, 150, 49)           # a long hand in a second column
    >>> round(w), h >= 49                      # (every rank corner shows)
    (84, True)
    """
    inner = row_width - ROW_EXTRA - ROW_SPACING
    spread = 1 + CLOSEST_STEP * (cards - 1)
    usual = inner * CARDS_SHARE
    needed = tallest * CARD_RATIO * spread
    width = min(max(usual, needed), inner * CARDS_MOST_SHARE)
    return width, max(1.0, min(tallest, width / (CARD_RATIO * spread)))


#: makes a button: (name, text, callback, enabled, quiet) -> the button
MakeButton = Callable[..., Any]


def named_button(
    buttons: dict[str, Any],
    name: str,
    text: str,
    callback: Callable[[], Any],
    enabled: bool = True,
    quiet: bool = False,
) -> Any:
    """An action button (``quiet``: a secondary one) kept in ``buttons`` by ``name``
    (tests and demos press them by name)."""
    b = (Factory.QuietButton if quiet else Factory.AppButton)(text=text)
    b.disabled = not enabled
    b.bind(on_release=lambda *_a: callback())
    buttons[name] = b
    return b


def prompt_widgets(prompt: Any, button: MakeButton, decide: Callable[..., Any]) -> list[Any]:
    """The question the round asks (insurance, even money, follow a double) and a row
    of its answers; ``decide(action, box, amount)`` sends one."""
    row = BoxLayout(size_hint_y=None, height=dp(56), spacing=dp(6))
    for action, label, amount in prompt.choices:
        row.add_widget(button(action, label, functools.partial(decide, action, prompt.box, amount)))
    return [Factory.Body(text=prompt.text, halign="center"), row]


def chip_grid(low: Fraction, high: Fraction, button: MakeButton, bet: Callable[..., Any]) -> Any:
    """The chip buttons for a bet between ``low`` and ``high`` (rows of three)."""
    row = GridLayout(cols=3, size_hint_y=None, spacing=dp(4))
    row.bind(minimum_height=row.setter("height"))
    for value in chip_choices(low, high):
        row.add_widget(
            button(f"chip{value}", chips(value), functools.partial(bet, value), quiet=True)
        )
    return row


def bet_widgets(
    box: Any, bet_range: tuple[Fraction, Fraction] | None, button: MakeButton, bet: Any
) -> list[Any]:
    """What to bet on the chosen box: which box (own, or behind its owner) and its
    chip buttons; ``box`` is (number, owner, behind), or falsy when it takes no bet."""
    if not box or bet_range is None:
        return []
    number, owner, behind = box
    if behind:
        what = _("Bet behind {owner} on box {n}:").format(owner=owner, n=number)
    else:
        what = _("Bet on box {n}:").format(n=number)
    return [Factory.Caption(text=what), chip_grid(*bet_range, button, bet)]


def side_bet_row(
    side_bet: tuple[Fraction, Fraction] | None, button: MakeButton, place: Callable[..., Any]
) -> Any:
    """A row of quiet buttons under the chips, starting with the dealer-busts bet at
    its lowest stake (when it is open); callers add theirs."""
    row = BoxLayout(size_hint_y=None, height=theme.touch, spacing=dp(4))
    row.bind(minimum_height=lambda w, h: setattr(w, "height", max(theme.touch, h)))
    if side_bet is not None:
        lo = side_bet[0]
        text = _("Dealer busts bet: {amount}").format(amount=chips(lo))
        row.add_widget(button("side_bet", text, lambda: place(lo), quiet=True))
    return row


def action_grid(
    actions: dict[str, bool],
    width: float,
    left_handed: bool,
    button: MakeButton,
    decide: Callable[..., Any],
) -> Any:
    """The legal play actions only, hit and stand always first (mirrored for the left
    hand): one row of them where each gets 76 dp, else rows of three. Every action
    gets a button (the illegal ones disabled and not shown)."""
    labels = list(ACTION_LABELS.items())
    if left_handed:  # mirrored, the main actions under the left thumb
        labels = labels[2::-1] + labels[:2:-1]
    shown = []
    for kind, label in labels:
        legal = actions.get(kind, False)
        b = button(kind, _(label), functools.partial(decide, kind), legal)
        if legal:
            shown.append(b)

    def columns(w: float) -> int:
        return max(1, len(shown) if len(shown) * dp(76) <= w else 3)

    grid = GridLayout(cols=columns(width), size_hint_y=None, spacing=dp(4))
    grid.bind(minimum_height=grid.setter("height"))
    # the row's own width decides once it is laid out (a screen drawn before its
    # first layout passes a width it does not have yet)
    grid.bind(width=lambda g, w: setattr(g, "cols", columns(w)))
    for b in shown:
        grid.add_widget(b)
    return grid


class BlackjackTableScreen(BaseScreen):
    title = StringProperty(N_("Blackjack"))
    up = StringProperty("bj_menu")
    vm = ObjectProperty(None, allownone=True)
    selected_box = NumericProperty(0)
    #: the dealer's cards: smaller on a short screen, never under CARD_LEAST
    dealer_card_height = NumericProperty(dp(80))

    #: the deck of the next session (demos and tests seed it or script the shoe)
    demo_rng: Any = None
    demo_shoe: Any = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the buttons now on screen by name ("hit", "deal", "box3", "chip10", ...)
        self.buttons: dict[str, Any] = {}
        self._row_pool: list[Any] = []
        self._fit_trigger = Clock.create_trigger(lambda _dt: self.fit_hands(), -1)
        self.fbind("height", self._fit_trigger)

    @property
    def game(self) -> Any:
        return self.app.controllers.get("blackjack")

    def start_session(self, rng: Any = None) -> None:
        """A new session with the saved table rules (a bot box owner when betting behind)."""
        from app.views.blackjack.game import BlackjackGame, saved_rules

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

    def _button(
        self,
        name: str,
        text: str,
        callback: Callable[[], Any],
        enabled: bool = True,
        quiet: bool = False,
    ) -> Any:
        return named_button(self.buttons, name, text, callback, enabled, quiet)

    def _render_boxes(self, vm: BlackjackTableVM) -> None:
        area = self.ids.boxes
        area.clear_widgets()
        if vm.phase == "betting":
            if not self.selected_box or not any(
                b.number == self.selected_box and b.bet_range for b in vm.boxes
            ):
                self.selected_box = next((b.number for b in vm.boxes if b.bet_range), 0)
            area.cols = 4
            rnd = self.game.round
            for box in vm.boxes:
                # the box and the player's own stake on it (who else bets there is said
                # under the boxes when it is chosen, and on the table after the deal)
                mine = [h.stake_of(self.game.me) for h in rnd.box_hands(box.number)]
                stake = sum((s.amount for s in mine if s is not None), Fraction(0))
                text = _("Box {n}").format(n=box.number) + (f"\n{chips(stake)}" if stake else "")
                b = Factory.ChoiceButton(
                    text=text,
                    group="bj-box",
                    halign="center",
                    state="down" if box.number == self.selected_box else "normal",
                    height=dp(64),
                    base_font_size=BOX_FONT,
                )
                b.disabled = box.bet_range is None and not box.hands
                b.bind(on_release=lambda _b, n=box.number: self.select_box(n))
                self.buttons[f"box{box.number}"] = b
                area.add_widget(b)
            self._fit_trigger()
            return
        # rows come from a pool: a move updates them instead of building new widgets
        rows = iter(self._row_pool)
        area.cols = 1
        for hand, title, detail in box_rows(vm.boxes):
            row = next(rows, None) or self._pooled(self._row_pool, "BjHandRow")
            show_hand(row, hand, title, detail, self.app.prefs.four_colour_deck)
            area.add_widget(row)
        self._fit_trigger()

    def fit_hands(self) -> None:
        """Lay the hands out in the room the screen leaves them (no scrolling)."""
        self.dealer_card_height = dealer_card_height(self.height)
        if self.vm is not None:
            fit_rows(self.ids.boxes, self.ids.area, self.vm.phase == "betting")

    @staticmethod
    def _pooled(pool: list[Any], kind: str, **kwargs: Any) -> Any:
        widget = getattr(Factory, kind)(**kwargs)
        pool.append(widget)
        return widget

    def _render_controls(self, vm: BlackjackTableVM) -> None:
        box = self.ids.controls
        box.clear_widgets()
        if vm.prompt is not None:
            for widget in prompt_widgets(vm.prompt, self._button, self.decide):
                box.add_widget(widget)
        elif vm.phase == "betting":
            chosen = next((b for b in vm.boxes if b.number == self.selected_box), None)
            # the chosen box's chips; one row: the side bet, rebet, clear; then the
            # deal, under the thumb
            for widget in bet_widgets(
                chosen and chosen.bet_range and (chosen.number, chosen.owner, chosen.behind),
                chosen.bet_range if chosen else None,
                self._button,
                self.bet,
            ):
                box.add_widget(widget)
            again = side_bet_row(vm.side_bet, self._button, self.side_bet)
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
            grid = action_grid(
                vm.actions, box.width, self.app.prefs.left_handed, self._button, self.decide
            )
            box.add_widget(grid)

    # -- intents -------------------------------------------------------------------------
    def _do(self, func: Callable[..., Any], *args: Any) -> None:
        try:
            func(*args)
        except ValueError as exc:  # IllegalAction / SessionError: shown, nothing changes
            self.app.notify(error_message(exc))
        self.refresh()

    def select_box(self, number: int) -> None:
        self.selected_box = number
        self.refresh()

    def bet(self, amount: Fraction | int) -> None:
        self._do(self.game.bet, self.selected_box, amount)

    def side_bet(self, amount: Fraction | int) -> None:
        self._do(self.game.side_bet, amount)

    def rebet(self) -> None:
        self._do(self.game.rebet)

    def clear_bets(self) -> None:
        self._do(self.game.clear_bets)

    def deal(self) -> None:
        self._do(self.game.deal)

    def decide(self, kind: str, box: int | None = None, amount: Fraction | None = None) -> None:
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
