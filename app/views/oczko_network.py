"""The networked Oczko table for the app: :mod:`app.table` behind the screen's controller.

:class:`NetworkTable` implements :class:`app.views.oczko_controller.OczkoTableController`
for a table hosted on this phone (:class:`app.table.table.HostTable`) or joined from it
(:class:`app.table.table.GuestTable`). Everything that blocks (connecting, the links'
sockets, the SRA shuffle's arithmetic) runs on one worker thread that owns the table
object; the Kivy side only sends intents through a queue and reads snapshots (immutable
match states, copied lobby lists, notices), polled from a Kivy ``Clock`` event.

The table is opened through the app's :class:`app.table.service.TableService` (its
transport is TCP on the desktop, Bluetooth on Android; its dealer the SRA one): this
module picks neither.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from app.table.lobby import Notice
from app.table.messages import VOID_REASONS
from app.table.service import OnMain, TableService

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


class NetworkTable:
    """A host's or a guest's table, run on a worker thread.

    ``hosting``: open a table through ``service`` (``address`` is then the listening
    address); else join the one at ``address``. ``rounds``/``turn_time`` are the host's
    options. ``transport`` (else the service's) and ``dealer`` (a kind, else the
    service's) override the service's choice for tests and demos.
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
    ) -> None:
        self.hosting = hosting
        if awake is None:
            from app.views.device import table_open

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
        self.seat: int | None = 0 if hosting else None
        #: lobby snapshot: {"players": [(name, ready)], "rounds": r, "turn_time": s}
        self.lobby: dict[str, Any] | None = None
        self.started = False
        self.closed = False
        self.error: str | None = None  # a code (connection failed, ...)
        self._notes: list[tuple[str, dict[str, Any]]] = []  # table messages to show
        self._match: Any = None
        self._ready = False  # the dealers are set up (the shuffle is done)
        #: the SRA set-up's fingerprint, equal on every honest phone ('' until set up)
        self.fingerprint = ""
        #: the host deals without card secrecy (chosen by its player; every phone says so)
        self.open_dealer = False
        #: the round the player has read the result before (he tapped "Next round")
        self._read_round: int | None = None
        #: when this phone saw the last round end (the screen's clock): the host deals
        #: the next round at most a pause later
        self._result_seen = 0.0
        #: the host: the seats whose reading of the result the next deal waits for
        self._readers: tuple[int, ...] = ()
        self._progress: float | None = None  # the shuffle progress bar (PhoneMatch)
        self._lag: tuple[str, tuple[int, ...]] | None = None  # ... what runs, who lags
        self._deadline = 0.0
        self._turn_seat: int | None = None
        self._version = 0
        self._seen = -1
        self._commands: queue.Queue[str] = queue.Queue()
        self._lock = threading.Lock()
        self._name, self._lang = name, lang
        self._rounds, self._turn = rounds, turn_time
        # made here, on the main thread: the Android transport looks Java classes up
        self._service = service
        self._transport = transport if transport is not None else service.transport()
        self._dealer = dealer
        self._listen = listen
        self._table: Any = None
        self._opened = threading.Event()
        self._thread = threading.Thread(target=self._run, name="blu21-table", daemon=True)
        self._thread.start()

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

    def _run(self) -> None:
        try:
            self._table = self._make()
        except Exception as exc:  # any failure to open is shown by its code
            code = getattr(exc, "code", "connection_lost")
            self.error = "connect_failed" if code == "timeout" else code
            self.closed = True
            self._bump()
            return
        finally:
            self._opened.set()
        table = self._table
        asked_ready = False
        self._on_main(lambda: self._awake(True))
        try:
            while not table.closed:
                self._do_commands(table)
                table.step(STEP)
                if not self.hosting and table.seat is not None and not asked_ready:
                    asked_ready = True
                    self.seat = table.seat
                    table.set_ready()
                self._snapshot(table)
        except Exception as exc:  # the table is gone; say so, do not crash
            self._note("connection_lost", {"detail": str(exc)})
        finally:
            self.closed = True
            if self.hosting:
                table.close()
            else:
                table.leave()
            self._on_main(lambda: self._awake(False))
            self._bump()

    def _do_commands(self, table: Any) -> None:
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                return
            try:
                if command == "begin":
                    table.begin()
                elif command == "read":
                    table.read_result()
                elif command in ("draw", "hold"):
                    table.act(command)
                elif command == "leave":
                    if self.hosting:
                        table.close("host_left")
                    else:
                        table.leave()
            except Exception as exc:  # a refused intent is shown, not fatal
                self._note(getattr(exc, "code", "illegal_action"), getattr(exc, "details", {}))

    def _snapshot(self, table: Any) -> None:
        changed = False
        if self.hosting:
            sitters = table.seating.sitters
            # a guest whose link is gone is not ready, whatever he said before
            players = [(s.name, s.ready and s.connected) for s in sitters]
            names = tuple(s.name for s in sitters)
            options = table.seating.options
        elif table.lobby is not None:
            players = [(p.name, p.ready) for p in table.lobby.players]
            names = tuple(p.name for p in table.lobby.players)
            options = table.lobby.options
        else:
            return
        lobby = {"players": players, "rounds": options.rounds, "turn_time": options.turn_time}
        if self.hosting:
            readers = tuple(sorted(table.still_reading()))
            if readers != self._readers:
                self._readers, changed = readers, True
        if lobby != self.lobby:
            self.lobby, self.names, changed = lobby, names, True
        phone = table.phone
        if phone is not None:
            if phone.match is not self._match:
                self._match, changed = phone.match, True
            ready = bool(phone.dealer.ready)
            if ready != self._ready:
                self._ready, changed = ready, True
                code = str(phone.dealer.fingerprint)
                self.fingerprint = code if ready and code.isdigit() else ""
            progress = phone.shuffle_progress
            if (progress is None) != (self._progress is None) or (
                progress is not None and abs(progress - (self._progress or 0.0)) >= 0.02
            ):
                self._progress, changed = progress, True  # (steps of 2%: few redraws)
            note = phone.shuffle_note
            if note != self._lag:
                self._lag, changed = note, True
        from app.history.live import RECORDER

        RECORDER.oczko_table(self, table)  # finished rounds and audits go to the history
        if changed:
            self._bump()

    def _on_notice(self, n: Notice) -> None:
        d = n.details
        if n.code == "turn":
            self._turn_seat = d.get("seat")
            self._deadline = time.monotonic() + d.get("ms", 0) / 1000
        elif n.code == "match_started":
            self.started = True
        elif n.code == "player_left":
            code = _LEFT_MESSAGES.get(d.get("reason", ""), "player_lost")
            self._note(code, {"seat": d.get("seat"), "name": d.get("name", "")})
        elif n.code == "round_void" and d.get("reason") in VOID_REASONS:
            # whom the void is charged to, as this phone checked it (issue 30)
            self._note(f"void_{d['reason']}", {"seat": d.get("seat"), "name": d.get("name", "")})
        elif n.code in ("violation", "host_violation"):
            self._note(d.get("code", "cheating_detected"), {"seat": d.get("seat")})
        elif n.code == "host_lost" or (n.code == "table_closed" and d.get("reason") == "host_left"):
            if not self.hosting and not (self._match is not None and self._match.over):
                self._note("host_left", {})
        elif n.code == "open_dealer":
            # shown for the whole match in the fingerprint line, not as a red message
            # that would crowd the cards of a short screen
            self.open_dealer = True
        elif n.code in ("refused", "join_refused"):
            self._note(d.get("code", "table_full"), {})
        self._bump()

    def _note(self, code: str, details: dict[str, Any]) -> None:
        with self._lock:
            self._notes.append((code, details))
            del self._notes[:-20]  # (only the latest is shown: a flood must not pile up)

    def _bump(self) -> None:
        with self._lock:
            self._version += 1

    # -- the screen's side ----------------------------------------------------------------
    def wait_open(self, timeout: float = 15.0) -> bool:
        """Wait until the table listens or is connected (False on failure/timeout)."""
        return self._opened.wait(timeout) and self.error is None

    def begin(self) -> None:
        """Host: start the match (everyone in the lobby is ready)."""
        self._commands.put("begin")

    @property
    def message(self) -> str:
        """The latest table message, translated (a player left, cheating, host left)."""
        from app.i18n.codes import message_for

        with self._lock:
            if not self._notes:
                # An open table says so until its first round is over (every phone shows
                # it; later it would crowd the cards of a short screen).
                first = self._match is None or self._match.rounds_played == 0
                return message_for("open_dealer") if self.open_dealer and first else ""
            code, details = self._notes[-1]
        seat = details.get("seat")
        name = details.get("name") or (
            self.names[seat] if isinstance(seat, int) and 0 <= seat < len(self.names) else "?"
        )
        return message_for(code, name=name)

    def still_reading(self, now: float) -> tuple[tuple[str, ...], float] | None:
        """While this player has read the last result and the next deal waits for the
        others: the names of those still reading (known on the host's phone; a guest's
        is empty) and the seconds until the host deals anyway (its pause); else None."""
        if not self._waiting_for_others():
            return None
        names = tuple(
            self.names[s] for s in self._readers if 0 <= s < len(self.names) and s != self.seat
        )
        pause = self.turn_time if ROUND_PAUSE is None else ROUND_PAUSE
        return names, max(0.0, self._result_seen + pause - now)

    def my_turn_waits(self) -> bool:
        """The table waits for this player's decision now (his clock runs), whichever
        screen he is on: the app brings him back to the table."""
        m = self._match
        return bool(
            m is not None
            and not m.over
            and not self.closed
            and self.seat is not None
            and m.to_act == self.seat
            and self._turn_seat == self.seat
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
        return None if self.closed else self._lag

    @property
    def shuffle_progress(self) -> float | None:
        """0..1 while the SRA set-up and the deal's shuffle run, else None."""
        return None if self.closed else self._progress

    @property
    def over(self) -> bool:
        return self._match is not None and self._match.over

    @property
    def match(self) -> Any:
        return self._match

    def view(self) -> Any:
        from app.rules.oczko_views import view

        return view(self._match, self.seat or 0)

    def seat_time_left(self, now: float) -> tuple[int | None, float]:
        """Whose turn it is and his seconds left (from the host's turn notices)."""
        m = self._match
        if m is None or m.over or self._turn_seat is None or m.to_act != self._turn_seat:
            return None, 0.0
        return self._turn_seat, max(0.0, self._deadline - now)

    def time_left(self, now: float) -> float:
        m = self._match
        if m is None or m.over or self._turn_seat != self.seat:
            return 0.0
        return max(0.0, self._deadline - now)

    def tick(self, now: float) -> bool:
        with self._lock:
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
            if self.awaiting_next and m.to_act == self.seat and self._turn_seat == self.seat:
                self.awaiting_next = False  # his clock runs: the table is his again
        return moved

    def draw(self, now: float) -> None:
        self._commands.put("draw")

    def hold(self, now: float) -> None:
        self._commands.put("hold")

    def next_round(self, now: float) -> None:
        """The player has read the result: the host deals the next round once every
        player has (or when its pause, a turn's time, runs out)."""
        self.awaiting_next = False
        match = self._match
        self._read_round = None if match is None or match.round is None else match.round.number
        self._commands.put("read")

    def leave(self) -> None:
        self._commands.put("leave")

    def join_thread(self, timeout: float = 5.0) -> None:
        """Wait for the worker to finish (after :meth:`leave`; tests)."""
        self._thread.join(timeout)
