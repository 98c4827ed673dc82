"""The table before the match, over any transport: host and guest sides.

:class:`HostLobby` listens, seats guests (:mod:`app.table.seating`), tells every
phone who sits where, and starts the match once everyone is ready.
:class:`GuestLobby` joins a host with a name and a language, says when it is
ready, and follows the host's announcements.

Both are driven the same way: events from the links arrive in one inbox (see
:mod:`app.bluetooth.link`) and :meth:`step` handles what is there; time comes from an
injected :class:`~app.table.clock.Clock`, so heartbeats and join deadlines are tested
with a fake clock. The UI learns what happened from :attr:`notices` (stable codes).

Liveness: both sides ping every :data:`PING_EVERY` seconds; a link silent for
:data:`SILENCE_LIMIT` seconds is dropped (``silent``). A guest must say :class:`Join`
within :data:`JOIN_WITHIN` seconds of connecting. A malformed message drops only the
link that sent it. When the host leaves, every guest gets ``Bye("host_left")`` before
the link closes, and a guest whose host vanishes without a word notices
``host_lost``.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from dataclasses import dataclass
from time import monotonic as _monotonic
from typing import Any, Protocol, Self

from app.bluetooth.errors import TransportError
from app.bluetooth.link import (
    Acceptor,
    Closed,
    Link,
    LinkInbox,
    Listener,
    ListenerFailed,
    Opened,
    Received,
)
from app.table.clock import Clock, Timers
from app.table.errors import TableError
from app.table.messages import (
    Bye,
    Join,
    Lobby,
    Message,
    Options,
    Ping,
    Pong,
    ProtocolFrame,
    Ready,
    Refused,
    Welcome,
    decode,
    encode,
)
from app.table.notice import Notice as Notice  # (re-exported: one class for both games)
from app.table.seating import Seating

#: Seconds between heartbeats.
PING_EVERY = 2.0
#: Seconds of silence after which a link counts as dead. An honest phone can be silent
#: for an Android pause (up to 10 s), a Bluetooth stall (up to 3 s) and a heartbeat,
#: plus the backlog it works off before it answers; the figure is Bluetooth's own
#: default link supervision timeout (docs/transport.md, "Time-outs").
SILENCE_LIMIT = 20.0
#: Seconds a new link has to say who it is.
JOIN_WITHIN = 10.0
#: Seconds without a word after which a seated guest no longer counts as present when
#: the host starts the match (three missed heartbeats): "Start" drops him and starts
#: with the others, rather than begin a match a dead phone would stall.
STALE_AFTER = 3 * PING_EVERY
#: Events handled per :meth:`_Side.step` before the timers run: frames that keep
#: arriving never hold the clock (turns, heartbeats, the join deadline) up.
EVENTS_PER_STEP = 64
#: Links not seated yet that the host keeps at once; a further one takes the place of
#: the one waiting longest (strangers cannot hold the door shut on a returning player).
MAX_UNSEATED = 8
#: Frames a link may send before it has joined (its Join, a few heartbeats).
PRE_JOIN_FRAMES = 8
#: Control messages per link: a burst, and the rate it refills at (per second).
CONTROL_BURST = 200
CONTROL_RATE = 20.0
#: Notices a phone keeps (the newest): a peer's messages that each become one (a
#: host's flood of ``Turn``) must not grow a phone's memory without bound. A fact the
#: table needs later is kept as state, never looked up in the notices.
MAX_NOTICES = 1000


@dataclass
class _Peer:
    link: Link
    seat: int | None = None
    last_heard: float = 0.0
    pings: int = 0
    frames: int = 0  # frames received (before joining: at most PRE_JOIN_FRAMES)
    tokens: float = CONTROL_BURST  # control messages it may still send now
    refilled: float = 0.0  # when the tokens were last refilled
    opened: int = 0  # the order links came in (the unseated longest give way first)
    refused: bool = False  # told it has no seat; its link closes shortly

    def charge(self, now: float) -> None:
        """Count one control message; TableError ``flood`` past the rate limit."""
        self.tokens = min(CONTROL_BURST, self.tokens + (now - self.refilled) * CONTROL_RATE)
        self.refilled = self.last_heard = now
        if self.tokens < 1:
            raise TableError("flood", f"over {CONTROL_RATE:.0f} control messages a second")
        self.tokens -= 1


class _Side:
    """What both sides share: the inbox, notices, heartbeats."""

    #: Seconds without a word after which a link counts as dead (tests may shorten it).
    silence_limit = SILENCE_LIMIT

    def __init__(self, clock: Clock, on_notice: Callable[[Notice], None] | None) -> None:
        self.clock = clock
        self.timers = Timers(clock)
        self.inbox: queue.Queue[Any] = LinkInbox()
        self.notices: list[Notice] = []
        self._on_notice = on_notice

    def notice(self, what: str, /, **details: Any) -> None:
        """Tell the screen (``on_notice``) and keep the newest :data:`MAX_NOTICES`."""
        n = Notice(what, details)
        self.notices.append(n)
        if len(self.notices) > MAX_NOTICES:
            del self.notices[: len(self.notices) - MAX_NOTICES]
        if self._on_notice is not None:
            self._on_notice(n)

    @staticmethod
    def send(link: Link, message: Message | ProtocolFrame) -> bool:
        """Send, and say whether it could be queued (a dead link is noticed by its events)."""
        try:
            link.send(encode(message))
        except TransportError:
            return False
        return True

    def step(self, wait: float = 0.0) -> None:
        """Handle every event that is waiting (waiting up to ``wait`` s for the first one,
        less if a timer is due sooner), then the timers that are due."""
        next_timer = self.timers.next_in()
        if next_timer is not None:
            wait = min(wait, next_timer)
        try:
            event = self.inbox.get(timeout=wait) if wait > 0 else self.inbox.get_nowait()
            for _ in range(EVENTS_PER_STEP - 1):
                self._event(event)
                event = self.inbox.get_nowait()
            self._event(event)
        except queue.Empty:
            pass
        for name in self.timers.due():
            self._timer(name)

    def _event(self, event: Any) -> None:
        raise NotImplementedError

    def _timer(self, name: str) -> None:
        raise NotImplementedError

    def _links(self) -> list[Link]:
        raise NotImplementedError

    def buffered_bytes(self) -> int:
        """Bytes of frames this phone holds now: waiting in its inbox (event costs
        included), half-received, or queued for sending (bounded: docs/transport.md)."""
        waiting = getattr(self.inbox, "waiting_bytes", None)
        total = waiting() if waiting is not None else 0
        return total + sum(getattr(link, "buffered", 0) for link in self._links())


class MatchHooks(Protocol):
    """What the match on the host's phone hears from its lobby (by composition: the
    lobby knows nothing of the match, the match reads nothing private of the lobby)."""

    def on_game_message(self, seat: int, message: Message | ProtocolFrame) -> None:
        """A seated guest's message that is not about seating (TableError: drop him)."""

    def on_joined(self, seat: int) -> None:
        """A guest sat down, or came back to his seat on a new link."""

    def on_gone(self, seat: int, reason: str) -> None:
        """The link of the guest at ``seat`` is gone (his seat already updated)."""


class HostLobby(_Side):
    """The host's side of the lobby; ``hooks``: the match it hands its guests to."""

    def __init__(
        self,
        listener: Listener,
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        options: Options | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        hooks: MatchHooks | None = None,
    ) -> None:
        super().__init__(clock, on_notice)
        self.hooks = hooks
        #: seconds of silence after which "Start" drops a seated guest (tests may change it)
        self.stale_after = STALE_AFTER
        self.seating = Seating.new(player_id, name, lang, options)
        self.listener = listener
        self.address = listener.address
        self._peers: dict[Link, _Peer] = {}
        self._opened = 0  # links taken in so far
        self._acceptor = Acceptor(listener, self.inbox)
        self._closing: list[Link] = []
        self.closed = False
        self.timers.set("ping", PING_EVERY)

    # -- queries ------------------------------------------------------------------------

    def _links(self) -> list[Link]:
        return [*self._peers, *self._closing]

    def link_of(self, seat: int) -> Link | None:
        """The link of the guest at ``seat`` (None for the host or a disconnected seat)."""
        for peer in self._peers.values():
            if peer.seat == seat:
                return peer.link
        return None

    # -- host actions -------------------------------------------------------------------

    def set_options(self, options: Options) -> None:
        """Change the options (before the match) and tell everyone."""
        self.seating = self.seating.set_options(options)
        self._broadcast_lobby()

    def silent_seats(self) -> list[int]:
        """Seated guests not heard from for :attr:`stale_after` seconds (a killed app, a
        Bluetooth link gone quiet): they would stall the match's set-up."""
        now = self.clock.now()
        return sorted(
            p.seat
            for p in self._peers.values()
            if p.seat is not None and now - p.last_heard >= self.stale_after
        )

    def start(self) -> Seating:
        """Start the match with the players present: guests silent for
        :attr:`stale_after` seconds are dropped first (``silent``). TableError
        ``too_few_players`` if nobody else is left, ``player_not_ready`` (naming him) if a
        guest has not said he is ready; nothing changes then but the drops."""
        if not self.seating.started:
            for seat in reversed(self.silent_seats()):  # (seats behind move up)
                quiet = self.clock.now() - self._heard(seat)
                self.drop_seat(seat, "silent", f"nothing for {quiet:.0f} s")
        sitters = self.seating.sitters
        if not self.seating.started and len(sitters) < 2:
            raise TableError("too_few_players", "nobody else sits at the table")
        waiting = [s.name for s in sitters if not (s.ready and s.connected)]
        if not self.seating.started and waiting:
            raise TableError(
                "player_not_ready", f"not ready: {', '.join(waiting)}", name=waiting[0]
            )
        # The listener stays open: new phones are refused (game_running) by the seating,
        # returning players get their seat back.
        self.seating = self.seating.start()
        self.notice("match_started", players=len(self.seating.sitters))
        return self.seating

    def _heard(self, seat: int) -> float:
        return next(p.last_heard for p in self._peers.values() if p.seat == seat)

    def drop_seat(self, seat: int, reason: str, detail: str = "") -> None:
        """Close the link of the guest at ``seat`` (if he has one) and let him go."""
        # (one peer at most: before the match the seats behind him move up at once)
        peer = next((p for p in self._peers.values() if p.seat == seat), None)
        if peer is not None:
            self._drop(peer, reason, detail)

    def close(self, reason: str = "host_left") -> None:
        """Leave: tell every guest why, then close every link and stop listening."""
        if self.closed:
            return
        self.closed = True
        self._acceptor.stop()
        for peer in list(self._peers.values()):
            self.send(peer.link, Bye(reason))
        self._closing = [peer.link for peer in self._peers.values()]
        for link in self._closing:
            link.close_later(linger=1.0)
        self.notice("table_closed", reason=reason)

    def wait_closed(self, timeout: float = 2.0) -> bool:
        """After :meth:`close`: wait (real time, I/O) until every guest link has sent its
        last frames and ended; True if all did within ``timeout``."""
        deadline = _monotonic() + timeout
        return all(link.join(max(0.0, deadline - _monotonic())) for link in self._closing)

    # -- events -------------------------------------------------------------------------

    def _event(self, event: Any) -> None:
        if isinstance(event, Opened):
            unseated = [p for p in self._peers.values() if p.seat is None]
            if len(unseated) >= MAX_UNSEATED:
                # Strangers must not crowd the phone out, nor hold every unseated slot
                # and lock a returning player out: the newest link is taken, and the
                # unseated one here longest (one already refused first) makes room. A
                # returner's Join follows his link at once and seats him.
                oldest = min(unseated, key=lambda p: (not p.refused, p.opened))
                self._drop(oldest, "crowded", "room for a newer link")
            now = self.clock.now()
            self._opened += 1
            self._peers[event.link] = _Peer(
                event.link, last_heard=now, refilled=now, opened=self._opened
            )
            self.timers.set(f"join:{id(event.link)}", JOIN_WITHIN)
        elif isinstance(event, Received):
            peer = self._peers.get(event.link)
            if peer is None:
                return
            peer.frames += 1
            try:
                if peer.seat is None and peer.frames > PRE_JOIN_FRAMES:
                    raise TableError("flood", f"{peer.frames} frames without joining")
                message = decode(event.data)
                if isinstance(message, ProtocolFrame):
                    peer.last_heard = self.clock.now()  # (limited per deck by the match)
                else:
                    peer.charge(self.clock.now())
                self._message(peer, message)
            except TableError as exc:
                self._drop(peer, exc.code, str(exc))
            except Exception as exc:  # no peer's input may end the host's loop
                self._drop(peer, "bad_message", f"refused: {exc!r}")
        elif isinstance(event, Closed):
            peer = self._peers.pop(event.link, None)
            if peer is not None and not self.closed:  # (after close: our own hang-ups)
                self._gone(peer, "left" if event.code == "peer_closed" else "lost")
        elif isinstance(event, ListenerFailed):
            self.notice("listener_failed", code=event.error.code)

    def _message(self, peer: _Peer, message: Message | ProtocolFrame) -> None:
        if isinstance(message, Ping):
            self.send(peer.link, Pong(message.n))
        elif isinstance(message, Pong):
            pass
        elif isinstance(message, Join):
            self._join(peer, message)
        elif peer.seat is None:
            raise TableError("bad_message", "join first")
        elif isinstance(message, Ready):
            self.seating = self.seating.set_ready(peer.seat, message.ready)
            self._broadcast_lobby()
        elif isinstance(message, Bye):
            self._drop(peer, "left", "said goodbye")
        elif self.hooks is None:
            raise TableError("bad_message", f"{type(message).__name__} is not a lobby message")
        else:
            self.hooks.on_game_message(peer.seat, message)

    def _join(self, peer: _Peer, join: Join) -> None:
        if peer.seat is not None:
            raise TableError("bad_message", "already seated")
        try:
            self.seating, seat, rejoin = self.seating.join(
                join.player_id, join.name, join.lang, join.version
            )
        except TableError as exc:
            if exc.code in ("bad_name", "bad_message"):
                raise
            self.send(peer.link, Refused(exc.code))
            peer.refused = True
            peer.link.close_later(linger=1.0)
            self.notice("join_refused", code=exc.code)
            return
        old = self.link_of(seat)
        if old is not None:  # the same player on a new link: the old one is stale
            self._peers.pop(old, None)
            old.close(linger=0)
        peer.seat = seat
        self.timers.cancel(f"join:{id(peer.link)}")
        self.send(peer.link, Welcome(seat, rejoin))
        self.notice("player_rejoined" if rejoin else "player_joined", seat=seat)
        self._broadcast_lobby()
        if self.hooks is not None:
            self.hooks.on_joined(seat)

    def _drop(self, peer: _Peer, reason: str, detail: str) -> None:
        self._peers.pop(peer.link, None)
        peer.link.close_later(linger=0.2)
        self._gone(peer, reason, detail)

    def _gone(self, peer: _Peer, reason: str, detail: str = "") -> None:
        self.timers.cancel(f"join:{id(peer.link)}")
        if peer.seat is None:
            return
        name = self.seating.sitters[peer.seat].name
        self.seating = self.seating.leave(peer.seat)
        self.notice("player_left", seat=peer.seat, name=name, reason=reason, detail=detail)
        if not self.seating.started:
            # Seats moved up: tell each guest his (possibly new) seat.
            for other in self._peers.values():
                if other.seat is not None and other.seat > peer.seat:
                    other.seat -= 1
                    self.send(other.link, Welcome(other.seat, False))
        self._broadcast_lobby()
        if self.hooks is not None:
            self.hooks.on_gone(peer.seat, reason)

    def _broadcast_lobby(self) -> None:
        lobby: Lobby = self.seating.lobby()
        for peer in self._peers.values():
            if peer.seat is not None:
                self.send(peer.link, lobby)

    def broadcast(self, message: Message | ProtocolFrame, *, skip: int | None = None) -> None:
        """Send ``message`` to every seated guest (but ``skip``)."""
        for peer in self._peers.values():
            if peer.seat is not None and peer.seat != skip:
                self.send(peer.link, message)

    def _timer(self, name: str) -> None:
        now = self.clock.now()
        if name == "ping":
            for peer in list(self._peers.values()):
                if now - peer.last_heard >= self.silence_limit:
                    self._drop(peer, "silent", f"nothing for {self.silence_limit:.0f} s")
                else:
                    peer.pings += 1
                    self.send(peer.link, Ping(peer.pings))
            if not self.closed:
                self.timers.set("ping", PING_EVERY)
        elif name.startswith("join:"):
            for peer in list(self._peers.values()):
                if f"join:{id(peer.link)}" == name and peer.seat is None:
                    self._drop(peer, "no_join", "did not join in time")


class GuestLobby(_Side):
    """A guest's side of the lobby: one link to the host."""

    def __init__(
        self,
        link: Link,
        inbox: queue.Queue[Any],
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        on_notice: Callable[[Notice], None] | None = None,
    ) -> None:
        super().__init__(clock, on_notice)
        self.inbox = inbox  # where ``link`` delivers its events
        self.link = link
        self.seat: int | None = None
        #: the host seated me again at a running table (my seat was kept for me)
        self.rejoined = False
        self.lobby: Lobby | None = None
        self.closed = False
        self.ready = False
        self._last_heard = clock.now()
        self._pings = 0
        self.send(link, Join(player_id=player_id, name=name, lang=lang))
        self.timers.set("ping", PING_EVERY)

    @classmethod
    def connect(
        cls,
        transport: Any,
        address: str,
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        timeout: float = 15.0,
        on_notice: Callable[[Notice], None] | None = None,
    ) -> GuestLobby:
        """Connect to the host at ``address`` and ask for a seat (blocking)."""
        return cls.join(
            transport,
            address,
            timeout=timeout,
            player_id=player_id,
            name=name,
            lang=lang,
            clock=clock,
            on_notice=on_notice,
        )

    @classmethod
    def join(cls, transport: Any, address: str, *, timeout: float = 15.0, **kwargs: Any) -> Self:
        """Connect to the host at ``address`` and ask for a seat (blocking); ``kwargs``
        go to the constructor (the table shells built on this lobby take more)."""
        inbox: queue.Queue[Any] = LinkInbox()
        link = transport.connect(address, timeout=timeout, inbox=inbox)
        return cls(link, inbox, **kwargs)

    def _links(self) -> list[Link]:
        return [self.link]

    def set_ready(self, ready: bool = True) -> None:
        """Tell the host whether we are ready to start."""
        self.ready = ready
        self.send(self.link, Ready(ready))

    def leave(self) -> None:
        """Say goodbye and close the link."""
        if self.closed:
            return
        self.send(self.link, Bye("left"))
        self.link.close_later(linger=1.0)
        self.closed = True
        self.notice("left_table")

    def _event(self, event: Any) -> None:
        if isinstance(event, Received):
            self._last_heard = self.clock.now()
            try:
                message = decode(event.data)
                self._message(message)
            except Exception as exc:  # no input from the host may end my loop
                # A host that sends garbage, or an event my phone cannot apply (a round
                # or seat that does not exist): leave it, saying why.
                if isinstance(exc, TableError):
                    code, detail = exc.code, str(exc)
                else:  # (the last resort: no explicit check refused it)
                    code, detail = "bad_message", f"refused: {exc!r}"
                self.notice("host_violation", code=code, detail=detail)
                self.link.close(linger=0)
                self.closed = True
        elif isinstance(event, Closed) and not self.closed:
            self.closed = True
            self.timers.cancel("ping")
            self.notice("host_lost", code=event.code)

    def _message(self, message: Message | ProtocolFrame) -> None:
        if isinstance(message, Ping):
            self.send(self.link, Pong(message.n))
        elif isinstance(message, Pong):
            pass
        elif isinstance(message, Welcome):
            if message.seat == 0 or not self._seat_may_change():
                raise TableError("bad_message", f"no seat {message.seat} for me now")
            self.seat = message.seat
            self.rejoined = self.rejoined or message.rejoin
            self.notice("seated", seat=message.seat, rejoin=message.rejoin)
        elif isinstance(message, Lobby):
            self.lobby = message
            self.notice("lobby", players=len(message.players))
        elif isinstance(message, Refused):
            self.closed = True
            self.link.close(linger=0)
            self.notice("refused", code=message.code)
        elif isinstance(message, Bye):
            self.closed = True
            self.link.close(linger=0)
            self.notice("table_closed", reason=message.reason)
        else:
            self.on_game_message(message)

    def on_game_message(self, message: Message | ProtocolFrame) -> None:
        """Messages of the match (extended by the match layer); in the lobby: a violation."""
        raise TableError("bad_message", f"{type(message).__name__} is not a lobby message")

    def _seat_may_change(self) -> bool:
        """Whether the host may (re)seat me now (not once my match has begun)."""
        return True

    def _timer(self, name: str) -> None:
        if name != "ping" or self.closed:
            return
        if self.clock.now() - self._last_heard >= self.silence_limit:
            self.closed = True
            self.link.close(linger=0)
            self.notice("host_lost", code="silent")
            return
        self._pings += 1
        self.send(self.link, Ping(self._pings))
        self.timers.set("ping", PING_EVERY)
