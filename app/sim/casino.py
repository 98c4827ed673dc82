"""A casino table of phones in simulated time: the real casino host and guests.

The casino counterpart of :mod:`app.sim.oczko`: :class:`~app.table.casino.host.CasinoHost`
and :class:`~app.table.casino.guest.CasinoGuest` run unchanged, each with the real SRA
shoe (:class:`~app.table.casino.sra_shoe.SraShoe`) on a :class:`~app.sim.phone_cpu.MeteredGroup`,
over the same simulated links, CPUs and clock (:class:`~app.sim.oczko.Sim`,
:class:`~app.sim.oczko.SimNet`, :class:`~app.sim.oczko.SimPhone`). Bots play
:func:`~app.table.casino.bot.casino_bot` after a think time. :class:`CasinoWaits`
records what a player waits for:

* ``bets_open``: from the host's "start" to bets open on a phone (the first shoe);
* ``first_card``: from the round's last "my bets are in" to the round's first card on
  a phone (every card of the deal opens together);
* ``between_rounds``: from a round's result on a phone to the next round's bets open on
  it (rounds with no dropout or return between them);
* ``after_drop``: what a dropout or a return adds: on each phone still at the table,
  the first time after it that the phone waits for the shoe (its round for a card, or
  the next round's bets), from the dropout or return (or from when that wait began, if
  later) to the card or the bets open.

Everything is stamped in simulated seconds when the phone has computed up to it.
"""

from __future__ import annotations

import functools
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.bluetooth.btmodel import LinkModel
from app.bluetooth.link import InboxEvent
from app.protocol.group import DEFAULT_GROUP, Group
from app.protocol.keys import DeterministicRng
from app.rules.blackjack.state import Phase
from app.rules.table_rules import TableRules
from app.sim.oczko import (
    JOIN_EVERY_S,
    THINK_S,
    Sim,
    SimNet,
    SimPhone,
    Thinker,
    fresh_phone,
    kill_phone,
    new_sim,
    pause_guests,
    summarise,
)
from app.sim.phone_cpu import MeteredGroup, PhoneCpu
from app.table.casino.bot import Intent, casino_bot
from app.table.casino.guest import CasinoGuest
from app.table.casino.host import CasinoHost
from app.table.casino.phone import CasinoPhone
from app.table.casino.sra_shoe import SraShoe
from app.table.lobby import Notice

#: What :class:`CasinoWaits` records.
CASINO_KINDS = ("bets_open", "first_card", "after_drop", "between_rounds")


class StampedLog(list[dict[str, Any]]):
    """A phone's log that notes, beside each entry, when the phone computed it."""

    def __init__(self, entries: list[dict[str, Any]], when: Callable[[], float]) -> None:
        super().__init__(entries)
        self.when = when
        now = when()
        self.stamps = [now] * len(entries)

    def append(self, entry: dict[str, Any]) -> None:
        super().append(entry)
        self.stamps.append(self.when())


@dataclass
class CasinoWaits:
    """What players waited for at a casino table, in simulated seconds."""

    bets_open: list[float] = field(default_factory=list)
    first_card: list[float] = field(default_factory=list)
    after_drop: list[float] = field(default_factory=list)
    between_rounds: list[float] = field(default_factory=list)
    start: float | None = None
    #: round -> when its last "my bets are in" left its phone
    done_at: dict[int, float] = field(default_factory=dict)
    #: when a dropout or return happened (the host dropped the phone, readmitted it)
    events: list[float] = field(default_factory=list)
    _settled: dict[int, float] = field(default_factory=dict)  # seat -> last result
    _round: dict[int, int] = field(default_factory=dict)  # seat -> round bets opened
    _carded: set[tuple[int, int]] = field(default_factory=set)
    _blocked: dict[int, float] = field(default_factory=dict)  # seat -> waiting since
    _seen: dict[int, int] = field(default_factory=dict)  # seat -> events waited out

    def entry(self, seat: int, now: float, entry: dict[str, Any]) -> None:
        """A log entry of ``seat``'s phone, computed at ``now``."""
        kind = entry.get("event")
        if kind == "bets_open":
            number = int(entry.get("round", 0))
            self._round[seat] = number
            if number == 1 and self.start is not None:
                self.bets_open.append(now - self.start)
            settled = self._settled.get(seat)
            if number > 1 and settled is not None and not self._event_between(settled, now):
                self.between_rounds.append(now - settled)
            self._moved(seat, now)
        elif kind in ("card", "dealer_card"):
            number = self._round.get(seat, 0)
            if (seat, number) not in self._carded:
                self._carded.add((seat, number))
                done = self.done_at.get(number)
                if done is not None and done <= now:
                    self.first_card.append(now - done)
            self._moved(seat, now)
        elif kind == "round_settled":
            self._settled[seat] = now

    def _event_between(self, a: float, b: float) -> bool:
        return any(a <= t <= b for t in self.events)

    def blocked(self, seat: int, now: float, waiting: bool) -> None:
        """Whether ``seat``'s phone waits for the shoe after its step ending at ``now``."""
        if waiting:
            self._blocked.setdefault(seat, now)
        else:
            self._blocked.pop(seat, None)

    def _moved(self, seat: int, now: float) -> None:
        """``seat``'s phone got a card or bets opened: a wait for the shoe ended."""
        seen = self._seen.get(seat, 0)
        since = self._blocked.pop(seat, now)
        if seen < len(self.events) and self.events[-1] <= now:
            self._seen[seat] = len(self.events)
            self.after_drop.append(now - max(self.events[-1], since))

    def joined(self, seat: int) -> None:
        """``seat``'s phone is new at the table: earlier events are not its to wait out."""
        self._seen[seat] = len(self.events)
        self._blocked.pop(seat, None)

    def summary(self) -> dict[str, dict[str, float | int]]:
        """Median and worst of each wait, and how many there were."""
        return summarise(self, CASINO_KINDS)


class CasinoSimPhone(SimPhone):
    """A phone at a casino table: its log stamped, its waits for the shoe noted."""

    def __init__(self, sim: Sim, seat: int, cpu: PhoneCpu, waits: CasinoWaits) -> None:
        super().__init__(sim, seat, cpu)
        self.waits = waits
        self._read = 0  # log entries already handed to the waits
        self._log: StampedLog | None = None

    def next_step(self) -> float:
        side = self.side
        if side is not None and (side.over or side.closed):
            return float("inf")  # (its dealer's work is moot once its table is over)
        phone = getattr(side, "phone", None)
        if phone is not None and phone.fault is not None and side.inbox.empty():
            # (a fault the shell has not handled yet stops the dealer's work: only the
            # timers and the links wake the phone, never the work it will not do)
            return self._timers_only()
        return super().next_step()

    def _timers_only(self) -> float:
        return self._next_due([float("inf")])

    def step(self) -> None:
        super().step()
        self.watch()

    def act(self, action: Callable[[], None]) -> None:
        super().act(action)
        self.watch()

    def watch(self) -> None:
        """Hand the waits what the phone logged and whether it waits for the shoe."""
        phone: CasinoPhone | None = getattr(self.side, "phone", None)
        if phone is None:
            return
        if not isinstance(phone.log, StampedLog) or phone.log is not self._log:
            # (a new phone: the entries it made in this step are stamped at its end)
            end = self.busy_until
            phone.log = StampedLog(phone.log, lambda: self.sim.now + self.in_step_cost())
            phone.log.stamps = [end] * len(phone.log)
            self._log, self._read = phone.log, 0
        log = self._log
        for k in range(self._read, len(log)):
            self.waits.entry(self.seat, log.stamps[k], log[k])
        self._read = len(log)
        r = phone.round
        between = r is None or r.phase is Phase.SETTLED
        self.waits.blocked(self.seat, self.busy_until, phone.waiting or between)


class ThinkingCasinoBot(Thinker):
    """:func:`casino_bot` that thinks ``think_s`` simulated seconds before each decision
    (once for all its bets of a round) and notes when its bets are in."""

    def __init__(self, phone: SimPhone, think_s: float, waits: CasinoWaits) -> None:
        super().__init__(phone, think_s)
        self.waits = waits

    def __call__(self, phone: CasinoPhone) -> Intent | None:
        choice = casino_bot(phone)
        r = phone.round
        if choice is None or r is None:
            return choice
        betting = r.phase is Phase.BETTING
        key = (phone.round_no, r.phase.value, 0 if betting else len(r.events))
        now = self.phone.sim.now
        if self.thinking(key, now):
            return None
        if betting:
            self._due = now  # (the rest of its bets follow at once)
        if choice[0] == "done":
            sent = now + self.phone.in_step_cost()
            self.waits.done_at[phone.round_no] = max(
                self.waits.done_at.get(phone.round_no, 0.0), sent
            )
        return choice


@dataclass
class CasinoTable:
    """A simulated casino table: the phones (seat order) and what happened."""

    sim: Sim
    net: SimNet
    phones: list[CasinoSimPhone]
    waits: CasinoWaits
    make_guest: Callable[[CasinoSimPhone], CasinoGuest]
    rounds: int
    #: (when, seat, reason) of each phone the host dropped, and when one came back
    dropped: list[tuple[float, int, str]] = field(default_factory=list)
    returned: list[tuple[float, str]] = field(default_factory=list)
    #: (round, player) of each decision the host timed out
    timeouts: list[tuple[int, str]] = field(default_factory=list)
    #: every notice of the host's lobby (its own list keeps the newest only)
    notices: list[Notice] = field(default_factory=list)
    _notices_read: int = 0
    _notes_read: int = 0

    @property
    def host(self) -> CasinoHost:
        side = self.phones[0].side
        if not isinstance(side, CasinoHost):
            raise RuntimeError("the first phone of a simulated table is its host")
        return side

    def live(self) -> list[CasinoSimPhone]:
        return [p for p in self.phones if not p.dead and not p.side.closed]

    def over(self) -> bool:
        """The host closed the table, or every phone at it settled the last round."""
        host = self.host
        if host.closed or host.over:
            return True
        return all(
            p.side.phone is not None and self.rounds in p.side.phone.records
            for p in self.live()
            if p.side.phone is not None or p.seat == 0
        )

    def kill(self, seat: int) -> None:
        """The phone at ``seat`` dies (battery, out of range): silence, then no link."""
        kill_phone(self.phones[seat])

    def rejoin(self, seat: int) -> None:
        """The player of ``seat`` is back, on a fresh phone (the app started anew)."""
        phone = self.phones[seat]
        if not phone.dead or self.over():
            return
        fresh_phone(phone, self.make_guest)
        self.waits.joined(seat)

    def results(self) -> set[tuple[str, ...]]:
        """Each live phone's digests of the rounds every live phone settled (one element
        when they all agree)."""
        live = [p.side.phone for p in self.live() if p.side.phone is not None]
        common = set.intersection(*(set(p.records) for p in live)) if live else set()
        return {tuple(p.records[r].digest for r in sorted(common)) for p in live}

    def faults(self) -> list[int]:
        """Seats of live phones whose copy of the table caught a fault or named a cheat."""
        return [
            p.seat
            for p in self.live()
            if p.side.phone is not None
            and (p.side.phone.fault is not None or p.side.snapshot().cheater is not None)
        ]

    def watch_host(self) -> None:
        """Note the host's drops, readmissions and time-outs (after each of its steps)."""
        host = self.host
        now = self.sim.now
        for n in self.notices[self._notices_read :]:
            if n.code == "player_left" and host.phone is not None:
                self.dropped.append((now, int(n.details["seat"]), str(n.details["reason"])))
                self.waits.events.append(now)
        self._notices_read = len(self.notices)
        fresh = host.notes_total - self._notes_read
        self._notes_read = host.notes_total
        for note in host.snapshot().notices[-fresh:] if fresh else ():
            if note.code == "player_back":
                self.returned.append((now, str(note.params.get("player"))))
                self.waits.events.append(now)
        overdue = host.book.overdue
        if overdue:
            for pid in overdue[2]:
                if (overdue[0], pid) not in self.timeouts:
                    self.timeouts.append((overdue[0], pid))


class _HostPhone(CasinoSimPhone):
    """The host's phone: after each step the table notes what its host did."""

    table: CasinoTable | None = None

    def step(self) -> None:
        super().step()
        if self.table is not None:
            self.table.watch_host()


def open_casino(
    cpus: list[PhoneCpu],
    link: LinkModel,
    *,
    seed: int,
    rounds: int = 4,
    decks: int = 8,
    lobby: str = "gradual",
    think_s: float = THINK_S,
    group: Group = DEFAULT_GROUP,
    bet_time: int = 30,
    turn_time: int = 30,
) -> CasinoTable:
    """Seat ``len(cpus)`` phones at a casino table of ``decks`` decks (the first hosts)
    and start it, as ``lobby`` says (:data:`app.sim.oczko.LOBBIES`)."""
    rng, clock, sim, net = new_sim(link, seed, group, lobby)
    waits = CasinoWaits()
    host_phone = _HostPhone(sim, 0, cpus[0], waits)
    phones: list[CasinoSimPhone] = [host_phone]
    phones += [CasinoSimPhone(sim, seat, cpu, waits) for seat, cpu in enumerate(cpus) if seat]
    sim.phones = list(phones)
    pause_guests(phones, link, rng)

    def factory_for(metered: MeteredGroup) -> Callable[[int, int], SraShoe]:
        shoe_rng = DeterministicRng(rng.getrandbits(64))
        return lambda seat, players: SraShoe(seat, players, group=metered, rng=shoe_rng)

    rules = TableRules(decks=decks)
    notices: list[Notice] = []
    # (the table's own signatures and checks are charged to the phone too)
    host_group = MeteredGroup(group, host_phone.meter)
    host = CasinoHost(
        net.listener,
        player_id="h" * 32,
        name="Host",
        lang="en",
        clock=clock,
        shoe_factory=factory_for(host_group),
        rules=rules,
        bet_time=bet_time,
        turn_time=turn_time,
        bot=ThinkingCasinoBot(phones[0], think_s, waits),
        group=host_group,
        on_notice=notices.append,
    )
    net.listener.inbox = host.inbox
    phones[0].side = host

    def make_guest(phone: CasinoSimPhone) -> CasinoGuest:
        inbox: queue.Queue[InboxEvent] = queue.Queue()
        metered = MeteredGroup(group, phone.meter)
        return CasinoGuest(
            net.connect(phone, phones[0], inbox),
            inbox,
            player_id=f"{phone.seat:x}" * 32,
            name=f"P{phone.seat}",
            lang="en",
            clock=clock,
            shoe_factory=factory_for(metered),
            bot=ThinkingCasinoBot(phone, think_s, waits),
            group=metered,
        )

    def keyed(n: int) -> bool:
        # (a guest says it is ready right after its key, on the same link)
        sitters = host.lobby.seating.sitters
        return len(sitters) > n and all(s.ready for s in sitters[1:])

    for k, phone in enumerate(phones[1:]):
        if lobby == "gradual":
            sim.run_to(k * JOIN_EVERY_S)
        phone.side = make_guest(phone)
        sim.run(functools.partial(keyed, k + 1), 60.0)
    sim.run(functools.partial(keyed, len(phones) - 1), 60.0)
    if lobby == "cold":  # (the host taps "start" once the lobby's news went out)
        sim.run(lambda: net.radio.free_at <= sim.now, 60.0)
    waits.start = sim.now
    phones[0].act(host.start)
    table = CasinoTable(sim, net, phones, waits, make_guest, rounds, notices=notices)
    host_phone.table = table
    return table


def _dropped(table: CasinoTable, seat: int) -> bool:
    """The host dropped the phone at ``seat`` (its link is gone on the host)."""
    return any(s == seat for _, s, _ in table.dropped)


def play_casino(table: CasinoTable, limit_s: float = 3600.0) -> bool:
    """Play until every phone settled the last round; True if that came within ``limit_s``."""
    return table.sim.run(table.over, limit_s)


def casino_match(
    cpus: list[PhoneCpu],
    link: LinkModel,
    *,
    seed: int,
    rounds: int = 4,
    decks: int = 8,
    lobby: str = "gradual",
    drop_in_round: int | None = None,
    back_after: float | None = 5.0,
    group: Group = DEFAULT_GROUP,
    think_s: float = THINK_S,
    limit_s: float = 3600.0,
) -> tuple[CasinoTable, bool]:
    """One table of ``rounds`` rounds; with ``drop_in_round`` the last seat's phone dies
    once that round's play has begun and (``back_after``) comes back that many seconds
    after the host dropped it. (table, ended in time)"""
    table = open_casino(
        cpus,
        link,
        seed=seed,
        rounds=rounds,
        decks=decks,
        lobby=lobby,
        think_s=think_s,
        group=group,
    )
    last = len(cpus) - 1
    if drop_in_round is not None and len(cpus) > 2:

        def playing() -> bool:
            phone = table.host.phone
            r = phone.round if phone is not None else None
            late = (
                r is not None
                and phone is not None
                and phone.round_no >= drop_in_round
                and r.phase not in (Phase.BETTING, Phase.SETTLED)
            )
            return late or table.over()

        table.sim.run(playing, limit_s)
        if not table.over():
            table.kill(last)
            if back_after is not None:
                # (back ``back_after`` s after the host dropped him: his departure may
                # still wait on the host's copy behind the cards of a fresh shoe)
                table.sim.run(lambda: _dropped(table, last) or table.over(), limit_s)
                table.sim.at(table.sim.now + back_after, lambda: table.rejoin(last))
    return table, play_casino(table, limit_s)


__all__ = [
    "CASINO_KINDS",
    "CasinoSimPhone",
    "CasinoTable",
    "CasinoWaits",
    "StampedLog",
    "ThinkingCasinoBot",
    "casino_match",
    "open_casino",
    "play_casino",
]
