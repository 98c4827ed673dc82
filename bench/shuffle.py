"""Benchmark: a full SRA shuffle plus the initial deal, 2 to 7 seats, 2048-bit group.

For each seat count it measures, in the same run:

* ``wall_s``: wall time in one process (all seats on one core, one after another);
* ``wall_procs_s``: wall time with one OS process per seat over TCP on 127.0.0.1
  (the host process relays, as in the Bluetooth star; the machine's core count limits
  the parallelism, see ``cores``);
* ``modexp_s``: one full-size 2048-bit modexp through ``app.native.sra`` (the unit),
  and ``wall_in_modexps`` = ``wall_s / modexp_s`` (``wall_procs_in_modexps`` likewise);
* ``critical_path_modexps``: the longest chain of work that must run one after
  another with one core per seat, in full-size modexps, from a discrete-event replay
  of the same protocol (signature checks and the host's relay checks included; each
  subgroup test of an incoming value counted at the measured ``jacobi_s / modexp_s``;
  transfer time not included); ``critical_path_modexps_exp_only`` counts only the
  exponentiations. ``critical_path_modexps_preshuffled`` is the same when
  the deck was shuffled in the background during the previous round (only locking and
  the deal remain), ``critical_path_modexps_short_shuffle_keys`` the same as the
  first with the optional 256-bit shuffle keys (off by default), and
  ``critical_path_naive`` the textbook 2 passes x n x 52;
* ``bytes_sent_per_seat`` (mean over seats, frames each seat originates) and
  ``bytes_raw_elements_per_seat`` (the group elements/exponents in them, 256 bytes each).

The casino shoe (``"shoe"``, keyed ``"DECKSxPHONES"`` for 1, 6 and 8 decks and 2-7
phones, :func:`shoe_report`): from the start of a shoe until the first casino round's
cards (two per phone and the dealer's) are open on every phone, its
``critical_path_modexps`` cold and ``..._background`` with the shoe shuffled during the
previous one, beside ``critical_path_naive`` (``2 * n * size``: every position locked
up front); ``wall_s`` / ``wall_s_background`` (the replay in one process) and
``bytes_sent_per_seat`` / ``..._background`` likewise; ``bytes_background_per_seat``:
what the background shuffle sent.

Usage::

    python bench/shuffle.py --json            # all seat counts, one JSON object
    python bench/shuffle.py --seats 4 --no-procs
    python bench/shuffle.py --no-oczko --shoe-decks 8 --seats 7   # one shoe cell
"""

from __future__ import annotations

import argparse
import heapq
import json
import multiprocessing as mp
import os
import secrets
import socket
import statistics
import struct
import sys
import time
from collections.abc import Callable
from itertools import count
from typing import NamedTuple

from app.native.sra import jacobi
from app.protocol import shuffle
from app.protocol.group import FFDHE2048, Group
from app.protocol.harness import LocalTable
from app.protocol.keys import DeterministicRng
from app.protocol.messages import Message
from app.protocol.seat import RoundSpec, Seat, TableConfig
from app.table.casino.sra_shoe import LOCK_MARGIN

GROUP = FFDHE2048
SHORT_BITS = 256  # the optional short shuffle keys (docs/protocol.md, "Short exponents")


def modexp_seconds(group: Group, reps: int = 9) -> float:
    """Median time of one full-size modexp through the native context."""
    ctx = group.ctx
    times = []
    for _ in range(reps):
        b = secrets.randbelow(group.p - 3) + 2
        e = secrets.randbelow(group.q - 1) + 1
        t = time.perf_counter()
        ctx.pow(b, e)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def jacobi_seconds(group: Group, reps: int = 25) -> float:
    """Median time of one Jacobi symbol (the subgroup test of one incoming value)."""
    times = []
    for _ in range(reps):
        b = secrets.randbelow(group.p - 3) + 2
        t = time.perf_counter()
        jacobi(b, group.p)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def deal_of(order: tuple[int, ...]) -> list[tuple[int, int]]:
    n = len(order)
    return [(j, order[j % n]) for j in range(2 * n)]


def spec_for(n: int, round_id: int = 1) -> RoundSpec:
    # the product defaults: the deal plus one spare card per seat locked, chunks of max(4, n)
    return RoundSpec(round_id, tuple(range(n)))


def _new_table(n: int, seed: int, shuffle_bits: int | None = None) -> LocalTable:
    t = LocalTable(n, GROUP, seed=seed, shuffle_bits=shuffle_bits)
    t.setup()
    for s in t.seats:
        s.identity.precompute(24)  # signing nonces are computed off the critical path
    return t


# -- in-process wall time and bytes -------------------------------------------------


def in_process(n: int, seed: int) -> dict:
    t = _new_table(n, seed)
    bytes0 = list(t.bytes_sent)
    frames0 = len(t.frames)
    spec = spec_for(n)
    start = time.perf_counter()
    t.start(spec)
    t.reveal(deal_of(spec.order), spec.order)
    wall = time.perf_counter() - start
    assert all(len(s.hand(spec.round_id)) == 2 for s in t.seats), "deal incomplete"
    raw = [0] * n
    for sender, frame in t.frames[frames0:]:
        raw[sender] += len(Message.decode(frame, GROUP).values) * GROUP.byte_len
    sent = [b - b0 for b, b0 in zip(t.bytes_sent, bytes0, strict=True)]
    return {
        "wall_s": wall,
        "bytes_sent_per_seat": statistics.mean(sent),
        "bytes_raw_elements_per_seat": statistics.mean(raw),
        "bytes_sent_max_seat": max(sent),
    }


# -- critical path: discrete-event replay with one core per seat ----------------------


def critical_path(
    n: int,
    seed: int,
    preshuffled: bool = False,
    shuffle_bits: int | None = None,
    check_weight: float = 0.0,
) -> float:
    """Longest chain of dependent work (in modexps) until every seat holds its 2 cards.

    Exponentiations count by exponent length; each subgroup test of an incoming value
    counts ``check_weight`` modexps (the measured Jacobi/modexp time ratio).
    """
    t = _new_table(n, seed, shuffle_bits)
    spec = spec_for(n)
    rid = spec.round_id

    def begin(seat: Seat) -> list[Message]:
        out = seat.start_round(spec)
        seat.reveal(rid, deal_of(spec.order))
        return out

    def in_preshuffle(seat: Seat) -> bool:
        """Is this seat's next job part of the shuffle passes (done in the background)?"""
        rnd = seat.round(rid)
        me = rnd.order.index(seat.seat)
        return preshuffled and me < rnd.n - 1 and not rnd.shuffle_sent

    def preshuffle_frame(msg: Message) -> bool:
        last = spec.order[-1]
        return preshuffled and msg.kind.name == "SHUFFLE" and msg.sender != last

    return replay(
        t,
        begin,
        lambda s: len(s.hand(rid)) == 2,
        check_weight,
        free_work=in_preshuffle,
        free_frame=preshuffle_frame,
    ).critical


class Replay(NamedTuple):
    """What :func:`replay` measured."""

    critical: float  # the longest dependent chain, in modexps
    wall_s: float  # real time of the whole replay in this one process
    bytes_per_seat: float  # mean bytes each seat originated


def replay(
    t: LocalTable,
    begin: Callable[[Seat], list[Message]],
    done: Callable[[Seat], bool],
    check_weight: float,
    free_work: Callable[[Seat], bool] = lambda seat: False,
    free_frame: Callable[[Message], bool] = lambda msg: False,
) -> Replay:
    """A discrete-event replay of the protocol with one core per seat: ``begin`` (the
    public event on every seat) at time 0, then every frame and work step, each seat
    busy for the cost it was charged; the time every seat reached ``done``.

    ``free_work(seat)`` / ``free_frame(msg)``: work and frames done in the background
    beforehand (charged nothing; their subgroup tests ran then too).
    """
    seats = t.seats
    n = len(seats)
    host = t.config.host
    free = [0.0] * n
    sent = [0] * n
    tick = count()
    events: list[tuple[float, int, str, int, bytes | None]] = []

    def emit(sender: int, when: float, msgs: list[Message]) -> None:
        for m in msgs:
            frame = m.encode(GROUP)
            sent[sender] += len(frame)
            if sender == host:
                for r in range(n):
                    if r != host:
                        heapq.heappush(events, (when, next(tick), "deliver", r, frame))
            else:
                heapq.heappush(events, (when, next(tick), "at_host", sender, frame))

    def run_cost(
        seat: Seat, fn: Callable[[], object], free_of_charge: bool = False
    ) -> tuple[float, object]:
        c0, k0 = seat.cost, seat.checks
        out = fn()
        cost = seat.cost - c0 + (seat.checks - k0) * check_weight
        return (0.0 if free_of_charge else cost), out

    wall0 = time.perf_counter()
    done_at: list[float | None] = [None] * n
    for s in seats:
        c, out = run_cost(s, lambda s=s: begin(s))
        emit(s.seat, c, out)  # type: ignore[arg-type]
    scheduled = [False] * n

    def schedule_work(s: Seat, now: float) -> None:
        if not scheduled[s.seat] and s.has_work():
            scheduled[s.seat] = True
            heapq.heappush(events, (max(now, free[s.seat]), next(tick), "work", s.seat, None))

    for s in seats:
        schedule_work(s, 0.0)
    while events:
        when, _, kind, who, frame = heapq.heappop(events)
        seat = seats[who]
        if kind == "work":
            scheduled[who] = False
            start = max(when, free[who])
            c, out = run_cost(seat, seat.work, free_work(seat))
            free[who] = start + c
            emit(who, free[who], out)  # type: ignore[arg-type]
        else:
            assert frame is not None
            msg = Message.decode(frame, GROUP)
            receiver = host if kind == "at_host" else who
            rs = seats[receiver]
            start = max(when, free[receiver])
            pre = free_frame(msg)
            c, _ = run_cost(rs, lambda rs=rs, msg=msg: rs.authenticate(msg), pre)
            free[receiver] = start + c
            c2, out = run_cost(rs, lambda rs=rs, msg=msg: rs.process(msg), pre)
            free[receiver] += c2
            if pre:  # its background subgroup tests ran beforehand too
                rnd = rs.round(msg.round_id)
                while rnd.deferred_checks:
                    shuffle.run_deferred_checks(rs.core, rnd)
            if kind == "at_host":  # relay after the host's check, then its own outputs
                for r in range(n):
                    if r not in (host, who):
                        heapq.heappush(events, (free[host], next(tick), "deliver", r, frame))
            emit(receiver, free[receiver], out)  # type: ignore[arg-type]
            schedule_work(rs, free[receiver])
        for s in seats:
            if done_at[s.seat] is None and done(s):
                done_at[s.seat] = free[s.seat]
            schedule_work(s, free[s.seat])
    assert all(d is not None for d in done_at), "never done"
    critical = max(d for d in done_at if d is not None)
    return Replay(critical, time.perf_counter() - wall0, statistics.mean(sent))


# -- the casino shoe -------------------------------------------------------------------

SHOE_DECKS = (1, 6, 8)


def first_deal(n: int) -> int:
    """The cards a casino round opens first: two for each phone's box, one for the dealer."""
    return 2 * n + 1


def shoe_report(n: int, decks: int, seed: int, check_weight: float) -> dict:
    """A shoe of ``decks`` decks among ``n`` phones until the first casino round's cards
    are open on every phone: cold (the shuffle on the critical path), and with the
    shoe shuffled (and its margin locked) in the background during the previous one.
    Beside it the naive count: every seat encrypts all cards, then locks all of them,
    before the first card opens (``2 * n * size``)."""
    t = _new_table(n, seed)
    order = tuple(range(n))
    opened = range(first_deal(n))

    def begin_cold(seat: Seat) -> list[Message]:
        out = seat.start_round(RoundSpec.shoe(1, order, decks, LOCK_MARGIN))
        return out + seat.open_public(1, opened)

    cold = replay(t, begin_cold, lambda s: len(s.public(1)) == len(opened), check_weight)
    before = list(t.bytes_sent)
    for s in t.seats:  # the next shoe: shuffled while shoe 1 is played
        t.post(s.seat, s.start_round(RoundSpec.shoe(2, order, decks, LOCK_MARGIN)))
    t.run()
    background = statistics.mean(b - b0 for b, b0 in zip(t.bytes_sent, before, strict=True))
    t.playing = 2
    warm = replay(
        t,
        lambda seat: seat.open_public(2, opened),
        lambda s: len(s.public(2)) == len(opened),
        check_weight,
    )
    size = 52 * decks
    return {
        "critical_path_modexps": cold.critical,
        "critical_path_modexps_background": warm.critical,
        "critical_path_naive": 2 * n * size,
        "wall_s": cold.wall_s,
        "wall_s_background": warm.wall_s,
        "bytes_sent_per_seat": cold.bytes_per_seat,
        "bytes_sent_per_seat_background": warm.bytes_per_seat,
        "bytes_background_per_seat": background,
        "positions_locked": len(t.seats[0].round(1).final),
        "cards_opened": len(opened),
    }


# -- separate processes over loopback TCP ----------------------------------------------

_LEN = struct.Struct(">IB")  # length, type (0 = protocol frame, 1 = control)


def _send_frame(sock: socket.socket, kind: int, payload: bytes) -> None:
    sock.sendall(_LEN.pack(len(payload), kind) + payload)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("peer closed")
        buf += chunk
    return bytes(buf)


def _recv_frame(sock: socket.socket) -> tuple[int, bytes]:
    length, kind = _LEN.unpack(_recv_exact(sock, _LEN.size))
    return kind, _recv_exact(sock, length)


def _guest_main(seat_id: int, n: int, port: int, seed: int) -> None:
    cfg = TableConfig(n, 0, GROUP)
    seat = Seat(seat_id, cfg, DeterministicRng(seed * 1000 + seat_id))
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    _send_frame(sock, 1, bytes([seat_id]))
    _seat_loop(seat, [sock], spec_for(n), host=False)


def _seat_loop(seat: Seat, socks: list[socket.socket], spec: RoundSpec, host: bool) -> float:
    """Run one seat until the deal is done; the host also relays. Returns host wall time."""
    import select

    n = seat.config.n_seats

    def out_all(msgs: list[Message], exclude: socket.socket | None = None) -> None:
        for m in msgs:
            f = m.encode(GROUP)
            for s in socks:
                if s is not exclude:
                    _send_frame(s, 0, f)

    for m in seat.hello():
        out_all([m])
    started = False
    done_reported = False
    t0 = 0.0
    guests_done = 0
    while True:
        timeout = 0 if seat.has_work() else 0.5
        readable, _, _ = select.select(socks, [], [], timeout)
        for s in readable:
            kind, payload = _recv_frame(s)
            if kind == 1:
                if payload == b"START":
                    seat.identity.precompute(24)
                    out_all(seat.start_round(spec))
                    seat.reveal(spec.round_id, deal_of(spec.order))
                    started = True
                elif payload == b"DONE":
                    guests_done += 1
                elif payload == b"QUIT":
                    return 0.0
                continue
            msg = Message.decode(payload, GROUP)
            if host:
                seat.authenticate(msg)
                for other in socks:
                    if other is not s:
                        _send_frame(other, 0, payload)
                out_all(seat.process(msg))
            else:
                out_all(seat.handle(msg))
        if seat.has_work():
            out_all(seat.work())
        if host and not started and seat.ready and _all_ready(seat):
            for s in socks:
                _send_frame(s, 1, b"START")
            t0 = time.perf_counter()
            out_all(seat.start_round(spec))
            seat.reveal(spec.round_id, deal_of(spec.order))
            started = True
        if started and not done_reported and len(seat.hand(spec.round_id)) == 2:
            done_reported = True
            if not host:
                _send_frame(socks[0], 1, b"DONE")
        if host and done_reported and guests_done == n - 1:
            wall = time.perf_counter() - t0
            for s in socks:
                _send_frame(s, 1, b"QUIT")
            return wall


_READY_AFTER: dict[int, float] = {}


def _all_ready(seat: Seat) -> bool:
    # guests are ready once they sent their SEED; a short grace lets the last SEED
    # reach every guest before the round starts (set-up is not timed)
    key = id(seat)
    if key not in _READY_AFTER:
        _READY_AFTER[key] = time.perf_counter() + 0.3
    return time.perf_counter() >= _READY_AFTER[key]


def over_processes(n: int, seed: int) -> float:
    """Wall time of shuffle + deal with one process per seat over loopback TCP."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(n)
    port = server.getsockname()[1]
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_guest_main, args=(i, n, port, seed)) for i in range(1, n)]
    for p in procs:
        p.start()
    conns: dict[int, socket.socket] = {}
    while len(conns) < n - 1:
        c, _ = server.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        _, payload = _recv_frame(c)
        conns[payload[0]] = c
    socks = [conns[i] for i in range(1, n)]
    host = Seat(0, TableConfig(n, 0, GROUP), DeterministicRng(seed * 1000))
    wall = _seat_loop(host, socks, spec_for(n), host=True)
    for p in procs:
        p.join(timeout=60)
    for s in socks:
        s.close()
    server.close()
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--seats", type=int, nargs="*", default=list(range(2, 8)))
    ap.add_argument("--no-procs", action="store_true", help="skip the multi-process run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--shoe-decks", type=int, nargs="*", default=list(SHOE_DECKS), help="shoe sizes"
    )
    ap.add_argument("--no-oczko", action="store_true", help="only the shoe report")
    args = ap.parse_args(argv)
    unit = modexp_seconds(GROUP)
    jac = jacobi_seconds(GROUP)
    w = jac / unit
    in_process(2, args.seed)  # warm-up (thread pool, caches), not reported
    result: dict[str, dict] = {}
    for n in [] if args.no_oczko else args.seats:
        runs = [in_process(n, args.seed) for _ in range(2)]
        row = min(runs, key=lambda r: r["wall_s"])
        row["modexp_s"] = unit
        row["jacobi_s"] = jac
        row["wall_in_modexps"] = row["wall_s"] / unit
        row["critical_path_modexps"] = critical_path(n, args.seed, check_weight=w)
        row["critical_path_modexps_exp_only"] = critical_path(n, args.seed)
        row["critical_path_modexps_preshuffled"] = critical_path(
            n, args.seed, preshuffled=True, check_weight=w
        )
        row["critical_path_modexps_short_shuffle_keys"] = critical_path(
            n, args.seed, shuffle_bits=SHORT_BITS, check_weight=w
        )
        row["critical_path_naive"] = 2 * n * 52
        row["bytes_overhead"] = row["bytes_sent_per_seat"] / row["bytes_raw_elements_per_seat"] - 1
        if not args.no_procs:
            row["wall_procs_s"] = over_processes(n, args.seed)
            row["wall_procs_in_modexps"] = row["wall_procs_s"] / unit
        row["cores"] = os.cpu_count()
        result[str(n)] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}
        if not args.json:
            print(n, result[str(n)], flush=True)
    shoe: dict[str, dict] = {}
    for decks in args.shoe_decks:
        for n in args.seats:
            row = shoe_report(n, decks, args.seed, w)
            row["wall_in_modexps"] = row["wall_s"] / unit
            row["wall_in_modexps_background"] = row["wall_s_background"] / unit
            key = f"{decks}x{n}"
            shoe[key] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}
            if not args.json:
                print("shoe", key, shoe[key], flush=True)
    if shoe:
        result["shoe"] = shoe  # "DECKSxPHONES": the casino shoe's first deal
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
