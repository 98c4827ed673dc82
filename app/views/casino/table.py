"""The networked casino table: every box of 2-7 players, the bets behind them, the
dealer, whose turn it is with its countdown, every player's chips, and this player's
legal actions. The screen renders :func:`app.views.casino.vm.present_casino` of the
table's snapshot and sends intents to the table (``app.controllers["casino"]``, a
:class:`app.views.casino.network.CasinoNet`); the engine copy on this phone decides what
is legal. The table fits the window without scrolling up or down: while every hand
keeps readable cards it shows them all as the one-phone table does (its hand rows,
fitting and action rows are :mod:`app.views.blackjack.table`'s); on a crowded table (a
small phone, seven boxes, split hands) the player's own boxes stay big below the
dealer and the other boxes become compact chips in a row that scrolls sideways to
the box in play (:func:`focus_boxes`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from app.cards import Card
from app.i18n import N_, _
from app.views.base import BaseScreen
from app.views.blackjack.table import (
    BOX_FONT,
    CARD_LEAST,
    MIN_TEXT_SP,
    ROW_EXTRA,
    action_grid,
    bet_widgets,
    box_rows,
    fit_rows,
    hand_detail,
    hands_grid,
    named_button,
    prompt_widgets,
    show_hand,
    side_bet_row,
)
from app.views.blackjack.vm import HandVM, chips
from app.views.cardtex import SUIT_SYMBOLS, rank_text
from app.views.casino.network import (
    Act,
    BetsDone,
    CasinoIntent,
    CasinoNet,
    LeaveBox,
    Start,
    TakeBox,
)
from app.views.casino.vm import CasinoBoxVM, CasinoVM, action_for, present_casino
from app.views.fit import wrapped_lines
from app.views.table.bridge import Outcome
from app.views.theme import theme

#: the status's font with the shoe's fingerprint after it (DejaVu Sans has the ✓ and ✗)
FAIRNESS_FONT = "data/fonts/DejaVuSans.ttf"

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: a chip of another box on a crowded table: its width (more for a long hand), the
#: height of its title and detail lines and of each hand's line
CHIP_WIDTH, CHIP_WIDEST = dp(116), dp(260)
CHIP_LINE, CHIP_HAND = dp(17), dp(20)
#: the status's share of its row beside the player's balance
STATUS_SHARE = 0.68
#: the dealer's row on a crowded table: readable cards and no more
DEALER_ROW = CARD_LEAST + ROW_EXTRA
#: between the dealer's row, the chips and the player's own hands
AREA_SPACING = dp(4)
#: How often the turn line's seconds are counted down (s): a clock, not a poll
COUNTDOWN = 0.25


def host_leaves_question() -> str:
    """What the host is asked before he leaves his casino table."""
    return _("Leave the table? You are its host: the table ends for every player.")


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
    if not box.staked:
        return text
    if box.behind_staked:  # the owner's bet + the bets behind it
        own = chips(box.staked - box.behind_staked)
        return text + f"\n{own} + {chips(box.behind_staked)}"
    return text + f"\n{chips(box.staked)}"


def cards_text(cards: tuple[int, ...]) -> str:
    """A hand's cards as their indices and suits ("10♣ 7♥"; a face-down card is "?").

    >>> cards_text((Card.parse("Tc").code, Card.parse("7h").code))
    '10♣ 7♥'
    """
    out = []
    for code in cards:
        if 0 <= code < 52:
            card = Card.from_code(code)
            out.append(rank_text(card.rank) + SUIT_SYMBOLS[card.suit])
        else:
            out.append("?")
    return " ".join(out)


def paired(lines: tuple[str, ...]) -> tuple[str, ...]:
    """A chip's hand lines: one a line for one or two hands, two a line for three or
    four (the chips' row stays two hands tall).

    >>> paired(("a", "b", "c"))
    ('a   b', 'c')
    """
    if len(lines) <= 2:
        return lines
    return tuple("   ".join(lines[i : i + 2]) for i in range(0, len(lines), 2))


def chip_lines(box: CasinoBoxVM, numbers: tuple[int, ...] = ()) -> tuple[str, tuple[str, ...], str]:
    """A box as a compact chip: its title, one line per hand (the hand in play marked;
    numbered when there are more than two or when ``numbers`` say which of the box's
    hands these are) and the stakes on it (everyone's, the bets behind included) or,
    once settled, the results (the player's own when he has a stake on it).

    >>> from fractions import Fraction
    >>> h = HandVM(1, (Card.parse("Tc").code, Card.parse("7h").code), "17", "", "Ola 10 · You 5",
    ...            "", True)
    >>> b = CasinoBoxVM(2, "Ola", False, (h,), "You 5", Fraction(15), Fraction(5), None,
    ...                 True, False, False, True)
    >>> chip_lines(b)
    ('Box 2 · Ola', ('▶ 10♣ 7♥ · 17',), 'Ola 10 · You 5')
    """
    title = _("Box {n}").format(n=box.number) + f" · {box.owner}"
    hands = tuple(
        ("▶ " if h.current else "")
        + (f"{i}: " if numbers or len(box.hands) > 2 else "")
        + cards_text(h.cards)
        + " · "
        + h.total
        for i, h in zip(numbers or range(1, len(box.hands) + 1), box.hands, strict=True)
    )
    results = [hand_detail(h.result, "", "", _("You")) for h in box.hands if h.result]
    if results:  # (a name said once for its hands in a row: "You: lost (-10) · won (+10)")
        out, last = [], ""
        for line in (line for r in results for line in r.split("\n")):
            name, colon, rest = line.partition(": ")
            out.append(rest if colon and name == last else line)
            last = name if colon else ""
        detail = " · ".join(out)
    else:
        detail = " · ".join(dict.fromkeys(h.stakes for h in box.hands if h.stakes))
    return title, hands, detail


def focus_boxes(
    boxes: tuple[CasinoBoxVM, ...], readable: Any, crowded: bool = False, prefer: int = 0
) -> tuple[tuple[CasinoBoxVM, ...], tuple[CasinoBoxVM, ...]]:
    """The boxes shown as big hand rows and those shown as chips. ``readable(n,
    crowded)`` says whether ``n`` hand rows keep readable cards (``crowded``: beside
    the dealer's own row and the chips). Every box is big while all fit with the
    dealer (and the table was not ``crowded`` already this round); else the player's
    own boxes (or those he bet behind, or the box in play), and when even they do
    not fit, the one of them in play (else box ``prefer``, else the first).

    >>> from fractions import Fraction
    >>> h = HandVM(1, (1, 2), "5", "", "", "", False)
    >>> def box(n, mine, in_play=False):
    ...     return CasinoBoxVM(n, "x", mine, (h,), "", Fraction(10), Fraction(10 * mine),
    ...                        None, not mine, False, False, in_play)
    >>> bs = (box(1, True), box(2, False, True), box(3, True))
    >>> [[b.number for b in part] for part in focus_boxes(bs, lambda n, c: n <= 4)]
    [[1, 2, 3], []]
    >>> [[b.number for b in part] for part in focus_boxes(bs, lambda n, c: n <= 2)]
    [[1, 3], [2]]
    >>> [[b.number for b in part] for part in focus_boxes(bs, lambda n, c: n <= 1)]
    [[1], [2, 3]]
    """
    played = tuple(b for b in boxes if b.hands)

    def rows(part: tuple[CasinoBoxVM, ...]) -> int:
        return sum(len(b.hands) for b in part)

    if not crowded and readable(1 + rows(played), False):  # the dealer and every hand
        return played, ()
    focus = (
        tuple(b for b in played if b.mine)
        or tuple(b for b in played if b.my_stake)
        or tuple(b for b in played if b.in_play)
        or played[:1]
    )
    if len(focus) > 1 and not readable(rows(focus), True):
        focus = (
            tuple(b for b in focus if b.in_play)
            or tuple(b for b in focus if b.number == prefer)
            or focus[:1]
        )
    return focus, tuple(b for b in played if b not in focus)


class CasinoBoxChip(BoxLayout):
    """Another box on a crowded table: its owner, each hand's cards and total, and
    the stakes on it (the bets behind included) or the results; framed while it is
    in play."""

    title = StringProperty("")
    hands_text = StringProperty("")
    hand_lines = NumericProperty(1)
    detail = StringProperty("")
    current = BooleanProperty(False)


def chip_width(title: str, hands: tuple[str, ...], detail: str = "") -> float:
    """A chip wide enough for its longest line at its usual font (within bounds: the
    row of chips scrolls sideways, so a wide chip costs no text size)."""
    longest = max(len(t) for t in (title, *paired(hands), detail))
    return float(min(CHIP_WIDEST, max(CHIP_WIDTH, dp(8.4) * theme.font_scale * longest)))


class Room(NamedTuple):
    """The room a group of rows is fitted in."""

    width: float
    height: float


def chips_height(boxes: tuple[CasinoBoxVM, ...]) -> float:
    """The height of the row of chips: its title and detail lines and the most hands
    of a box."""
    most = min(2, max((len(b.hands) for b in boxes), default=1))
    return float((2 * CHIP_LINE + most * CHIP_HAND) * theme.font_scale + dp(10))


def scroll_to_chip(chips: list[tuple[int, float]], box: int, view: float, spacing: float) -> float:
    """The ``scroll_x`` that centres box ``box``'s chip in a row ``view`` wide of
    ``chips`` ((box, width) in order), computed from the widths, not from a layout
    that may not have run yet.

    >>> scroll_to_chip([(2, 100), (4, 100), (5, 100)], 5, 150, 0)
    1.0
    >>> scroll_to_chip([(2, 100), (4, 100), (5, 100)], 4, 150, 0)
    0.5
    """
    content = sum(w for _n, w in chips) + spacing * (len(chips) - 1)
    if content <= view:
        return 0.0
    x = 0.0
    for number, width in chips:
        if number == box:
            centre = x + width / 2
            return float(min(1.0, max(0.0, (centre - view / 2) / (content - view))))
        x += width + spacing
    return 0.0


class CasinoScreen(BaseScreen):
    """A screen of the casino table (``app.controllers["casino"]``): while it is shown
    it follows the table's pushed updates (:meth:`changed`, called on the UI thread by
    the table's bridge) and counts the seconds down (:meth:`countdown`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ticker: Any = None
        self._followed: CasinoNet | None = None
        self._unfollow: Callable[[], None] | None = None
        self._shown: object = None  # the table state last rendered

    @property
    def net(self) -> CasinoNet | None:
        net = self.app.controllers.get("casino")
        return net if isinstance(net, CasinoNet) else None

    def on_enter(self, *_args: Any) -> None:
        self._follow()
        if self._ticker is None:  # (the clock of a deadline: nothing is polled)
            self._ticker = Clock.schedule_interval(lambda _dt: self.countdown(), COUNTDOWN)
        self._pushed()

    def on_leave(self, *_args: Any) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._unfollow is not None:
            self._unfollow()
        self._followed = self._unfollow = None

    def _follow(self) -> None:
        """Listen to the table now in ``app.controllers`` (a new table: to it)."""
        net = self.net
        if net is self._followed:
            return
        if self._unfollow is not None:
            self._unfollow()
        self._followed, self._unfollow = net, None if net is None else net.listen(self._pushed)

    def _pushed(self) -> None:
        """The table changed (UI thread): render it."""
        net = self.net
        self._shown = None if net is None else (net.state, net.error)
        self.changed()

    def tick(self, _dt: float = 0) -> None:
        """Show the table's newest state now if it was not shown yet, else count down
        (demos and tests drive the screen with it; the app needs no call)."""
        self._follow()
        net = self.net
        if net is not None:
            net.sync()
            if (net.state, net.error) != self._shown:
                self._pushed()
                return
        self.countdown()

    def changed(self) -> None:
        """The table changed (override)."""

    def countdown(self) -> None:
        """Let the clock of a deadline run (override)."""

    def _answered(self, outcome: Outcome) -> None:
        """An intent's answer (UI thread): a refused one is shown with its reason."""
        if not outcome.accepted:
            self.app.notify(outcome.message)
            self.refresh()


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
    #: the lines the status takes at 12 sp (its row grows rather than its font shrink)
    status_lines = NumericProperty(2)
    status_wide = BooleanProperty(False)
    #: the shoe's fingerprint in short after the status (a short screen, a free line)
    status_fairness = StringProperty("")
    #: or in its own line under the chips, where it does not fit there
    fairness_line = StringProperty("")
    #: a crowded table: the player's own boxes as rows, the others as chips
    crowded = BooleanProperty(False)
    strip_height = NumericProperty(0)
    #: the clock the deadlines are read on (the table's; tests inject their own)
    clock = staticmethod(time.monotonic)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the buttons now on screen by name ("hit", "box3", "chip10", "take3", ...)
        self.buttons: dict[str, Any] = {}
        self._row_pool: list[Any] = []
        #: the chips of the other boxes on a crowded table, by box number
        self.chips: dict[int, CasinoBoxChip] = {}
        self._focus_shown: tuple[int, ...] = ()
        self._crowded_round = False
        #: the player's box shown big when only one of his boxes fits (kept while
        #: the others play and once settled)
        self._focus_box = 0
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

    def leave_question(self) -> str:
        net = self.net
        if net is not None and net.hosting:
            return host_leaves_question()
        return super().leave_question()

    def leave(self) -> None:
        """The player leaves the table (confirmed); the host's leaving ends it."""
        net = self.app.controllers.pop("casino", None)
        if net is not None:
            net.leave()

    # -- following the table ---------------------------------------------------------------
    def changed(self) -> None:
        """A full re-render on every pushed change of the table."""
        self.refresh()

    def countdown(self) -> None:
        """The turn line's seconds, once a second (only that line changes: the buttons
        stay, a finger on one keeps its tap; at most one new label texture a second)."""
        net = self.net
        snap = None if net is None else net.snapshot()
        if net is not None and snap is not None and snap.deadline is not None and self.vm:
            vm = present_casino(
                snap, self.clock(), hosting=bool(net.hosting), fairness=net.fairness
            )
            if vm.seconds_left != self._seconds:
                self.vm, self._seconds = vm, vm.seconds_left
                self._set_turn_text(vm)

    # -- rendering -----------------------------------------------------------------------
    def refresh(self) -> None:
        net = self.net
        snap = None if net is None else net.snapshot()
        if net is None or snap is None:
            self.vm = None
            self.turn_text = _("No game in progress.")
            self.alert_text = ""
            self.ids.boxes.clear_widgets()
            self.ids.controls.clear_widgets()
            return
        vm = present_casino(snap, self.clock(), hosting=bool(net.hosting), fairness=net.fairness)
        self.vm = vm
        self._seconds = vm.seconds_left
        if vm.my_turn and not self._was_my_turn:
            self.your_turn()
        self._was_my_turn = vm.my_turn
        self._set_turn_text(vm)
        alerts = [vm.cheater] + ([vm.message] if vm.message and vm.message != vm.cheater else [])
        self.alert_text = "\n".join(a for a in alerts if a)
        self.alert_lines = 2 * max(1, self.alert_text.count("\n") + 1)  # two lines each
        self.fit_status(self.ids.status)  # (the fingerprint may come with the status kept)
        self.buttons = {}
        self._render_boxes(vm)
        self._render_controls(vm)

    def fit_status(self, label: Any) -> None:
        """Make the status row as tall as the status wrapped at 12 sp (two lines at
        least: the row never jumps between one and two); a status that needs more
        beside the balance takes the whole row (the chips line has the player's chips)."""
        row = label.parent.width if label.parent is not None else 0
        if row <= 1:
            return
        size = sp(MIN_TEXT_SP) * theme.font_scale

        def lines(text: str, width: float, font: str = "Roboto") -> int:
            return wrapped_lines(text, width * 0.97, size, bool(label.bold), font)

        vm = self.vm
        status = vm.status if vm is not None else ""
        self.status_wide = lines(status, row * STATUS_SHARE) > 2
        width = row if self.status_wide else row * STATUS_SHARE
        self.status_lines = max(2, lines(status, width))
        # on a short screen the shoe's fingerprint in short at the status's end, where
        # it takes no line of the boxes' room (the full lines on a taller screen)
        short = vm.fairness_short if vm is not None and self.height <= dp(560) else ""
        fits = short and lines(f"{status} · {short}", width, FAIRNESS_FONT) <= self.status_lines
        self.status_fairness = f" · {short}" if fits else ""
        # else its own line under the chips while the hand rows (which fit any room)
        # are shown and no message is: the box buttons of the bets and the cards keep
        # their room
        rows = vm is not None and not self._betting(vm) and not self.alert_text
        self.fairness_line = short if short and not fits and rows else ""

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
        self.ids.dealer.clear_widgets()
        self.ids.others.clear_widgets()
        self.chips = {}
        self.crowded, self.strip_height = False, 0
        if vm.over:  # the table has ended: its message and the player's chips say all
            return
        if self._betting(vm):
            self._crowded_round, self._focus_box = False, 0  # a new round decides again
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
        self._render_hands(vm)

    def _room(self) -> tuple[float, float]:
        """The room of the hands as it is while the player decides (a row of actions
        two lines tall, the turn line, the side bet) or once the round is settled
        (three lines), whichever is less: the table keeps its layout as the turn goes
        round."""
        ids = self.ids
        now = ids.controls.height + ids.turn.height + ids.side_bet.height
        scale = theme.font_scale
        turn = sp(14) * scale
        # an action's name may take two lines ("Keine Karte"): its button grows
        actions = max(theme.touch, 2 * sp(18) * scale * 1.2 + dp(16))
        deciding = actions + turn * (1.4 + 0.3) + sp(13) * scale * 1.4
        steady = max(deciding, turn * (1.4 * 3 + 0.3))
        return ids.area.width, ids.area.height + now - steady

    def _readable(self, rows: int, crowded: bool, strip: float = 0) -> bool:
        """``rows`` hand rows keep readable cards in the room the table leaves them
        (``crowded``: below the dealer's own row and the chips of height ``strip``)."""
        width, height = self._room()
        if crowded:
            height -= DEALER_ROW + 2 * AREA_SPACING + strip
        spacing = self.ids.boxes.spacing[1]
        return bool(hands_grid(rows, width, height, spacing)[1] - ROW_EXTRA >= CARD_LEAST)

    def _focus(self, vm: CasinoVM) -> tuple[tuple[CasinoBoxVM, ...], tuple[CasinoBoxVM, ...]]:
        strip = chips_height(vm.boxes)
        return focus_boxes(
            vm.boxes,
            lambda n, crowded: self._readable(n, crowded, strip),
            crowded=self._crowded_round,
            prefer=self._focus_box,
        )

    def _render_hands(self, vm: CasinoVM) -> None:
        """The dealer and the hands: every box as hand rows while they all keep
        readable cards, else the player's own boxes as rows and the others as chips."""
        area, dealer_box, strip = self.ids.boxes, self.ids.dealer, self.ids.others
        area.clear_widgets()
        dealer_box.clear_widgets()
        strip.clear_widgets()
        self.chips = {}
        big, small = self._focus(vm)
        self.crowded = bool(small)
        # once crowded, the round stays so (a message or a split does not flip it back)
        self._crowded_round = self._crowded_round or self.crowded
        self._focus_shown = tuple(b.number for b in big)
        if len(big) == 1 and self.crowded:
            self._focus_box = big[0].number
        rows = iter(self._row_pool)
        area.cols = 1
        four_colour = self.app.prefs.four_colour_deck
        if vm.dealer_cards:
            # the dealer is the first row: on a table whose hands all fit he takes the
            # place a second column leaves free; on a crowded one he has his own row
            row = next(rows, None) or self._pooled()
            dealer = HandVM(0, vm.dealer_cards, vm.dealer_total, "", "", "", False)
            show_hand(row, dealer, _("Dealer"), "", four_colour)
            (dealer_box if self.crowded else area).add_widget(row)
        numbers: dict[int, tuple[int, ...]] = {}
        first = 0  # a window on a split box: the number of its first hand shown
        if len(big) == 1 and self.crowded:
            big, small, numbers, first = self._window(big[0], small)
        for i, (hand, title, detail) in enumerate(box_rows(big)):
            if first:
                title = _("Box {box}, hand {hand}").format(box=big[0].number, hand=first + i)
            row = next(rows, None) or self._pooled()
            show_hand(row, hand, title, detail, four_colour)
            area.add_widget(row)
        self.strip_height = chips_height(small) if small else 0
        for box in small:
            title, hands, detail = chip_lines(box, numbers.get(box.number, ()))
            chip = CasinoBoxChip(
                title=title,
                hands_text="\n".join(paired(hands)),
                hand_lines=len(paired(hands)),
                detail=detail,
                current=box.in_play,
                width=chip_width(title, hands, detail),
            )
            self.chips[box.number] = chip
            strip.add_widget(chip)
        self._fit_trigger()

    def _window(
        self, box: CasinoBoxVM, others: tuple[CasinoBoxVM, ...]
    ) -> tuple[tuple[CasinoBoxVM, ...], tuple[CasinoBoxVM, ...], dict[int, tuple[int, ...]], int]:
        """The player's one big box when even its hands do not keep readable cards
        (split into three or four at 320x480): as many of its hands as fit, from the
        one in play on, stay rows; the others join the chips. Returns the big box, the
        chips, the numbers of the hands its chip shows and of its first hand shown
        big (0: all are)."""
        hands = box.hands
        strip = chips_height((*others, box))
        fit = next((n for n in range(len(hands), 0, -1) if self._readable(n, True, strip)), 1)
        if fit >= len(hands):
            return (box,), others, {}, 0
        at = next((i for i, h in enumerate(hands) if h.current), 0)
        start = max(0, min(at, len(hands) - fit))
        shown = replace(box, hands=hands[start : start + fit])
        rest = [i for i in range(len(hands)) if not start <= i < start + fit]
        rest_box = replace(box, hands=tuple(hands[i] for i in rest), in_play=False)
        chips = tuple(sorted((*others, rest_box), key=lambda b: b.number))
        return (shown,), chips, {box.number: tuple(i + 1 for i in rest)}, start + 1

    def _pooled(self) -> Any:
        row = Factory.BjHandRow()
        self._row_pool.append(row)
        return row

    def fit_hands(self) -> None:
        """Every box or hand in the room the screen leaves them (no scrolling up or
        down); the chip of the box in play (else the player's) scrolled into view."""
        vm = self.vm
        if vm is None:
            return
        betting = self._betting(vm)
        shown = tuple(b.number for b in self._focus(vm)[0])
        if not betting and not vm.over and shown != self._focus_shown:
            self._render_hands(vm)  # the room changed: more or fewer boxes fit
            return
        area = self.ids.area
        room = Room(area.width, area.height)
        if self.crowded and not betting:
            rest = area.height - DEALER_ROW - 2 * AREA_SPACING - self.strip_height
            room = Room(area.width, rest)
            fit_rows(self.ids.dealer, Room(area.width, DEALER_ROW), False)
        fit_rows(self.ids.boxes, room, betting)
        # the box in play, else (the round settled) the first chip with his money on it
        playing = next((b.number for b in vm.boxes if b.in_play), None) or next(
            (b.number for b in vm.boxes if b.my_stake and b.number in self.chips), None
        )
        if playing in self.chips:
            strip = self.ids.strip
            strip.scroll_x = scroll_to_chip(
                [(n, c.width) for n, c in self.chips.items()],
                playing,
                strip.width,
                self.ids.others.spacing,
            )

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
    def _send(self, intent: CasinoIntent) -> None:
        """Send ``intent`` (returns at once: the table's answer comes to
        :meth:`_answered`, what it changed in a pushed update)."""
        net = self.net
        if net is not None:
            net.submit(intent, self._answered)

    def _act(self, kind: str, box: int | None = None, amount: Any = None) -> None:
        net = self.net
        snap = None if net is None else net.snapshot()
        action = None if snap is None else action_for(snap, kind, box, amount)
        if action is None:  # the table moved on since the button was drawn
            self.app.notify(_("That is not possible any more."))
            self.refresh()
            return
        self._send(Act(action))

    def choose_box(self, number: int) -> None:
        """A free box: sit down at it; an own box or one to bet behind: choose it."""
        box = next((b for b in self.vm.boxes if b.number == number), None) if self.vm else None
        if box is not None and box.can_take:
            self.selected_box = number
            self._send(TakeBox(number))
            return
        self.selected_box = number
        self.refresh()

    def bet(self, amount: Fraction | int) -> None:
        self._act("bet", self.selected_box, amount)

    def side_bet(self, amount: Fraction | int) -> None:
        self._act("side_bet", None, amount)

    def leave_box(self, number: int) -> None:
        self._send(LeaveBox(number))

    def deal(self) -> None:
        """The player's bets are in."""
        self._send(BetsDone())

    def start(self) -> None:
        self._send(Start())

    def decide(self, kind: str, box: int | None = None, amount: Fraction | None = None) -> None:
        self._act(kind, box, amount)

    def back_to_menu(self) -> None:
        self.leave()
        self.app.go("oczko_menu", remember=False)
