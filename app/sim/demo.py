"""``blu21 demo --phones ... --link ...``: the demo match in simulated time.

The same bots and table code as the loopback demo, on the phone and link models of
:mod:`app.sim.oczko`: the match runs in seconds of real time and prints, besides the
result, what the players waited for in simulated seconds.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from app.bluetooth.btmodel import link_model
from app.sim.oczko import open_table, play
from app.sim.phone_cpu import phone_cpu
from app.table.messages import Options


def run_demo(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    options: Options,
    describe: Callable[[dict[str, Any]], str],
) -> int:
    """Play the demo match in the simulation; 0 if every phone agrees."""
    try:
        cpu = phone_cpu(args.phones or "fast")
        link = link_model(args.link or "rfcomm")
    except ValueError as exc:
        parser.error(str(exc))
    if args.fault:
        parser.error("--fault applies to the loopback demo; the simulation has 'blu21 soak'")
    seed = args.seed if args.seed is not None else 1
    print(
        f"simulated: {args.players} x {cpu.name} ({cpu.cores} cores), link {link.name}, seed {seed}"
    )
    started = time.perf_counter()
    table = open_table(
        [cpu] * args.players, link, seed=seed, rounds=options.rounds, turn_time=options.turn_time
    )
    if not args.quiet:
        host_log = table.host.phone
        done = 0

        def echo() -> bool:
            nonlocal done
            log = host_log.log if host_log is not None else []
            for entry in log[done:]:
                print(f"{table.sim.now:8.2f}s  {describe(entry)}", flush=True)
            done = len(log)
            return table.over()

        ended = table.sim.run(echo, 3600.0)
    else:
        ended = play(table)
    results = table.results()
    agree = ended and len(results) == 1
    host = table.host.phone
    if host is not None and host.match.over:
        m = host.match
        print(f"result: {json.dumps({'winner': m.winner, 'points': list(m.points)})}")
    print(f"simulated {table.sim.now:.1f} s in {time.perf_counter() - started:.1f} s of real time")
    for kind, w in table.waits.summary().items():
        if w["n"]:
            median, worst = w["median_s"], w["worst_s"]
            print(f"  wait {kind:13s} median {median:6.2f} s  worst {worst:6.2f} s  ({w['n']})")
    print(f"every phone agrees: {'yes' if agree else 'NO'}", flush=True)
    return 0 if agree else 1
