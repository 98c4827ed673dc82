"""A casino table played on this phone: the table's part for the screenshots and tests.

:class:`LocalCasinoTable` implements :class:`app.table.casino.snapshot.CasinoTable`
over a real multi-player :class:`app.rules.blackjack.Round` dealt from a shoe on
this phone (:class:`app.rules.blackjack.deal.ShoeRound`): bots own boxes, bet on
them, bet behind the player's boxes and take the dealer-busts bet, and decide with
:func:`app.views.blackjack.game.bot_choice`; the player's intents are checked by the real
engine (an illegal one raises and changes nothing) and logged in ``intents``. What a
networked table does by its timers and its peers (closing the bets, a decision timing
out, the next round, a cheater named, the host leaving, the shoe's shuffle) are
methods the caller runs: ``blu21 screenshot`` reaches the casino screens' states with
them, as it supplies the deck and the clock of the other demos
(app/views/demos.py). ``on_change`` is called after every change.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from app.rules.blackjack import Action, Round
from app.rules.blackjack.deal import ShoeRound
from app.rules.blackjack.view import view_for
from app.rules.errors import IllegalAction
from app.rules.shoe import Shoe
from app.rules.table_rules import TableRules
from app.table.casino.snapshot import CasinoSnapshot, CasinoStage, Notice
from app.table.clock import FakeClock
from app.table.errors import TableError
from app.views.blackjack.game import bot_choice

#: seconds for the bets and for each decision
TURN = 20.0


class LocalCasinoTable:
    """``me`` and the bots ``names`` (id -> name, ``me`` included) at ``rules``;
    ``boxes``: the bots' boxes (box -> id). ``prefix``: the first cards of the shoe
    (pairs for splits), the rest shuffled by ``seed``."""

    def __init__(
        self,
        me: str,
        names: Mapping[str, str],
        rules: TableRules,
        boxes: Mapping[int, str],
        *,
        prefix: str = "",
        seed: int = 1,
        clock: FakeClock | None = None,
        on_change: Callable[[], None] | None = None,
        behind: bool = True,
        side_bets: bool = True,
    ) -> None:
        self.me = me
        self.names = dict(names)
        self.rules = rules
        self.players = tuple(names)
        self.boxes: dict[int, str] = dict(boxes)
        self.chips = {p: Fraction(rules.starting_chips) for p in self.players}
        self.clock = clock or FakeClock()
        self.on_change = on_change
        self.behind, self.side_bets = behind, side_bets
        self.shoe = Shoe.stacked(prefix, rules.decks, Fraction(3, 4), random.Random(seed))
        self.stage = CasinoStage.LOBBY
        #: the round in play and the shoe it is dealt from
        self.dealt: ShoeRound | None = None
        self.deadline: float | None = None
        self.turn: str | None = None
        self.notices: list[Notice] = []
        self.cheater: str | None = None
        self.house = Fraction(0)
        self.shuffle = 1.0
        self.next_shoe = 0.0
        #: what the screen sent, in order: ("take_box", n), ("act", Action), ...
        self.intents: list[tuple[str, Any]] = []
        #: the bots decide only when :meth:`bot_moves` says so (tests, demos)
        self.slow_bots = False
        self._lock = threading.Lock()

    @property
    def round(self) -> Round | None:
        """The round in play (None before the first and after the table ends)."""
        return None if self.dealt is None else self.dealt.round

    # -- the CasinoTable interface ---------------------------------------------------------
    def snapshot(self) -> CasinoSnapshot:
        with self._lock:
            return CasinoSnapshot(
                me=self.me,
                rules=self.rules,
                players=self.players,
                names=dict(self.names),
                chips=dict(self.chips),
                boxes=dict(self.boxes),
                round=self.round,
                stage=self.stage,
                turn=self.turn,
                deadline=self.deadline,
                shuffle_progress=self.shuffle,
                next_shoe_progress=self.next_shoe,
                cards_left=None if self.round is None else self.shoe_left(),
                house=self.house,
                notices=tuple(self.notices),
                cheater=self.cheater,
            )

    def shoe_left(self) -> int:
        shoe = self.dealt.shoe if self.dealt is not None else self.shoe
        return max(0, shoe.cut - shoe.position)

    def take_box(self, box: int) -> None:
        if self.stage not in (CasinoStage.LOBBY, CasinoStage.BETTING, CasinoStage.SETTLED):
            raise TableError("game_running", "boxes are taken between rounds")
        if not 1 <= box <= self.rules.boxes or box in self.boxes:
            raise IllegalAction("box_taken", f"box {box} is not free", box=box)
        self.intents.append(("take_box", box))
        self.boxes[box] = self.me
        self._changed()

    def leave_box(self, box: int) -> None:
        if self.boxes.get(box) != self.me:
            raise IllegalAction("bad_box", f"box {box} is not yours", box=box)
        self.intents.append(("leave_box", box))
        del self.boxes[box]
        self._changed()

    def act(self, action: Action) -> None:
        if self.dealt is None or self.stage is CasinoStage.OVER:
            raise IllegalAction("wrong_phase", "no round is open")
        if action.player != self.me:
            raise IllegalAction("unknown_player", "a phone acts for its own player only")
        self.dealt, _events = self.dealt.apply(action)  # raises: nothing recorded
        self.intents.append(("act", action))
        if action.kind.value == "bet" and self.behind:
            self._bots_behind(action.box)
        self._run_bots()
        self._changed()

    def bets_done(self) -> None:
        """The bots are always done: the player's word deals at once."""
        if self.stage is not CasinoStage.BETTING:
            raise IllegalAction("wrong_phase", "betting is over")
        self.intents.append(("bets_done", None))
        self.close_bets()

    def start(self) -> None:
        self.intents.append(("start", None))
        self._new_round()
        self._changed()

    def leave(self) -> None:
        self.intents.append(("leave", None))
        self.stage = CasinoStage.OVER
        self._changed()

    # -- the table's part (what a networked table reports; demos and tests) ---------------
    def close_bets(self) -> None:
        """The bet time ran out: deal (boxes without a bet sit out)."""
        assert self.dealt is not None
        self.dealt = self.dealt.act("deal")
        self.stage = CasinoStage.PLAYING
        self._run_bots()
        self._changed()

    def time_out(self) -> None:
        """The player's decision time ran out: his hand stands."""
        assert self.dealt is not None
        legal = [a for a in self.dealt.legal_actions(self.me)]
        stand = next((a for a in legal if a.kind.value in ("stand", "decline_insurance")), None)
        stand = stand or next((a for a in legal if a.kind.value == "decline_double"), None)
        if stand is not None:
            self.dealt = self.dealt.apply(stand.action())[0]
            self.notices.append(Notice("decision_timeout", {"player": self.me}))
        self._run_bots()
        self._changed()

    def next_round(self) -> None:
        """Book the settled round and open the next bets."""
        assert self.dealt is not None and self.dealt.settled
        for p, net in self.dealt.round.results().items():
            self.chips[p] += net
        self.house += self.dealt.round.house_result()
        self.shoe = self.dealt.shoe
        self._new_round()
        self._changed()

    def host_leaves(self) -> None:
        """The host leaves: the table ends with each player's chips as they were (a
        settled round booked)."""
        if self.dealt is not None and self.dealt.settled:
            for p, net in self.dealt.round.results().items():
                self.chips[p] += net
            self.dealt = None
        self.stage = CasinoStage.OVER
        self.turn = self.deadline = None
        self.notices.append(Notice("host_left"))
        self._changed()

    def name_cheater(self, player: str) -> None:
        self.cheater = player
        self.notices.append(Notice("player_cheated", {"player": player}))
        self._changed()

    def shuffling(self, progress: float) -> None:
        self.stage, self.shuffle = CasinoStage.SHUFFLING, progress
        self._changed()

    # -- the bots ------------------------------------------------------------------------------
    def _new_round(self) -> None:
        r = ShoeRound.new(self.rules, self.shoe, self.chips)
        self.stage = CasinoStage.BETTING
        self.next_shoe = 0.5
        for box, owner in sorted(self.boxes.items()):
            if owner != self.me:
                r = r.act("bet", owner, box, self.rules.min_bet)
        if self.side_bets and self.rules.dealer_busts_bet:
            bot = next((p for b, p in sorted(self.boxes.items()) if p != self.me), None)
            if bot is not None:
                r = r.act("side_bet", bot, None, self.rules.min_bet)
        self.dealt = r

    def _bots_behind(self, box: int | None) -> None:
        """A bot bets behind the player's box (the first bot with room)."""
        assert self.dealt is not None
        if box is None or not self.rules.betting_behind or self.boxes.get(box) != self.me:
            return
        for bot in self.players:
            if bot == self.me:
                continue
            legal = [
                a for a in self.dealt.legal_actions(bot) if a.kind.value == "bet" and a.box == box
            ]
            if legal:
                self.dealt = self.dealt.apply(legal[0].action(legal[0].min_amount))[0]
                return

    def bot_moves(self, moves: int = 1) -> None:
        """The bots make their next ``moves`` decisions (with ``slow_bots``: a table
        where the others take their time, so a bot's box is seen in play)."""
        self._run_bots(moves)
        self._changed()

    def _run_bots(self, moves: int | None = None) -> None:
        t = self.dealt
        assert t is not None
        if moves is None and self.slow_bots:
            moves = 0
        while t.round.phase.value not in ("betting", "settled") and moves != 0:
            r = t.round
            waiting = r.waiting_for()
            bots = [p for p in waiting if p != self.me]
            if not bots:
                break
            moves = None if moves is None else moves - 1
            legal = r.legal_actions(bots[0])
            hand = r.current if r.current is not None else r.box_hands(legal[0].box or 1)[0]
            up_total = view_for(r, bots[0]).dealer_total  # what a bot sees of the dealer
            t = t.apply(bot_choice(legal, hand, up_total).action())[0]
        self.dealt = t
        r = t.round
        waiting = r.waiting_for() if r.phase.value != "betting" else ()
        self.turn = waiting[0] if waiting else None
        if r.settled:
            self.stage = CasinoStage.SETTLED
        self.deadline = self.clock.now() + TURN

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
