"""Presenter of the blackjack table: the engine's Round -> what the table screen shows.

Pure functions, translated text, no Kivy. Which buttons are enabled comes only from
the engine's ``legal_actions()``, and what the player sees of the dealer only from the
engine's ``view_for``: the view never decides what the rules allow or what is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from app.i18n import _, decimal_mark, localize_decimal, ngettext
from app.rules.blackjack.view import view_for
from app.rules.engine import kinds_of

if TYPE_CHECKING:
    from app.rules.blackjack import Round
    from app.rules.blackjack.legal import BjLegal
    from app.rules.blackjack.state import Hand
    from app.rules.table_rules import TableRules
    from app.views.blackjack.game import BlackjackGame

BACK = -1
PLAY_ACTIONS = ("hit", "stand", "double", "split", "surrender")
CHIP_VALUES = (5, 10, 25, 50, 100, 250, 500, 1000)


def chips(amount: Fraction | int) -> str:
    """Exact chip amount in the current language's notation: ``8.4`` / ``8,4``."""
    from app.rules.money import money_text

    return money_text(Fraction(amount), decimal_mark())


def rule_change(rules: TableRules, field: str, value: Any) -> tuple[TableRules, str]:
    """The rules with ``field`` set to ``value`` (and ''), or the rules unchanged and why
    not, translated: for two rules that contradict each other the reason of its code,
    as ``blu21 edge`` says it (not only "these table rules do not fit together")."""
    from app.i18n.codes import error_message
    from app.rules.table_rules import RulesError

    try:
        return rules.replace(**{field: value}), ""
    except RulesError as exc:
        return rules, error_message(exc)


def won_lost_text(amount: Fraction | int, won: bool) -> str:
    """``You won 50 chips this round.``, with the noun in the right form for the number
    (whole numbers by the language's plural rule; a fraction has a wording of its own)."""
    amount = Fraction(amount)
    if amount.denominator != 1:
        if won:
            return _("You won {amount} chips in this round.").format(amount=chips(amount))
        return _("You lost {amount} chips in this round.").format(amount=chips(amount))
    n = int(amount)
    if won:
        text = ngettext(
            "You won {amount} chip this round.", "You won {amount} chips this round.", n
        )
    else:
        text = ngettext(
            "You lost {amount} chip this round.", "You lost {amount} chips this round.", n
        )
    return text.format(amount=chips(amount))


def total_text(total: int, soft: bool, natural: bool = False) -> str:
    """``Blackjack``, ``bust (24)``, ``soft 17`` or ``17``."""
    if natural:
        return _("Blackjack")
    if total > 21:
        return _("bust ({total})").format(total=total)
    if soft and total < 21:
        return _("soft {total}").format(total=total)
    return str(total)


OUTCOMES = {
    "win": lambda: _("won"),
    "blackjack": lambda: _("blackjack paid"),
    "push": lambda: _("push"),
    "lose": lambda: _("lost"),
    "bust": lambda: _("bust, lost"),
    "surrender": lambda: _("surrendered"),
    "even_money": lambda: _("even money"),
    "triple_seven": lambda: _("triple seven paid"),
    "returned": lambda: _("stake returned"),
}

STATUS = {
    "waiting": lambda: _("waiting"),
    "playing": lambda: _("playing"),
    "stood": lambda: _("stands"),
    "bust": lambda: _("bust"),
    "blackjack": lambda: _("Blackjack"),
    "surrendered": lambda: _("surrendered"),
    "triple_seven": lambda: _("triple seven"),
}


@dataclass(frozen=True)
class HandVM:
    """One hand on a box."""

    number: int
    cards: tuple[int, ...]
    total: str
    status: str
    stakes: str
    result: str
    current: bool


@dataclass(frozen=True)
class BoxVM:
    """One box (seat) of the table."""

    number: int
    owner: str
    hands: tuple[HandVM, ...]
    bet_range: tuple[Fraction, Fraction] | None  # the player may bet here (behind or own)
    behind: bool  # the player's bet here would be a bet behind
    mine: bool


@dataclass(frozen=True)
class PromptVM:
    """A question the round waits for (insurance / even money / follow a double)."""

    text: str
    choices: tuple[tuple[str, str, Any], ...]  # (action, label, amount or None)
    box: int | None


@dataclass(frozen=True)
class BlackjackTableVM:
    """Everything on the blackjack table screen."""

    header: str
    balance: str
    phase: str
    dealer_cards: tuple[int, ...]
    dealer_total: str
    boxes: tuple[BoxVM, ...]
    actions: dict[str, bool] = field(default_factory=dict)
    prompt: PromptVM | None = None
    can_deal: bool = False
    side_bet: tuple[Fraction, Fraction] | None = None
    #: the player's dealer-busts bet while it is open ('' when he has none)
    side_bet_text: str = ""
    turn: str = ""
    result: str = ""
    rules: str = ""
    hint: str = ""


def rules_summary(rules: TableRules) -> str:
    """One line of the rules in force (shown on the table: no hidden rules)."""
    d = rules.describe()
    parts = [
        ngettext("{n} deck", "{n} decks", d["decks"]).format(n=d["decks"]),
        _("dealer hits soft 17") if d["dealer"] == "H17" else _("dealer stands on soft 17"),
        _("blackjack pays {ratio}").format(ratio=d["blackjack_pays"]),
        _("no hole card (European)") if d["hole_card"] == "enhc" else _("dealer peeks"),
        _("limits {low}-{high}").format(low=rules.min_bet, high=rules.max_bet),
    ]
    return " · ".join(parts)


def chip_choices(low: Fraction, high: Fraction) -> tuple[Fraction, ...]:
    """Chip buttons for a bet between ``low`` and ``high`` (both ends always offered)."""
    values = {Fraction(low), Fraction(high)}
    values |= {Fraction(v) for v in CHIP_VALUES if low <= v <= high}
    return tuple(sorted(values))[:6]


def _bet_range(a: BjLegal) -> tuple[Fraction, Fraction]:
    """The amount range of a bet the engine allows (a bet always has both ends)."""
    assert a.min_amount is not None and a.max_amount is not None
    return a.min_amount, a.max_amount


def hand_vm(h: Hand, names: dict[str, str], current: Hand | None) -> HandVM:
    stakes = []
    results = []
    for s in h.stakes:
        who = names.get(s.player, s.player)
        amount = s.amount + s.doubled
        stakes.append(f"{who} {chips(amount)}")
        if s.outcome is not None:
            net = s.returned - amount
            sign = "+" if net > 0 else ""
            results.append(f"{who}: {OUTCOMES[s.outcome.value]()} ({sign}{chips(net)})")
    natural = h.natural and h.status.value in ("blackjack", "stood") and not h.from_split
    return HandVM(
        number=h.number,
        cards=tuple(c.code for c in h.cards),
        total=total_text(h.total, h.soft, natural) if h.cards else "",
        status=STATUS.get(h.status.value, lambda: "")(),
        stakes=" · ".join(stakes),
        result="\n".join(results),
        current=current is h,
    )


ACTION_NAMES = {
    "hit": lambda: _("Hit"),
    "stand": lambda: _("Stand"),
    "double": lambda: _("Double"),
    "split": lambda: _("Split"),
    "surrender": lambda: _("Surrender"),
}


def strategy_hint(r: Round, me: str) -> str:
    """The best play for the player's hand in play (app.strategy), or '' when there is
    none to give (not his turn, or the strategy module is not part of this build)."""
    h = r.current
    if h is None or h.owner != me or r.phase.value != "play" or not r.dealer:
        return ""
    try:
        from app.strategy.hint import hint
    except ImportError:
        return ""
    up = r.dealer[0]
    seen = [c for other in r.hands if other is not h for c in other.cards]
    split_card = h.cards[0] if h.from_split and h.cards else None
    legal = kinds_of(r.legal_actions(me))
    try:
        advice = hint(
            r.rules, up, h.cards, seen, hands_now=len(r.box_hands(h.box)), split_card=split_card
        )
    except ValueError:
        return ""
    evs = {k: v for k, v in advice.evs.items() if k in legal}
    if not evs:
        return ""
    best = max(evs, key=evs.__getitem__)
    ev = localize_decimal(f"{evs[best]:+.2f}")
    return _("Hint: {action} (expected {ev} per chip)").format(action=ACTION_NAMES[best](), ev=ev)


def dealer_of(r: Round, me: str) -> tuple[tuple[int, ...], str]:
    """The dealer's cards (:data:`BACK` for a face-down one) and total as ``me`` sees
    them: the engine's view hides the face-down hole card."""
    seen = view_for(r, me)
    dealer = tuple(BACK if c is None else c.code for c in seen.dealer)
    shown = any(c is not None for c in seen.dealer)
    total = total_text(seen.dealer_total, seen.dealer_soft, seen.dealer_blackjack) if shown else ""
    return dealer, total


def prompt_for(legal: tuple[BjLegal, ...]) -> PromptVM | None:
    """The question the round asks the player (insurance, even money, following the
    owner's double) from his legal actions, or None."""
    kinds = set(kinds_of(legal))
    if "insure" in kinds or "even_money" in kinds or "decline_insurance" in kinds:
        a = next(a for a in legal if a.kind.value in ("insure", "even_money", "decline_insurance"))
        choices: list[tuple[str, str, Any]] = []
        ins = next((x for x in legal if x.kind.value == "insure" and x.box == a.box), None)
        if any(x.kind.value == "even_money" and x.box == a.box for x in legal):
            choices.append(("even_money", _("Even money"), None))
        if ins is not None and ins.max_amount is not None:
            choices.append(
                (
                    "insure",
                    _("Insure {amount}").format(amount=chips(ins.max_amount)),
                    ins.max_amount,
                )
            )
        choices.append(("decline_insurance", _("No insurance"), None))
        text = _("The dealer shows an ace. Insurance for box {box}?").format(box=a.box)
        if "even_money" in kinds:
            text = _("You have blackjack against an ace: take even money (1:1) now?")
        return PromptVM(text, tuple(choices), a.box)
    if "follow_double" in kinds:
        box = next(a.box for a in legal if a.kind.value == "follow_double")
        return PromptVM(
            _("The box owner doubles. Double your bet behind too?"),
            (("follow_double", _("Double too"), None), ("decline_double", _("Keep my bet"), None)),
            box,
        )
    return None


def round_result(r: Round, me: str) -> str:
    """What ``me`` won or lost in the settled round ``r`` ('' before), side bets and
    insurance included."""
    if not r.settled:
        return ""
    net = r.net(me)
    if net > 0:
        result = won_lost_text(net, won=True)
    elif net < 0:
        result = won_lost_text(-net, won=False)
    else:
        result = _("Even this round: no chips won or lost.")
    for b in r.side_bets:
        if b.player == me and b.won is not None:
            result += "\n" + (_("Dealer busts bet: won") if b.won else _("Dealer busts bet: lost"))
    for i in r.insurance:
        if i.player == me and i.won is not None:
            result += "\n" + (_("Insurance: won") if i.won else _("Insurance: lost"))
    return result


def present(
    game: BlackjackGame, names: dict[str, str] | None = None, hints: bool = False
) -> BlackjackTableVM:
    """The table screen for a :class:`app.views.blackjack.game.BlackjackGame`."""
    r = game.round
    assert r is not None  # the table screen shows an open round
    me = game.me
    names = {me: _("You"), **(names or {})}
    s = game.session
    header = _("Round {number} of {rounds}").format(
        number=min(s.rounds_played + 1, s.rules.rounds), rounds=s.rules.rounds
    )
    balance = _("Chips: {amount}").format(amount=chips(game.balance()))
    legal = game.legal()
    kinds = set(kinds_of(legal))
    dealer, dealer_total = dealer_of(r, me)
    bets = {a.box: _bet_range(a) for a in legal if a.kind.value == "bet"}
    current = r.current
    boxes = []
    for number in range(1, r.rules.boxes + 1):
        hands = r.box_hands(number)
        owner = r.box_owner(number)
        boxes.append(
            BoxVM(
                number=number,
                owner=names.get(owner, owner) if owner else "",
                hands=tuple(hand_vm(h, names, current) for h in hands),
                bet_range=bets.get(number),
                behind=owner is not None and owner != me,
                mine=owner == me or any(h.stake_of(me) for h in hands),
            )
        )
    prompt = prompt_for(legal)
    turn = ""
    if r.phase.value == "betting":
        turn = _("Place your bets: choose a box, then a chip.")
    elif current is not None and current.owner == me and r.phase.value == "play":
        turn = _("Your hand on box {box}: what do you do?").format(box=current.box)
    elif current is not None and r.phase.value == "play":
        turn = _("{name} is playing…").format(name=names.get(current.owner, current.owner))
    result = round_result(r, me)
    side = next((_bet_range(a) for a in legal if a.kind.value == "side_bet"), None)
    open_side = [b for b in r.side_bets if b.player == me and b.won is None]
    side_text = (
        _("Your bet on the dealer busting: {amount} (pays 5:2)").format(
            amount=chips(sum(b.amount for b in open_side))
        )
        if open_side
        else ""
    )
    return BlackjackTableVM(
        header=header,
        balance=balance,
        phase=r.phase.value,
        dealer_cards=dealer,
        dealer_total=dealer_total,
        boxes=tuple(boxes),
        actions={k: k in kinds for k in PLAY_ACTIONS},
        prompt=prompt,
        can_deal=any(a.kind.value == "deal" for a in r.legal_actions()),
        side_bet=side,
        side_bet_text=side_text,
        turn=turn,
        result=result,
        rules=rules_summary(r.rules),
        hint=strategy_hint(r, me) if hints else "",
    )


def summary_lines(summary: dict[str, Any], me: str) -> list[tuple[str, str]]:
    """The session summary (engine's ``Session.summary()``) as (label, value) rows."""
    p = summary["players"][me]

    def amount(v: Any) -> str:
        return "–" if v is None else chips(Fraction(v))

    return [
        (_("Rounds played"), f"{summary['rounds_played']} / {summary['rounds']}"),
        (_("Chips at the start"), amount(p["start"])),
        (_("Chips now"), amount(p["balance"])),
        (_("Won or lost"), ("+" if Fraction(p["net"]) > 0 else "") + amount(p["net"])),
        (_("Best round"), amount(p["best_round"])),
        (_("Worst round"), amount(p["worst_round"])),
    ]
