"""``blu21 edge`` and ``blu21 sim``: house edge, strategy chart and simulation.

blu21 edge [--preset NAME | rule options] [--infinite] [--json]
blu21 sim --hands N [--preset NAME | rule options] [--threads T] [--seed S] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Any


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "yes", "true", "on", "y"):
        return True
    if t in ("0", "no", "false", "off", "n"):
        return False
    raise argparse.ArgumentTypeError(f"expected yes/no, not {text!r}")


def _fraction(text: str) -> Fraction:
    try:
        return Fraction(text.replace(":", "/"))
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(
            f"expected a ratio like 3:2 or 6/5, not {text!r}"
        ) from None


#: option -> (TableRules field, converter)
_RULE_OPTIONS: dict[str, tuple[str, Any]] = {
    "--decks": ("decks", int),
    "--penetration": ("penetration", _fraction),
    "--h17": ("dealer_hits_soft_17", _bool),
    "--blackjack-pays": ("blackjack_pays", _fraction),
    "--hole-card": ("hole_card", str),
    "--original-bets-only": ("enhc_original_bets_only", _bool),
    "--double-on": ("double_on", str),
    "--das": ("double_after_split", _bool),
    "--max-hands": ("max_hands", int),
    "--split-by": ("split_by", str),
    "--resplit-aces": ("resplit_aces", _bool),
    "--hit-split-aces": ("hit_split_aces", _bool),
    "--surrender": ("late_surrender", _bool),
    "--triple-seven": ("triple_seven", _bool),
}


def _parser(prog: str, sim: bool) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="classic", help="rule preset (classic, european)")
    for opt, (name, conv) in _RULE_OPTIONS.items():
        p.add_argument(opt, dest=name, type=conv, default=None, help=f"TableRules.{name}")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--threads", type=int, default=None, help="worker threads (default: cores)")
    if sim:
        p.add_argument("--hands", type=int, required=True, help="rounds to simulate")
        p.add_argument("--seed", type=int, default=1, help="random seed")
    else:
        p.add_argument("--infinite", action="store_true", help="infinite-deck analysis")
    return p


def build_rules(preset: str, overrides: dict[str, Any]) -> Any:
    """TableRules for ``preset`` with ``overrides`` (validated by TableRules)."""
    from app.rules.table_rules import TableRules

    base = TableRules.preset(preset)
    return base.replace(**overrides) if overrides else base


def _rules_from(args: argparse.Namespace) -> Any:
    overrides = {
        name: getattr(args, name)
        for name, _ in _RULE_OPTIONS.values()
        if getattr(args, name) is not None
    }
    return build_rules(args.preset, overrides)


def _run(fn: Any, argv: Sequence[str], prog: str, sim: bool) -> int:
    args = _parser(prog, sim).parse_args(list(argv))
    try:
        rules = _rules_from(args)
        return fn(rules, args)
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2


def _edge(rules: Any, args: argparse.Namespace) -> int:
    from app.strategy.edge import house_edge

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


def _sim(rules: Any, args: argparse.Namespace) -> int:
    from app.strategy.sim import simulate

    if args.hands < 1:
        raise ValueError("--hands must be at least 1")
    rep = simulate(rules, args.hands, threads=args.threads, seed=args.seed)
    if args.json:
        print(json.dumps(rep.as_dict(), indent=2))
        return 0
    print(f"hands:       {rep.hands}")
    print(f"house edge:  {100 * rep.house_edge:.4f} % +- {100 * rep.standard_error:.4f} % (1 s.e.)")
    print(f"speed:       {rep.hands_per_second:,.0f} hands/s on {rep.threads} thread(s)")
    return 0


def edge_main(argv: Sequence[str]) -> int:
    """``blu21 edge``: house edge and basic-strategy chart."""
    return _run(_edge, argv, "blu21 edge", sim=False)


def sim_main(argv: Sequence[str]) -> int:
    """``blu21 sim``: simulated house edge, standard error and speed."""
    return _run(_sim, argv, "blu21 sim", sim=True)
