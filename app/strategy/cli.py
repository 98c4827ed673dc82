"""``blu21 edge`` and ``blu21 sim``: house edge, strategy chart and simulation.

blu21 edge [--preset NAME | --rules FILE.json] [rule options] [--infinite] [--networked]
           [--threads T] [--json]
blu21 sim [--hands N] [--preset NAME | --rules FILE.json] [rule options] [--threads T] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, TextIO

from app.i18n.args import ToolParser
from app.jsonfile import read_json_object
from app.rules.table_rules import (
    DOUBLE_RULES,
    HOLE_CARD_RULES,
    PRESETS,
    SPLIT_RULES,
    RulesError,
    TableRules,
    networked_rules,
)


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "yes", "true", "on", "y"):
        return True
    if t in ("0", "no", "false", "off", "n"):
        return False
    raise argparse.ArgumentTypeError(f"expected yes/no, not {text!r}")


def _fraction(text: str) -> Fraction:
    try:
        value = Fraction(text.replace(":", "/"))
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(
            f"expected a ratio like 3:2 or 6/5, not {text!r}"
        ) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive ratio like 3:2, not {text!r}")
    return value


def _threads(text: str) -> int:
    """Worker threads: one rule for ``edge`` and ``sim``."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if not 1 <= n <= 256:
        raise argparse.ArgumentTypeError(f"threads must be 1-256, not {n}")
    return n


#: rounds ``blu21 sim`` plays when not told: a standard error of about 0.04 %
DEFAULT_HANDS = 10_000_000


def _hands(text: str) -> int:
    """Rounds to simulate: a whole number of at least 1."""
    try:
        n = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"hands must be at least 1, not {n}")
    return n


#: option -> (TableRules field, converter, metavar or choices, help)
_RULE_OPTIONS: dict[str, tuple[str, Callable[[str], object], str | tuple[str, ...], str]] = {
    "--decks": ("decks", int, "1-8", "decks in the shoe"),
    "--penetration": ("penetration", _fraction, "RATIO", "share dealt before the cut, e.g. 3/4"),
    "--h17": ("dealer_hits_soft_17", _bool, "yes|no", "dealer hits soft 17"),
    "--blackjack-pays": ("blackjack_pays", _fraction, "RATIO", "a natural pays, e.g. 3:2 or 6:5"),
    "--hole-card": ("hole_card", str, HOLE_CARD_RULES, "peek (American) or enhc (European)"),
    "--original-bets-only": (
        "enhc_original_bets_only",
        _bool,
        "yes|no",
        "enhc: a dealer blackjack takes the original bet only",
    ),
    "--double-on": ("double_on", str, DOUBLE_RULES, "which two-card totals may double"),
    "--das": ("double_after_split", _bool, "yes|no", "double after a split"),
    "--max-hands": ("max_hands", int, "1-8", "hands a box may split into"),
    "--split-by": ("split_by", str, SPLIT_RULES, "pairs are the same rank or the same value"),
    "--resplit-aces": ("resplit_aces", _bool, "yes|no", "resplit aces"),
    "--hit-split-aces": ("hit_split_aces", _bool, "yes|no", "draw more than one card to aces"),
    "--surrender": ("late_surrender", _bool, "yes|no", "late surrender (needs peek)"),
    "--enhc-surrender": (
        "enhc_late_surrender",
        _bool,
        "yes|no",
        "enhc, original bets only: surrender settled as if after the peek",
    ),
    "--triple-seven": ("triple_seven", _bool, "yes|no", "three sevens pay 3:2 at once"),
}


def _parser(prog: str, sim: bool) -> argparse.ArgumentParser:
    p = ToolParser(
        prog=prog,
        description=__doc__.splitlines()[0],
        epilog="Rule options change the preset (or the --rules file) one rule at a time.",
    )
    p.add_argument(
        "--preset",
        default=None,
        choices=sorted(PRESETS),
        help="rule preset (default: classic)",
    )
    p.add_argument(
        "--rules",
        metavar="FILE.json",
        default=None,
        help="table rules saved by the app (a rules object, or the preferences file)",
    )
    for opt, (name, conv, allowed, text) in _RULE_OPTIONS.items():
        if isinstance(allowed, tuple):
            p.add_argument(opt, dest=name, choices=allowed, default=None, help=text)
        else:
            p.add_argument(opt, dest=name, type=conv, metavar=allowed, default=None, help=text)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--threads",
        type=_threads,
        metavar="1-256",
        default=None,
        help="worker threads (default: cores)",
    )
    if sim:
        p.add_argument(
            "--hands",
            type=_hands,
            default=DEFAULT_HANDS,
            metavar="N",
            help=f"rounds to simulate (default: {DEFAULT_HANDS:,}, about a second)",
        )
        p.add_argument("--seed", type=int, default=1, help="random seed")
    else:
        p.add_argument("--infinite", action="store_true", help="infinite-deck analysis")
        p.add_argument(
            "--networked",
            action="store_true",
            help="also the rules a networked table plays (no hole card, original bets "
            "only, surrender as if after the peek) and the two edges side by side",
        )
    return p


def _joined_values(argv: Sequence[str]) -> list[str]:
    """``--blackjack-pays -3:2`` as ``--blackjack-pays=-3:2``: argparse would take the
    value for an option and say "expected one argument"; the converter explains."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in _RULE_OPTIONS:
            value = next(it, None)
            if value is not None and value.startswith("-") and value not in _RULE_OPTIONS:
                out.append(f"{arg}={value}")
                continue
            out.append(arg)
            if value is not None:
                out.append(value)
            continue
        out.append(arg)
    return out


def build_rules(preset: str, overrides: dict[str, Any]) -> TableRules:
    """TableRules for ``preset`` with ``overrides`` (validated by TableRules)."""
    base = TableRules.preset(preset)
    return base.replace(**overrides) if overrides else base


def load_rules_file(path: str) -> TableRules:
    """The table rules in ``path``: a TableRules JSON object (``TableRules.to_json``) or
    the app's preferences file (its ``table_rules``).  ValueError says what is wrong."""
    data = read_json_object(path, "rules file")
    if isinstance(data.get("table_rules"), dict):
        data = data["table_rules"]
    try:
        return TableRules.from_json(data)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"rules file {path}: {exc}") from None


def _rules_from(args: argparse.Namespace) -> TableRules:
    overrides = {
        name: getattr(args, name)
        for name, *_ in _RULE_OPTIONS.values()
        if getattr(args, name) is not None
    }
    if args.rules is not None:
        if args.preset is not None:
            raise ValueError("give --preset or --rules, not both")
        base = load_rules_file(args.rules)
        return base.replace(**overrides) if overrides else base
    return build_rules(args.preset or "classic", overrides)


def _run(
    fn: Callable[[TableRules, argparse.Namespace], int], argv: Sequence[str], prog: str, sim: bool
) -> int:
    args = _parser(prog, sim).parse_args(_joined_values(argv))
    try:
        rules = _rules_from(args)
        return fn(rules, args)
    except ValueError as exc:
        print(f"{prog}: {_problem(exc)}", file=sys.stderr)
        return 2


def _problem(exc: ValueError) -> str:
    """What is wrong, in one line: for two rules that contradict each other the reason
    of its code, translated, as the app's rules screen says it; else the message."""
    code = getattr(exc, "code", "invalid_rules")
    if isinstance(exc, RulesError) and code not in ("invalid_rules", "unknown_field"):
        from app.i18n.codes import MESSAGES, error_message

        if code in MESSAGES:
            return error_message(exc)
    return " ".join(str(exc).split())


def _edge(rules: TableRules, args: argparse.Namespace) -> int:
    from app.strategy.edge import house_edge

    if args.networked:
        return _networked_edge(rules, args)
    report = house_edge(rules, infinite=args.infinite, threads=args.threads)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
        return 0
    print(f"rules:       {report.rules}")
    print(f"house edge:  {100 * report.house_edge:.4f} %  ({report.strategy})")
    print(f"insurance:   house edge {100 * report.insurance_house_edge:.3f} %")
    print(
        f"dealer busts: P = {100 * report.dealer_busts_probability:.3f} %, "
        f"house edge at 5:2 {100 * report.dealer_busts_house_edge:.3f} %"
    )
    print(f"computed in  {report.seconds:.3f} s\n")
    print(report.chart.text())
    print("\nS stand, H hit, D double (else hit), Ds double (else stand), P split, R surrender")
    return 0


def _networked_edge(rules: TableRules, args: argparse.Namespace) -> int:
    """The table's edge beside the edge of the rules a networked table plays for it."""
    from app.strategy.edge import house_edge

    net = networked_rules(rules)
    rows = []
    for name, r in (("table", rules), ("networked", net)):
        rep = house_edge(r, infinite=args.infinite, threads=args.threads)
        rows.append((name, rep.rules, rep.house_edge))
    diff = rows[1][2] - rows[0][2]
    if args.json:
        out = {name: {"rules": text, "house_edge": edge} for name, text, edge in rows}
        print(json.dumps({**out, "difference": diff}, indent=2))
        return 0
    for name, text, edge in rows:
        print(f"{name + ':':11s} {100 * edge:.4f} %  {text}")
    print(f"difference: {100 * diff:+.4f} points (networked minus table)")
    return 0


def _sim(rules: TableRules, args: argparse.Namespace) -> int:
    from app.strategy.sim import simulate

    rep = simulate(
        rules, args.hands, threads=args.threads, seed=args.seed, progress=_Progress(sys.stderr)
    )
    if args.json:
        print(json.dumps(rep.as_dict(), indent=2))
        return 0
    print(f"hands:       {rep.hands}")
    print(f"house edge:  {100 * rep.house_edge:.4f} % +- {100 * rep.standard_error:.4f} % (1 s.e.)")
    print(f"speed:       {rep.hands_per_second:,.0f} hands/s on {rep.threads} thread(s)")
    return 0


class _Progress:
    """Shows how far ``blu21 sim`` is, on stderr (stdout keeps the result alone): on a
    terminal one line rewritten at every percent, elsewhere a line at the start and at
    every quarter."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        from app.i18n import ngettext

        step = 1 if self.tty else 25
        percent = 100 * done // total
        if done and percent // step == self.shown // step:
            return
        self.shown = percent
        if not done:
            text = ngettext(
                "playing {hands} hand (Ctrl-C stops)", "playing {hands} hands (Ctrl-C stops)", total
            ).format(hands=total)
        else:
            text = ngettext(
                "{percent} % of {hands} hand", "{percent} % of {hands} hands", total
            ).format(percent=percent, hands=total)
        end = "" if self.tty and done < total else "\n"
        start = "\r" if self.tty else ""
        print(f"{start}blu21 sim: {text}", end=end, file=self.out, flush=True)


def edge_main(argv: Sequence[str]) -> int:
    """``blu21 edge``: house edge and basic-strategy chart."""
    return _run(_edge, argv, "blu21 edge", sim=False)


def sim_main(argv: Sequence[str]) -> int:
    """``blu21 sim``: simulated house edge, standard error and speed."""
    return _run(_sim, argv, "blu21 sim", sim=True)
