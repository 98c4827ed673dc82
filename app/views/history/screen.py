"""The history screens: the list of stored rounds (newest first, filter by game, export,
delete all), a round's replay (step through the deal and every decision; the fairness
record of a networked Oczko round; blackjack decisions below best play) and the
statistics per game with two charts drawn with Kivy graphics."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kivy.factory import Factory
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

import app.views.cardtex
from app.cards import Card
from app.i18n import N_, _
from app.views.base import BaseScreen
from app.views.history import vm
from app.views.theme import theme

#: rounds shown in the list at a time
PAGE = 50


def _store() -> Any:
    from app.history.live import RECORDER

    return RECORDER.store


def _page() -> tuple[ScrollView, GridLayout]:
    scroll = ScrollView(do_scroll_x=False, bar_width=dp(4))
    page = GridLayout(cols=1, size_hint_y=None, padding=(dp(12), dp(8)), spacing=dp(8))
    page.bind(minimum_height=page.setter("height"))
    scroll.add_widget(page)
    return scroll, page


def _button(text: str, on_release: Callable[[], Any], quiet: bool = False) -> Any:
    b = (Factory.QuietButton if quiet else Factory.AppButton)(text=text)
    b.bind(on_release=lambda *_a: on_release())
    return b


def _row(*widgets: Any) -> BoxLayout:
    """Widgets side by side, as tall as the tallest (wrapped text makes them grow)."""
    box = BoxLayout(size_hint_y=None, spacing=dp(6))
    for w in widgets:
        box.add_widget(w)

    def fit(*_a: Any) -> None:
        box.height = max(w.height for w in widgets)

    for w in widgets:
        w.bind(height=fit)
    fit()
    return box


class _PageScreen(BaseScreen):
    """A screen of one scrolling page, rebuilt by :meth:`refresh` from the store."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._scroll, self.page = _page()
        self.add_widget(self._scroll)

    def _begin(self) -> Any:
        """Clear the page; the store, or None after saying that there is none."""
        self.page.clear_widgets()
        store = _store()
        if store is None:
            self.page.add_widget(Factory.Body(text=_("The hand history is not available.")))
        return store


class HistoryScreen(_PageScreen):
    """The stored rounds, newest first."""

    title = StringProperty(N_("Hand history"))
    up = StringProperty("home")
    game = StringProperty("")  # "" all, "oczko", "blackjack"
    shown = NumericProperty(PAGE)  # rows listed ("Show more" adds a page)

    def refresh(self) -> None:
        page = self.page
        store = self._begin()
        filters = [("", _("All")), ("oczko", _("Oczko")), ("blackjack", _("Blackjack"))]
        buttons = []
        for value, label in filters:
            b = Factory.ChoiceButton(text=label, group="history_game")
            b.state = "down" if value == self.game else "normal"
            b.bind(on_release=lambda _b, v=value: self.set_game(v))
            buttons.append(b)
        page.add_widget(_row(*buttons))
        page.add_widget(
            _row(
                _button(_("Statistics"), lambda: self.app.go("history_stats"), quiet=True),
                _button(_("Export"), self.export, quiet=True),
                _button(_("Delete all"), self.ask_delete, quiet=True),
            )
        )
        if store is None:
            return
        rounds = store.rounds(self.game or None, limit=int(self.shown), detail=False)
        total = store.count(self.game or None)
        page.add_widget(
            Factory.Caption(
                text=_("{n} rounds stored (the newest {limit} are kept)").format(
                    n=total, limit=store.limit
                )
            )
        )
        if not rounds:
            page.add_widget(Factory.Body(text=_("No rounds yet. Play a game!")))
        for r in rounds:
            b = Factory.QuietButton(text=vm.list_line(r), font_size=dp(14))
            b.bind(on_release=lambda _b, rid=r.id: self.app.go("history_round", round_id=rid))
            page.add_widget(b)
        if len(rounds) < total:
            page.add_widget(_button(_("Show more"), self.more))

    def set_game(self, game: str) -> None:
        self.game, self.shown = game, PAGE
        self.refresh()

    def more(self) -> None:
        self.shown += PAGE
        self.refresh()

    def export(self) -> None:
        from app.history.export import export_files

        store = _store()
        if store is None:
            return
        try:
            paths = export_files(store, self.app.data_dir / "exports")
        except OSError as exc:
            self.app.notify(_("Export failed: {reason}").format(reason=exc.strerror or exc))
            return
        from app.views.setup.device import on_android

        if on_android():
            self._share(store, paths)
            return
        self.app.notify(_("Exported to {path}").format(path=str(paths[0].parent)), seconds=6)

    def _share(self, store: Any, paths: list[Path]) -> None:
        """Android: the share sheet with the exported files (a copy lands in Downloads);
        before Android 10 with the newest rounds as CSV text."""
        from app.history.share import ShareUnsupported, share_files, share_payload, share_text

        try:
            share_files(paths, _("blu21 hand history"), _("Share the hand history"))
        except ShareUnsupported:
            pass  # as text, below
        except Exception as exc:  # storage refused, no share target: say so, lose nothing
            self.app.notify(_("Export failed: {reason}").format(reason=exc))
            return
        else:
            self.app.notify(_("The files are also in Downloads/Blu21."))
            return
        rounds = store.rounds(newest_first=False, detail=False)
        text, n = share_payload(rounds)
        try:
            share_text(_("blu21 hand history"), text, _("Share the hand history"))
        except Exception as exc:  # no share target, a pyjnius error: say so, lose nothing
            self.app.notify(_("Export failed: {reason}").format(reason=exc))
            return
        if n < len(rounds):
            self.app.notify(
                _("Shared the newest {n} of {total} rounds.").format(n=n, total=len(rounds))
            )

    def ask_delete(self) -> None:
        self.app.confirm(
            _("Delete the whole hand history? This cannot be undone."),
            lambda yes: self.delete_all() if yes else None,
        )

    def delete_all(self) -> None:
        store = _store()
        if store is not None:
            store.delete_all()
        self.refresh()


class RoundScreen(BaseScreen):
    """A stored round's replay, step by step."""

    title = StringProperty(N_("Replay"))
    up = StringProperty("history")
    round_id = NumericProperty(0)
    step = NumericProperty(0)
    record = ObjectProperty(None, allownone=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._scroll, self.page = _page()
        # the step buttons stay at the bottom, under the thumb, whatever the scroll
        self.back_button = _button("", lambda: self.move(-1), quiet=True)
        self.next_button = _button("", lambda: self.move(1))
        self.controls = _row(self.back_button, self.next_button)
        self.controls.padding = (dp(12), 0, dp(12), dp(6))
        box = BoxLayout(orientation="vertical")
        box.add_widget(self._scroll)
        box.add_widget(self.controls)
        self.add_widget(box)
        self._frames: list[vm.Frame] = []

    def on_round_id(self, *_a: Any) -> None:
        self.step = 0

    def refresh(self) -> None:
        store = _store()
        self.record = None if store is None else store.round(int(self.round_id))
        self._frames = vm.frames(self.record) if self.record is not None else []
        self.step = max(0, min(self.step, len(self._frames) - 1))
        self._render()

    def move(self, delta: int) -> None:
        self.step = max(0, min(self.step + delta, len(self._frames) - 1))
        self._render()

    def _render(self) -> None:
        page = self.page
        page.clear_widgets()
        r = self.record
        if r is None:
            page.add_widget(Factory.Body(text=_("This round is no longer stored.")))
            self.controls.opacity = 0
            return
        page.add_widget(Factory.Heading(text=vm.list_line(r)))
        if self._frames:
            frame = self._frames[self.step]
            page.add_widget(
                Factory.Caption(
                    text=_("Step {i} of {n}").format(i=self.step + 1, n=len(self._frames))
                )
            )
            page.add_widget(Factory.Body(text=frame.caption))
            for label, cards in frame.rows:
                page.add_widget(Factory.Caption(text=label))
                hand = Factory.HandView(size_hint_y=None, height=dp(64), card_height=dp(64))
                hand.cards = [
                    app.views.cardtex.BACK if c == vm.HIDDEN else Card.parse(c).code for c in cards
                ]
                page.add_widget(hand)
        self.back_button.text, self.next_button.text = _("Back a step"), _("Next step")
        self.back_button.disabled = self.step <= 0
        self.next_button.disabled = self.step >= len(self._frames) - 1
        self.controls.opacity = 1 if self._frames else 0
        detail = r.detail or {}
        fair = vm.fairness_lines(detail)
        if fair:
            page.add_widget(Factory.Heading(text=_("How was this deck shuffled?")))
            for line in fair:
                page.add_widget(Factory.Body(text=line))
        if r.game == "blackjack":
            page.add_widget(Factory.Heading(text=_("Your decisions against best play")))
            lines = vm.decision_lines(r) or [_("Every decision was the best play.")]
            for line in lines:
                page.add_widget(Factory.Body(text=line))


class Chart(Widget):
    """A line chart (``values``) or a bar chart (``bars``: (won, played) pairs)."""

    def __init__(
        self,
        values: Sequence[float | str] = (),
        bars: Sequence[tuple[int, int]] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(size_hint_y=None, height=dp(120), **kwargs)
        self.values = [float(v) if not isinstance(v, str) else _num(v) for v in values]
        self.bars = list(bars)
        self.bind(pos=self._draw, size=self._draw)

    def _draw(self, *_a: Any) -> None:
        self.canvas.clear()
        x, y, w, h = self.x, self.y, self.width, self.height
        with self.canvas:
            Color(1, 1, 1, 0.08)
            Rectangle(pos=self.pos, size=self.size)
            if self.values:
                lo, hi = min(0.0, *self.values), max(0.0, *self.values)
                span = (hi - lo) or 1.0
                n = max(1, len(self.values) - 1)
                Color(1, 1, 1, 0.3)
                zero = y + (0 - lo) / span * h
                Line(points=[x, zero, x + w, zero], width=1)
                Color(*theme.accent)
                pts = []
                for i, v in enumerate(self.values):
                    pts += [x + i / n * w, y + (v - lo) / span * h]
                if len(pts) == 2:
                    pts += [x + w, pts[1]]
                Line(points=pts, width=dp(1.5))
            if self.bars:
                top = max(p for _w, p in self.bars) or 1
                bw = w / len(self.bars)
                for i, (won, played) in enumerate(self.bars):
                    # the rounds played as a frame, the rounds won filled: a session
                    # without a win is an empty frame, never a bar that reads as wins
                    Color(*theme.muted)
                    Line(rectangle=(x + i * bw + 2, y, bw - 4, played / top * h), width=1)
                    Color(*theme.accent)
                    Rectangle(pos=(x + i * bw + 2, y), size=(bw - 4, won / top * h))


def chart_block(chart: Chart, text: Any) -> BoxLayout:
    """A chart with its y axis' ends on the left, what runs along the x axis below,
    and its legend (``text``: a :class:`app.views.history.vm.ChartText`)."""
    block = BoxLayout(orientation="vertical", size_hint_y=None, spacing=dp(2))
    row = BoxLayout(size_hint_y=None, height=chart.height, spacing=dp(4))
    axis = BoxLayout(orientation="vertical", size_hint_x=None, width=dp(44))
    for value, valign in ((text.top, "top"), (text.bottom, "bottom")):
        label = Label(
            text=value,
            halign="right",
            valign=valign,
            font_size=sp(12) * theme.font_scale,
            color=theme.muted,
        )
        label.bind(size=lambda lb, size: setattr(lb, "text_size", size))
        axis.add_widget(label)
    row.add_widget(axis)
    row.add_widget(chart)
    block.add_widget(row)
    for line in (text.x_axis, text.legend):
        if line:
            block.add_widget(Factory.Caption(text=line, halign="center"))
    block.bind(minimum_height=block.setter("height"))
    return block


def _num(text: str) -> float:
    from app.rules.money import to_money

    return float(to_money(text))


class StatsScreen(_PageScreen):
    """Statistics per game with a score-over-time and a rounds-won chart."""

    title = StringProperty(N_("Statistics"))
    up = StringProperty("history")

    def refresh(self) -> None:
        page = self.page
        store = self._begin()
        if store is None:
            return
        stats = store.stats()
        for game in ("oczko", "blackjack"):
            s = stats[game]
            page.add_widget(Factory.Heading(text=vm.game_name(game)))
            for line in vm.stats_lines(game, s):
                page.add_widget(Factory.Body(text=line))
            if not s["rounds"]:
                page.add_widget(Factory.Body(text=_("No rounds yet. Play a game!")))
                continue
            page.add_widget(
                Factory.Caption(
                    text=_("Chips over time") if game == "blackjack" else _("Points over time")
                )
            )
            score = Chart(values=s["chart_score"])
            page.add_widget(chart_block(score, vm.score_chart_text(game, score.values)))
            page.add_widget(Factory.Caption(text=_("Rounds won per session")))
            page.add_widget(
                chart_block(Chart(bars=s["chart_won"]), vm.won_chart_text(s["chart_won"]))
            )
        choices = _row(
            *[
                _button(str(n), functools.partial(self.set_limit, n), quiet=n != store.limit)
                for n in (1000, 5000, 10000, 50000)
            ]
        )
        page.add_widget(Factory.Caption(text=_("Rounds to keep")))
        page.add_widget(choices)

    def set_limit(self, n: int) -> None:
        """Keep the newest ``n`` rounds; asks first when that deletes older ones."""
        store = _store()
        if store is None:
            return
        extra = store.count() - n
        if extra <= 0:
            store.set_limit(n)
            self.refresh()
            return

        def answer(yes: bool) -> None:
            if yes:
                store.set_limit(n)
            self.refresh()

        self.app.confirm(
            _("Keep only the newest {n} rounds? The {k} older ones will be deleted.").format(
                n=n, k=extra
            ),
            answer,
        )
