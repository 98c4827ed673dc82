"""The casino's part of the terminal table tool (:mod:`app.terminal.commands`): ``blu21 casino``,
a networked casino blackjack table in the terminal; and ``blu21 demo --game
blackjack``: bots at one table, each in its own process.

Host: ``blu21 casino --host [--rules PRESET] [--decks N] [--bot]``; guest:
``blu21 casino --join HOST:PORT [--bot]``. Without ``--bot`` the player types
commands (``help`` lists them); every phone prints the table's events as they happen.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from app.bluetooth.errors import TransportError
from app.bluetooth.ids import new_player_id
from app.bluetooth.tcp import TcpTransport
from app.i18n import _, decimal_mark
from app.i18n.args import ToolParser
from app.i18n.codes import MESSAGES, message_for
from app.rules.blackjack.actions import Action, ActionKind
from app.rules.errors import IllegalAction
from app.rules.money import money_text, to_money
from app.rules.table_rules import PRESETS, RulesError, TableRules
from app.table.casino.bot import casino_bot
from app.table.casino.guest import CasinoGuest
from app.table.casino.host import CasinoHost
from app.table.casino.messages import BET_TIME_RANGE
from app.table.casino.side import CasinoSide
from app.table.clock import SystemClock
from app.table.errors import TableError
from app.table.progress import progress_text
from app.table.service import default_dealer, shoe_factory
from app.terminal.bot_processes import print_result, print_tail, result_in, start_bots, stop_bots
from app.terminal.common import Deadline, bounded, drive, failed, stdin_lines

#: A terminal table ends after this long at the latest (a guard for scripts and CI).
MAX_SECONDS = 1800.0

#: command -> (engine action or table intent, needs a box, needs an amount)
COMMANDS: dict[str, tuple[str, bool, bool]] = {
    "take": ("take_box", True, False),
    "free": ("leave_box", True, False),
    "bet": ("bet", True, True),
    "side": ("side_bet", False, True),
    "done": ("done", False, False),
    "h": ("hit", False, False),
    "s": ("stand", False, False),
    "d": ("double", False, False),
    "p": ("split", False, False),
    "r": ("surrender", False, False),
    "ins": ("insure", True, True),
    "noins": ("decline_insurance", True, False),
    "even": ("even_money", True, False),
    "follow": ("follow_double", False, False),
    "nofollow": ("decline_double", False, False),
}


def _command(table: CasinoSide, line: str) -> str | None:
    """Carry out one typed command; the text to print (None: nothing)."""
    words = line.split()
    if not words:
        return None
    if words[0] == "help":
        return _(
            "Commands: take BOX, free BOX, bet BOX AMOUNT, side AMOUNT, done, h (hit), "
            "s (stand), d (double), p (split), r (surrender), ins BOX AMOUNT, noins BOX, "
            "even BOX, follow, nofollow, start (host), quit"
        )
    if words[0] not in COMMANDS:
        return _("Unknown command; type help.")
    act, needs_box, needs_amount = COMMANDS[words[0]]
    try:
        box = int(words[1]) if needs_box else 0
        amount = to_money(words[2 if needs_box else 1]) if needs_amount else None
    except (IndexError, ValueError):
        return _("Unknown command; type help.")
    try:
        if act == "take_box":
            table.take_box(box)
        elif act == "leave_box":
            table.leave_box(box)
        elif act == "done":
            table.bets_done()
        else:
            table.act(Action(ActionKind(act), table.me, box or None, amount))
    except (IllegalAction, TableError) as exc:
        return message_for(exc.code, **getattr(exc, "details", {}))
    return None


def amount(value: Any, signed: bool = False) -> str:
    """An amount as the player reads it: exact, with the language's decimal mark
    (``37.5`` / ``37,5``, never ``75/2``); ``signed``: ``+20`` / ``-37.5``."""
    money = to_money(value)
    text = money_text(money, decimal_mark())
    return f"+{text}" if signed and money > 0 else text


def _played(action: str) -> str:
    return {
        "hit": _("Hit"),
        "stand": _("Stand"),
        "double": _("Double"),
        "split": _("Split"),
        "surrender": _("Surrender"),
    }.get(action, action)


def event_line(event: dict[str, Any], names: dict[str, str]) -> str:
    """One event of the table's log as a translated line (a JSON-like line for a kind
    this does not know, its amounts still readable)."""
    e = dict(event)
    kind = e.pop("event", "?")
    who = names.get(str(e.get("player")), str(e.get("player", "")))
    where = {"box": e.get("box"), "hand": e.get("hand")}
    if kind == "bets_open":
        return _("Round {round}: bets are open.").format(round=e.get("round"))
    if kind == "bet":
        text = _("{name} bets {amount} behind box {box}.") if e.get("behind") else None
        text = text or _("{name} bets {amount} on box {box}.")
        return text.format(name=who, amount=amount(e["amount"]), box=e.get("box"))
    if kind == "side_bet":
        return _("{name} bets {amount} that the dealer busts.").format(
            name=who, amount=amount(e["amount"])
        )
    if kind == "card":
        return _("Box {box}, hand {hand}: {card}").format(card=e.get("card"), **where)
    if kind in ("dealer_card", "hole_card"):
        card = e.get("card") if not e.get("face_down") else _("a card face down")
        return _("Dealer: {card}").format(card=card)
    if kind == "peek":
        if e.get("blackjack"):
            return _("The dealer has blackjack.")
        return _("The dealer checks: no blackjack.")
    if kind == "insurance":
        return _("{name} insures box {box} for {amount}.").format(
            name=who, box=e.get("box"), amount=amount(e["amount"])
        )
    if kind == "insurance_declined":
        return _("{name} takes no insurance on box {box}.").format(name=who, box=e.get("box"))
    if kind in ("double_stake", "split_stake"):
        return _("{name} adds {amount} to box {box}, hand {hand}.").format(
            name=who, amount=amount(e["amount"]), **where
        )
    if kind == "shuffled":
        return _("The shoe is shuffled.")
    if kind == "action":
        return _("Box {box}, hand {hand}: {name}: {action}").format(
            name=who, action=_played(str(e.get("action"))), **where
        )
    if kind == "hand_end":
        status = {
            "stood": _("stands"),
            "bust": _("bust"),
            "blackjack": _("Blackjack"),
            "surrendered": _("surrendered"),
            "triple_seven": _("three sevens"),
        }.get(str(e.get("status")), str(e.get("status")))
        return _("Box {box}, hand {hand}: {total} ({status})").format(
            total=e.get("total"), status=status, **where
        )
    if kind == "dealer_done":
        return _("Dealer: {cards}, total {total}").format(
            cards=" ".join(map(str, e.get("cards", ()))), total=e.get("total")
        )
    if kind in ("settled", "insurance_settled", "side_bet_settled"):
        net = to_money(e["net"])
        what = {
            "settled": _("box {box}, hand {hand}").format(**where),
            "insurance_settled": _("insurance on box {box}").format(**where),
            "side_bet_settled": _("the bet that the dealer busts"),
        }[kind]
        if net > 0:
            text = _("{name} wins {amount} ({what}).")
        elif net < 0:
            text = _("{name} loses {amount} ({what}).")
        else:
            text = _("{name} gets the stake back ({what}).")
        return text.format(name=who, amount=amount(abs(net)), what=what)
    if kind == "round_settled":
        nets = ", ".join(
            f"{names.get(p, p)} {amount(n, signed=True)}" for p, n in e.get("net", {}).items()
        )
        if "house" in e:
            return _("Round settled: {nets}; the house {house}.").format(
                nets=nets, house=amount(e["house"], signed=True)
            )
        return _("Round {round} agreed by every phone: {nets}.").format(
            round=e.get("round"), nets=nets
        )
    rest = ", ".join(f"{k} {_readable(v, names)}" for k, v in e.items())
    return f"{kind}: {rest}" if rest else str(kind)


def notice_line(code: str, params: dict[str, Any], names: dict[str, str]) -> str:
    """A notice of the table as a line: its translated message where it has one (a
    closed table: why), else the code and its values, readable."""
    if "player" in params and "name" not in params:
        params["name"] = names.get(str(params["player"]), str(params["player"]))
    if code == "table_closed" and str(params.get("reason")) in MESSAGES:
        return f"{code}: {message_for(str(params['reason']))}"
    if code in MESSAGES:  # (a refused intent's own ``code`` is a detail here)
        return message_for(code, **{k: v for k, v in params.items() if k != "code"})
    rest = ", ".join(f"{k} {_readable(v, names)}" for k, v in params.items() if k != "name")
    return f"{code}: {rest}" if rest else code


def _readable(value: Any, names: dict[str, str]) -> str:
    """A value of an event as text: a player by name, an amount as a decimal."""
    if isinstance(value, Fraction):
        return amount(value)
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list | tuple):
        return " ".join(_readable(v, names) for v in value) or "-"
    return str(value)


class _Printer:
    """Prints what changed at the table since the last call (terminal play)."""

    def __init__(self, table: CasinoSide, quiet: bool) -> None:
        self.table = table
        self.quiet = quiet
        self._seen = 0
        self._notes = 0
        self._turn: object = None
        self._waits: object = None  # the progress line printed last

    def __call__(self) -> None:
        phone = self.table.phone
        if self.quiet:
            return
        snapshot = self.table.snapshot()
        notes = snapshot.notices
        if phone is not None:
            for event in phone.log[self._seen :]:
                print("  " + event_line(event, dict(snapshot.names)), flush=True)
            self._seen = len(phone.log)
            turn = (phone.round_no, phone.turn(), phone.stage)
            if turn != self._turn and phone.turn() == self.table.me and self.table.bot is None:
                print(_("Your decision (type help)."), flush=True)
            self._turn = turn
        waits = (snapshot.progress_note, snapshot.progress_step)
        if waits != self._waits and snapshot.progress_note is not None:
            # what the table waits for (the progress line, as the screens show it)
            names = [snapshot.names.get(p, p) for p in snapshot.players]  # (by seat)
            line = progress_text(snapshot.progress_note, names, snapshot.progress_step)
            print("… " + line.replace("\n", " · "), flush=True)
        self._waits = waits
        fresh = min(len(notes), self.table.notes_total - self._notes)
        for n in notes[len(notes) - fresh :] if fresh > 0 else ():
            print(f"* {notice_line(n.code, dict(n.params), dict(snapshot.names))}", flush=True)
        self._notes = self.table.notes_total


def _rules(args: argparse.Namespace) -> TableRules:
    base = TableRules.preset(args.rules)
    changes: dict[str, Any] = {}
    if args.decks is not None:
        changes["decks"] = args.decks
    if args.penetration is not None:
        changes["penetration"] = args.penetration
    for limit in ("min_bet", "max_bet"):  # the house's limits per box (seed 004; the
        value = getattr(args, limit, None)  # demo's parser has no such flags)
        if value is not None:
            changes[limit] = value
    return base.replace(**changes) if changes else base


def _result(table: CasinoSide, rounds: int) -> dict[str, Any]:
    phone = table.phone
    assert phone is not None
    return {
        "rounds": rounds,
        "digests": [phone.records[r].digest for r in range(1, rounds + 1)],
        "chips": {p: money_text(c) for p, c in sorted(phone.players_chips().items())},
        "house": money_text(phone.house),
        "conserved": phone.conservation() == phone.total,
    }


def casino_arguments(p: argparse.ArgumentParser) -> None:
    """The casino's own arguments of ``blu21 casino`` (the shared ones:
    :func:`app.terminal.common.table_parser`, :func:`~app.terminal.common.seat_arguments`)."""
    p.add_argument("--rules", default="european", choices=sorted(PRESETS), help="host: preset")
    p.add_argument("--decks", type=int, default=None, help="host: decks in the shoe (1-8)")
    p.add_argument("--penetration", default=None, help="host: share dealt before the cut")
    p.add_argument("--min-bet", type=int, default=None, help="host: smallest bet per box")
    p.add_argument("--max-bet", type=int, default=None, help="host: limit per box")
    p.add_argument(
        "--bet-time",
        type=bounded(BET_TIME_RANGE),
        default=30,
        help="host: seconds to bet ({}-{})".format(*BET_TIME_RANGE),
    )
    p.add_argument("--rounds", type=int, default=0, help="end after N rounds (0: never)")


def casino_run(args: argparse.Namespace, on_step: Callable[[Any], None]) -> int:
    """Host or join the casino table ``args`` ask for and play it until it ends;
    ``on_step(table)`` after each step (the terminal tool's history)."""
    try:
        kind = args.dealer or default_dealer()
        factory = shoe_factory(kind)
        if args.host:
            host = CasinoHost(
                TcpTransport(host=args.bind, port=args.port).listen(),
                player_id=new_player_id(),
                name=args.name,
                lang=args.lang,
                clock=SystemClock(),
                shoe_factory=factory,
                rules=_rules(args),
                bet_time=args.bet_time,
                turn_time=args.turn_time,
                secret=kind != "open",
                bot=casino_bot if args.bot else None,
            )
            print(f"listening on {host.address}", flush=True)
            return _run(host, args, on_step)
        guest = CasinoGuest.join(
            TcpTransport(),
            args.join,
            player_id=new_player_id(),
            name=args.name,
            lang=args.lang,
            clock=SystemClock(),
            shoe_factory=factory,
            bot=casino_bot if args.bot else None,
        )
        return _run(guest, args, on_step)
    except (TransportError, TableError, RulesError, ValueError, OSError) as exc:
        return failed("blu21 casino", exc)


def _run(
    table: CasinoHost | CasinoGuest, args: argparse.Namespace, on_step: Callable[[Any], None]
) -> int:
    show = _Printer(table, args.quiet)
    printed = False

    def after_step(deadline: Deadline) -> bool:
        nonlocal printed
        show()
        phone = table.phone
        if isinstance(table, CasinoHost) and phone is None:
            n = len(table.lobby.seating.sitters)
            if args.start_with and n >= args.start_with and table.lobby.seating.can_start():
                with contextlib.suppress(TableError):  # (a key still on its way)
                    table.start()
        if args.rounds and phone is not None and args.rounds in phone.records and not printed:
            done = isinstance(table, CasinoGuest) or len(phone.agreed.get(args.rounds, ())) >= (
                len(phone.present) - 1
            )
            if done:
                printed = True
                result = _result(table, args.rounds)
                if args.result_json:
                    print_result(result)
                else:
                    names = dict(table.snapshot().names)
                    chips = ", ".join(
                        f"{names.get(p, p)} {amount(c)}" for p, c in result["chips"].items()
                    )
                    print(_("Chips: {chips}").format(chips=chips), flush=True)
                if isinstance(table, CasinoHost):
                    return True
                deadline.linger(30.0)  # until the host ends it
        return False

    def on_line(line: str) -> None:
        if line in ("q", "quit"):
            table.leave()
        elif line == "start" and isinstance(table, CasinoHost):
            try:
                table.start()
            except TableError as exc:
                print(message_for(exc.code, **exc.details), flush=True)
        else:
            text = _command(table, line)
            if text:
                print(text, flush=True)

    drive(
        table,
        over=lambda: table.over,
        after_step=after_step,
        on_step=on_step,
        commands=None if args.bot else stdin_lines(),
        on_line=on_line,
        seconds=MAX_SECONDS,
    )
    fault = table.phone.fault if table.phone is not None else None
    table.leave()
    on_step(table)
    if isinstance(table, CasinoHost):
        table.lobby.wait_closed(2.0)
    return 0 if printed and fault is None else 1


def casino_demo_main(argv: Sequence[str]) -> int:
    """``blu21 demo --game blackjack``: N bots, one process each, at one casino table."""
    p = ToolParser(prog="blu21 demo --game blackjack", description="bots play casino blackjack")
    p.add_argument("--players", type=int, default=3, help="2-7")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--rules", default="european", choices=sorted(PRESETS))
    p.add_argument("--decks", type=int, default=1)
    p.add_argument("--penetration", default="1/2")
    p.add_argument("--dealer", choices=["sra", "open"], default=None)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(list(argv))
    if not 2 <= args.players <= 7:
        p.error("--players must be 2-7")
    try:
        kind = args.dealer or default_dealer()
        factory = shoe_factory(kind)
        rules = _rules(args)
    except (TableError, RulesError) as exc:
        print(f"blu21 demo: {exc.code}: {exc} (--dealer open: no secrecy)", file=sys.stderr)
        return 1
    note = "" if kind == "sra" else " (test shoe without secrecy, shown on every phone)"
    print(f"dealer: {kind}{note}", flush=True)
    host = CasinoHost(
        TcpTransport().listen(),
        player_id=new_player_id(),
        name="Bot0",
        lang="en",
        clock=SystemClock(),
        shoe_factory=factory,
        rules=rules,
        bet_time=10,
        turn_time=10,
        secret=kind != "open",
        bot=casino_bot,
    )
    guests = start_bots(
        [
            *("casino", "--join", host.address, "--bot", "--quiet", "--no-history"),
            *("--name", f"Bot{i}", "--result-json", "--dealer", kind),
            *("--rounds", str(args.rounds)),
        ]
        for i in range(1, args.players)
    )
    try:
        deadline = time.monotonic() + MAX_SECONDS
        mine = None
        while time.monotonic() < deadline and not host.over:
            host.step(0.02)
            phone = host.phone
            if phone is None:
                seating = host.lobby.seating
                if len(seating.sitters) == args.players and seating.can_start():
                    with contextlib.suppress(TableError):  # (a key still on its way)
                        host.start()
            elif args.rounds in phone.records:
                agreed = phone.agreed.get(args.rounds, set())
                if len(agreed) >= args.players - 1 or phone.fault is not None:
                    mine = _result(host, args.rounds)
                    break
            if any(g.poll() not in (None, 0) for g in guests):
                break
        host.leave()
        host.lobby.wait_closed(2.0)
        outputs = [g.communicate(timeout=60)[0] for g in guests]
        results = [result_in(out) for out in outputs]
        for i, out in enumerate(outputs, 1):
            if results[i - 1] is None or "Traceback" in out:
                print_tail(i, guests[i - 1], out)
        agree = mine is not None and all(r == mine for r in results)
        conserved = mine is not None and mine["conserved"]
        if mine is not None and not args.quiet:
            print(f"chips: {json.dumps(mine['chips'])}, house {mine['house']}", flush=True)
        print(f"rounds: {args.rounds}, chips conserved: {'yes' if conserved else 'NO'}")
        print(f"every phone agrees: {'yes' if agree and conserved else 'NO'}", flush=True)
        return 0 if agree and conserved else 1
    finally:
        stop_bots(guests)
        host.leave()
