"""A table of phones in simulated time: the real table code, phone CPUs, Bluetooth links.

The host's and the guests' :class:`~app.table.oczko.guest.HostTable` / ``GuestTable`` run
unchanged, each with the real SRA dealer on a :class:`~app.sim.phone_cpu.MeteredGroup`,
over in-memory links whose frames arrive when the link model says
(:mod:`app.bluetooth.btmodel`). One :class:`~app.table.clock.FakeClock` is every
phone's clock; the :class:`Sim` moves it from one event to the next (a frame arriving,
a timer, a phone done computing), so a 7-phone match at phone speed takes seconds of
real time and is the same every time for the same seed.

A phone is stepped (its inbox read, its timers, its dealer's background work) when it is
neither computing nor paused; the seconds its CPU spends on that step are charged from
the exponentiations it did, and every frame it sent in the step leaves only once the
work before it is done. Bots decide after a think time. :class:`Waits` records what a
player waits for (see docs/protocol.md, "What players wait for").
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import queue
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from app.bluetooth.btmodel import LinkModel, Radio, Wire, pauses
from app.bluetooth.errors import TransportError
from app.bluetooth.framing import encode_frame
from app.bluetooth.link import Closed, Inbox, InboxEvent, Link, Opened, Received
from app.protocol.group import DEFAULT_GROUP, Group
from app.protocol.keys import DeterministicRng
from app.sim.phone_cpu import CpuMeter, MeteredGroup, PhoneCpu
from app.table.clock import FakeClock
from app.table.messages import Options
from app.table.oczko.guest import GuestTable, HostTable, simple_bot
from app.table.oczko.sra_deck import SraDealer

#: Seconds a simulated bot thinks before each decision (a person glancing at his cards).
THINK_S = 1.5
#: Seconds between two players sitting down in a ``gradual`` lobby.
JOIN_EVERY_S = 10.0
#: How a table fills: ``gradual``, players sit down one at a time, :data:`JOIN_EVERY_S`
#: apart, each ready at once, and the host starts when the last one is ready; ``cold``,
#: all sit down at once, are ready together, and the host starts once the lobby's news
#: of the last "ready" has left its radio.
LOBBIES = ("gradual", "cold")
#: What :class:`Waits` records (``ahead_deal``: the later deals from a deck shuffled in
#: the background during the round before; ``after_drop``: each phone's first card after
#: a dropout, from the dropout or from when it asked, if later; ``tiebreak_deal``: the
#: deals of tiebreak rounds, from the round before's result).
KINDS = (
    "first_deal",
    "later_deal",
    "ahead_deal",
    "drawn_card",
    "round_result",
    "reshuffle",
    "after_drop",
    "tiebreak_deal",
)


class Sim:
    """The event loop of simulated time: scheduled callbacks and phones to step."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self.phones: list[SimPhone] = []

    @property
    def now(self) -> float:
        return self.clock.now()

    def at(self, when: float, action: Callable[[], None]) -> None:
        """Run ``action`` at simulated time ``when`` (now, if that is past)."""
        heapq.heappush(self._heap, (max(when, self.now), next(self._seq), action))

    def run(self, until: Callable[[], bool], limit_s: float) -> bool:
        """Advance until ``until()`` or ``limit_s`` simulated seconds from now pass;
        True if ``until()`` came true."""
        end = self.now + limit_s
        while not until():
            when = min(p.next_step() for p in self.phones) if self.phones else float("inf")
            if self._heap:
                when = min(when, self._heap[0][0])
            if when > end:
                return False
            if when > self.now:
                self.clock.advance(when - self.now)
            while self._heap and self._heap[0][0] <= self.now:
                heapq.heappop(self._heap)[2]()
            for phone in self.phones:
                if phone.next_step() <= self.now:
                    phone.step()
        return True

    def run_to(self, when: float, limit_s: float = 3600.0) -> None:
        """Advance to simulated time ``when`` (the phones doing what comes up)."""
        reached = [False]
        self.at(when, lambda: reached.__setitem__(0, True))
        self.run(lambda: reached[0], limit_s)


class SimLink:
    """One end of an in-memory link (the :class:`~app.bluetooth.link.Link` interface)."""

    def __init__(
        self, net: SimNet, owner: SimPhone | None, wire: Wire, peer: str, inbox: Inbox
    ) -> None:
        self.net = net
        self.owner = owner
        self.wire = wire
        self.peer = peer
        self.inbox = inbox
        self.other: SimLink | None = None
        self._close_code: str | None = None
        self.dead = False  # its phone is gone (killed): nothing more arrives from it
        self.mangle: Callable[[SimLink, bytes], list[bytes] | None] | None = None

    @property
    def closed(self) -> bool:
        return self._close_code is not None

    @property
    def close_code(self) -> str | None:
        return self._close_code

    def _ready_at(self) -> float:
        return self.net.sim.now + (self.owner.in_step_cost() if self.owner else 0.0)

    def send(self, data: bytes) -> None:
        if self.closed:
            raise TransportError("closed", f"link to {self.peer} is closed")
        frame = encode_frame(bytes(data))
        size = round(len(frame) * self.net.byte_scale)
        if self.owner is not None:
            self.owner.meter.frames()
        outs = self.mangle(self, frame) if self.mangle is not None else [frame]
        if outs is None:  # the link breaks on this frame (a corrupt byte: a CRC error)
            self._break_at(self.wire.arrival(self._ready_at(), size), "frame_checksum")
            return
        for _ in outs:
            arrival = self.wire.arrival(self._ready_at(), size)
            self.net.sim.at(arrival, functools.partial(self._deliver, bytes(data)))

    def _deliver(self, data: bytes) -> None:
        other = self.other
        if other is not None and not other.closed and not self.dead:
            other.inbox.put(Received(other, data))

    def _break_at(self, when: float, code: str) -> None:
        def broken() -> None:
            if self.other is not None:
                self.other._finish(code)
            self._finish("peer_closed")

        self.net.sim.at(when, broken)

    def _finish(self, code: str) -> None:
        if self._close_code is None:
            self._close_code = code
            self.inbox.put(Closed(self, code))

    def close(self, linger: float = 0.5) -> None:
        if self.closed:
            return
        self._finish("local_close")
        other = self.other
        if other is not None:  # the hang-up arrives after what was sent before it
            when = max(self.wire.last_arrival, self.net.sim.now) + self.wire.model.latency_s
            self.net.sim.at(when, lambda: other._finish("peer_closed"))

    def close_later(self, linger: float = 1.0) -> None:
        self.close(linger)

    def flush(self, timeout: float) -> bool:
        return not self.closed

    def join(self, timeout: float) -> bool:
        return True

    def recv(self, timeout: float | None = None) -> bytes:
        raise TransportError("closed", "simulated links deliver to the table's inbox")


class SimListener:
    """The host's listening end; links are made by :meth:`SimNet.connect`."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.inbox: Inbox | None = None  # the host table's inbox, set once it exists

    def accept(self, timeout: float | None = None, inbox: Inbox | None = None) -> Link:
        raise TransportError("closed", "a simulated listener accepts nothing by itself")

    def close(self) -> None:
        pass

    def thread_done(self) -> None:
        pass


class SimNet:
    """The air between the phones: makes links over the link model."""

    def __init__(
        self, sim: Sim, model: LinkModel, rng: random.Random, byte_scale: float = 1.0
    ) -> None:
        self.sim = sim
        #: bytes on the air per byte sent: a smaller test group's frames are counted
        #: at the size of the 2048-bit group's (its values are 256 bytes long)
        self.byte_scale = byte_scale
        self.model = model
        self.radio = Radio(model)  # the host's, shared by all its links
        self.rng = rng
        self.listener = SimListener("sim:host")

    def connect(self, guest: SimPhone | None, host: SimPhone | None, inbox: Inbox) -> SimLink:
        """A guest's new link to the host: the guest's end (the host hears Opened)."""
        up = Wire(self.model, self.radio, random.Random(self.rng.random()))
        down = Wire(self.model, self.radio, random.Random(self.rng.random()))
        host_inbox = self.listener.inbox
        if host_inbox is None:
            raise TransportError("closed", "no host table listens on this simulated network")
        mine = SimLink(self, guest, up, "sim:host", inbox)
        theirs = SimLink(self, host, down, f"sim:guest{id(mine)}", host_inbox)
        mine.other, theirs.other = theirs, mine
        inbox.put(Opened(mine))
        self.sim.at(self.sim.now + self.model.latency_s, lambda: host_inbox.put(Opened(theirs)))
        return mine


def _seated_or_gone(phone: SimPhone) -> bool:
    return phone.side is not None and (phone.side.seat is not None or phone.side.closed)


class SimPhone:
    """One phone: its table side, its CPU, its pauses."""

    def __init__(self, sim: Sim, seat: int, cpu: PhoneCpu) -> None:
        self.sim = sim
        self.seat = seat
        self.meter = CpuMeter(cpu)
        self.side: Any = None
        self.busy_until = 0.0
        self.paused: list[tuple[float, float]] = []
        self.dead = False
        self.wake_at: float | None = None  # a bot's decision is due
        self._step_start: float | None = None
        self.steps = 0

    def in_step_cost(self) -> float:
        return 0.0 if self._step_start is None else self.meter.charged - self._step_start

    def _pause_end(self, t: float) -> float:
        k = bisect.bisect_right(self.paused, (t, float("inf"))) - 1
        if k >= 0 and self.paused[k][0] <= t < self.paused[k][1]:
            return self.paused[k][1]
        return t

    def next_step(self) -> float:
        """When this phone next has something to do (inf: nothing)."""
        side = self.side
        if self.dead or side is None or side.closed:
            return float("inf")
        now = self.sim.now
        phone = getattr(side, "phone", None)
        due = [float("inf")]
        if not side.inbox.empty() or (phone is not None and phone.dealer.has_work()):
            due.append(now)
        return self._next_due(due)

    def _next_due(self, due: list[float]) -> float:
        """The first of ``due``, the side's timers and a bot's decision, once the phone
        is free and awake (inf: nothing)."""
        side = self.side
        # (a host's lobby keeps timers of its own beside the match's: the pings, the
        # silence of a dead guest's link, the join deadlines; they wake it too)
        lobby = getattr(side, "lobby", None)
        for timers in (side.timers, getattr(lobby, "timers", None)):
            nxt = timers.next_in() if timers is not None else None
            if nxt is not None:
                due.append(self.sim.now + nxt)
        if self.wake_at is not None:
            due.append(self.wake_at)
        t = max(min(due), self.busy_until)
        return self._pause_end(t) if t < float("inf") else t

    def act(self, action: Callable[[], None]) -> None:
        """Run ``action`` on this phone now, outside a step (a person's tap), charging
        its work like a step's: its frames leave once the work before them is done."""
        self._step_start = self.meter.charged
        try:
            action()
        finally:
            cost = self.in_step_cost()
            self._step_start = None
        self.busy_until = max(self.busy_until, self.sim.now) + cost

    def step(self) -> None:
        self.steps += 1
        if self.wake_at is not None and self.wake_at <= self.sim.now:
            self.wake_at = None
        self._step_start = self.meter.charged
        self.meter.frames(self.side.inbox.qsize())  # (each frame read costs its share)
        try:
            self.side.step(0.0)
        finally:
            cost = self.in_step_cost()
            self._step_start = None
        self.busy_until = self.sim.now + cost


class Thinker:
    """A bot's pace on a simulated phone: it decides ``think_s`` simulated seconds after
    it first saw a decision (told apart by a key), and wakes its phone then."""

    def __init__(self, phone: SimPhone, think_s: float) -> None:
        self.phone = phone
        self.think_s = think_s
        self._key: object = None
        self._due = 0.0

    def thinking(self, key: object, now: float) -> bool:
        """Whether the bot still thinks at ``now`` about the decision ``key``."""
        if key != self._key:
            self._key, self._due = key, now + self.think_s
            self.phone.wake_at = self._due
        return now < self._due


class ThinkingBot(Thinker):
    """:func:`simple_bot` that takes ``think_s`` simulated seconds per decision and
    notes when each draw was asked for (the start of a drawn-card wait)."""

    def __init__(self, phone: SimPhone, think_s: float, waits: Waits) -> None:
        super().__init__(phone, think_s)
        self.waits = waits

    def __call__(self, match: Any) -> str | None:
        action = simple_bot(match)
        if action is None:
            return None
        r = match.match.round
        key = (r.number, len(r.hand(match.seat).cards))
        now = self.phone.sim.now
        if self.thinking(key, now):
            return None
        self._key = None
        if action == "draw":
            self.waits.asked(match.seat, now)
        return action


@dataclass
class Waits:
    """What players waited for, in simulated seconds (one entry per phone and event)."""

    first_deal: list[float] = field(default_factory=list)
    later_deal: list[float] = field(default_factory=list)
    ahead_deal: list[float] = field(default_factory=list)  # ... from a deck shuffled ahead
    drawn_card: list[float] = field(default_factory=list)
    round_result: list[float] = field(default_factory=list)
    reshuffle: list[float] = field(default_factory=list)
    after_drop: list[float] = field(default_factory=list)
    tiebreak_deal: list[float] = field(default_factory=list)
    _begin: float = 0.0
    _ended: dict[int, float] = field(default_factory=dict)  # seat -> last round end
    _asked: dict[int, float] = field(default_factory=dict)  # seat -> draw asked at
    _last_play: dict[int, float] = field(default_factory=dict)  # round -> last decision
    _dropped_at: float | None = None
    _dealt: set[tuple[int, int]] = field(default_factory=set)
    _drops: list[float] = field(default_factory=list)  # when the host dropped a phone
    _drops_seen: dict[int, int] = field(default_factory=dict)  # seat -> drops it waited out

    def asked(self, seat: int, now: float) -> None:
        self._asked[seat] = now

    def _after_drop(self, seat: int, now: float, since: float) -> None:
        """``seat``'s first card after a dropout it has not waited out yet: from the
        dropout, or from ``since`` (its draw, its round's end) if later."""
        seen = self._drops_seen.get(seat, 0)
        if seen < len(self._drops) and self._drops[-1] <= now:
            self._drops_seen[seat] = len(self._drops)
            self.after_drop.append(now - max(self._drops[-1], since))

    def log(
        self,
        seat: int,
        now: float,
        entry: dict[str, Any],
        ahead: bool = False,
        tiebreak: bool = False,
    ) -> None:
        """A phone's log entry at simulated time ``now`` (``ahead``: a card dealt from a
        deck shuffled during the last round; ``tiebreak``: of a tiebreak round)."""
        kind = entry.get("event")
        if kind == "card_dealt" and (seat, entry.get("round", 0)) not in self._dealt:
            number = entry.get("round", 0)
            self._dealt.add((seat, number))
            if number == 1:
                self.first_deal.append(now - self._begin)
            elif seat in self._ended:
                self.later_deal.append(now - self._ended[seat])
                if ahead:
                    self.ahead_deal.append(now - self._ended[seat])
                if tiebreak:
                    self.tiebreak_deal.append(now - self._ended[seat])
                self._after_drop(seat, now, self._ended[seat])
        elif kind == "card_drawn" and entry.get("seat") == seat and seat in self._asked:
            asked = self._asked.pop(seat)
            self._after_drop(seat, now, asked)
            if self._dropped_at is not None:
                self.reshuffle.append(now - max(asked, self._dropped_at))
                self._dropped_at = None
            else:
                self.drawn_card.append(now - asked)
        elif kind in ("held", "busted") and seat == 0:
            self._last_play[entry.get("round", 0)] = now
        elif kind == "round_ended":
            number = entry.get("round", 0)
            self._ended[seat] = now
            if number in self._last_play:
                self.round_result.append(now - self._last_play[number])
        elif kind == "disconnected" and seat == 0:
            self._dropped_at = now
            self._drops.append(now)

    def summary(self) -> dict[str, dict[str, float | int]]:
        """Median and worst of each wait, and how many there were."""
        return summarise(self, KINDS)


def summarise(waits: object, kinds: Sequence[str]) -> dict[str, dict[str, float | int]]:
    """Median and worst of each of ``waits``' lists named in ``kinds``, and their sizes."""
    out: dict[str, dict[str, float | int]] = {}
    for name in kinds:
        xs: list[float] = getattr(waits, name)
        out[name] = {
            "n": len(xs),
            "median_s": round(statistics.median(xs), 3) if xs else 0.0,
            "worst_s": round(max(xs), 3) if xs else 0.0,
        }
    return out


@dataclass
class Table:
    """A simulated table: the phones (seat order) and what happened."""

    sim: Sim
    net: SimNet
    phones: list[SimPhone]
    waits: Waits
    make_guest: Callable[[SimPhone], Any]

    @property
    def host(self) -> HostTable:
        side = self.phones[0].side
        if not isinstance(side, HostTable):
            raise RuntimeError("the first phone of a simulated table is its host")
        return side

    def sides(self) -> list[Any]:
        return [p.side for p in self.phones]

    def live(self) -> list[SimPhone]:
        return [p for p in self.phones if not p.dead and not p.side.closed]

    def over(self) -> bool:
        """Every live phone has the match over (or the host closed the table)."""
        host = self.host
        if host.closed:
            return True
        if host.phone is None or not host.phone.match.over:
            return False
        # (a player back too late to be dealt in again has no match to end)
        return all(p.side.phone is None or p.side.phone.match.over for p in self.live())

    def kill(self, seat: int) -> None:
        """The phone at ``seat`` dies (battery, out of range): silence, then no link."""
        kill_phone(self.phones[seat])

    def rejoin(self, seat: int) -> None:
        """The player of ``seat`` is back, on a fresh phone (the app started anew)."""
        phone = self.phones[seat]
        if not phone.dead or self.over():
            return
        fresh_phone(phone, self.make_guest)
        phone.side.set_ready()

    def results(self) -> set[tuple[Any, ...]]:
        """Each live phone's view of the result (one element when they all agree)."""
        return {
            (p.side.phone.match.winner, tuple(p.side.phone.match.points))
            for p in self.live()
            if p.side.phone is not None
        }


#: a phone of a simulated table (the casino's kind too)
P = TypeVar("P", bound=SimPhone)


def kill_phone(phone: SimPhone) -> None:
    """``phone`` dies (battery, out of range): silence, then no link."""
    phone.dead = True
    phone.side.link.dead = True


def fresh_phone(phone: P, make_guest: Callable[[P], Any]) -> None:
    """The dead ``phone``'s player is back on it, a fresh phone (the app started anew)."""
    phone.dead = False
    phone.busy_until = phone.sim.now
    phone.side = make_guest(phone)


def new_sim(
    link: LinkModel, seed: int, group: Group, lobby: str
) -> tuple[random.Random, FakeClock, Sim, SimNet]:
    """A simulation's random source (from ``seed``), clock, scheduler and network
    (air time counted at ffdhe2048 for frames of ``group``); ``lobby`` checked."""
    if lobby not in LOBBIES:
        raise ValueError(f"unknown lobby {lobby!r}; expected one of {', '.join(LOBBIES)}")
    rng = random.Random(seed)
    clock = FakeClock(0.0)
    sim = Sim(clock)
    net = SimNet(sim, link, rng, byte_scale=DEFAULT_GROUP.byte_len / group.byte_len)
    return rng, clock, sim, net


def pause_guests(phones: Sequence[SimPhone], link: LinkModel, rng: random.Random) -> None:
    """Each guest's app pauses now and then, as ``link`` says, for a day of simulated
    time (the host's app is in front: it runs the table)."""
    horizon = 24 * 3600.0
    for phone in phones[1:]:
        phone.paused = pauses(link, random.Random(rng.random()), horizon)


def open_table(
    cpus: list[PhoneCpu],
    link: LinkModel,
    *,
    seed: int,
    rounds: int = 5,
    turn_time: int = 30,
    think_s: float = THINK_S,
    group: Group = DEFAULT_GROUP,
    silence_limit: float | None = None,
    quiet_start: bool = False,
    lobby: str = "cold",
) -> Table:
    """Seat ``len(cpus)`` phones (the first hosts), everyone ready, the match begun
    (``quiet_start``: once the host's radio has carried the lobby's last news, as when
    a person taps "start"; ``lobby``: see :data:`LOBBIES`, ``gradual`` starts at once)."""
    rng, clock, sim, net = new_sim(link, seed, group, lobby)
    waits = Waits()
    phones = [SimPhone(sim, seat, cpu) for seat, cpu in enumerate(cpus)]
    sim.phones = phones
    pause_guests(phones, link, rng)

    def factory_for(phone: SimPhone) -> Callable[[int, int], SraDealer]:
        metered = MeteredGroup(group, phone.meter)
        dealer_rng = DeterministicRng(rng.getrandbits(64))
        return lambda seat, players: SraDealer(seat, players, group=metered, rng=dealer_rng)

    def logger(phone: SimPhone) -> Callable[[dict[str, Any]], None]:
        def log(entry: dict[str, Any]) -> None:
            match = getattr(phone.side, "phone", None)
            dealt = entry.get("event") == "card_dealt" and match is not None
            ahead = match is not None and dealt and bool(match.dealt_ahead(entry.get("round", 0)))
            r = match.match.round if match is not None and dealt else None
            tiebreak = r is not None and r.number == entry.get("round", 0) and r.tiebreak
            # (stamped when the phone has computed up to it, as its frames are sent)
            waits.log(phone.seat, sim.now + phone.in_step_cost(), entry, ahead, tiebreak)

        return log

    options = Options(rounds=rounds, turn_time=turn_time)
    host = HostTable(
        net.listener,
        player_id="h" * 32,
        name="Host",
        lang="en",
        clock=clock,
        dealer_factory=factory_for(phones[0]),
        options=options,
        bot=ThinkingBot(phones[0], think_s, waits),
        on_log=logger(phones[0]),
    )
    # (the pace is in the bytes of the group computed on: air time is counted at ffdhe2048)
    host.background_bytes_per_s /= net.byte_scale
    host.body_bytes_per_s /= net.byte_scale
    net.listener.inbox = host.inbox
    phones[0].side = host

    def make_guest(phone: SimPhone) -> GuestTable:
        inbox: queue.Queue[InboxEvent] = queue.Queue()
        side = GuestTable(
            net.connect(phone, phones[0], inbox),
            inbox,
            player_id=f"{phone.seat:x}" * 32,
            name=f"P{phone.seat}",
            lang="en",
            clock=clock,
            dealer_factory=factory_for(phone),
            bot=ThinkingBot(phone, think_s, waits),
            on_log=logger(phone),
        )
        if silence_limit is not None:
            side.silence_limit = silence_limit
        return side

    for k, phone in enumerate(phones[1:]):
        if lobby == "gradual":
            sim.run_to(k * JOIN_EVERY_S)
        phone.side = make_guest(phone)
        sim.run(functools.partial(_seated_or_gone, phone), 60.0)
        if lobby == "gradual":
            phone.side.set_ready()
    if silence_limit is not None:
        host.silence_limit = silence_limit
    if lobby == "cold":
        for phone in phones[1:]:
            phone.side.set_ready()
    sim.run(lambda: host.seating.can_start(), 60.0)
    if quiet_start and lobby == "cold":
        # Every guest's "ready" made the host send the lobby to every guest: at 7 phones
        # 36 frames, 0.7 s of air, which a first deal started at once would count.
        sim.run(lambda: net.radio.free_at <= sim.now, 60.0)
    waits._begin = sim.now
    host.begin()
    return Table(sim, net, phones, waits, make_guest)


def play(table: Table, limit_s: float = 3600.0) -> bool:
    """Run the match to its end (every live phone); True if it ended within ``limit_s``."""
    return table.sim.run(table.over, limit_s)


def match(
    cpus: list[PhoneCpu],
    link: LinkModel,
    *,
    seed: int,
    rounds: int = 5,
    drop_in_round: int | None = None,
    group: Group = DEFAULT_GROUP,
    think_s: float = THINK_S,
    limit_s: float = 3600.0,
    quiet_start: bool = False,
    lobby: str = "cold",
) -> tuple[Table, bool]:
    """One whole match; with ``drop_in_round`` the last seat's phone dies once that
    round's play has begun (the rest play on from a fresh deck). (table, ended in time)"""
    table = open_table(
        cpus,
        link,
        seed=seed,
        rounds=rounds,
        group=group,
        think_s=think_s,
        quiet_start=quiet_start,
        lobby=lobby,
    )
    if drop_in_round is not None and len(cpus) > 2:

        def playing() -> bool:
            m = table.host.phone.match if table.host.phone else None
            r = m.round if m is not None else None
            late = r is not None and r.number >= drop_in_round and r.phase.name == "PLAY"
            return late or table.over()

        table.sim.run(playing, limit_s)
        if not table.over():
            table.kill(len(cpus) - 1)
    return table, play(table, limit_s)
