"""Practice Oczko against bots on this phone: no network, no SRA, a local shuffled deck.

The rules are the engine's (:mod:`app.rules.oczko`); this module only plays the table's
part for a local game: it shuffles a fresh 52-card deck each round (``secrets`` by
default; tests pass a seeded ``random.Random``), deals, runs the turn timer (the
engine has no clock: when time runs out it sends ``timeout``) and moves the bots.
Time comes in through ``now`` arguments, so the whole match is replayable.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.cards import DECK, Card
from app.rules.oczko.actions import Action, ActionKind

if TYPE_CHECKING:
    from app.rules.oczko.events import Event
    from app.rules.oczko.views import MatchView

#: A bot draws while its chance to bust on the next card is below this.
BOT_RISK = 0.4


def bot_wants_card(hand: Sequence[Card], risk: float = BOT_RISK) -> bool:
    """The bots' simple strategy: draw while the chance that the next card busts them
    (app.strategy.oczko, over the cards a bot has not seen: all but its own) is below
    ``risk``.

    >>> from app.cards import parse_cards
    >>> bot_wants_card(parse_cards("Js Qs")), bot_wants_card(parse_cards("Ts 9h"))
    (True, False)
    """
    from app.strategy.oczko import bust_probability

    return bust_probability(hand) < risk


@dataclass
class Timer:
    """The running turn timer: whose turn, and until when."""

    seat: int | None = None
    started: float = 0.0
    deadline: float = 0.0


class PracticeMatch:
    """A local match: seat ``me`` is the player, the other seats are bots."""

    def __init__(
        self,
        names: Sequence[str],
        rounds: int = 5,
        turn_time: float = 30.0,
        me: int = 0,
        rng: random.Random | None = None,
        bot_delay: float = 0.9,
        now: float = 0.0,
    ) -> None:
        from app.rules.oczko import Match, OczkoOptions

        self.names = tuple(names)
        self.me = me
        self.turn_time = float(turn_time)
        self.bot_delay = bot_delay
        self.rng = rng or secrets.SystemRandom()
        self.match, events = Match.new(len(self.names), OczkoOptions(rounds=rounds))
        self.events: list[Event] = list(events)
        self.deck: list[Card] = []
        self.timer = Timer()
        #: the finished round whose result is on screen until the player goes on
        self.awaiting_next = False
        self._deal(now)

    # -- the table's part --------------------------------------------------------------
    def _deal(self, now: float) -> None:
        self.deck = list(DECK)
        self.rng.shuffle(self.deck)
        while self.match.to_deal is not None:
            self._act(ActionKind.DEAL, None, self.deck.pop())
        self._after(now)

    def _act(
        self, kind: ActionKind, seat: int | None = None, card: Card | None = None
    ) -> None:
        """Advance the match by one action, through the engine contract."""
        cards = (card,) if kind in (ActionKind.DEAL, ActionKind.DRAW) else ()
        self.match, events = self.match.apply(Action(kind, seat, cards))
        self.events.extend(events)
        from app.history.live import RECORDER

        RECORDER.oczko_practice(self, events)  # a finished round goes to the history
        if any(e.kind == "round_ended" for e in events):
            self.awaiting_next = True  # show the result until the player goes on

    def _after(self, now: float) -> None:
        seat = self.match.to_act
        if seat != self.timer.seat or seat is None:
            delay = self.turn_time if seat == self.me else self.bot_delay
            self.timer = Timer(seat, now, now + delay)

    # -- queries -----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.match.over

    def view(self) -> MatchView:
        """The player's view of the match (the engine's MatchView)."""
        from app.rules.oczko.views import view

        return view(self.match, self.me)

    def seat_time_left(self, now: float) -> tuple[int | None, float]:
        """Whose turn it is and his seconds left (the others' clocks on the table)."""
        if self.awaiting_next or self.match.over:
            return None, 0.0
        return self.timer.seat, max(0.0, self.timer.deadline - now)

    def time_left(self, now: float) -> float:
        """Seconds left for the player to act (0 when it is not his turn)."""
        if self.timer.seat != self.me or self.awaiting_next:
            return 0.0
        return max(0.0, self.timer.deadline - now)

    # -- the player's intents ----------------------------------------------------------
    def draw(self, now: float) -> None:
        """The player draws (IllegalAction if it is not his turn); the turn timer starts
        again for his next decision, as the networked table's does."""
        self._act(ActionKind.DRAW, self.me, self._card())
        if self.match.to_act == self.me:
            self.timer = Timer(self.me, now, now + self.turn_time)
        self._after(now)

    def hold(self, now: float) -> None:
        """The player holds."""
        self._act(ActionKind.HOLD, self.me)
        self._after(now)

    def next_round(self, now: float) -> None:
        """Leave the round result and deal the next round."""
        self.awaiting_next = False
        if not self.match.over and self.match.to_deal is not None:
            self._deal(now)

    def leave(self) -> None:
        """The player leaves: he counts as disconnected (the bots win)."""
        if not self.match.over:
            self._act(ActionKind.DISCONNECT, self.me)

    def _card(self) -> Card:
        return self.deck.pop()

    # -- time --------------------------------------------------------------------------
    def tick(self, now: float) -> bool:
        """Advance bots and the timer to ``now``; True if anything changed."""
        if self.match.over or self.awaiting_next:
            return False
        seat = self.match.to_act
        if seat is None or now < self.timer.deadline:
            return False
        if seat == self.me:
            self._act(ActionKind.TIMEOUT, self.me)
        elif self.match.round is not None:
            # a bot sees only its own cards (all known: the deal is local)
            hand = [c for c in self.match.round.hand(seat).cards if c is not None]
            if bot_wants_card(hand):
                self._act(ActionKind.DRAW, seat, self._card())
                self.timer = Timer(seat, now, now + self.bot_delay)  # think again
            else:
                self._act(ActionKind.HOLD, seat)
        self._after(now)
        return True
