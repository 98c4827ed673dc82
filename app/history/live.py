"""The app's hooks where rounds end: each game calls one function of :data:`RECORDER`,
which builds the round's record and stores it.

Nothing here may disturb a game: until :meth:`Recorder.configure` is called (the app
does it at start; tests and tools do not) every hook returns at once, and any failure
of the history (a full disk, a locked file) is logged and swallowed. A corrupt
database is moved aside on opening (:mod:`app.history.store`) and the app tells the
player (:attr:`Recorder.notice`).

The hooks:

* :meth:`Recorder.oczko_practice` from ``PracticeMatch._apply`` (the engine's events);
* :meth:`Recorder.table` after each step of a networked table, either game: from
  ``NetworkTable._snapshot`` and ``CasinoNet``'s worker (the phone's log, on the
  table's worker thread), and from the terminal tables' loops (``blu21 table``,
  ``blu21 casino``, each with a recorder of its own: :mod:`app.history.network`);
* :meth:`Recorder.blackjack` from ``BlackjackGame._apply`` (after each of the player's
  intents: it reviews his decision and stores the round once it is settled).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from app.history.blackjack_record import blackjack_record, is_decision, review_entry
from app.history.model import RoundRecord
from app.history.network import PhoneView, TableRounds, phone_view
from app.history.oczko_record import OczkoRounds
from app.history.store import HistoryError, HistoryStore, open_store

log = logging.getLogger(__name__)


def new_session_id(clock: Callable[[], float] = time.time) -> str:
    """A session/match id that sorts by start time and is unique."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime(clock())) + "-" + uuid.uuid4().hex[:6]


class _Blackjack:
    def __init__(self, session: str) -> None:
        self.session = session
        self.key: int | None = None
        self.prev: Any = None
        self.times: list[float] = []
        self.decisions: list[dict[str, Any]] = []
        self.started = 0.0
        self.done = False


class Recorder:
    """Stores finished rounds in the history database of the app's data dir."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.store: HistoryStore | None = None
        #: a code for the player (``history_reset``: a corrupt history was moved aside;
        #: ``history_unavailable``), taken by the app once
        self.notice: str | None = None
        self._lock = threading.RLock()
        self._games: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    # -- set-up -------------------------------------------------------------------------
    def configure(self, data_dir: str | Path | None) -> None:
        """Open the store in ``data_dir`` (None: stop recording). Never raises."""
        with self._lock:
            if self.store is not None:
                self.store.close()
                self.store = None
            if data_dir is None:
                return
            try:
                self.store = open_store(data_dir)
            except HistoryError as exc:
                log.warning("history off: %s", exc)
                self.notice = exc.code
                return
            if self.store.moved_aside is not None:
                self.notice = "history_reset"

    def take_notice(self) -> str | None:
        """The pending notice code (then cleared)."""
        with self._lock:
            code, self.notice = self.notice, None
        return code

    def _save(self, records: Iterable[RoundRecord], on_stored: Any = None) -> None:
        store = self.store
        if store is None:
            return
        for record in records:
            try:
                if record.id is None:
                    new_id = store.add(record)
                    if on_stored is not None:
                        on_stored(record, new_id)
                else:
                    store.amend(record.id, facts=record.facts, detail=dict(record.detail or {}))
            except Exception as exc:  # the game goes on without its history
                log.warning("cannot store a round: %s", exc)

    def _guard(self, hook: Callable[[], None]) -> None:
        if self.store is None:
            return
        try:
            with self._lock:
                hook()
        except Exception:  # never let the history break a game
            log.exception("history hook failed")

    def latest_round_id(self, game: Any) -> int | None:
        """The stored id of the latest finished round of ``game`` (a practice match, the
        app's networked table): what the table screen's "How was this deck shuffled?"
        opens (``app.go("history_round", round_id=...)``). None if none is stored."""
        state = self._games.get(game)
        last = getattr(state, "last_id", None)
        return last if isinstance(last, int) else None

    # -- Oczko --------------------------------------------------------------------------
    def oczko_practice(self, match: Any, events: Iterable[Any]) -> None:
        """Events of a practice match (all cards known): kept as the player saw them."""
        self._guard(lambda: self._practice(match, tuple(events)))

    def _practice(self, match: Any, events: tuple[Any, ...]) -> None:
        from app.rules.oczko.views import redact

        state = self._games.get(match)
        if state is None:
            rules = {"rounds": match.match.options.rounds, "turn_time": match.turn_time}
            state = OczkoRounds(
                session=new_session_id(self.clock),
                mode="practice",
                me=match.me,
                names=match.names,
                rules=rules,
            )
            self._games[match] = state
            events = tuple(match.events)  # the first round began in the constructor
        now = self.clock()
        for e in redact(events, match.me):
            self._save(state.feed(e.to_json(), now), state.stored)

    def table(self, owner: Any, table: Any) -> None:
        """A networked table's step, either game, on the app's worker thread or in a
        terminal table's loop: the new entries of this phone's log (``owner``: what
        keeps this table's rounds together, the screen's table or the table itself).
        The phone is read through :func:`app.history.network.phone_view`."""
        self._guard(lambda: self._table(owner, phone_view(table)))

    def _table(self, owner: Any, view: PhoneView | None) -> None:
        if view is None:
            return
        state = self._games.get(owner)
        if not isinstance(state, TableRounds) or state.game != view.game:
            state = self._games[owner] = TableRounds(new_session_id(self.clock), view)
        now = self.clock()
        for records in state.feed(view, now):
            self._save(records, state.stored)

    # -- blackjack ----------------------------------------------------------------------
    def blackjack(self, game: Any) -> None:
        """After one of the player's intents in a blackjack session."""
        self._guard(lambda: self._blackjack(game))

    def _blackjack(self, game: Any) -> None:
        state = self._games.get(game)
        if state is None:
            state = self._games[game] = _Blackjack(new_session_id(self.clock))
        rnd = game.round
        if rnd is None:
            return
        now = self.clock()
        key = game.session.rounds_played
        if key != state.key:  # a new round
            state.key, state.prev, state.times, state.decisions = key, None, [], []
            state.started, state.done = now, False
        if state.done:
            return
        new_events = rnd.events[len(state.times) :]
        state.times.extend([now] * len(new_events))
        if state.prev is not None:
            for e in new_events:
                entry = e.to_json()
                if not is_decision(entry, game.me):
                    continue
                d = review_entry(state.prev, game.me, entry)
                if d is not None:
                    state.decisions.append({"t": round(now - state.started, 3), **d})
                break  # one decision per intent; the rest are the bots' and the dealer's
        state.prev = rnd
        if rnd.settled:
            state.done = True
            record = blackjack_record(
                rnd,
                game.me,
                session=state.session,
                number=game.session.rounds_played + 1,
                started=state.started,
                ended=now,
                times=state.times,
                decisions=state.decisions,
            )
            if record is not None:
                self._save([record])


#: The app's recorder (configured by the app at start).
RECORDER = Recorder()


def start_recording(app: Any) -> None:
    """Record the rounds played in ``app`` (its ``data_dir``) and tell the player, once,
    if a corrupt history had to be moved aside."""
    RECORDER.configure(app.data_dir)
    code = RECORDER.take_notice()
    if code is not None:
        from kivy.clock import Clock

        from app.history.messages import notice_text

        Clock.schedule_once(lambda _dt: app.notify(notice_text(code), seconds=6), 0.5)
