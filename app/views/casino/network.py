"""The networked casino table for the screens: the casino's part of the one bridge.

:class:`CasinoNet` opens a :class:`CasinoTable` through the app's table service
(``TableService.host_casino`` / ``join_casino``; or ``make`` a table on this phone,
for the screenshots' demos) on the worker thread of a
:class:`~app.views.table.bridge.TableBridge`, which then steps it until it is over.
The screens send typed intents (:data:`CasinoIntent`) with :meth:`CasinoNet.submit`,
which returns at once; the answer (accepted, or refused with the engine's error code)
comes to a callback on the UI thread, and every change of the table is pushed there
as a :class:`CasinoState` (the table's immutable snapshot and its fairness record).
The table checks every intent with its own engine copy first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from app.rules.blackjack.actions import Action
from app.table.casino.snapshot import CasinoSnapshot, CasinoStage, CasinoTable
from app.views.table.bridge import (
    ANSWER,
    Later,
    OnResult,
    Outcome,
    Post,
    TableBridge,
    clock_later,
    clock_post,
)
from app.views.table.fairness import CasinoFairness, Fairness
from app.views.table.turn_watch import table_updated

#: How long one step of the worker waits for the links (seconds): about the longest a
#: queued intent waits for the worker to take it.
STEP = 0.02
#: How long a hosted table shows a settled round on every phone before the next bets
#: open (seconds on the table's clock; the table's default of 0 is for bots).
ROUND_PAUSE = 8.0
#: How long the host's last frames (``Bye``) may take to leave after it closed (s).
LINGER = 2.0

__all__ = ["ANSWER", "CasinoIntent", "CasinoNet", "CasinoState"]


# -- the player's intents at a casino table ------------------------------------------------
@dataclass(frozen=True)
class TakeBox:
    """Sit down at a free box (between rounds)."""

    box: int


@dataclass(frozen=True)
class LeaveBox:
    """Give up an own box (between rounds)."""

    box: int


@dataclass(frozen=True)
class Act:
    """A bet, a side bet or a decision: the engine's own action."""

    action: Action


@dataclass(frozen=True)
class BetsDone:
    """This player's bets are in."""


@dataclass(frozen=True)
class Start:
    """Host: close the lobby and start the first shoe."""


@dataclass(frozen=True)
class Leave:
    """Leave the table (the host's leaving ends it for everybody)."""


CasinoIntent = TakeBox | LeaveBox | Act | BetsDone | Start | Leave


@dataclass(frozen=True)
class CasinoState:
    """What the casino screens get on every change: the table and its fairness."""

    table: CasinoSnapshot
    fairness: Fairness = field(default_factory=Fairness)


# -- what the worker knows of a table ----------------------------------------------------
@runtime_checkable
class SteppedTable(Protocol):
    """A real table: the worker steps it (links, timers, the shoe's arithmetic, bots)."""

    over: bool

    def step(self, wait: float = 0.0) -> None:
        """Wait for the links at most ``wait`` seconds and do what came."""
        ...


@runtime_checkable
class _Closing(Protocol):
    """The host's lobby: its last frames (the guests' ``Bye``) leave before it ends."""

    def wait_closed(self, timeout: float) -> object:
        """Wait until the links are closed (at most ``timeout`` seconds)."""
        ...


class CasinoService(Protocol):
    """What :class:`CasinoNet` needs of the app's table service
    (:class:`app.table.service.TableService`): its options are the service's own."""

    @property
    def host_casino(self) -> Callable[..., CasinoTable]:
        """Open a casino table on this phone (blocking; ``on_change`` and options)."""
        ...

    @property
    def join_casino(self) -> Callable[..., CasinoTable]:
        """Sit down at the casino table at an address (blocking)."""
        ...

    @property
    def on_main(self) -> Callable[[Callable[[], object]], object]:
        """Run a call on the main thread."""
        ...


class _CasinoGame:
    """The casino's part of the bridge (every method runs on the worker thread)."""

    def __init__(self, net: CasinoNet, make: Callable[[Callable[[], None]], CasinoTable] | None):
        self._net = net
        self._make = make
        self._fairness = CasinoFairness()
        #: the table said it changed (``on_change``) since the last snapshot: a table
        #: is only shown at the points it says it is whole, not in the middle of a step
        self._dirty = True
        self._state: CasinoState | None = None

    def open(self, changed: Callable[[], None]) -> CasinoTable:
        net = self._net

        def touched() -> None:  # (the table's thread: the worker, or the fakes' own)
            self._dirty = True
            changed()

        if self._make is not None:
            return self._make(touched)
        if net.hosting:
            table = net.service.host_casino(on_change=touched, **net.options)
            net.address = str(getattr(table, "address", "") or net.address)
        else:
            table = net.service.join_casino(net.address, on_change=touched, **net.options)
        net.service.on_main(lambda: net.awake(True))
        return table

    def step(self, table: CasinoTable, idle: Callable[[float], None]) -> bool:
        assert isinstance(table, SteppedTable)  # (a table on this phone has no worker)
        from app.history.live import RECORDER

        table.step(STEP)
        RECORDER.table(self._net, table)  # settled rounds and audits go to the history
        return not table.over

    def snapshot(self, table: CasinoTable) -> CasinoState:
        if not self._dirty and self._state is not None:
            return self._state
        self._dirty = False
        snap = table.snapshot()
        self._state = CasinoState(snap, self._fairness.read(table, snap))
        return self._state

    def apply(self, table: CasinoTable, intent: CasinoIntent) -> None:
        self._dirty = True  # (what it changed is shown with its answer)
        match intent:
            case TakeBox(box):
                table.take_box(box)
            case LeaveBox(box):
                table.leave_box(box)
            case Act(action):
                table.act(action)
            case BetsDone():
                table.bets_done()
            case Start():
                table.start()
            case Leave():
                table.leave()

    @staticmethod
    def local(table: CasinoTable) -> bool:
        return not isinstance(table, SteppedTable)

    def close(self, table: CasinoTable) -> None:
        net = self._net
        self._dirty = True  # (the last state: over)
        if isinstance(table, SteppedTable) and not table.over:
            table.leave()  # (a broken table: the others hear this phone left)
        lobby = getattr(table, "lobby", None)
        if net.hosting and isinstance(lobby, _Closing):  # the guests get the host's Bye
            lobby.wait_closed(LINGER)
        net.service.on_main(lambda: net.awake(False))


class CasinoNet:
    """A hosted (``hosting``) or joined casino table of this phone.

    ``options``: what the service's ``host_casino`` / ``join_casino`` take besides
    ``on_change`` (``name``, ``lang``, ``rules``, ``turn_time``, ...); ``address`` the
    host to join. ``awake(on)`` keeps the screen on while the table is open.
    ``make(on_change)``: a table on this phone instead (the screenshots' demos).
    ``post``/``later``: how answers and updates reach the UI thread (Kivy's clock).
    """

    def __init__(
        self,
        *,
        hosting: bool,
        service: CasinoService,
        address: str = "",
        awake: Callable[[bool], object] | None = None,
        make: Callable[[Callable[[], None]], CasinoTable] | None = None,
        post: Post = clock_post,
        later: Later = clock_later,
        **options: object,
    ) -> None:
        self.hosting = hosting
        self.address = address
        self.service = service
        if hosting and make is None:  # the players read the result before the next bets
            options.setdefault("round_pause", ROUND_PAUSE)
        self.options = options
        #: keeps the screen on while the table is open (called on the main thread)
        self.awake: Callable[[bool], object] = awake or (lambda _on: None)
        self._left = False
        self.bridge: TableBridge[CasinoTable, CasinoState, CasinoIntent] = TableBridge(
            _CasinoGame(self, make),
            post=post,
            later=later,
            name="blu21-casino",
            inline=make is not None,
        )
        self.bridge.listen(table_updated)  # the turn reaches the player on any screen

    # -- the screens' side ---------------------------------------------------------------
    @property
    def error(self) -> str | None:
        """An error code when the table could not be opened, or broke."""
        return self.bridge.error

    def wait_open(self, timeout: float = 15.0) -> bool:
        """Wait until the table is open (False on failure or timeout)."""
        return self.bridge.wait_open(timeout)

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """``listener()`` on the UI thread after every change (returns its stop)."""
        return self.bridge.listen(listener)

    @property
    def table(self) -> CasinoTable | None:
        """The open table (the worker's own: tests and demos only)."""
        return self.bridge.table

    def sync(self) -> None:
        """A table on this phone: show its newest state now (demos, tests)."""
        self.bridge.sync()

    @property
    def state(self) -> CasinoState | None:
        """The newest state pushed to the UI thread (None until the table is open)."""
        return self.bridge.state

    def snapshot(self) -> CasinoSnapshot | None:
        """The table as this phone sees it now (None until it is open)."""
        state = self.bridge.state
        return None if state is None else state.table

    @property
    def fairness(self) -> Fairness:
        """The shoe's fingerprint and the newest audit verdict."""
        state = self.bridge.state
        return Fairness() if state is None else state.fairness

    def my_turn_waits(self) -> bool:
        """The table waits for this player's decision now (his clock runs), whichever
        screen he is on: the app brings him back to the table."""
        snap = self.snapshot()
        return bool(snap is not None and snap.my_turn and not self.closed)

    @property
    def closed(self) -> bool:
        """The table failed to open or is over."""
        if self.error is not None:
            return True
        snap = self.snapshot()
        return snap is not None and snap.stage is CasinoStage.OVER

    def submit(self, intent: CasinoIntent, on_result: OnResult | None = None) -> None:
        """Send ``intent`` to the table; returns at once. ``on_result(Outcome)`` comes on
        the UI thread: accepted, or refused with the reason (nothing was sent)."""
        self.bridge.submit(intent, on_result)

    def leave(self) -> None:
        """Leave the table (the host's leaving ends it for every phone)."""
        if not self._left:
            self._left = True
            self.bridge.submit(Leave())
        self.service.on_main(lambda: self.awake(False))


def refused_message(outcome: Outcome) -> str:
    """The message a refused intent shows ('' when it was accepted)."""
    return "" if outcome.accepted else outcome.message
