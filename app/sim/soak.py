"""``blu21 soak``: many simulated matches with random faults; nobody honest may suffer.

Each match (:mod:`app.sim.oczko`, the real table code and SRA dealer on phone CPUs over
the Bluetooth link model) gets stalls on every link and pauses of every guest's app
(up to 10 s, like Android in the background), and some guests get a fault of their
own: ``kill`` (the phone dies; half of them come back later with a fresh phone:
``rejoin``), ``delay`` (a slow link), ``duplicate`` (one frame sent twice) or
``corrupt`` (one frame damaged: the link's checksum fails). A guest whose only trouble
is stalls, pauses and delays is *honest*: he must never be dropped, the table must
never close on him, and every phone still at the table must end with the same result.

``--game blackjack`` soaks the casino table (:mod:`app.sim.casino`: the real
casino host and guests and SRA shoe of 1, 2, 6 or 8 decks) with the same faults; there
a disagreement is two honest phones with different signed digests of a round, or an
honest phone naming an honest player.

Printed per run: matches, rounds, faults injected by kind, honest players dropped
(must be 0), disagreements (must be 0), tables closed, matches that did not end.
"""

from __future__ import annotations

import functools
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence, Sized
from dataclasses import dataclass, field, replace
from typing import TextIO

from app.bluetooth.btmodel import link_model
from app.i18n.args import ToolParser
from app.protocol.group import unsafe_test_group
from app.sim.casino import CasinoTable, open_casino, play_casino
from app.sim.oczko import SimLink, Table, open_table, play
from app.sim.phone_cpu import phone_cpu

#: Faults a guest may get besides stalls and pauses, with their odds per guest.
FAULT_ODDS = {"kill": 0.10, "delay": 0.15, "duplicate": 0.05, "corrupt": 0.05}
#: Mean seconds between stalls of one link and between pauses of one guest's app.
STALL_EVERY_S = 40.0
PAUSE_EVERY_S = 60.0
#: CI's fixed seeds (run besides a few fresh ones, printed in the log).
CI_SEEDS = tuple(range(1, 13))
#: The games a soak plays.
GAMES = ("oczko", "blackjack")
#: Shoes a casino soak deals from (decks).
SOAK_DECKS = (1, 2, 6, 8)


@dataclass
class Report:
    """What a soak saw."""

    matches: int = 0
    rounds: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    honest_dropped: list[tuple[int, int, str]] = field(default_factory=list)  # seed, seat, why
    disagreements: list[int] = field(default_factory=list)
    closed: list[tuple[int, str]] = field(default_factory=list)
    unfinished: list[int] = field(default_factory=list)
    turn_timeouts: list[tuple[int, int]] = field(default_factory=list)  # seed, seat

    @property
    def ok(self) -> bool:
        bad = self.honest_dropped, self.disagreements, self.closed, self.unfinished
        return not any(bad) and not self.turn_timeouts

    def problems(self) -> int:
        bad: tuple[Sized, ...] = (
            self.honest_dropped,
            self.disagreements,
            self.closed,
            self.unfinished,
            self.turn_timeouts,
        )
        return sum(map(len, bad))

    def lines(self) -> list[str]:
        faults = ", ".join(f"{k} {v}" for k, v in sorted(self.faults.items())) or "none"
        return [
            f"matches {self.matches}, rounds {self.rounds}",
            f"faults injected: {faults}",
            f"honest players dropped: {len(self.honest_dropped)} {self.honest_dropped or ''}",
            f"disagreements: {len(self.disagreements)} {self.disagreements or ''}",
            f"tables closed: {len(self.closed)} {self.closed or ''}",
            f"matches not ended: {len(self.unfinished)} {self.unfinished or ''}",
            f"honest turns timed out: {len(self.turn_timeouts)} {self.turn_timeouts or ''}",
        ]


def _mangler(kind: str, at: int) -> Callable[[SimLink, bytes], list[bytes] | None]:
    """Damage the ``at``-th frame a link sends: twice (duplicate) or broken (corrupt)."""
    count = [0]

    def mangle(link: SimLink, frame: bytes) -> list[bytes] | None:
        count[0] += 1
        if count[0] != at:
            return [frame]
        return [frame, frame] if kind == "duplicate" else None

    return mangle


def one_match(seed: int, report: Report, *, phone: str = "a53-arm64", link: str = "rfcomm") -> None:
    """Play one faulty match and add what happened to ``report``."""
    rng = random.Random(seed)
    players = rng.randint(2, 5)
    model = link_model(link).with_faults(stall_every_s=STALL_EVERY_S, pause_every_s=PAUSE_EVERY_S)
    table = open_table(
        [phone_cpu(phone)] * players,
        model,
        seed=seed,
        rounds=rng.randint(2, 3),
        group=unsafe_test_group(),
    )
    report.matches += 1
    honest = _faults(table, rng, players, report)
    ended = play(table, limit_s=3 * 3600.0)
    _count_stalls(table, report)
    _judge(seed, table, honest, ended, report)


def one_casino_match(
    seed: int, report: Report, *, phone: str = "a53-arm64", link: str = "rfcomm"
) -> None:
    """Play one faulty casino table (1, 2, 6 or 8 decks) and add what happened to
    ``report``."""
    rng = random.Random(seed)
    players = rng.randint(2, 5)
    model = link_model(link).with_faults(stall_every_s=STALL_EVERY_S, pause_every_s=PAUSE_EVERY_S)
    table = open_casino(
        [phone_cpu(phone)] * players,
        model,
        seed=seed,
        rounds=rng.randint(2, 3),
        decks=rng.choice(SOAK_DECKS),
        lobby="cold",
        group=unsafe_test_group(),
    )
    report.matches += 1
    honest = _faults(table, rng, players, report)
    ended = play_casino(table, limit_s=3 * 3600.0)
    _count_stalls(table, report)
    _judge_casino(seed, table, honest, ended, report)


def _faults(
    table: Table | CasinoTable, rng: random.Random, players: int, report: Report
) -> set[int]:
    """Give the guests their faults (see the module doc); the seats left honest."""
    honest = set(range(players))  # (the host is never faulted here)
    kills: list[tuple[float, int, float | None]] = []  # (when, seat, back after)
    for seat in range(1, players):
        for kind, odds in FAULT_ODDS.items():
            if rng.random() >= odds:
                continue
            report.faults[kind] += 1
            link_ = table.phones[seat].side.link
            if kind == "delay":
                extra = rng.uniform(0.1, 0.5)
                for wire in (link_.wire, link_.other.wire):
                    wire.model = replace(wire.model, latency_s=wire.model.latency_s + extra)
                continue
            honest.discard(seat)
            if kind == "kill":
                back = rng.uniform(5.0, 20.0) if rng.random() < 0.5 else None
                report.faults["rejoin"] += back is not None
                kills.append((table.sim.now + rng.uniform(0.0, 60.0), seat, back))
            else:
                link_.mangle = _mangler(kind, rng.randint(3, 120))
    for when, seat, back in kills:
        table.sim.at(when, functools.partial(_kill, table, seat, back))
    return honest


def _count_stalls(table: Table | CasinoTable, report: Report) -> None:
    for phone_ in table.phones:
        report.faults["stall"] += phone_.side.link.wire.stalls if phone_.seat else 0
        report.faults["pause"] += sum(1 for s, _ in phone_.paused if s < table.sim.now)


def _kill(table: Table | CasinoTable, seat: int, back: float | None) -> None:
    if table.phones[seat].dead or table.over():
        return
    table.kill(seat)
    if back is not None:
        table.sim.at(table.sim.now + back, lambda: table.rejoin(seat))


def _judge(seed: int, table: Table, honest: set[int], ended: bool, report: Report) -> None:
    host = table.host
    if host.phone is not None:
        report.rounds += host.phone.match.rounds_played
    for n in host.notices:
        if n.code == "player_left" and n.details.get("seat") in honest:
            report.honest_dropped.append((seed, n.details["seat"], n.details.get("reason", "")))
    if host.closed:
        report.closed.append(
            (
                seed,
                next(
                    (n.details.get("reason", "") for n in host.notices if n.code == "table_closed"),
                    "",
                ),
            )
        )
    elif not ended:
        report.unfinished.append(seed)
    honest_live = [p for p in table.live() if p.seat in honest]
    views = {
        (p.side.phone.match.winner, tuple(p.side.phone.match.points))
        for p in honest_live
        if p.side.phone is not None and p.side.phone.match.over
    }
    violations = [p.seat for p in honest_live if p.side.phone and p.side.phone.violation]
    if host.phone is not None:
        report.turn_timeouts += [
            (seed, e["seat"])
            for e in host.phone.log
            if e.get("event") == "held" and e.get("reason") == "timeout" and e["seat"] in honest
        ]
    if len(views) > 1 or violations:
        report.disagreements.append(seed)


def _judge_casino(
    seed: int, table: CasinoTable, honest: set[int], ended: bool, report: Report
) -> None:
    host = table.host
    if host.phone is not None:
        report.rounds += len(host.phone.records)
    for _, seat, reason in table.dropped:
        if seat in honest:
            report.honest_dropped.append((seed, seat, reason))
    closed = [n.details.get("reason", "") for n in table.notices if n.code == "table_closed"]
    honest_live = [p for p in table.live() if p.seat in honest]
    if host.closed or host.over:
        # (a table left with one player ends: a shoe needs two phones; not the table's
        # fault when the others were the faulty ones)
        if closed != ["too_few_players"] or len(honest_live) > 1:
            report.closed.append((seed, closed[0] if closed else ""))
    elif not ended:
        report.unfinished.append(seed)
    phones = [p.side.phone for p in honest_live if p.side.phone is not None]
    common = set.intersection(*(set(p.records) for p in phones)) if phones else set()
    views = {tuple(p.records[r].digest for r in sorted(common)) for p in phones}
    pids = {f"p{s}" for s in honest}
    named = [p.seat for p in honest_live if p.side.snapshot().cheater in pids]
    report.turn_timeouts += [(seed, int(pid[1:])) for _, pid in table.timeouts if pid in pids]
    if len(views) > 1 or named:
        report.disagreements.append(seed)


def soak(
    seeds: Sequence[int],
    *,
    budget_s: float | None = None,
    out: TextIO = sys.stdout,
    game: str = "oczko",
) -> Report:
    """Run the matches of ``seeds`` (stopping early once ``budget_s`` real seconds pass)
    of ``game`` (:data:`GAMES`)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    play_one = one_match if game == "oczko" else one_casino_match
    report = Report()
    started = time.monotonic()
    for seed in seeds:
        if budget_s is not None and time.monotonic() - started > budget_s:
            print(f"(time budget reached after {report.matches} matches)", file=out)
            break
        before = report.problems()
        play_one(seed, report)
        if report.problems() != before:
            print(f"seed {seed}: {report.lines()[2:]}", file=out, flush=True)
    for line in report.lines():
        print(line, file=out)
    return report


def main(argv: Sequence[str]) -> int:
    """``blu21 soak [--game G] [--matches N] [--seed S] [--ci] [--seconds T]``."""
    p = ToolParser(prog="blu21 soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=GAMES, default="oczko", help="the table to soak")
    p.add_argument("--matches", type=int, default=50)
    p.add_argument("--seed", type=int, default=None, help="first seed (default: a fresh one)")
    p.add_argument("--ci", action="store_true", help="the fixed CI seeds plus --fresh new ones")
    p.add_argument("--fresh", type=int, default=3, help="fresh seeds with --ci")
    p.add_argument("--seconds", type=float, default=None, help="stop after this real time")
    args = p.parse_args(list(argv))
    if args.ci:
        fresh = [random.SystemRandom().randrange(10**6, 10**9) for _ in range(args.fresh)]
        print(f"soak seeds: fixed {list(CI_SEEDS)}, fresh {fresh}")
        seeds: list[int] = [*CI_SEEDS, *fresh]
    else:
        first = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
        print(f"soak seeds: {first}..{first + args.matches - 1}")
        seeds = list(range(first, first + args.matches))
    report = soak(seeds, budget_s=args.seconds, game=args.game)
    return 0 if report.ok else 1
