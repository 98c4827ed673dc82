"""The one bridge between the screens and a networked table's worker thread.

Both games' tables (the Oczko table, :mod:`app.views.oczko.network`, and the casino
table, :mod:`app.views.casino.network`) run the same way: one worker thread owns the
phone's table object (its links, timers and the SRA arithmetic; nothing else touches
it), and the screens talk to it through a :class:`TableBridge`:

* **intents** are typed values (the game's own dataclasses, see :class:`TableGame`);
  :meth:`TableBridge.submit` queues one and returns at once, and its
  :class:`Outcome` (accepted, or refused with the engine's or table's error code)
  comes back later to the callback, on the UI thread. A tap never waits for the
  network. An intent the worker has not begun within :data:`ANSWER` seconds (a stuck
  table) is refused with ``connection_lost`` and withdrawn: the worker never carries
  it out later, so what the player was told stays true.
* **state** is an immutable snapshot the game's part takes on the worker after each
  step; a snapshot that differs from the last one is pushed to the UI thread
  (:data:`Post`: Kivy's ``Clock.schedule_once`` in the app), stored in
  :attr:`TableBridge.state` there and the listeners are called. Nothing polls.

``post`` and ``later`` are injected: the app's default is Kivy's clock; the headless
tests deliver on the worker thread and fire the answer timers themselves.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from app.i18n.codes import message_for

#: Run a callable on the UI thread (soon, never at once from the worker).
Post = Callable[[Callable[[], None]], None]
#: Run a callable on the UI thread after ``delay`` seconds.
Later = Callable[[float, Callable[[], None]], None]

#: How long an intent may wait for the worker to begin it (a stuck table: refused).
ANSWER = 5.0


def clock_post(fn: Callable[[], None]) -> None:
    """Run ``fn`` on Kivy's main thread at the next frame (thread-safe)."""
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: fn(), 0)


def clock_later(delay: float, fn: Callable[[], None]) -> None:
    """Run ``fn`` on Kivy's main thread after ``delay`` seconds."""
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: fn(), delay)


def direct(fn: Callable[[], None]) -> None:
    """Run ``fn`` at once, on the calling thread (headless use: no UI thread)."""
    fn()


@dataclass(frozen=True)
class Outcome:
    """What became of one intent: ``code`` '' when it was accepted, else the engine's
    or table's error code; ``message`` the translated reason ('' when accepted)."""

    code: str = ""
    message: str = ""

    @property
    def accepted(self) -> bool:
        """The table took the intent."""
        return not self.code

    @staticmethod
    def refused(code: str, **details: object) -> Outcome:
        """A refusal with ``code``'s translated message."""
        return Outcome(code, message_for(code, **details))

    @staticmethod
    def of(error: Exception) -> Outcome:
        """The refusal an engine/table error stands for (its ``code`` and details)."""
        code = getattr(error, "code", None)
        if not isinstance(code, str):
            code = "illegal_action"
        details = getattr(error, "details", None)
        return Outcome.refused(code, **(details if isinstance(details, dict) else {}))


ACCEPTED = Outcome()
OnResult = Callable[[Outcome], None]

P = TypeVar("P")  # the phone's table object (the worker's own)
S = TypeVar("S")  # the immutable snapshot the screens get
I = TypeVar("I")  # the game's intents  # noqa: E741
S_co = TypeVar("S_co", covariant=True)
I_contra = TypeVar("I_contra", contravariant=True)


class TableGame(Protocol[P, S_co, I_contra]):
    """A game's part of the bridge: how its table opens, steps, shows and obeys.

    Every method runs on the worker thread, the only thread that touches the table.
    """

    def open(self, changed: Callable[[], None]) -> P:
        """Open (host) or join the table; ``changed`` wakes the worker (any thread).
        Raise with a ``code`` when it cannot be opened."""
        ...

    def step(self, table: P, idle: Callable[[float], None]) -> bool:
        """One step of the table (its links wait a short while; a table that runs
        itself calls ``idle(seconds)`` instead). False once the table is over."""
        ...

    def snapshot(self, table: P) -> S_co:
        """The table as this phone's screens show it now (an immutable value)."""
        ...

    def apply(self, table: P, intent: I_contra) -> None:
        """Carry out one of the player's intents; raise (with a ``code``) to refuse."""
        ...

    def close(self, table: P) -> None:
        """The table is over or left: close its links (the worker's last call)."""
        ...

    def local(self, table: P) -> bool:
        """A table played on this phone (no links, nothing to wait for): its intents
        are carried out at once on the UI thread and it needs no worker."""
        ...


@dataclass
class _Entry(Generic[I]):
    """An intent on its way to the worker."""

    intent: I
    on_result: OnResult | None
    taken: bool = False  # the worker has begun it (under the lock)
    withdrawn: bool = False  # refused for waiting too long (under the lock): never done
    answered: bool = field(default=False)


class TableBridge(Generic[P, S, I]):
    """The worker thread of one table and the screens' typed way to it.

    ``game``: the game's part; ``post``/``later``: how results and snapshots reach the
    UI thread (Kivy's clock by default). ``name`` names the thread.
    """

    def __init__(
        self,
        game: TableGame[P, S, I],
        *,
        post: Post = clock_post,
        later: Later = clock_later,
        answer: float = ANSWER,
        name: str = "blu21-table",
        inline: bool = False,
    ) -> None:
        self._game = game
        self._post = post
        self._later = later
        self._answer = answer
        self._lock = threading.Lock()
        self._intents: queue.Queue[_Entry[I]] = queue.Queue()
        self._wake = threading.Event()
        self._listeners: list[Callable[[], None]] = []
        self._last: S | None = None  # the worker's last snapshot
        #: the newest snapshot delivered to the UI thread (None until the table is open)
        self.state: S | None = None
        #: an error code when the table could not be opened, or broke
        self.error: str | None = None
        #: the worker has finished (the table is over, left or failed)
        self.finished = False
        self.opened = threading.Event()
        self._table: P | None = None
        #: a table played on this phone: no worker, intents carried out at once
        self._inline = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        if inline:  # opened here, on the UI thread (a table on this phone opens at once)
            self._open_inline(self._game.open(self._changed))
        else:
            self._thread.start()

    # -- the UI thread's side ----------------------------------------------------------
    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` on the UI thread after every new snapshot (then in
        :attr:`state`) and once when the worker ends (:attr:`finished`, :attr:`error`);
        returns the function that stops it."""
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop

    def submit(self, intent: I, on_result: OnResult | None = None) -> None:
        """Queue ``intent`` for the worker and return at once; ``on_result`` gets its
        :class:`Outcome` later, on the UI thread."""
        entry: _Entry[I] = _Entry(intent, on_result)
        if self._inline:  # a table on this phone: no network, carried out at once
            self._apply_inline(entry)
            return
        if self.finished:
            self._answer_entry(entry, Outcome.refused("connection_lost"))
            return
        self._intents.put(entry)
        self._wake.set()
        self._later(self._answer, lambda: self._expire(entry))

    def _apply_inline(self, entry: _Entry[I]) -> None:
        """(UI thread) an intent at a table on this phone, and its answer."""
        table = self._table
        assert table is not None
        with self._lock:
            if entry.withdrawn or entry.taken:
                return
            entry.taken = True
        try:
            self._game.apply(table, entry.intent)
        except Exception as exc:  # refused by the engine: shown, nothing changed
            outcome = Outcome.of(exc)
        else:
            outcome = ACCEPTED
        self.sync()
        entry.answered = True
        if entry.on_result is not None:
            entry.on_result(outcome)

    def _drain_inline(self) -> None:
        """(UI thread) the intents sent while a table on this phone was opening."""
        while True:
            try:
                entry = self._intents.get_nowait()
            except queue.Empty:
                return
            self._apply_inline(entry)

    def sync(self) -> None:
        """A table on this phone: show its newest state now (UI thread; a networked
        table's worker pushes every change by itself)."""
        table = self._table
        if self._inline and table is not None:
            self._publish(table, deliver=self._deliver)

    @property
    def table(self) -> P | None:
        """The table object (the worker's own while it runs: tests and demos only)."""
        return self._table

    def wait_open(self, timeout: float = 15.0) -> bool:
        """Wait until the table is open (False on failure or timeout; tests, demos)."""
        return self.opened.wait(timeout) and self.error is None

    def join(self, timeout: float = 5.0) -> None:
        """Wait for the worker to finish (tests)."""
        self._thread.join(timeout)

    def _expire(self, entry: _Entry[I]) -> None:
        with self._lock:
            if entry.taken or entry.answered:
                return
            entry.withdrawn = True  # the worker skips it: the player was told it failed
        self._answer_entry(entry, Outcome.refused("connection_lost"))

    def _answer_entry(self, entry: _Entry[I], outcome: Outcome) -> None:
        entry.answered = True
        callback = entry.on_result
        if callback is not None:
            self._post(lambda: callback(outcome))

    def _deliver(self, snap: S) -> None:
        """(UI thread) the newest snapshot to the screens."""
        self.state = snap
        self._notify()

    def _notify(self) -> None:
        for listener in tuple(self._listeners):
            listener()

    # -- the worker --------------------------------------------------------------------
    def _changed(self) -> None:
        if self._inline:  # (any thread, maybe inside the table's own lock: later)
            self._post(self.sync)
        else:
            self._wake.set()

    def _open_inline(self, table: P) -> None:
        self._table = table
        self._inline = True
        self.opened.set()
        self._post(self.sync)
        self._post(self._drain_inline)

    def _idle(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _run(self) -> None:
        try:
            table = self._game.open(self._changed)
        except Exception as exc:  # any failure to open is shown by its code
            code = getattr(exc, "code", "connection_lost")
            self.error = "connect_failed" if code == "timeout" else str(code)
            self.finished = True
            self.opened.set()
            self._refuse_queued()
            self._post(self._notify)
            return
        if self._game.local(table):
            self._open_inline(table)
            return
        self._table = table
        self._publish(table)
        self.opened.set()
        try:
            while True:
                self._do_intents(table)
                running = self._game.step(table, self._idle)
                self._publish(table)
                if not running:
                    break
        except Exception:  # a broken table is over for this phone; the screen says so
            self.error = self.error or "connection_lost"
        finally:
            self.finished = True
            self._refuse_queued()
            with contextlib.suppress(Exception):  # (its links may be gone already)
                self._game.close(table)
            self._publish(table, force=True)

    def _do_intents(self, table: P) -> None:
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
                self._game.apply(table, entry.intent)
            except Exception as exc:  # refused by the engine or the table: shown
                outcome = Outcome.of(exc)
            else:
                outcome = ACCEPTED
            self._publish(table)  # (what the intent changed shows before its answer)
            self._answer_entry(entry, outcome)

    def _refuse_queued(self) -> None:
        while True:
            try:
                entry = self._intents.get_nowait()
            except queue.Empty:
                return
            with self._lock:
                if entry.withdrawn:
                    continue
                entry.taken = True
            self._answer_entry(entry, Outcome.refused("connection_lost"))

    def _publish(
        self, table: P, force: bool = False, deliver: Callable[[S], None] | None = None
    ) -> None:
        """Push a new snapshot to the UI thread when the table changed (the worker's;
        ``deliver``: on the UI thread already, a table on this phone)."""
        try:
            snap = self._game.snapshot(table)
        except Exception:  # a table too broken to show itself: the last one stays
            if not force:
                raise
            return
        if snap != self._last or force:
            self._last = snap
            if deliver is not None:
                deliver(snap)
            else:
                self._post(lambda: self._deliver(snap))


def never(_delay: float, _fn: Callable[[], None]) -> None:
    """Answer timers that never fire (headless use: tests fire their own)."""
