"""Presenters of the history screens: stored records -> translated text and card rows
(pure, no Kivy; the screens in app/views/history/screen.py copy these into widgets)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.history.messages import number as number  # (shared with blu21 stats)
from app.history.messages import stats_lines as stats_lines
from app.i18n import _
from app.views.table.fairness import unaudited_text

#: a face-down or unseen card in a replay row
HIDDEN = "??"


@dataclass(frozen=True)
class Frame:
    """One step of a replay: what happened, and every hand as it then lay."""

    caption: str
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (label, card codes or HIDDEN)


def game_name(game: str) -> str:
    return _("Oczko") if game == "oczko" else _("Blackjack")


def result_name(result: str) -> str:
    return {"won": _("won"), "lost": _("lost"), "push": _("tie")}.get(result, result)


def list_line(r: Any) -> str:
    """One row of the history list."""
    when = time.strftime("%d.%m. %H:%M", time.localtime(r.ended))
    what = _("round {n}").format(n=r.number)
    if r.game == "blackjack":
        score = _("chips {before} -> {after}").format(before=r.score_before, after=r.score_after)
    else:
        score = _("points {before} -> {after}").format(before=r.score_before, after=r.score_after)
    return f"{when}  {game_name(r.game)}, {what}: {result_name(r.result)}  ({score})"


def seconds(t: float) -> str:
    """Seconds since the round began, with the language's decimal mark."""
    return f"{number(t, 1)} s"


def _who(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"


def oczko_frames(detail: Mapping[str, Any]) -> list[Frame]:
    """The steps of an Oczko round as this phone saw it."""
    names = list(detail.get("names") or [])
    order = list(detail.get("order") or range(len(names)))
    hands: dict[int, list[str]] = {s: [] for s in order}
    frames = []
    for e in detail.get("events") or ():
        kind, seat = e.get("event"), e.get("seat")
        who = _who(names, seat)
        t = e.get("t", 0)
        if kind == "round_started":
            text = _("Round {n}: the deal").format(n=e.get("round"))
        elif kind in ("card_dealt", "card_drawn"):
            hands.setdefault(seat, []).append(e.get("card") or HIDDEN)
            text = (
                _("{name} is dealt a card") if kind == "card_dealt" else _("{name} draws")
            ).format(name=who)
        elif kind == "held":
            text = _("{name} holds").format(name=who)
        elif kind == "busted":
            text = _("{name} is bust").format(name=who)
        elif kind == "persian21":
            text = _("{name} has a Persian 21").format(name=who)
        elif kind == "revealed":
            hands[seat] = list(e.get("cards") or ())
            text = _("{name} shows {total}").format(name=who, total=e.get("total"))
        elif kind == "round_ended":
            winner = e.get("winner")
            text = (
                _("{name} wins the round").format(name=_who(names, winner))
                if winner is not None
                else _("Nobody scores")
            )
        elif kind == "disconnected":
            text = _("{name} left").format(name=who)
        else:
            continue
        rows = tuple((_who(names, s), tuple(hands.get(s, ()))) for s in order)
        frames.append(Frame(f"{seconds(t)}  {text}", rows))
    return frames


_ACTIONS = {
    "hit": lambda: _("hit"),
    "stand": lambda: _("stand"),
    "double": lambda: _("double"),
    "split": lambda: _("split"),
    "surrender": lambda: _("surrender"),
    "insure": lambda: _("insurance"),
    "decline_insurance": lambda: _("no insurance"),
    "even_money": lambda: _("even money"),
    "decline_even_money": lambda: _("no even money"),
}


def action_name(kind: str) -> str:
    return _ACTIONS[kind]() if kind in _ACTIONS else kind


_OUTCOMES = {
    "win": lambda: _("won"),
    "blackjack": lambda: _("blackjack"),
    "push": lambda: _("tie"),
    "lose": lambda: _("lost"),
    "bust": lambda: _("bust"),
    "surrender": lambda: _("surrendered"),
    "even_money": lambda: _("even money"),
    "triple_seven": lambda: _("three sevens"),
    "returned": lambda: _("stake returned"),
}


def outcome_name(code: str) -> str:
    """A settled hand's outcome (the engine's code) in words."""
    return _OUTCOMES[code]() if code in _OUTCOMES else code


def blackjack_frames(detail: Mapping[str, Any]) -> list[Frame]:
    """The steps of a blackjack round: the deal, every decision, the dealer, the result."""
    hands: dict[tuple[int, int], list[str]] = {}
    dealer: list[str] = []
    frames = []
    split_from: tuple[int, int] | None = None
    for e in detail.get("events") or ():
        kind = e.get("event")
        t = e.get("t", 0)
        if kind == "split_stake" and split_from is not None:
            new = (e["box"], e["hand"])
            if new not in hands and hands.get(split_from):
                hands[new] = [hands[split_from].pop()]  # the pair's second card moves over
            continue
        if kind == "card":
            hands.setdefault((e["box"], e["hand"]), []).append(e.get("card") or HIDDEN)
            continue  # the deal is shown when the dealer's cards are out
        if kind == "dealer_card":
            dealer.append(e.get("card") or HIDDEN)
            text = _("The dealer's card")
        elif kind == "hole_card":
            if HIDDEN in dealer:
                dealer[dealer.index(HIDDEN)] = e.get("card") or HIDDEN
            text = _("The dealer turns his hole card")
        elif kind == "action":
            split_from = (e["box"], e["hand"]) if e["action"] == "split" else None
            text = _("{name}: {action}").format(
                name=e.get("player"), action=action_name(e["action"])
            )
        elif kind == "settled" and e.get("player") == detail.get("me"):
            text = _("Your hand: {outcome} ({net})").format(
                outcome=outcome_name(str(e.get("outcome"))), net=e.get("net")
            )
        else:
            continue
        rows = [(_("Dealer"), tuple(dealer))]
        boxes = [b for b, _h in hands]
        for (b, h), cards in sorted(hands.items()):
            label = _("Box {box}").format(box=b)
            if boxes.count(b) > 1:  # split hands: which one
                label = _("Box {box}, hand {hand}").format(box=b, hand=h)
            rows.append((label, tuple(cards)))
        frames.append(Frame(f"{seconds(t)}  {text}", tuple(rows)))
    return frames


def frames(record: Any) -> list[Frame]:
    """The replay of a stored round."""
    detail = record.detail or {}
    return oczko_frames(detail) if record.game == "oczko" else blackjack_frames(detail)


def fairness_lines(detail: Mapping[str, Any]) -> list[str]:
    """ "How was this deck shuffled?" for a networked round (empty otherwise): Oczko's
    deck, or the casino's shoes (``detail["shoes"]``, audited once their cut card came
    out)."""
    if "fingerprint" not in detail:
        return []
    shoe = "shoes" in detail  # a networked casino round: its shoes' audits
    names = list(detail.get("names") or [])
    seats = [_who(names, s) for s in detail.get("order") or ()]
    lines = [_("Table fingerprint: {code}").format(code=detail.get("fingerprint") or "-")]
    if not shoe:
        lines.append(_("Shuffled in turn by: {names}").format(names=", ".join(seats)))
    audits = detail.get("audits") or []
    if not audits:
        lines.append(_("The audit of this deck had not finished."))
    for a in audits:
        if a.get("ok"):
            lines.append(_("Audit: every card was dealt once and every claim was true."))
        elif a.get("unaudited") and isinstance(a.get("shoe"), int):
            lines.append(unaudited_text(a["shoe"]))
        else:
            cheaters = ", ".join(a.get("cheaters") or ()) or "?"
            lines.append(_("Audit failed: cheating by {names}.").format(names=cheaters))
    if shoe:
        lines.append(
            _(
                "Every phone locked and shuffled the whole shoe with its own secret key; once "
                "its cut card came out all keys were opened and each phone checked the shoe. "
                "How to check it yourself: docs/protocol.md, section 10 (The casino shoe)."
            )
        )
        return lines
    lines.append(
        _(
            "Every phone locked and shuffled the whole deck with its own secret key; at the "
            "end of the round all keys were opened and each phone checked the deck. How to "
            "check it yourself: docs/protocol.md, section 3 (A round), step 6 (Audit)."
        )
    )
    return lines


def decision_lines(record: Any) -> list[str]:
    """A blackjack round's decisions below best play."""
    out = []
    for d in (record.detail or {}).get("decisions") or ():
        if d.get("ev_lost", 0) > 1e-9:
            out.append(
                _(
                    "{cards} against {up}: you chose {action}, best was {best} (EV lost {lost})"
                ).format(
                    cards=" ".join(d["cards"]),
                    up=d["up"],
                    action=action_name(d["action"]),
                    best=action_name(d["best"]),
                    lost=number(d["ev_lost"]),
                )
            )
    return out


@dataclass(frozen=True)
class ChartText:
    """The words around a statistics chart: its axes' ends and its legend."""

    top: str  # the value at the top of the y axis
    bottom: str  # ... at the bottom
    x_axis: str  # what runs along the x axis, oldest to newest
    legend: str  # what the marks mean ('' when the title says it)


def score_chart_text(game: str, values: Sequence[float]) -> ChartText:
    """The axes of the points (Oczko) or chips (blackjack) over time chart.

    >>> t = score_chart_text("oczko", [0.0, 2.0, 1.0])
    >>> t.top, t.bottom, t.x_axis
    ('2', '0', 'Rounds, oldest › newest')
    """
    lo, hi = min(0.0, *values), max(0.0, *values)
    fmt = (lambda v: number(v, 0)) if all(float(v).is_integer() for v in (lo, hi)) else number
    unit = _("Hands, oldest › newest") if game == "blackjack" else _("Rounds, oldest › newest")
    return ChartText(top=fmt(hi), bottom=fmt(lo), x_axis=unit, legend="")


def won_chart_text(bars: Sequence[tuple[int, int]]) -> ChartText:
    """The axes and legend of the rounds-won-per-session chart: a filled bar is the
    rounds won, the frame around it the rounds played (so a session without a win
    shows an empty frame, never a bar that reads as wins).

    >>> t = won_chart_text([(0, 3), (2, 5)])
    >>> t.top, t.bottom, t.legend
    ('5', '0', 'Filled: rounds won · frame: rounds played')
    """
    top = max((played for _won, played in bars), default=0)
    return ChartText(
        top=str(top),
        bottom="0",
        x_axis=_("Sessions, oldest › newest"),
        legend=_("Filled: rounds won · frame: rounds played"),
    )
