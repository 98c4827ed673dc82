"""Presenter of the networked casino table: a CasinoSnapshot -> what the screen shows.

Pure functions, translated text, no Kivy. What this player may do comes only from his
engine copy's ``round.legal_actions(me)`` (narrowed by the table's box owners: a box
another player took is bet behind only once its owner has bet, a free box is taken,
not bet on), what he sees of the dealer only from ``view_for``. The countdown is the
snapshot's deadline against the clock the caller passes (the table's clock).

>>> from fractions import Fraction
>>> from app.rules.table_rules import TableRules
>>> from app.table.casino.snapshot import CasinoSnapshot
>>> s = CasinoSnapshot(me="ann", rules=TableRules(boxes=3), players=("ann",),
...                    names={"ann": "Ann"}, chips={"ann": Fraction(1000)})
>>> vm = present_casino(s, now=0.0)
>>> [b.can_take for b in vm.boxes], vm.chips_line
([True, True, True], 'You 1000')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from app.i18n import N_, _
from app.i18n.codes import MESSAGES, message_for
from app.rules.blackjack.view import view_for
from app.rules.engine import kinds_of
from app.table.casino.snapshot import CasinoSnapshot, CasinoStage, Notice
from app.table.progress import progress_text
from app.views.blackjack.vm import (
    PLAY_ACTIONS,
    HandVM,
    PromptVM,
    chips,
    dealer_of,
    hand_vm,
    prompt_for,
    round_result,
    rules_summary,
)
from app.views.table.fairness import Fairness, fairness_lines, fairness_short
from app.views.table.lobby_lines import player_line

if TYPE_CHECKING:
    from app.rules.blackjack import Round
    from app.rules.blackjack.actions import Action
    from app.rules.blackjack.legal import BjLegal

#: the stages between rounds: a box may be taken or given up
BETWEEN_ROUNDS = (CasinoStage.LOBBY, CasinoStage.BETTING, CasinoStage.SETTLED)

#: table notices of the casino table (codes not in app.i18n.codes) -> message
CASINO_NOTICES: dict[str, str] = {
    "decision_timeout": N_("Time is up: {name} stands."),
    "bet_timeout": N_("The bets are closed."),
    "box_taken": N_("{name} sits down at box {box}."),
    "box_left": N_("{name} gives up box {box}."),
    "sits_out": N_("Box {box} has no bet and sits out this round."),
    "reshuffle": N_("The cut card came out: the next shoe is in play."),
    "player_back": N_("{name} is back at the table."),
    "chips_disagree": N_("The chip counts disagree: {name} sent a bad change."),
    "table_over": N_("The table is closed."),
    "cheater": N_("Cheating detected: {name} sent invalid data. Every phone names {name}."),
}

STAGES: dict[CasinoStage, str] = {
    CasinoStage.LOBBY: N_("Waiting for players"),
    CasinoStage.SHUFFLING: N_("Shuffling the shoe together"),
    CasinoStage.BETTING: N_("Bets are open"),
    CasinoStage.PLAYING: N_("Round in play"),
    CasinoStage.SETTLED: N_("Round settled"),
    CasinoStage.OVER: N_("The table is closed"),
}


@dataclass(frozen=True)
class CasinoBoxVM:
    """One box of the casino table."""

    number: int
    owner: str  # the owner's name ('' for a free box); "You" for this player
    mine: bool
    hands: tuple[HandVM, ...]
    #: the bets behind the box and whose they are ("Bob 10 · You 5")
    behind: str
    #: everything staked on the box before the deal (0 for none)
    staked: Fraction
    #: this player's own stake on the box (0 for none)
    my_stake: Fraction
    bet_range: tuple[Fraction, Fraction] | None  # this player may bet here now
    bet_behind: bool  # that bet would be a bet behind
    can_take: bool  # a free box this player may sit down at
    can_leave: bool  # his own box, no bet on it yet
    in_play: bool  # the hand in play is on this box
    #: the original bets behind the box, everybody's together (0 for none)
    behind_staked: Fraction = Fraction(0)


@dataclass(frozen=True)
class CasinoVM:
    """Everything on the casino table screen."""

    stage: str
    status: str  # the stage, the shuffle progress, the cards to the cut card
    chips_line: str  # every player's chips and the house's result
    my_chips: str
    dealer_cards: tuple[int, ...]
    dealer_total: str
    boxes: tuple[CasinoBoxVM, ...]
    actions: dict[str, bool] = field(default_factory=dict)
    prompt: PromptVM | None = None
    side_bet: tuple[Fraction, Fraction] | None = None
    side_bet_text: str = ""
    turn: str = ""
    seconds_left: int | None = None
    #: the table waits for this player's decision (his turn line is bold)
    my_turn: bool = False
    result: str = ""
    message: str = ""  # the newest notice, translated
    cheater: str = ""  # a player named by the audit
    over: bool = False
    can_start: bool = False
    #: this player may say his bets are in ("Deal": the deal comes once everybody did)
    can_deal: bool = False
    rules: str = ""
    #: the shoe's fingerprint and the newest audit's verdict (the table's fairness)
    fairness: str = ""
    #: the same in one short line, for a screen of 560 dp or less
    fairness_short: str = ""

    @property
    def hand_rows(self) -> int:
        """How many hand rows the table shows."""
        return sum(len(b.hands) for b in self.boxes)


def name_of(s: CasinoSnapshot, player: str | None) -> str:
    """A player's name as this phone shows it ("You" for its own player)."""
    if player is None:
        return ""
    if player == s.me:
        return _("You")
    return s.names.get(player, player)


#: the table's routine notices: nothing to tell the player (the screen shows it all)
QUIET_NOTICES = frozenset(
    {"table_started", "bets_open", "round_settled", "audit", "bot_refused", "table_resumed"}
)
#: why a player left that says his link dropped or went silent, not that he chose to
#: (Android's read error is the same for a closed phone and one out of range)
CONNECTION_LOST = frozenset({"lost", "silent"})
#: the table's notices that say the same as one of the screen's messages
SAME_AS = {"cheat_named": "cheater", "fault": "cheater", "left_table": "table_over"}


def notice_text(s: CasinoSnapshot, n: Notice) -> str:
    """A table notice, translated ('' for a routine one); a ``player`` parameter is
    shown by name."""
    params = dict(n.params)
    if "player" in params and "name" not in params:
        params["name"] = s.names.get(str(params["player"]), str(params["player"]))
    code = SAME_AS.get(n.code, n.code)
    if code in QUIET_NOTICES:
        return ""
    if code == "player_left" and params.get("reason") in CONNECTION_LOST:
        code = "player_connection_lost"  # his link dropped: he did not choose to leave
    if code in ("table_closed", "table_over"):  # why: the host left, lost, ...
        reason = str(params.get("reason", ""))
        code = reason if reason in MESSAGES else "table_over"
    elif code in ("intent_refused", "table_fault"):  # the table's reason
        if params.get("player") not in (None, s.me):
            return ""  # (the host refused another phone's intent: his screen says why)
        code = str(params.get("code", "")) or code
    if code in MESSAGES or code not in CASINO_NOTICES:
        return message_for(code, **params)
    text = _(CASINO_NOTICES[code])
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        return text.replace("{", "").replace("}", "")


def seconds_left(s: CasinoSnapshot, now: float) -> int | None:
    """Whole seconds to the snapshot's deadline (None: no timer runs)."""
    if s.deadline is None or s.stage in (CasinoStage.OVER, CasinoStage.LOBBY):
        return None
    return max(0, math.ceil(s.deadline - now - 1e-9))


def _percent(x: float) -> int:
    return round(100 * min(1.0, max(0.0, x)))


def progress_line(s: CasinoSnapshot) -> str:
    """What the table waits for while the shoe is prepared (the progress line, as
    Oczko's: set-up, shuffle or a card's keys, whose phone, step k of n); "" while it
    waits for nothing of the shoe."""
    if s.progress_note is None or s.stage is CasinoStage.OVER:
        return ""
    names = [name_of(s, p) for p in s.players]  # (in seat order: a seat is an index)
    return progress_text(s.progress_note, names, s.progress_step)


def status_line(s: CasinoSnapshot) -> str:
    """The stage, with the shuffle's progress and the cards left to the cut card; under
    it, what the table waits for (:func:`progress_line`)."""
    line = progress_line(s)
    return _status(s) + ("\n" + line if line else "")


def _status(s: CasinoSnapshot) -> str:
    text = _(STAGES[s.stage])
    if s.stage is CasinoStage.SHUFFLING:
        return _("{stage}: {percent} %").format(stage=text, percent=_percent(s.shuffle_progress))
    parts = [text]
    if s.cards_left is not None and s.stage is not CasinoStage.OVER:
        parts.append(_("{n} cards to the cut card").format(n=s.cards_left))
    if 0 < s.next_shoe_progress < 1 and s.stage is not CasinoStage.OVER:
        parts.append(
            _("next shoe {percent} % shuffled").format(percent=_percent(s.next_shoe_progress))
        )
    return " · ".join(parts)


def chips_line(s: CasinoSnapshot) -> str:
    """Every player's free chips in seat order, then the house's result."""
    parts = [f"{name_of(s, p)} {chips(s.chips[p])}" for p in s.players if p in s.chips]
    if s.house:
        sign = "+" if s.house > 0 else ""
        parts.append(_("House {amount}").format(amount=sign + chips(s.house)))
    return " · ".join(parts)


def _bet_ranges(
    s: CasinoSnapshot, r: Round, legal: tuple[BjLegal, ...]
) -> dict[int, tuple[Fraction, Fraction]]:
    """Where this player may bet: his own boxes, and behind a box whose owner (the
    table's) has bet; never on a free box (it is taken first) or a box another
    player took but has not bet on yet (the first bet would make him its owner)."""
    out = {}
    for a in legal:
        if a.kind.value != "bet" or a.box is None:
            continue
        if a.min_amount is None or a.max_amount is None:
            continue
        owner = s.boxes.get(a.box)
        whole = _whole_chips(a.min_amount, a.max_amount)
        if whole and (owner == s.me or (owner is not None and r.box_owner(a.box) == owner)):
            out[a.box] = whole
    return out


def _whole_chips(low: Fraction, high: Fraction) -> tuple[Fraction, Fraction] | None:
    """A bet range in whole chips, as a casino table takes bets (``STAKE_UNITS``): an
    all-in of 48.4 chips is offered as 48. None when no whole amount fits."""
    lo, hi = Fraction(math.ceil(low)), Fraction(math.floor(high))
    return (lo, hi) if lo <= hi else None


def _box(
    s: CasinoSnapshot,
    number: int,
    r: Round | None,
    bets: dict[int, tuple[Fraction, Fraction]],
    names: dict[str, str],
) -> CasinoBoxVM:
    owner = s.boxes.get(number)
    hands: tuple[HandVM, ...] = ()
    behind: list[str] = []
    staked = mine = behind_staked = Fraction(0)
    in_play = False
    if r is not None:
        seen = view_for(r, s.me)
        box_hands = [h for h in seen.hands if h.box == number]
        current = r.current
        hands = tuple(hand_vm(h, names, current) for h in box_hands if h.cards)
        in_play = current is not None and current.box == number
        for h in box_hands:
            for st in h.stakes:
                if st.original:
                    staked += st.amount
                if st.player == s.me:
                    mine += st.total
        if box_hands:
            for st in box_hands[0].stakes[1:]:
                behind.append(f"{name_of(s, st.player)} {chips(st.total)}")
                behind_staked += st.amount if st.original else 0
    between = s.stage in BETWEEN_ROUNDS and (r is None or r.phase.value in ("betting", "settled"))
    return CasinoBoxVM(
        number=number,
        owner=name_of(s, owner),
        mine=owner == s.me,
        hands=hands,
        behind=" · ".join(behind),
        staked=staked,
        my_stake=mine,
        bet_range=bets.get(number),
        bet_behind=owner is not None and owner != s.me,
        can_take=owner is None and between,
        can_leave=owner == s.me and between and not (r is not None and r.box_hands(number)),
        in_play=in_play,
        behind_staked=behind_staked,
    )


def turn_line(s: CasinoSnapshot, r: Round | None, left: int | None) -> str:
    """Whose turn it is, with the seconds left."""
    text = ""
    if s.stage is CasinoStage.LOBBY:
        text = _("Take a free box; the host starts the table.")
    elif s.stage is CasinoStage.BETTING and s.me in s.bets_in:
        text = _("Your bets are in: the cards come when every player is ready.")
    elif s.stage is CasinoStage.BETTING:
        text = _("Place your bets: choose a box, then a chip.")
    elif s.stage is CasinoStage.PLAYING and r is not None:
        current = r.current
        if s.my_turn and current is not None and current.owner == s.me:
            text = _("Your hand on box {box}: what do you do?").format(box=current.box)
        elif s.my_turn:
            text = _("Your decision, please.")
        elif s.turn is not None:
            text = _("{name} is playing…").format(name=name_of(s, s.turn))
    elif s.stage is CasinoStage.SETTLED:
        text = _("The next bets open soon.")
    if text and left is not None:
        text += " " + _("{seconds} s").format(seconds=left)
    return text


def present_casino(
    s: CasinoSnapshot, now: float, hosting: bool = False, fairness: Fairness | None = None
) -> CasinoVM:
    """The casino table screen for snapshot ``s`` at clock time ``now``; ``fairness``:
    the shoe's fingerprint and audit (:class:`app.views.table.fairness.Fairness`)."""
    r = s.round
    names = {p: name_of(s, p) for p in (*s.players, *s.names)}
    names[s.me] = _("You")
    legal: tuple[BjLegal, ...] = r.legal_actions(s.me) if r is not None else ()
    over = s.stage is CasinoStage.OVER
    if over:
        legal = ()
    kinds = set(kinds_of(legal))
    bets = _bet_ranges(s, r, legal) if r is not None else {}
    boxes = tuple(_box(s, n, r, bets, names) for n in range(1, s.rules.boxes + 1))
    dealer: tuple[int, ...] = ()
    dealer_total = ""
    if r is not None and r.dealer:
        dealer, dealer_total = dealer_of(r, s.me)
    side = next(
        (
            _whole_chips(a.min_amount, a.max_amount)
            for a in legal
            if a.kind.value == "side_bet" and a.min_amount is not None and a.max_amount is not None
        ),
        None,
    )
    open_side = [b for b in (r.side_bets if r is not None else ()) if b.player == s.me]
    side_text = ""
    if open_side and not over and not (r is not None and r.settled):
        side_text = _("Your bet on the dealer busting: {amount} (pays 5:2)").format(
            amount=chips(sum((b.amount for b in open_side), Fraction(0)))
        )
    left = seconds_left(s, now)
    message = notice_text(s, s.notices[-1]) if s.notices else ""
    cheater = ""
    if s.cheater is not None:
        cheater = notice_text(s, Notice("cheater", {"player": s.cheater}))
    result = ""
    if r is not None and s.stage is CasinoStage.SETTLED and s.me in r.players():
        result = round_result(r, s.me)  # (a player who sat the round out has none)
    if over:
        mine = chips(s.chips.get(s.me, Fraction(0)))
        result = _("Your chips: {amount}").format(amount=mine)
    return CasinoVM(
        stage=s.stage.value,
        status=status_line(s),
        chips_line=chips_line(s),
        my_chips=_("Chips: {amount}").format(amount=chips(s.chips.get(s.me, Fraction(0)))),
        dealer_cards=dealer,
        dealer_total=dealer_total,
        boxes=boxes,
        actions={k: k in kinds for k in PLAY_ACTIONS},
        prompt=prompt_for(legal),
        side_bet=side,
        side_bet_text=side_text,
        turn=turn_line(s, r, left),
        seconds_left=left,
        my_turn=s.my_turn and not over,
        result=result,
        message=message,
        cheater=cheater,
        over=over,
        can_start=hosting and s.stage is CasinoStage.LOBBY and bool(s.boxes),
        can_deal=s.stage is CasinoStage.BETTING
        and r is not None
        and r.phase.value == "betting"
        and s.me not in s.bets_in,
        rules=rules_summary(s.rules),
        fairness=fairness_lines(fairness or Fairness()),
        fairness_short=fairness_short(fairness or Fairness()),
    )


def action_for(
    s: CasinoSnapshot, kind: str, box: int | None = None, amount: Any = None
) -> Action | None:
    """This player's legal action ``kind`` (on ``box``, with ``amount``) as the round
    accepts it, or None when it is not legal now (the button was stale)."""
    if s.round is None or s.stage is CasinoStage.OVER:
        return None
    for a in s.round.legal_actions(s.me):
        if a.kind.value == kind and (box is None or a.box == box):
            action: Action = a.action(amount)
            return action
    return None


def lobby_players(s: CasinoSnapshot) -> tuple[str, ...]:
    """The casino lobby's players as the Oczko lobby lists them (name and readiness):
    a player is ready once he has a box, which the line names.

    >>> from app.rules.table_rules import TableRules
    >>> snap = CasinoSnapshot(me="p0", rules=TableRules(), players=("p0", "p1"),
    ...     names={"p0": "Ann", "p1": "Bob"}, chips={}, boxes={3: "p1", 1: "p1"})
    >>> lobby_players(snap)
    ('Ann  ·  not ready yet', 'Bob  ·  Box 1, Box 3  ·  ready')
    """
    lines = []
    for pid in s.players:
        boxes = sorted(b for b, owner in s.boxes.items() if owner == pid)
        detail = ", ".join(_("Box {n}").format(n=b) for b in boxes)
        lines.append(player_line(s.names.get(pid, pid), bool(boxes), detail))
    return tuple(lines)
