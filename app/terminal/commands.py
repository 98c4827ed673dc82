"""The terminal table tool: ``blu21 table`` (Oczko) and ``blu21 casino`` (casino
blackjack, its own part in :mod:`app.terminal.casino`), and ``blu21 demo``.

    blu21 table --host [--port P] [--bind ADDR] [--name NAME] [--rounds R] [--turn-time S]
    blu21 table --join HOST:PORT --name NAME [--lang pl]
    blu21 demo --players N [--rounds R]

A person plays by typing ``d`` (draw) / ``h`` (hold); the host types ``start`` when
everybody is ready (``--start-with N`` starts by itself once N players are ready).
``--bot`` lets the simple bot play the seat. ``demo`` runs a host bot here and N-1 bot
guests as separate processes over loopback, prints the match and checks that every
phone ends with the same result.

Both games share the arguments that host, join and play a seat
(:mod:`app.terminal.common`), and every phone keeps its rounds, each with its audit
verdict, in the history of the data folder of the HOME it runs under, as the app does
(``blu21 history``, ``blu21 stats``; ``--no-history``: none).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from app.bluetooth.errors import TransportError
from app.bluetooth.faults import faulty, parse_faults
from app.bluetooth.ids import new_player_id
from app.bluetooth.tcp import TcpTransport
from app.i18n import set_language
from app.i18n.args import ToolParser
from app.rules.errors import IllegalAction
from app.table.clock import SystemClock
from app.table.errors import TableError
from app.table.lobby import Notice
from app.table.messages import ROUNDS_RANGE, TURN_TIME_RANGE, Options
from app.table.oczko.guest import DealerFactory, GuestTable, HostTable, simple_bot
from app.table.service import dealer_factory, default_dealer, table_options
from app.terminal import casino as casino_cli
from app.terminal.bot_processes import print_result, print_tail, result_in, start_bots, stop_bots
from app.terminal.common import (
    Deadline,
    bounded,
    drive,
    failed,
    seat_arguments,
    stdin_lines,
    table_parser,
)

#: ``--help``'s first line of each command
DESCRIPTIONS = {
    "table": "An Oczko table in the terminal, over TCP.",
    "casino": "A networked casino blackjack table in the terminal, over TCP.",
}
#: How long a terminal table may run at most (a bound for scripts and CI).
MAX_SECONDS = 600.0


def _print(text: str, quiet: bool = False) -> None:
    if not quiet:
        print(text, flush=True)


def _describe(entry: dict[str, Any]) -> str:
    kind = entry.get("event", "?")
    rest = ", ".join(f"{k}={v}" for k, v in entry.items() if k != "event")
    return f"  {kind}: {rest}"


def _result(phone: Any) -> dict[str, Any]:
    m = phone.match
    return {"winner": m.winner, "points": list(m.points), "gone": sorted(m.gone)}


def table_main(argv: Sequence[str]) -> int:
    """Entry point of ``blu21 table`` (Oczko)."""
    return _terminal("table", argv)


def casino_main(argv: Sequence[str]) -> int:
    """Entry point of ``blu21 casino`` (casino blackjack: :mod:`app.terminal.casino`)."""
    return _terminal("casino", argv)


def _terminal(command: str, argv: Sequence[str]) -> int:
    """The terminal table tool: the shared arguments, the game's own, the history of
    this HOME's data folder, then the game's loop."""
    p = table_parser(f"blu21 {command}", DESCRIPTIONS[command])
    seat_arguments(p, TURN_TIME_RANGE)
    if command == "table":
        _oczko_arguments(p)
    else:
        casino_cli.casino_arguments(p)
    args = p.parse_args(list(argv))
    set_language(args.lang)
    if command == "table":
        args.options = _options(p, args)
    with _history(args.no_history) as on_step:
        if command == "table":
            return _oczko_run(args, on_step)
        return casino_cli.casino_run(args, on_step)


@contextlib.contextmanager
def _history(off: bool) -> Iterator[Callable[[Any], None]]:
    """``on_step(table)``: this phone's rounds go to the history in the data folder of
    the HOME it runs under (the app's: ``blu21 history``, ``blu21 stats``), through
    the app's one recording path (:meth:`app.history.live.Recorder.table`)."""
    if off:
        yield lambda _table: None
        return
    from app.history.live import Recorder
    from app.history.messages import notice_text
    from app.prefs import app_data_dir

    recorder = Recorder()
    recorder.configure(app_data_dir())
    code = recorder.take_notice()
    if code is not None:  # (a corrupt history moved aside, or none can be kept)
        print(notice_text(code), file=sys.stderr, flush=True)
    try:
        yield lambda table: recorder.table(table, table)
    finally:
        recorder.configure(None)


def _oczko_arguments(p: argparse.ArgumentParser) -> None:
    """Oczko's own arguments of ``blu21 table``."""
    p.add_argument(
        "--rounds",
        type=bounded(ROUNDS_RANGE),
        default=5,
        help="rounds in the match ({}-{})".format(*ROUNDS_RANGE),
    )
    p.add_argument("--faults", default="", help="inject faults on this guest's link (tests)")
    p.add_argument("--silence-limit", type=float, default=None, help="seconds (tests)")


def _oczko_run(args: argparse.Namespace, on_step: Callable[[Any], None]) -> int:
    """Host or join the Oczko table ``args`` ask for and play it to its end."""
    try:
        kind = args.dealer or default_dealer()
        args.options = table_options(args.options, kind)
        factory = dealer_factory(kind)
        if args.host:
            return _host(args, factory, on_step)
        return _guest(args, factory, on_step)
    except (TransportError, TableError, ValueError) as exc:
        return failed("blu21 table", exc)


def _option_arguments(p: argparse.ArgumentParser) -> None:
    """``--rounds`` and ``--turn-time``, within the bounds every guest checks."""
    p.add_argument(
        "--rounds",
        type=bounded(ROUNDS_RANGE),
        default=5,
        help="rounds in the match ({}-{})".format(*ROUNDS_RANGE),
    )
    p.add_argument(
        "--turn-time",
        type=bounded(TURN_TIME_RANGE),
        default=30,
        help="seconds per decision ({}-{})".format(*TURN_TIME_RANGE),
    )


def _options(p: argparse.ArgumentParser, args: argparse.Namespace) -> Options:
    try:
        return Options.checked(args.rounds, args.turn_time)
    except ValueError as exc:
        p.error(f"--rounds/--turn-time: {exc}")
        raise  # (p.error exits)


def _host(
    args: argparse.Namespace, factory: DealerFactory, on_step: Callable[[Any], None]
) -> int:
    quiet = args.quiet
    options = args.options
    listener = TcpTransport(host=args.bind, port=args.port).listen()

    def on_notice(n: Notice) -> None:
        if n.code not in ("lobby",):
            _print(f"* {n.code} {json.dumps(n.details)}", quiet)
        if n.code == "turn" and n.details.get("seat") == 0 and not args.bot:
            _print(f"your turn: d = draw, h = hold ({n.details['ms'] // 1000} s)", quiet)

    host = HostTable(
        listener,
        player_id=new_player_id(),
        name=args.name,
        lang=args.lang,
        clock=SystemClock(),
        dealer_factory=factory,
        options=options,
        bot=simple_bot if args.bot else None,
        on_notice=on_notice,
        on_log=lambda e: _print(_describe(e), quiet),
    )
    if args.silence_limit:
        host.silence_limit = args.silence_limit
    print(f"listening on {host.address}", flush=True)
    def after_step(_deadline: Deadline) -> bool:
        if host.stage == "lobby":
            ready = host.seating.can_start()
            if ready and args.start_with and len(host.seating.sitters) >= args.start_with:
                host.begin()
        return host.stage == "over"

    def on_line(line: str) -> None:
        command = line.lower()
        if command == "start":
            if host.seating.can_start():
                host.begin()
            else:
                _print("not everybody is ready")
        elif command in ("d", "draw", "h", "hold"):
            host.act("draw" if command.startswith("d") else "hold")
        elif command in ("q", "quit"):
            host.close()

    try:
        drive(
            host,
            over=lambda: host.closed,
            after_step=after_step,
            on_step=on_step,
            commands=None if args.bot else stdin_lines(),
            on_line=on_line,
            seconds=MAX_SECONDS,
        )
        if host.phone is None or not host.phone.match.over:
            host.close("host_left")
            return 1
        _finish(host.phone, args)
        host.close("match_over")
        host.wait_closed(2.0)  # every guest hears the end before this process exits
        return 0
    finally:
        host.close()
        on_step(host)


def _finish(phone: Any, args: argparse.Namespace) -> None:
    result = _result(phone)
    if args.result_json:
        print_result(result)
    else:
        print(f"match over: winner seat {result['winner']}, points {result['points']}", flush=True)


def _guest(
    args: argparse.Namespace, factory: DealerFactory, on_step: Callable[[Any], None]
) -> int:
    quiet = args.quiet

    my_seat: list[int] = []

    def on_notice(n: Notice) -> None:
        if n.code not in ("lobby",):
            _print(f"* {n.code} {json.dumps(n.details)}", quiet)
        if n.code == "seated":
            my_seat[:] = [n.details["seat"]]
        if n.code == "turn" and my_seat == [n.details.get("seat")] and not args.bot:
            _print(f"your turn: d = draw, h = hold ({n.details['ms'] // 1000} s)", quiet)

    faults = parse_faults(args.faults)
    transport = TcpTransport(wrap_stream=faulty(faults) if faults else None)
    guest = GuestTable.join(
        transport,
        args.join,
        player_id=new_player_id(),
        name=args.name,
        lang=args.lang,
        clock=SystemClock(),
        dealer_factory=factory,
        bot=simple_bot if args.bot else None,
        on_notice=on_notice,
        on_log=lambda e: _print(_describe(e), quiet),
    )
    if args.silence_limit:
        guest.silence_limit = args.silence_limit
    asked_ready = printed = False

    def after_step(deadline: Deadline) -> bool:
        nonlocal asked_ready, printed
        if guest.seat is not None and not asked_ready:
            asked_ready = True
            guest.set_ready()
        if guest.phone is not None and guest.phone.match.over and not printed:
            # Stay until the host ends the table: leaving now would make this seat a
            # leaver on phones that have not finished the last round yet.
            printed = True
            _finish(guest.phone, args)
            deadline.linger(30.0)
        return False

    def on_line(line: str) -> None:
        command = line.lower()
        if command in ("d", "draw", "h", "hold"):
            try:  # (my phone checks it first: a refused one is not sent)
                guest.act("draw" if command.startswith("d") else "hold")
            except IllegalAction as exc:
                _print(f"* refused: {exc.code}", quiet)
        elif command in ("q", "quit"):
            guest.leave()

    drive(
        guest,
        over=lambda: guest.closed,
        after_step=after_step,
        on_step=on_step,
        commands=None if args.bot else stdin_lines(),
        on_line=on_line,
        seconds=MAX_SECONDS,
    )
    guest.wind_down()  # (the host may end the table while my last audit still runs)
    on_step(guest)
    over = guest.phone is not None and guest.phone.match.over
    if over and not printed:
        _finish(guest.phone, args)
    guest.leave()
    return 0 if over else 1


def demo_main(argv: Sequence[str]) -> int:
    """Entry point of ``blu21 demo``: N bots, one process each, over loopback
    (``--game blackjack``: at a casino table, :mod:`app.terminal.casino`)."""
    argv = list(argv)
    if "--game" in argv:
        i = argv.index("--game")
        game = argv[i + 1] if i + 1 < len(argv) else ""
        if game not in ("oczko", "blackjack"):
            print("blu21 demo: --game must be oczko or blackjack", file=sys.stderr)
            return 2
        del argv[i : i + 2]
        if game == "blackjack":
            from app.terminal.casino import casino_demo_main

            return casino_demo_main(argv)
    p = ToolParser(prog="blu21 demo", description="bots play a full Oczko match")
    p.add_argument(  # (taken off argv above; here so that --help lists it)
        "--game",
        choices=("oczko", "blackjack"),
        default="oczko",
        help="oczko, or blackjack at a casino table (see blu21 demo --game blackjack --help)",
    )
    p.add_argument("--players", type=int, default=3, help="2-7")
    _option_arguments(p)
    p.add_argument("--dealer", choices=["sra", "open"], default=None)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--seed", type=int, default=None, help="open dealer: a fixed shuffle")
    p.add_argument("--guest-log", action="store_true", help="show the guests' logs on failure")
    p.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="SEAT=SPEC",
        help="faults on a bot guest's link, e.g. 2=kill@40 (see app.bluetooth.faults)",
    )
    p.add_argument("--silence-limit", type=float, default=5.0, help="heartbeat limit, seconds")
    p.add_argument(
        "--phones",
        default=None,
        help="simulate the table on phones of this CPU (a53-arm64, a7-armv7, fast; NAME:CORES)",
    )
    p.add_argument("--link", default=None, help="simulated links: rfcomm or loopback")
    args = p.parse_args(list(argv))
    options = _options(p, args)
    if not 2 <= args.players <= 7:
        p.error("--players must be 2-7")
    if args.phones or args.link:
        from app.sim.demo import run_demo

        return run_demo(p, args, options, _describe)
    faults: dict[int, str] = {}
    for item in args.fault:
        seat_text, _, spec = item.partition("=")
        if not seat_text.isdigit() or not 1 <= int(seat_text) < args.players:
            p.error(f"--fault {item!r}: SEAT must be a guest seat 1..{args.players - 1}")
        parse_faults(spec)  # ValueError -> a clear message below
        faults[int(seat_text)] = spec
    try:
        kind = args.dealer or default_dealer()
    except TableError as exc:
        print(f"blu21 demo: {exc.code}: {exc} (--dealer open: no secrecy)", file=sys.stderr)
        return 1
    options = table_options(options, kind)
    note = "" if kind == "sra" else " (test dealer without secrecy, shown on every phone)"
    print(f"dealer: {kind}{note}", flush=True)
    host = HostTable(
        TcpTransport().listen(),
        player_id=new_player_id(),
        name="Bot0",
        lang="en",
        clock=SystemClock(),
        dealer_factory=dealer_factory(kind, args.seed),
        options=options,
        bot=simple_bot,
        on_log=None if args.quiet else (lambda e: print(_describe(e), flush=True)),
    )
    host.silence_limit = args.silence_limit
    guests = start_bots(
        [
            *("table", "--join", host.address),
            *("--name", f"Bot{i}", "--bot", "--result-json", "--dealer", kind, "--no-history"),
            *(() if args.guest_log else ("--quiet",)),
            *("--faults", faults.get(i, ""), "--silence-limit", str(args.silence_limit)),
        ]
        for i in range(1, args.players)
    )
    try:
        deadline = time.monotonic() + MAX_SECONDS
        joined: set[str] = set()  # every bot that ever sat down, to tell a start-up failure
        while time.monotonic() < deadline and host.stage != "over" and not host.closed:
            host.step(0.05)
            joined.update(s.name for s in host.seating.sitters)
            full = len(host.seating.sitters) == args.players
            if host.stage == "lobby" and full and host.seating.can_start():
                host.begin()
            clean = [g for i, g in enumerate(guests, 1) if i not in faults]
            if any(g.poll() not in (None, 0) for g in clean):
                break
        ok = host.phone is not None and host.phone.match.over
        mine = _result(host.phone) if ok else None
        host.close("match_over")
        host.wait_closed(2.0)
        results = []
        names = [s.name for s in host.seating.sitters]
        outputs = [g.communicate(timeout=60)[0] for g in guests]
        unstarted = [
            i for i, g in enumerate(guests, 1) if f"Bot{i}" not in joined and g.returncode != 0
        ]
        if unstarted:
            # Not a disagreement: the bot never reached the table. Say why it could not.
            for i in unstarted:
                tail = "\n".join(outputs[i - 1].splitlines()[-6:])
                print(f"Bot{i} could not start (exit {guests[i - 1].returncode}):\n{tail}")
            print("the demo could not start its bots", flush=True)
            return 2
        for i, g in enumerate(guests, 1):
            out = outputs[i - 1]
            # Seats go by the order of joining: find this bot's seat by its name.
            seat = names.index(f"Bot{i}") if f"Bot{i}" in names else -1
            if "Traceback" in out:
                print(f"Bot{i} crashed:\n{out}", flush=True)
                ok = False
            result = result_in(out)
            if i in faults:
                # A faulted seat may have been dropped; if it finished, it must agree, and
                # a dropped seat is out for the match and cannot win.
                if result is not None and (mine is None or seat not in mine["gone"]):
                    results.append(result)  # it stayed: it must agree
                elif result is None and mine is not None and seat not in mine["gone"]:
                    print(f"Bot{i} (seat {seat}) dropped out but is not gone", flush=True)
                    ok = False
                continue
            ok = ok and g.returncode == 0
            results.append(result)
        if mine is not None and mine["winner"] in mine["gone"]:
            ok = False
        agree = ok and all(r == mine for r in results)
        if not agree:
            notes = [f"{n.code} {n.details}" for n in host.notices if n.code not in ("turn",)]
            print("--- host:\n" + "\n".join(notes[-12:]), flush=True)
            for i, out in enumerate(outputs, 1):
                print_tail(i, guests[i - 1], out)
        print(f"result: {json.dumps(mine)}", flush=True)
        print(f"every phone agrees: {'yes' if agree else 'NO'}", flush=True)
        return 0 if agree else 1
    finally:
        stop_bots(guests)
        host.close()
