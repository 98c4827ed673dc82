"""The networked casino table for the screens: a :class:`CasinoTable` opened through
the app's table service, and the screens' side of it.

Opening a table blocks (listening, connecting, the first messages), so
:class:`CasinoNet` opens it on a worker thread through ``TableService.host_casino`` /
``join_casino``; that thread then steps the table (its links, timers, the shoe's
arithmetic, the bot) until it is over. The table calls ``on_change`` from it after
every step that may have changed something; the worker then takes a snapshot and
counts a new version (under a lock) only when it differs from the last one: the
screens poll :meth:`CasinoNet.tick` from a Kivy ``Clock`` event (the main thread),
read :meth:`snapshot` (that immutable value) and redraw only on a real change. The table
object is not thread-safe, so only the worker touches it while it runs: an intent is
handed to it through a queue and the tap waits for its answer (a step waits at most
:data:`STEP` s for the links). The table checks every intent with its own engine copy
first; a refused intent comes back as a translated message.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.i18n.codes import error_message, message_for
from app.table.casino_snapshot import CasinoSnapshot, CasinoStage, CasinoTable

#: How long one step of the worker waits for the links (seconds): about the longest a
#: tap waits for the table to take its intent.
STEP = 0.02
#: How long a tap waits for the worker at most (a stuck table: the tap is refused).
ANSWER = 5.0
#: How long a hosted table shows a settled round on every phone before the next bets
#: open (seconds on the table's clock; the table's default of 0 is for bots).
ROUND_PAUSE = 8.0
#: How long the host's last frames (``Bye``) may take to leave after it closed (s).
LINGER = 2.0


@dataclass
class _Intent:
    """A tap's intent on its way to the worker, and the worker's answer."""

    intent: str
    args: tuple[Any, ...]
    answer: str | None = None  # '' accepted, else the translated reason
    done: threading.Event = field(default_factory=threading.Event)
    taken: bool = False  # the worker has begun it (under the lock)
    withdrawn: bool = False  # the tap gave up waiting (under the lock): never done


class CasinoNet:
    """A hosted (``hosting``) or joined casino table of this phone.

    ``options``: what the service's ``host_casino`` / ``join_casino`` take besides
    ``on_change`` (``name``, ``lang``, ``rules``, ``turn_time``, ...); ``address`` the
    host to join. ``awake(on)`` keeps the screen on while the table is open.
    ``make(on_change)``: a table on this phone instead (the screenshots' demos).
    """

    def __init__(
        self,
        *,
        hosting: bool,
        service: Any,
        address: str = "",
        awake: Callable[[bool], Any] | None = None,
        make: Callable[[Callable[[], None]], CasinoTable] | None = None,
        **options: Any,
    ) -> None:
        self.hosting = hosting
        self.address = address
        #: an error code when the table could not be opened or joined
        self.error: str | None = None
        self._service = service
        if hosting:  # the players read the round's result before the next bets open
            options.setdefault("round_pause", ROUND_PAUSE)
        self._options = options
        self._table: CasinoTable | None = None
        #: keeps the screen on while the table is open (called on the main thread)
        self._awake: Callable[[bool], Any] = awake or (lambda _on: None)
        self._version = 0
        self._seen = -1
        self._lock = threading.Lock()
        #: the taps' intents for the worker, in order
        self._intents: queue.Queue[_Intent] = queue.Queue()
        self._running = False  # the worker steps the table (only it touches it)
        self._snap: CasinoSnapshot | None = None
        self._dirty = False  # the running table called on_change since the last snapshot
        self._opened = threading.Event()
        if make is not None:  # a table on this phone (demos): nothing to wait for
            self._table = make(self._bump)
            self._opened.set()
            return
        self._thread = threading.Thread(target=self._open, name="blu21-casino", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        try:
            if self.hosting:
                table = self._service.host_casino(on_change=self._touched, **self._options)
                self.address = str(getattr(table, "address", "") or self.address)
            else:
                table = self._service.join_casino(
                    self.address, on_change=self._touched, **self._options
                )
            if hasattr(table, "step"):  # from now on only the worker touches it
                self._snap = table.snapshot()
                self._running = True
            self._table = table
            self._service.on_main(lambda: self._awake(True))
        except Exception as exc:  # any failure to open is shown by its code
            code = getattr(exc, "code", "connection_lost")
            self.error = "connect_failed" if code == "timeout" else str(code)
        finally:
            self._opened.set()
            self._bump()
        if self._table is not None:
            self._run(self._table)

    def _run(self, table: Any) -> None:
        """Step the table until it is over (links, timers, shoe, bot)."""
        step = getattr(table, "step", None)
        if step is None:  # a table that runs itself (the screens' fakes)
            return
        from app.history.live import RECORDER

        try:
            while not table.over:
                self._do_intents(table)
                step(STEP)
                RECORDER.table(self, table)  # settled rounds and audits go to the history
                self._publish(table)
        except Exception:  # a broken table is over for this phone; the screen says so
            self.error = "connection_lost"
            with contextlib.suppress(Exception):
                table.leave()
        finally:
            self._running = False
            self._do_intents(table)  # (answered: the table is over)
            self._dirty = True
            self._publish(table)
            lobby = getattr(table, "lobby", None)
            if self.hosting and lobby is not None:  # the guests get the host's Bye
                lobby.wait_closed(LINGER)
            self._service.on_main(lambda: self._awake(False))
            self._bump()

    def _do_intents(self, table: Any) -> None:
        while True:
            try:
                entry = self._intents.get_nowait()
            except queue.Empty:
                return
            with self._lock:
                if entry.withdrawn:  # its tap was told "connection lost": never carried out
                    continue
                entry.taken = True
            try:
                entry.answer = self._call(table, entry.intent, entry.args)
                self._dirty = True
                self._publish(table)
            finally:  # (the tap waits for it without a time limit once it has begun)
                entry.done.set()

    def _publish(self, table: Any) -> None:
        """A new snapshot for the screens when the table changed (worker thread)."""
        if not self._dirty:
            return
        self._dirty = False
        snap = table.snapshot()
        if snap != self._snap:
            self._snap = snap
            self._bump()

    @staticmethod
    def _call(table: Any, intent: str, args: tuple[Any, ...]) -> str:
        try:
            getattr(table, intent)(*args)
        except Exception as exc:  # IllegalAction / TableError: shown, nothing changes
            return error_message(exc)
        return ""

    def _touched(self) -> None:
        if self._running:  # the worker publishes what changed after its step
            self._dirty = True
        else:
            self._bump()

    def _bump(self) -> None:
        with self._lock:
            self._version += 1

    # -- the screens' side ---------------------------------------------------------------
    def wait_open(self, timeout: float = 15.0) -> bool:
        """Wait until the table is open (False on failure or timeout)."""
        return self._opened.wait(timeout) and self.error is None

    @property
    def table(self) -> CasinoTable | None:
        """The open table (None while opening or after a failure)."""
        return self._table

    def tick(self) -> bool:
        """True once after each change of the table."""
        with self._lock:
            moved = self._version != self._seen
            self._seen = self._version
        return moved

    def snapshot(self) -> CasinoSnapshot | None:
        """The table as this phone sees it now (None until it is open)."""
        table = self._table
        if table is None:
            return None
        return self._snap if self._running else table.snapshot()

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

    def send(self, intent: str, *args: Any) -> str:
        """Call ``intent`` (take_box, leave_box, act, start) on the table; '' when it
        was accepted, else the translated reason (nothing was sent)."""
        table = self._table
        if table is None:
            return message_for("connection_lost")
        if not self._running:  # a table that runs itself, or one that is over
            return self._call(table, intent, args)
        entry = _Intent(intent, args)
        self._intents.put(entry)
        if not entry.done.wait(ANSWER):
            with self._lock:
                if not entry.taken:  # the worker is stuck: the tap is refused, and so
                    entry.withdrawn = True  # it must never be carried out later
                    return message_for("connection_lost")
            entry.done.wait()  # (begun just now: one call on the table, its answer comes)
        return message_for("connection_lost") if entry.answer is None else entry.answer

    def leave(self) -> None:
        """Leave the table (the host's leaving ends it for every phone)."""
        table = self._table
        if table is not None:
            # a link that is already gone has nothing more to say
            self.send("leave")
        self._service.on_main(lambda: self._awake(False))
        self._bump()
