"""The casino table's lobby: who sits where, the table's rules and their house edge,
the free boxes; the host starts the table.

A joining phone sees the host's rules (every option, as the table-rules screen words
it) and the house edge of those rules (``app.strategy.edge.house_edge``, what
``blu21 edge`` prints, computed on a worker thread) before its player takes a box or
bets. The screen follows the table (``app.controllers["casino"]``, a
:class:`app.views.casino.network.CasinoNet`) through its pushed updates, lists the players
and who is ready (has a box) as the Oczko lobby does, and moves to the casino table
screen when the host starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from app.i18n import N_, _
from app.i18n.codes import message_for
from app.views.blackjack.menu import (
    EDGES,
    RULE_OPTIONS,
    compute_edge,
    edge_text,
    option_applies,
    option_label,
)
from app.views.blackjack.table import BOX_FONT
from app.views.casino.network import LeaveBox, Start, TakeBox
from app.views.casino.table import CasinoScreen, box_button_text, host_leaves_question
from app.views.casino.vm import lobby_players, present_casino
from app.views.table.lobby_lines import shown_address

if TYPE_CHECKING:
    from app.rules.table_rules import TableRules

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

#: options that belong to a one-phone session, not to a table (it has no rounds limit)
NOT_AT_A_TABLE = ("rounds",)
#: the house's limits per box: said together in the last line
SAID_TOGETHER = ("min_bet", "max_bet")


def rules_lines(rules: TableRules) -> list[str]:
    """Every option of ``rules`` that applies, as "Option: choice" in the current
    language (the table-rules screen's words)."""
    lines = []
    for name, label, choices in RULE_OPTIONS:
        if name in (*NOT_AT_A_TABLE, *SAID_TOGETHER) or not option_applies(name, rules):
            continue
        value = getattr(rules, name)
        msgid = next((m for v, m in choices if v == value), None)
        lines.append(f"{_(label)}: {option_label(value, msgid)}")
    lines.append(
        _("Bets from {low} to {high} per box").format(low=rules.min_bet, high=rules.max_bet)
    )
    return lines


class CasinoLobbyScreen(CasinoScreen):
    """The casino table before its first shuffle."""

    title = StringProperty(N_("Casino table"))
    up = StringProperty("oczko_menu")
    hosting = BooleanProperty(False)
    vm = ObjectProperty(None, allownone=True)
    status = StringProperty("")
    address = StringProperty("")
    edge = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the buttons now on screen by name ("box3", "start", ...)
        self.buttons: dict[str, Any] = {}
        self._rules: Any = None
        self._visibility: Any = None
        self._visible = ""
        self._players: tuple[str, ...] = ()

    def _visible_text(self) -> str:
        """The host's time left as visible to nearby phones (:func:`lobby_visible_text`)."""
        from app.views.setup.bluetooth import lobby_visible_text

        hosting = self.net is not None and bool(self.net.hosting)
        text, self._visibility = lobby_visible_text(
            self._visibility, hosting, self.app.service.transport
        )
        return text

    def on_leave(self, *_args: Any) -> None:
        super().on_leave()
        self._visibility = None  # (a refusal counts for this lobby only)
        # leaving the lobby any other way than into the table leaves the table too
        if self.manager is not None and self.manager.current != "casino_table":
            self.leave_table()

    def can_return(self) -> bool:
        net = self.net
        return net is not None and not net.closed

    def countdown(self) -> None:
        """The host's time left as visible to nearby phones (counts down every
        second, asks again at 0)."""
        visible = self._visible_text()
        if visible != self._visible:
            self._visible = visible
            self.refresh()

    def changed(self) -> None:
        """Follow the table: players, boxes, an error, the table starting."""
        net = self.net
        snap = None if net is None else net.snapshot()
        if snap is not None and snap.stage.value != "lobby":
            self.app.go("casino_table")
            return
        self.refresh()

    def refresh(self) -> None:
        net = self.net
        grid, rules_box = self.ids.boxes, self.ids.rules
        snap = None if net is None else net.snapshot()
        if net is None or snap is None:
            grid.clear_widgets()
            self.buttons = {}
            self.vm = None
            rules_box.clear_widgets()
            self._rules = None
            self._show_players(())
            error = None if net is None else net.error
            self.status = message_for(error) if error else _("Opening the table…")
            return
        self.hosting = bool(net.hosting)
        self.address = (
            _("Guests join at {address}").format(address=shown_address(net.address))
            if net.hosting and net.address
            else ""
        )
        if self._visible:
            self.address = f"{self.address}\n{self._visible}" if self.address else self._visible
        vm = present_casino(snap, 0.0, hosting=self.hosting)
        self.vm = vm
        self._show_players(lobby_players(snap))
        players = len(snap.players)
        self.status = vm.message or (
            _("Take a free box; the host starts the table.")
            if not self.hosting
            else _("{n} at the table. Start when everybody has a box.").format(n=players)
        )
        if snap.rules != self._rules:  # the rules are drawn once per rule set
            self._rules = snap.rules
            rules_box.clear_widgets()
            for line in rules_lines(snap.rules):
                rules_box.add_widget(Factory.Caption(text=line))
            compute_edge(snap.rules, self._edge_done)
        self.edge = edge_text(EDGES.get(snap.rules))
        names = [f"box{box.number}" for box in vm.boxes]
        if list(self.buttons) != names:
            # the boxes' buttons are built once per set of boxes and updated in place
            # after: a button rebuilt under a finger (another player joins) loses the tap
            grid.clear_widgets()
            self.buttons = {}
            for box in vm.boxes:
                b = Factory.ChoiceButton(
                    group="lobby-box", halign="center", base_font_size=BOX_FONT
                )
                b.bind(on_release=lambda _b, n=box.number: self.tap_box(n))
                self.buttons[f"box{box.number}"] = b
                grid.add_widget(b)
        for box in vm.boxes:
            b = self.buttons[f"box{box.number}"]
            b.text = box_button_text(box)
            b.state = "down" if box.mine else "normal"
            b.disabled = not (box.can_take or box.can_leave)

    def _show_players(self, lines: tuple[str, ...]) -> None:
        """The players and who is ready, one line each (as the Oczko lobby lists them)."""
        if lines == self._players:
            return
        self._players = lines
        grid = self.ids.players
        grid.clear_widgets()
        for line in lines:
            grid.add_widget(Factory.Body(text=line))

    def _edge_done(self, rules: Any) -> None:
        if rules == self._rules:
            self.edge = edge_text(EDGES.get(rules))

    def tap_box(self, number: int) -> None:
        """A free box: sit down at it; an own box: give it up."""
        net, vm = self.net, self.vm
        if net is None or vm is None:
            return
        box = next(b for b in vm.boxes if b.number == number)
        net.submit(TakeBox(number) if box.can_take else LeaveBox(number), self._answered)

    def start(self) -> None:
        net = self.net
        if net is not None and self.vm is not None and self.vm.can_start:
            net.submit(Start(), self._answered)

    def ask_leave(self) -> None:
        """ "Leave the table": a host is told first that it ends for every player."""

        def answer(yes: bool) -> None:
            if yes:
                self.leave_table()
                self.app.return_to("oczko_menu")

        net = self.net
        if net is not None and net.hosting and not net.closed:
            self.app.confirm(host_leaves_question(), answer)
        else:
            answer(True)

    def leave_table(self) -> None:
        """Leave (a guest) or close (the host) the table."""
        net = self.app.controllers.pop("casino", None)
        if net is not None:
            net.leave()
