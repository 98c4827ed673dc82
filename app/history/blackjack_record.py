"""Blackjack rounds as records, and the review of the player's decisions against best
play by the engine's exact hint (:func:`app.strategy.hint.hint`).

The detail of a blackjack record::

    {"rules": TableRules.to_json(), "me": name, "events": [{"event": ..., "t": s}, ...],
     "decisions": [{"t": s, "box": b, "hand": h, "action": "hit", "cards": [...],
                    "up": "Td", "evs": {"stand": -0.54, ...}, "best": "stand",
                    "ev_lost": 0.1, "stake": "10"}]}

``evs`` are per chip of the hand's stake (the hint's unit), ``ev_lost`` is in chips.
Insurance and even-money decisions are reviewed too (:func:`review_insurance`,
:func:`review_even_money`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.history.model import Facts, RoundRecord
from app.rules.money import money_json, to_money

#: playing decisions the hint values
PLAY = ("stand", "hit", "double", "split", "surrender")
WON = frozenset({"win", "blackjack", "triple_seven", "even_money"})
PUSHED = frozenset({"push", "returned"})
#: an EV this much below the best is a mistake (float noise of the analysis is far less)
EPSILON = 1e-9


def review(before: Any, me: str, box: int, hand: int, action: str) -> dict[str, Any] | None:
    """The player's decision ``action`` on hand (``box``, ``hand``) of round ``before``
    (the round as it was when he decided) against the best legal play: the EV of each
    legal action, the best one, and the chips lost by the choice. None when the hint
    cannot value it (not a playing decision, or the strategy module is missing)."""
    if action not in PLAY:
        return None
    h = before.current
    if h is None or h.owner != me or h.box != box or h.number != hand or not before.dealer:
        return None
    try:
        from app.strategy.hint import hint
    except ImportError:  # a build without the strategy module
        return None
    seen = [c for other in before.hands if other is not h for c in other.cards]
    split_card = h.cards[0] if h.from_split and h.cards else None
    legal = {a.kind.value for a in before.legal_actions() if a.player == me}
    try:
        advice = hint(
            before.rules,
            before.dealer[0],
            h.cards,
            seen,
            hands_now=len(before.box_hands(h.box)),
            split_card=split_card,
        )
    except ValueError:
        return None
    evs = {k: round(v, 6) for k, v in advice.evs.items() if k in legal}
    if action not in evs:
        return None
    best = max(evs, key=evs.__getitem__)
    stake = h.stakes[0].amount
    lost = max(0.0, (evs[best] - evs[action]) * float(stake))
    return {
        "box": box,
        "hand": hand,
        "action": action,
        "cards": [str(c) for c in h.cards],
        "up": str(before.dealer[0]),
        "evs": evs,
        "best": best,
        "ev_lost": round(lost, 6),
        "stake": str(money_json(stake)),
    }


def _against_ace(before: Any, me: str, box: int) -> tuple[Any, Any, float] | None:
    """The player's first hand on ``box`` when the dealer shows an ace, his stake on
    it, and the hint's insurance EV per chip insured (``3p - 1``, ``p`` the chance of a
    ten from the cards he has not seen). None when it cannot be valued (no ace up, no
    stake of his, the strategy module missing)."""
    hands = before.box_hands(box)
    if not hands or not before.dealer or before.dealer[0].rank != 1:
        return None
    h = hands[0]
    stake = h.stake_of(me)
    if stake is None:
        return None
    try:
        from app.strategy.hint import hint
    except ImportError:  # a build without the strategy module
        return None
    seen = [c for other in before.hands if other is not h for c in other.cards]
    try:
        ins = hint(before.rules, before.dealer[0], h.cards, seen).insurance
    except ValueError:
        return None
    return None if ins is None else (h, stake, float(ins))


def _decision(
    before: Any, box: int, h: Any, stake: Any, action: str, evs: dict[str, float], lost: float
) -> dict[str, Any]:
    """A reviewed decision against the dealer's ace, as stored."""
    return {
        "box": box,
        "hand": h.number,
        "action": action,
        "cards": [str(c) for c in h.cards],
        "up": str(before.dealer[0]),
        "evs": {k: round(v, 6) for k, v in evs.items()},
        "best": max(evs, key=evs.__getitem__),
        "ev_lost": round(lost, 6),
        "stake": str(money_json(stake.amount)),
    }


def review_insurance(before: Any, me: str, box: int, amount: Any) -> dict[str, Any] | None:
    """The player's insurance decision on ``box`` of round ``before`` (``amount``
    insured, or None: declined) against the best one by the hint's insurance EV (per
    chip insured, from the unseen cards): insure the most allowed (half the stake) when
    it is positive, else decline. ``evs`` per chip of the stake, ``ev_lost`` in chips.
    None when it cannot be valued (no ace up, the strategy module missing)."""
    found = _against_ace(before, me, box)
    if found is None:
        return None
    h, stake, ins = found
    most = float(stake.amount) / 2
    chosen_chips = 0.0 if amount is None else ins * float(amount)
    action = "decline_insurance" if amount is None else "insure"
    # (a tie goes to declining: no bet for nothing)
    evs = {"decline_insurance": 0.0, "insure": ins * most / float(stake.amount)}
    return _decision(before, box, h, stake, action, evs, max(0.0, ins * most) - chosen_chips)


def review_even_money(before: Any, me: str, box: int, took: bool) -> dict[str, Any] | None:
    """The player's even-money decision on ``box`` of round ``before`` (his blackjack
    against the dealer's ace): ``took`` 1:1 now, or declined it for the blackjack
    payout unless the dealer has blackjack too (a tie). ``evs`` per chip of the stake:
    ``even_money`` 1, ``decline_even_money`` ``pays * (1 - p)`` with ``p`` the chance of
    the dealer's ten; ``ev_lost`` in chips. None when it cannot be valued."""
    found = _against_ace(before, me, box)
    if found is None:
        return None
    h, stake, ins = found
    p = (ins + 1) / 3
    evs = {"even_money": 1.0, "decline_even_money": float(before.rules.blackjack_pays) * (1 - p)}
    action = "even_money" if took else "decline_even_money"
    lost = (max(evs.values()) - evs[action]) * float(stake.amount)
    return _decision(before, box, h, stake, action, evs, lost)


#: events of the player's that are a decision to review (``settled``: even money only)
DECISION_EVENTS = frozenset({"action", "insurance", "insurance_declined", "settled"})


def is_decision(entry: Mapping[str, Any], me: str) -> bool:
    """Whether the event ``entry`` (its JSON) is a decision of player ``me`` that
    :func:`review_entry` values (one per intent of his).

    >>> is_decision({"event": "action", "player": "ann", "action": "hit"}, "ann")
    True
    >>> is_decision({"event": "settled", "player": "ann", "outcome": "win"}, "ann")
    False
    """
    kind = entry.get("event")
    if entry.get("player") != me or kind not in DECISION_EVENTS:
        return False
    return kind != "settled" or entry.get("outcome") == "even_money"


def review_entry(before: Any, me: str, entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """Player ``me``'s decision of event ``entry`` (its JSON: a playing action, an
    insurance taken or declined, even money taken or declined) against best play, from
    round ``before`` (the round just before it). None when it is not his decision or
    cannot be valued."""
    if not is_decision(entry, me):
        return None
    kind, box = entry.get("event"), entry.get("box")
    if not isinstance(box, int):
        return None
    if kind == "action":
        hand = entry.get("hand")
        action = entry.get("action")
        if not isinstance(hand, int) or not isinstance(action, str):
            return None
        return review(before, me, box, hand, action)
    if kind == "settled":
        return review_even_money(before, me, box, took=True)
    if kind == "insurance_declined" and offered_even_money(before, me, box):
        return review_even_money(before, me, box, took=False)
    amount = entry.get("amount")
    return review_insurance(before, me, box, None if amount is None else to_money(amount))


def offered_even_money(before: Any, me: str, box: int) -> bool:
    """Whether ``me`` was offered even money on ``box`` in round ``before`` (his
    blackjack against the dealer's ace): a declined insurance there declined it."""
    return any(
        a.kind.value == "even_money" and a.player == me and a.box == box
        for a in before.legal_actions()
    )


def hand_facts(rnd: Any, me: str, decisions: Sequence[Mapping[str, Any]]) -> Facts:
    """The player's counted facts of a settled round."""
    settled = []
    for h in rnd.hands:
        stake = h.stake_of(me)
        if stake is not None and stake.outcome is not None:
            settled.append((str(stake.outcome.value), stake.doubled > 0, bool(h.from_split)))
    return count_facts(settled, decisions)


def count_facts(
    settled: Iterable[tuple[str, bool, bool]], decisions: Sequence[Mapping[str, Any]]
) -> Facts:
    """A player's counted facts from his settled hands (each: its outcome, whether
    it was doubled, whether it came from a split) and his reviewed decisions; both the
    one-phone round and the networked round's JSON are counted by it."""
    hands = wins = pushes = losses = blackjacks = doubles_won = splits_won = 0
    for outcome, doubled, from_split in settled:
        hands += 1
        won = outcome in WON
        wins += won
        pushes += outcome in PUSHED
        losses += not won and outcome not in PUSHED
        blackjacks += outcome == "blackjack"
        doubles_won += won and doubled
        splits_won += won and from_split
    lost = [float(d["ev_lost"]) for d in decisions]
    return Facts(
        hands=hands,
        wins=wins,
        pushes=pushes,
        losses=losses,
        blackjacks=blackjacks,
        doubles_won=doubles_won,
        splits_won=splits_won,
        decisions=len(decisions),
        mistakes=sum(x > EPSILON for x in lost),
        ev_lost=round(sum(lost), 6),
    )


def blackjack_record(
    rnd: Any,
    me: str,
    *,
    session: str,
    number: int,
    started: float,
    ended: float,
    times: Sequence[float],
    decisions: Sequence[Mapping[str, Any]] = (),
) -> RoundRecord | None:
    """The record of settled round ``rnd`` for player ``me`` (None if he had no bet).
    ``times[i]``: when event ``i`` happened (Unix time); ``decisions``: his reviewed
    decisions (:func:`review`, each with its ``t``)."""
    if me not in rnd.players():
        return None
    before = rnd.bankrolls[me]
    net = rnd.results().get(me, 0)
    events = rnd.public_events()
    for i, e in enumerate(events):
        e["t"] = round((times[i] if i < len(times) else ended) - started, 3)
    result = "won" if net > 0 else "lost" if net < 0 else "push"
    return RoundRecord(
        game="blackjack",
        mode="casino",
        session=session,
        number=number,
        started=started,
        ended=ended,
        player=me,
        result=result,
        score_before=str(money_json(before)),
        score_after=str(money_json(before + net)),
        facts=hand_facts(rnd, me, decisions),
        detail={
            "rules": rnd.rules.to_json(),
            "me": me,
            "events": events,
            "decisions": list(decisions),
        },
    )
