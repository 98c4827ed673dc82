"""The networked Oczko table for the app: :mod:`app.table` behind the screen's controller.

:class:`NetworkTable` implements :class:`app.views.oczko.controller.OczkoTableController`
for a table hosted on this phone (:class:`app.table.oczko.guest.HostTable`) or joined from it
(:class:`app.table.oczko.guest.GuestTable`), as the Oczko part of the one bridge between the
screens and a table's worker (:class:`app.views.table.bridge.TableBridge`, the casino
table's too). Everything that blocks (connecting, the links' sockets, the SRA shuffle's
arithmetic) runs on the worker thread that owns the table object; the screens send
typed intents (:data:`OczkoIntent`; a tap returns at once, a refusal comes back as the
table message) and get an immutable :class:`OczkoState` pushed after every change.

The table is opened through the app's :class:`app.table.service.TableService` (its
transport is TCP on the desktop, Bluetooth on Android; its dealer the SRA one): this
module picks neither.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.rules.oczko.actions import ActionKind
from app.rules.oczko.match import Match
from app.table.lobby import Notice
from app.table.messages import VOID_REASONS
from app.table.service import OnMain, TableService
from app.views.table.bridge import Later, Outcome, Post, TableBridge, clock_later, clock_post
from app.views.table.turn_watch import table_updated

#: How long the worker waits for the link's events in one step (seconds).
STEP = 0.05
#: The host's longest pause between a round's end and the next deal (seconds; None: the
#: turn time): every phone shows the round's result meanwhile; the host deals sooner
#: once every player has tapped "Next round".
ROUND_PAUSE: float | None = None


#: why a player left (the table's reason) -> the message every screen shows
_LEFT_MESSAGES = {
    "left": "player_left",
    "cheat": "player_cheated",
    "stalled": "player_stalled",
    "silent_draw": "player_stalled",
    "flood": "player_flooded",
    "ahead": "player_cheated",
    "banned": "player_cheated",
}


# -- the player's intents at an Oczko table ------------------------------------------------
@dataclass(frozen=True)
class Begin:
    """Host: start the match (everyone in the lobby is ready)."""


@dataclass(frozen=True)
class Decide:
    """The player's decision: draw or hold (the engine's action kind)."""

    kind: ActionKind


@dataclass(frozen=True)
class ReadResult:
    """The player has read the last round's result (``NextRound``)."""


@dataclass(frozen=True)
class Leave:
    """Leave the table (the host's leaving closes it)."""


OczkoIntent = Begin | Decide | ReadResult | Leave

#: a table message: its code and details (a seat, a name)
Note = tuple[str, tuple[tuple[str, object], ...]]


@dataclass(frozen=True)
class OczkoState:
    """What the Oczko screens get on every change (taken on the worker thread)."""

    names: tuple[str, ...]
    seat: int | None
    #: the lobby: (name, ready) of every player, the rounds and the turn time
    players: tuple[tuple[str, bool], ...] | None = None
    rounds: int = 5
    turn_time: int = 30
    match: Match | None = None  # the phone's immutable match
    fingerprint: str = ""
    progress: float | None = None
    lag: tuple[str, tuple[int, ...]] | None = None
    readers: tuple[int, ...] = ()
    turn_seat: int | None = None
    deadline: float = 0.0
    started: bool = False
    open_dealer: bool = False
    closed: bool = False
    #: the newest table messages and how many there were in all
    notes: tuple[Note, ...] = ()
    notes_total: int = 0


class _OczkoGame:
    """The Oczko part of the bridge (every method runs on the worker thread)."""

    def __init__(self, net: NetworkTable) -> None:
        self._net = net
        self._asked_ready = False
        self._ready = False
        self._progress: float | None = None
        self._state: OczkoState | None = None

    def open(self, changed: Callable[[], None]) -> Any:
        table = self._net._make()
        self._net._on_main(lambda: self._net._awake(True))
        return table

    def local(self, table: Any) -> bool:
        return False

    def step(self, table: Any, idle: Callable[[float], None]) -> bool:
        net = self._net
        if table.closed:
            return False
        try:
            table.step(STEP)
            if not net.hosting and table.seat is not None and not self._asked_ready:
                self._asked_ready = True
                net._w_seat = table.seat
                table.set_ready()
        except Exception as exc:  # the table is gone; say so, do not crash
            net._note("connection_lost", {"detail": str(exc)})
            net._w_closed = True
            return False
        return not table.closed

    def snapshot(self, table: Any) -> OczkoState:
        net = self._net
        players: tuple[tuple[str, bool], ...] | None = None
        names = self._state.names if self._state is not None else net.names
        rounds, turn_time = net._rounds, net._turn
        readers: tuple[int, ...] = ()
        if net.hosting:
            sitters = table.seating.sitters
            # a guest whose link is gone is not ready, whatever he said before
            players = tuple((s.name, bool(s.ready and s.connected)) for s in sitters)
            names = tuple(s.name for s in sitters)
            options = table.seating.options
            rounds, turn_time = options.rounds, options.turn_time
            readers = tuple(sorted(table.still_reading()))
        elif table.lobby is not None:
            players = tuple((p.name, bool(p.ready)) for p in table.lobby.players)
            names = tuple(p.name for p in table.lobby.players)
            options = table.lobby.options
            rounds, turn_time = options.rounds, options.turn_time
        phone = table.phone
        match, lag = None, None
        fingerprint = self._state.fingerprint if self._state is not None else ""
        if phone is not None:
            match = phone.match
            ready = bool(phone.dealer.ready)
            if ready != self._ready:
                self._ready = ready
                code = str(phone.dealer.fingerprint)
                fingerprint = code if ready and code.isdigit() else ""
            progress = phone.shuffle_progress
            if (progress is None) != (self._progress is None) or (
                progress is not None and abs(progress - (self._progress or 0.0)) >= 0.02
            ):
                self._progress = progress  # (steps of 2%: few redraws)
            lag = phone.shuffle_note
        net._w_names = names
        from app.history.live import RECORDER

        RECORDER.table(net, table)  # finished rounds and audits go to the history
        with net._lock:
            notes, total = tuple(net._notes), net._notes_total
        state = OczkoState(
            names=names,
            seat=net._w_seat,
            players=players,
            rounds=rounds,
            turn_time=turn_time,
            match=match,
            fingerprint=fingerprint,
            progress=self._progress if phone is not None else None,
            lag=lag,
            readers=readers,
            turn_seat=net._turn_seat,
            deadline=net._deadline,
            started=net._started,
            open_dealer=net._open_dealer,
            closed=bool(table.closed or net._w_closed),
            notes=notes,
            notes_total=total,
        )
        self._state = state
        return state

    def apply(self, table: Any, intent: OczkoIntent) -> None:
        match intent:
            case Begin():
                table.begin()
            case Decide(kind):
                table.act(kind.value)
            case ReadResult():
                table.read_result()
            case Leave():
                if self._net.hosting:
                    table.close("host_left")
                else:
                    table.leave()

    def close(self, table: Any) -> None:
        net = self._net
        net._w_closed = True
        if net.hosting:
            table.close()
        else:
            table.leave()
        net._on_main(lambda: net._awake(False))


class NetworkTable:
    """A host's or a guest's table, run on the worker thread of a :class:`TableBridge`.

    ``hosting``: open a table through ``service`` (``address`` is then the listening
    address); else join the one at ``address``. ``rounds``/``turn_time`` are the host's
    options. ``transport`` (else the service's) and ``dealer`` (a kind, else the
    service's) override the service's choice for tests and demos. ``post``/``later``:
    how updates and answers reach the UI thread (Kivy's clock in the app).
    """

    def __init__(
        self,
        *,
        hosting: bool,
        name: str,
        service: TableService,
        lang: str = "en",
        address: str = "",
        rounds: int = 5,
        turn_time: int = 30,
        transport: Any = None,
        dealer: str | None = None,
        listen: Callable[[Any], Any] | None = None,
        awake: Callable[[bool], Any] | None = None,
        on_main: OnMain | None = None,
        post: Post = clock_post,
        later: Later = clock_later,
    ) -> None:
        import threading

        self.hosting = hosting
        if awake is None:
            from app.views.setup.device import table_open

            awake = table_open
        if on_main is None:
            on_main = service.on_main
        #: keeps the screen on and the table's foreground service running while the table
        #: is open (its links live in this process);
        #: called on the main thread, where Java classes can be looked up
        self._awake = awake
        self._on_main = on_main
        self.turn_time = float(turn_time)
        #: a finished round's result is on screen (until the player goes on, or his turn
        #: in the next round begins: the host deals when everybody went on, or after
        #: its pause)
        self.awaiting_next = False
        self._rounds_seen = 0
        self.address = address
        self.names: tuple[str, ...] = (name,)
        #: the round the player has read the result before (he tapped "Next round")
        self._read_round: int | None = None
        #: when this phone saw the last round end (the screen's clock): the host deals
        #: the next round at most a pause later
        self._result_seen = 0.0
        self._name, self._lang = name, lang
        self._rounds, self._turn = rounds, turn_time
        # made here, on the main thread: the Android transport looks Java classes up
        self._service = service
        self._transport = transport if transport is not None else service.transport()
        self._dealer = dealer
        self._listen = listen
        self._lock = threading.Lock()
        # -- the worker's own (read by the screens only through the pushed state) -----
        self._w_seat: int | None = 0 if hosting else None
        self._w_names: tuple[str, ...] = (name,)
        self._w_closed = False
        self._notes: list[Note] = []
        self._notes_total = 0
        self._turn_seat: int | None = None
        self._deadline = 0.0
        self._started = False
        self._open_dealer = False
        # -- the screens' (UI thread) -------------------------------------------------
        self._version = 0
        self._seen = -1
        self._notes_seen = 0
        #: the table messages shown, newest last (the table's and refused intents)
        self._shown_notes: list[Note | str] = []  # (str: a refusal, translated)
        self._bridge: TableBridge[Any, OczkoState, OczkoIntent] = TableBridge(
            _OczkoGame(self), post=post, later=later, name="blu21-table"
        )
        self._bridge.listen(self._pushed)
        self._bridge.listen(table_updated)  # the turn reaches the player on any screen

    # -- the worker thread ----------------------------------------------------------------
    def _make(self) -> Any:
        # No secure dealer: the service raises no_secure_dealer before anything opens.
        if self.hosting:
            table = self._service.host(
                name=self._name,
                lang=self._lang,
                rounds=self._rounds,
                turn_time=self._turn,
                on_notice=self._on_notice,
                round_pause=float(self._turn) if ROUND_PAUSE is None else ROUND_PAUSE,
                transport=self._transport,
                dealer=self._dealer,
                listen=self._listen,
            )
            self.address = table.address
            return table
        return self._service.join(
            self.address,
            name=self._name,
            lang=self._lang,
            on_notice=self._on_notice,
            transport=self._transport,
            dealer=self._dealer,
        )

    def _on_notice(self, n: Notice) -> None:
        """A notice of the table (worker thread, during its step)."""
        d = n.details
        if n.code == "turn":
            self._turn_seat = d.get("seat")
            self._deadline = time.monotonic() + d.get("ms", 0) / 1000
        elif n.code == "match_started":
            self._started = True
        elif n.code == "player_left":
            code = _LEFT_MESSAGES.get(d.get("reason", ""), "player_lost")
            self._note(code, {"seat": d.get("seat"), "name": d.get("name", "")})
        elif n.code == "round_void" and d.get("reason") in VOID_REASONS:
            # whom the void is charged to, as this phone checked it (issue 30)
            self._note(f"void_{d['reason']}", {"seat": d.get("seat"), "name": d.get("name", "")})
        elif n.code in ("violation", "host_violation"):
            self._note(d.get("code", "cheating_detected"), {"seat": d.get("seat")})
        elif n.code == "host_lost" or (n.code == "table_closed" and d.get("reason") == "host_left"):
            match = getattr(getattr(self._bridge.table, "phone", None), "match", None)
            if not self.hosting and not (match is not None and match.over):
                self._note("host_left", {})
        elif n.code == "open_dealer":
            # shown for the whole match in the fingerprint line, not as a red message
            # that would crowd the cards of a short screen
            self._open_dealer = True
        elif n.code in ("refused", "join_refused"):
            self._note(d.get("code", "table_full"), {})

    def _note(self, code: str, details: dict[str, Any]) -> None:
        with self._lock:
            self._notes.append((code, tuple(details.items())))
            self._notes_total += 1
            del self._notes[:-20]  # (only the latest is shown: a flood must not pile up)

    # -- the screen's side (UI thread) ----------------------------------------------------
    def _pushed(self) -> None:
        """A new state from the worker: the screens follow it (:meth:`tick`)."""
        state = self._bridge.state
        if state is not None:
            self.names = state.names
            new = state.notes_total - self._notes_seen
            if new > 0:
                self._shown_notes.extend(state.notes[-min(new, len(state.notes)) :])
                del self._shown_notes[:-20]
            self._notes_seen = state.notes_total
        self._version += 1

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """``listener()`` on the UI thread after every change (returns its stop)."""
        return self._bridge.listen(listener)

    @property
    def table(self) -> Any:
        """The table object (the worker's own while it runs: tests only)."""
        return self._bridge.table

    @property
    def state(self) -> OczkoState | None:
        """The newest state pushed to the UI thread (None until the table is open)."""
        return self._bridge.state

    def sync(self) -> None:
        """(a networked table's worker pushes every change by itself)"""

    @property
    def error(self) -> str | None:
        """A code when the table could not be opened (connection failed, ...)."""
        return self._bridge.error

    @property
    def closed(self) -> bool:
        """The table is over for this phone (closed, left or failed)."""
        state = self._bridge.state
        return bool(
            self._bridge.error is not None
            or (self._bridge.finished and (state is None or state.closed))
            or (state is not None and state.closed)
        )

    @property
    def seat(self) -> int | None:
        """This phone's seat (None until the host gave one)."""
        state = self._bridge.state
        return state.seat if state is not None else (0 if self.hosting else None)

    @property
    def lobby(self) -> dict[str, Any] | None:
        """The lobby: {"players": [(name, ready)], "rounds": r, "turn_time": s}."""
        state = self._bridge.state
        if state is None or state.players is None:
            return None
        return {
            "players": list(state.players),
            "rounds": state.rounds,
            "turn_time": state.turn_time,
        }

    @property
    def started(self) -> bool:
        """The host started the match."""
        state = self._bridge.state
        return state is not None and state.started

    @property
    def fingerprint(self) -> str:
        """The SRA set-up's fingerprint, equal on every honest phone ('' until set up)."""
        state = self._bridge.state
        return "" if state is None else state.fingerprint

    @property
    def open_dealer(self) -> bool:
        """The host deals without card secrecy (every phone says so)."""
        state = self._bridge.state
        return state is not None and state.open_dealer

    def wait_open(self, timeout: float = 15.0) -> bool:
        """Wait until the table listens or is connected (False on failure/timeout)."""
        return self._bridge.wait_open(timeout)

    def _send(self, intent: OczkoIntent) -> None:
        self._bridge.submit(intent, self._answered)

    def _answered(self, outcome: Outcome) -> None:
        """A refused intent is shown as the table message (UI thread)."""
        if not outcome.accepted:
            self._shown_notes.append(outcome.message)
            self._version += 1

    def begin(self) -> None:
        """Host: start the match (everyone in the lobby is ready)."""
        self._send(Begin())

    @property
    def message(self) -> str:
        """The latest table message, translated (a player left, cheating, host left)."""
        from app.i18n.codes import message_for

        if not self._shown_notes:
            # An open table says so until its first round is over (every phone shows
            # it; later it would crowd the cards of a short screen).
            match = self._match
            first = match is None or match.rounds_played == 0
            return message_for("open_dealer") if self.open_dealer and first else ""
        last = self._shown_notes[-1]
        if isinstance(last, str):
            return last
        code, items = last
        details = dict(items)
        seat = details.get("seat")
        name = details.get("name") or (
            self.names[seat] if isinstance(seat, int) and 0 <= seat < len(self.names) else "?"
        )
        return message_for(code, name=name)

    @property
    def _match(self) -> Match | None:
        state = self._bridge.state
        return None if state is None else state.match

    def still_reading(self, now: float) -> tuple[tuple[str, ...], float] | None:
        """While this player has read the last result and the next deal waits for the
        others: the names of those still reading (known on the host's phone; a guest's
        is empty) and the seconds until the host deals anyway (its pause); else None."""
        state = self._bridge.state
        if state is None or not self._waiting_for_others():
            return None
        names = tuple(
            self.names[s] for s in state.readers if 0 <= s < len(self.names) and s != self.seat
        )
        pause = self.turn_time if ROUND_PAUSE is None else ROUND_PAUSE
        return names, max(0.0, self._result_seen + pause - now)

    def my_turn_waits(self) -> bool:
        """The table waits for this player's decision now (his clock runs), whichever
        screen he is on: the app brings him back to the table."""
        m = self._match
        state = self._bridge.state
        return bool(
            m is not None
            and state is not None
            and not m.over
            and not self.closed
            and self.seat is not None
            and m.to_act == self.seat
            and state.turn_seat == self.seat
        )

    def _waiting_for_others(self) -> bool:
        """The player tapped "Next round" and its deal has not begun (the host waits
        for every player, or for the pause to run out)."""
        m = self._match
        if self._read_round is None or m is None or m.over or m.round is None:
            return False
        r = m.round
        return bool(r.number == self._read_round and r.phase == "deal" and r.deal_pos == 0)

    @property
    def shuffle_note(self) -> tuple[str, tuple[int, ...]] | None:
        """What the progress bar stands for and whom this phone waits for (PhoneMatch)."""
        state = self._bridge.state
        return None if self.closed or state is None else state.lag

    @property
    def shuffle_progress(self) -> float | None:
        """0..1 while the SRA set-up and the deal's shuffle run, else None."""
        state = self._bridge.state
        return None if self.closed or state is None else state.progress

    @property
    def over(self) -> bool:
        return self._match is not None and self._match.over

    @property
    def match(self) -> Match | None:
        return self._match

    def view(self) -> Any:
        from app.rules.oczko.views import view

        match = self._match
        assert match is not None  # (the table screen shows a table once it has a match)
        return view(match, self.seat or 0)

    def _turn_now(self) -> tuple[int | None, float]:
        state = self._bridge.state
        return (None, 0.0) if state is None else (state.turn_seat, state.deadline)

    def seat_time_left(self, now: float) -> tuple[int | None, float]:
        """Whose turn it is and his seconds left (from the host's turn notices)."""
        m = self._match
        turn_seat, deadline = self._turn_now()
        if m is None or m.over or turn_seat is None or m.to_act != turn_seat:
            return None, 0.0
        return turn_seat, max(0.0, deadline - now)

    def time_left(self, now: float) -> float:
        m = self._match
        turn_seat, deadline = self._turn_now()
        if m is None or m.over or turn_seat != self.seat:
            return 0.0
        return max(0.0, deadline - now)

    def tick(self, now: float) -> bool:
        """True once after each pushed change (the screens re-render then)."""
        moved = self._version != self._seen
        self._seen = self._version
        m = self._match
        if moved and m is not None:
            finished = len(m.history)
            if finished > self._rounds_seen:
                self._rounds_seen = finished
                self.awaiting_next = not m.over
                self._result_seen = now
            # (also when the round ended while the player was on another screen)
            if self.awaiting_next and m.to_act == self.seat and self._turn_now()[0] == self.seat:
                self.awaiting_next = False  # his clock runs: the table is his again
        return moved

    def draw(self, now: float) -> None:
        self._send(Decide(ActionKind.DRAW))

    def hold(self, now: float) -> None:
        self._send(Decide(ActionKind.HOLD))

    def next_round(self, now: float) -> None:
        """The player has read the result: the host deals the next round once every
        player has (or when its pause, a turn's time, runs out)."""
        self.awaiting_next = False
        match = self._match
        self._read_round = None if match is None or match.round is None else match.round.number
        self._send(ReadResult())

    def leave(self) -> None:
        self._bridge.submit(Leave())  # (a table already over has nothing to answer)

    def join_thread(self, timeout: float = 5.0) -> None:
        """Wait for the worker to finish (after :meth:`leave`; tests)."""
        self._bridge.join(timeout)
