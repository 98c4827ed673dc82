"""A blackjack session on this phone: the player, optional bots, the casino engine.

The rules and the money are the engine's (:mod:`app.rules.blackjack`,
:mod:`app.rules.session`); this module seats the players, lets the bots make their
decisions and hands the player's intents to the engine. The deck is shuffled by the
session's shoe from the random source passed in (``secrets`` by default), which
supplies the cards the round asks for (:class:`app.rules.blackjack.deal.ShoeRound`).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.rules.blackjack import Round
    from app.rules.blackjack.deal import ShoeRound
    from app.rules.blackjack.legal import BjLegal
    from app.rules.blackjack.state import Hand
    from app.rules.session import Session
    from app.rules.table_rules import TableRules

#: Boxes the bots sit at (the player may bet behind them when the table allows it).
BOT_BOXES = (4, 6, 2, 7, 1, 3, 5)


def saved_rules(prefs: Any) -> tuple[TableRules, str | None]:
    """The table rules saved in the preferences (classic if none); a warning if unusable."""
    from app.i18n.codes import error_message
    from app.rules.table_rules import PRESETS, RulesError, TableRules

    base = PRESETS.get(prefs.bj_preset, PRESETS["classic"])
    if not prefs.table_rules:
        return base, None
    try:
        return TableRules.from_json(prefs.table_rules), None
    except RulesError as exc:
        return PRESETS["classic"], error_message(exc)


def bot_choice(legal: Sequence[BjLegal], hand: Hand, up_total: int) -> BjLegal:
    """A bot's decision from the engine's legal actions: a simplified basic strategy
    (double 10-11 against a weak dealer card, hit below 12, hit 12-16 against 7 or more,
    never insurance, never follow a double)."""
    kinds = {a.kind.value: a for a in legal}
    for no in ("decline_insurance", "decline_double"):
        if no in kinds:
            return kinds[no]
    total, soft = hand.total, hand.soft
    if "double" in kinds and not soft and total in (10, 11) and up_total < 10:
        return kinds["double"]
    if "hit" in kinds and (total < 12 or (total < 17 and up_total >= 7) or (soft and total < 18)):
        return kinds["hit"]
    return kinds.get("stand") or legal[0]


class BlackjackGame:
    """The player ``me`` (and ``bots``) at a table with ``rules`` for one session."""

    def __init__(
        self,
        rules: TableRules,
        me: str,
        bots: Sequence[str] = (),
        rng: Any = None,
        shoe: Any = None,
    ) -> None:
        from app.rules.session import Session

        self.rules = rules
        self.me = me
        self.bots = tuple(bots)
        self.session: Session = Session.start(
            rules, [me, *self.bots], rng or secrets.SystemRandom(), shoe=shoe
        )
        #: the round in play and the shoe it is dealt from
        self.dealt: ShoeRound | None = None
        #: the player's bets in this round and in the last one, as ("bet", box, amount)
        #: or ("side_bet", 0, amount): what "Rebet" places again
        self.bets: list[tuple[str, int, Any]] = []
        self.last_bets: list[tuple[str, int, Any]] = []
        self.new_round()

    # -- queries -----------------------------------------------------------------------
    @property
    def round(self) -> Round | None:
        """The round in play (None between rounds)."""
        return None if self.dealt is None else self.dealt.round

    @property
    def over(self) -> bool:
        """The session is over (all rounds played or nobody can bet)."""
        return self.session.over and (self.round is None or self.round.settled)

    def legal(self, player: str | None = None) -> tuple[BjLegal, ...]:
        """The engine's legal actions of ``player`` (default: the player)."""
        if self.round is None:
            return ()
        return self.round.legal_actions(self.me if player is None else player)

    def find(self, kind: str, box: int | None = None) -> BjLegal | None:
        """The player's legal action ``kind`` (on ``box``), or None."""
        for a in self.legal():
            if a.kind.value == kind and (box is None or a.box == box):
                return a
        return None

    def balance(self) -> Any:
        """The player's chips now (his stakes in this round not yet counted back)."""
        return (
            self.round.available(self.me)
            if self.round is not None
            else (self.session.balances[self.me])
        )

    # -- the player's intents (IllegalAction propagates: the view shows it) ------------
    def _apply(self, action: Any) -> None:
        assert self.dealt is not None  # a round is always open while the player acts
        self.dealt, _ = self.dealt.apply(action)
        self._run_bots()
        from app.history.live import RECORDER

        RECORDER.blackjack(self)  # reviews the decision; a settled round goes to the history

    def bet(self, box: int, amount: Any) -> None:
        """Bet on ``box`` (as owner, or behind when it has an owner)."""
        from app.rules.blackjack import Action

        self._apply(Action.bet(self.me, box, amount))
        self.bets.append(("bet", box, amount))

    def side_bet(self, amount: Any) -> None:
        """The dealer-busts side bet."""
        from app.rules.blackjack import Action

        self._apply(Action.side_bet(self.me, amount))
        self.bets.append(("side_bet", 0, amount))

    @property
    def betting(self) -> bool:
        return self.round is not None and self.round.phase.value == "betting"

    @property
    def can_rebet(self) -> bool:
        """The last round's bets can be placed again (none placed yet this round)."""
        return self.betting and not self.bets and bool(self.last_bets)

    @property
    def can_clear(self) -> bool:
        return self.betting and bool(self.bets)

    def rebet(self) -> None:
        """Place the last round's bets again (IllegalAction if one no longer fits: the
        bets placed before it stay)."""
        for kind, box, amount in list(self.last_bets):
            if kind == "bet":
                self.bet(box, amount)
            else:
                self.side_bet(amount)

    def clear_bets(self) -> None:
        """Take the player's bets of this round back: the betting starts again (no card
        has been dealt, the bots bet as before)."""
        if self.betting:
            self.dealt = None
            self.bets = []
            self.new_round()

    def deal(self) -> None:
        """Close the bets and deal."""
        from app.rules.blackjack import Action

        self._apply(Action.deal())

    def insure(self, box: int, amount: Any) -> None:
        """Insure the stake on ``box``."""
        from app.rules.blackjack import Action

        self._apply(Action.insure(self.me, box, amount))

    def decide(self, kind: str, box: int | None = None) -> None:
        """Any of the player's legal actions without an amount (hit, stand, double, split,
        surrender, even_money, decline_insurance, follow_double, decline_double)."""
        from app.rules.errors import IllegalAction

        legal = self.find(kind, box)
        if legal is None:
            raise IllegalAction(f"cannot_{kind}", f"{kind} is not possible now")
        self._apply(legal.action())

    def next_round(self) -> None:
        """Book the settled round; start the next unless the session is over."""
        if self.dealt is not None and self.dealt.settled:
            self.session = self.session.record(self.dealt)
            self.dealt = None
            if self.bets:
                self.last_bets, self.bets = self.bets, []
        if not self.session.over:
            self.new_round()

    def new_round(self) -> None:
        """A round in its betting phase; the bots place their bets."""
        r = self.session.new_round()
        for bot, box in zip(self.bots, BOT_BOXES, strict=False):
            if box > self.rules.boxes:
                continue
            legal = [a for a in r.legal_actions(bot) if a.kind.value == "bet" and a.box == box]
            if legal:
                r, _ = r.apply(legal[0].action(legal[0].min_amount))
        self.dealt = r

    def _run_bots(self) -> None:
        from app.rules.blackjack.view import view_for

        t = self.dealt
        assert t is not None
        while not t.over and t.round.phase.value != "betting":
            r = t.round
            moves = [a for a in r.legal_actions() if a.player in self.bots]
            if not moves:
                break
            bot = moves[0].player
            legal = [a for a in moves if a.player == bot]
            box = legal[0].box
            hand = r.current if r.current is not None or box is None else r.box_hands(box)[0]
            assert hand is not None
            # a bot sees the table as a player does: the dealer's total of the shown cards
            up = view_for(r, bot).dealer_total
            t, _ = t.apply(bot_choice(legal, hand, up).action())
        self.dealt = t
