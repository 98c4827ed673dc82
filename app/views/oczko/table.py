"""The Oczko table: own cards and total, the others' card counts and status, the turn
timer, scores, round and match results, tiebreaks, shuffle progress, table messages."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty

import app.views.cardtex  # noqa: F401  (defines HandView, used by the kv rules)
from app.i18n import N_, _
from app.i18n.codes import error_message
from app.views.base import BaseScreen
from app.views.oczko.vm import OczkoTableVM, ace_hint, present
from app.views.theme import theme

Builder.load_file(str(Path(__file__).with_suffix(".kv")))


def seat_cards_line(cards: Any, count_text: str) -> str:
    """Another player's cards as a line of text on a compact tile ("10♥ K♦ 4♦"); while
    any is face down, how many he holds ("2 cards")."""
    from app.cards import Card
    from app.views.cardtex import SUIT_SYMBOLS, rank_text

    if not cards or any(code < 0 for code in cards):
        return count_text
    shown = (Card.from_code(code) for code in cards)
    # one word (the suits part the cards): the hand stays on one line, its font gives
    # way for a long hand
    return "".join(rank_text(c.rank) + SUIT_SYMBOLS[c.suit] for c in shown)


BOT_NAMES = (
    N_("Ada (bot)"),
    N_("Bruno (bot)"),
    N_("Cyra (bot)"),
    N_("Dario (bot)"),
    N_("Ela (bot)"),
    N_("Fryc (bot)"),
)


class OczkoTableScreen(BaseScreen):
    title = StringProperty(N_("Oczko"))
    up = StringProperty("oczko_menu")
    vm = ObjectProperty(None, allownone=True)
    timer_fraction = NumericProperty(0)
    timer_text = StringProperty("")
    left_handed = BooleanProperty(False)
    #: a result on a short screen: the player's own cards as a line of text
    compact_result = BooleanProperty(False)
    my_cards_line = StringProperty("")
    #: the stored round "How was this deck shuffled?" opens (0: no button)
    fair_round = NumericProperty(0)
    #: the clock this screen reads (tests replace it to run a match in no time)
    clock = staticmethod(time.monotonic)
    #: the deck's random source for the next practice match (demos and tests seed it)
    demo_rng = None
    #: how many times the player was told it is his turn (tests)
    turn_alerts = 0

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ticker = None
        self._unlisten: Callable[[], None] | None = None
        self._was_my_turn = False
        self._turns_of = None  # the controller whose turns _was_my_turn follows
        self._other_seconds = -1
        self.message = ""
        self._fair_ids: dict[int, bool] = {}

    # -- the controller ------------------------------------------------------------------
    @property
    def controller(self) -> Any:
        return self.app.controllers.get("oczko")

    def start_practice(self, bots: int | None = None, rounds: int | None = None) -> None:
        """A new practice match against ``bots`` bots on this phone."""
        from app.views.oczko.practice import PracticeMatch

        prefs = self.app.prefs
        bots = bots or prefs.bots
        names = [prefs.player_name or _("You")] + [_(n) for n in BOT_NAMES[:bots]]
        delay = {"off": 0.3, "fast": 0.5, "normal": 0.9, "slow": 1.5}[prefs.animation_speed]
        self.app.controllers["oczko"] = PracticeMatch(
            names,
            rounds=rounds or prefs.oczko_rounds,
            turn_time=prefs.turn_time,
            bot_delay=delay,
            now=self.clock(),
            rng=self.demo_rng,
        )
        self.demo_rng = None
        self.message = ""

    def on_enter(self, *_args: Any) -> None:
        if self._ticker is None:  # (the clocks: practice's bots and timer, countdowns)
            self._ticker = Clock.schedule_interval(self.tick, 0.1)
        listen = getattr(self.controller, "listen", None)
        if listen is not None and self._unlisten is None:  # a networked table pushes
            self._unlisten = listen(self.tick)

    def on_leave(self, *_args: Any) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    def game_in_progress(self) -> bool:
        return self.controller is not None and not self.controller.over

    def can_return(self) -> bool:
        # the settings (or a round's fairness record) opened at the table go back to it,
        # also to a finished match's result
        return self.controller is not None

    def leave(self) -> None:
        """The player leaves the game (confirmed): he counts as gone."""
        if self.controller is not None:
            self.controller.leave()
            self.app.controllers.pop("oczko", None)
            self.app.controllers.pop("oczko_net", None)

    # -- rendering -----------------------------------------------------------------------
    def refresh(self) -> None:
        c = self.controller
        self.left_handed = self.app.prefs.left_handed
        if c is None:
            self.vm = None
            self._set_row([])
            return
        now = self.clock()
        vm = present(
            c.view(),
            c.names,
            c.time_left(now),
            c.turn_time,
            c.awaiting_next,
            # a networked table also reports table messages (a player left, cheating
            # detected: translated from their codes) and the SRA shuffle's progress
            getattr(c, "message", "") or self.message,
            getattr(c, "shuffle_progress", None),
            hints=self.app.prefs.show_hints,
            others_time=c.seat_time_left(now),
            fingerprint=getattr(c, "fingerprint", ""),
            shuffle_note=getattr(c, "shuffle_note", None),
            reading=self._reading(c, now),
            short=self._short(len(c.names)),
        )
        vm = self._first_round_hint(vm)
        self.vm = vm
        self.fair_round = self._fair_round(c, vm)
        self._render(vm)

    def _first_round_hint(self, vm: OczkoTableVM) -> OczkoTableVM:
        """A new player's first round: "the ace always counts 11" under his cards, once
        (remembered when that round is over)."""
        prefs = self.app.prefs
        if prefs.seen_ace_hint:
            return vm
        if vm.banner:  # his first round is over: he has read it
            self.app.update_prefs(seen_ace_hint=True)
            return vm
        text = ace_hint() + ("\n" + vm.hint if vm.hint else "")
        return replace(vm, hint=text)

    @staticmethod
    def _reading(c: Any, now: float) -> tuple[tuple[str, ...], float] | None:
        """A networked table's "who is still reading the result" (None: not waiting)."""
        still_reading = getattr(c, "still_reading", None)
        return None if still_reading is None else still_reading(now)

    def _fair_round(self, c: Any, vm: OczkoTableVM) -> int:
        """The id of the stored round whose shuffle the player may look into: the latest
        finished round of a networked table with a fairness record, while its result is
        shown (0: none)."""
        if not vm.banner or self.app.controllers.get("oczko_net") is not c:
            return 0
        from app.history.live import RECORDER

        round_id = RECORDER.latest_round_id(c)
        if round_id is None or RECORDER.store is None:
            return 0
        if round_id not in self._fair_ids:  # the store is read once per round
            record = RECORDER.store.round(round_id)
            self._fair_ids[round_id] = bool(record and "fingerprint" in (record.detail or {}))
        return round_id if self._fair_ids[round_id] else 0

    def on_fair(self) -> None:
        """ "How was this deck shuffled?": the round's fairness record in the history."""
        if self.fair_round:
            self.app.go("history_round", round_id=int(self.fair_round))

    def _render(self, vm: OczkoTableVM) -> None:
        ids = self.ids
        if self.controller is not self._turns_of:  # a new match: its first turn is new
            self._turns_of, self._was_my_turn = self.controller, False
        if vm.my_turn and not self._was_my_turn:
            self.your_turn()
        self._was_my_turn = vm.my_turn
        # the row holds the buttons that apply now, and only those; the left-handed
        # layout mirrors it
        if vm.next_text:
            self._set_row([ids.fair, ids.next] if self.fair_round else [ids.next])
        else:
            self._set_row([ids.hold, ids.draw] if self.left_handed else [ids.draw, ids.hold])
        from kivy.metrics import dp

        # a result on a short screen: the player's cards as text in his total's line
        self.compact_result = bool(vm.banner) and self.height < dp(500)
        self.my_cards_line = seat_cards_line(vm.my_cards, "")
        ids.my_hand.cards = [] if self.compact_result else list(vm.my_cards)
        ids.my_hand.four_colour = self.app.prefs.four_colour_deck
        # seat tiles are made once per table size and then only updated: no new widgets
        # (and no new label textures) for every move
        grid = ids.seats
        if len(grid.children) != len(vm.seats):
            grid.clear_widgets()
            grid.cols = max(1, min(3, len(vm.seats)))
            for _seat in vm.seats:
                grid.add_widget(Factory.SeatTile())
        compact = self._crowded(len(vm.seats), bool(vm.banner))
        for tile, seat in zip(reversed(grid.children), vm.seats, strict=True):
            if tile.seat != seat or tile.compact != compact:
                tile.compact = compact
                tile.cards_line = seat_cards_line(seat.cards, seat.count_text)
                tile.seat = seat
        self.timer_fraction = vm.timer_fraction
        self.timer_text = vm.timer_text

    def _short(self, players: int) -> bool:
        """A short screen with more than one row of tiles: a result without the
        standings (the tiles show every player's points) and without blank lines."""
        from kivy.metrics import dp

        return players > 4 and self.height < dp(500)

    def _crowded(self, seats: int, result: bool = False) -> bool:
        """Whether full tiles (with card images) would not all fit in the seats' area
        (two fifths of the screen): then every tile is compact, so that no player's
        total, status or points hides below a scroll (7 players at 320x480 or
        360x640). On a short screen (320x480) a result's text needs the room: compact
        tiles then too."""
        from kivy.metrics import dp

        if result and self.height < dp(500):
            return True
        rows = -(-seats // 3) if seats > 2 else 1
        full = dp(121) * max(1.0, theme.font_scale, theme.card_scale)
        return bool(rows * full + (rows - 1) * dp(6) > self.height * 0.4)

    def on_kv_post(self, base_widget: Any) -> None:
        super().on_kv_post(base_widget)
        # ids are weak: the action buttons leave the row at times, so keep them alive
        self._row_buttons = [self.ids[k].__self__ for k in ("next", "draw", "hold", "fair")]

    def _set_row(self, order: list[Any]) -> None:
        actions = self.ids.actions
        if list(reversed(actions.children)) != order:
            actions.clear_widgets()
            for widget in order:
                actions.add_widget(widget)

    def your_turn(self) -> None:
        """Make the turn unmissable: a vibration and the chime, as the settings say (the
        screen highlights the player's area and the turn line by itself)."""
        from app.views.sound import turn_alert

        turn_alert(self.app.prefs, self.app.data_dir)
        self.turn_alerts += 1

    def tick(self, _dt: float = 0) -> None:
        """Timer and bots; a full re-render only when the game moved."""
        c = self.controller
        if c is None:
            return
        now = self.clock()
        if c.tick(now):
            self.refresh()
            return
        if self.vm is not None and not self.vm.my_turn and not self.vm.next_text:
            reading = self._reading(c, now)
            if reading is not None:  # the countdown to the next deal, each second
                if int(reading[1] + 0.999) != self._other_seconds:
                    self._other_seconds = int(reading[1] + 0.999)
                    self.refresh()
                return
            seat, left = c.seat_time_left(now)
            if seat is not None and int(left + 0.999) != self._other_seconds:
                self._other_seconds = int(left + 0.999)  # the others' clock, each second
                self.refresh()
            return
        if self.vm is not None and self.vm.my_turn:
            left = c.time_left(now)
            self.timer_fraction = max(0.0, min(1.0, left / c.turn_time))
            text = _("{seconds} s").format(seconds=int(left + 0.999))
            if text != self.timer_text:  # a new label texture at most once a second
                self.timer_text = text

    # -- intents -------------------------------------------------------------------------
    def _do(self, action: str) -> None:
        c = self.controller
        if c is None:
            return
        try:
            getattr(c, action)(self.clock())
        except ValueError as exc:  # IllegalAction: show it, change nothing
            self.app.notify(error_message(exc))
        self.refresh()

    def on_draw(self) -> None:
        self._do("draw")

    def on_hold(self) -> None:
        self._do("hold")

    def on_next(self) -> None:
        c = self.controller
        if c is not None and c.over and getattr(c, "hosting", None) is not None:
            # a networked match is over: back to the menu (a new table is opened there)
            self.leave()
            self.app.go("oczko_menu")
            return
        if c is not None and c.over:
            # the settings as they are now (the bot count may have changed meanwhile)
            self.start_practice()
            self.refresh()
            return
        self._do("next_round")
