"""What a phone at a networked casino table shows: one immutable snapshot.

The casino table (``app/table/casino_*``) keeps each phone's copy of the table (its
blackjack engine, the chips, the boxes, the timers) and hands the screen a
:class:`CasinoSnapshot` after every change; the screen renders it and sends intents
back through the table (``act(Action)``, ``take_box(box)``, ``leave_box(box)``).
All cards at a casino table are public, so the snapshot hides nothing but the order
of the shoe, which no phone knows.

>>> from app.rules.table_rules import TableRules
>>> s = CasinoSnapshot(me="ann", rules=TableRules(), players=("ann", "bob"),
...                    names={"ann": "Ann", "bob": "Bob"}, chips={"ann": Fraction(1000)})
>>> s.stage, s.my_boxes
(<CasinoStage.LOBBY: 'lobby'>, ())
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from app.rules.blackjack import Round
from app.rules.blackjack.actions import Action
from app.rules.money import Money
from app.rules.table_rules import TableRules
from app.table.notice import Notice as Notice  # (re-exported: one class for both games)
from app.table.phone_copy import Fairness


class CasinoStage(enum.StrEnum):
    """Where the table is (values are stable codes the screens translate)."""

    LOBBY = "lobby"  # waiting for players; boxes may be taken
    SHUFFLING = "shuffling"  # the first shoe is being shuffled across the phones
    BETTING = "betting"  # bets are open until the deadline
    PLAYING = "playing"  # the round is dealt and played
    SETTLED = "settled"  # the round is settled; the next betting opens soon
    OVER = "over"  # the table has ended (the host left, or too few players)


@dataclass(frozen=True)
class CasinoSnapshot:
    """One phone's view of the casino table at one moment."""

    me: str  # this phone's player id
    rules: TableRules
    players: tuple[str, ...]  # player ids at the table, in seat order
    names: Mapping[str, str]  # player id -> display name
    chips: Mapping[str, Money]  # each player's free chips (bets in play excluded)
    boxes: Mapping[int, str] = field(default_factory=dict)  # taken box -> owner id
    round: Round | None = None  # this phone's engine copy of the round in play
    stage: CasinoStage = CasinoStage.LOBBY
    turn: str | None = None  # whose decision it is (None: nobody's, or the dealer's)
    deadline: float | None = None  # clock time when the bet or decision time runs out
    shuffle_progress: float = 1.0  # 0..1 of the shoe being shuffled for play
    next_shoe_progress: float = 0.0  # 0..1 of the next shoe shuffled in the background
    #: the progress line (app.table.progress, as Oczko's): what the table waits for
    #: (``setup``, ``shoe``, ``card``) and the seats whose part this phone lacks ...
    progress_note: tuple[str, tuple[int, ...]] | None = None
    #: ... and the first of them: phone k of the n in the shoe's chain (None: unknown)
    progress_step: tuple[int, int] | None = None
    cards_left: int | None = None  # cards before the cut card (None: no shoe yet)
    house: Money = Fraction(0)  # the house's result since the table opened
    notices: tuple[Notice, ...] = ()  # newest last
    cheater: str | None = None  # a player named by the audit (None: nobody)
    #: players who said their bets are in (the deal comes once every player did)
    bets_in: frozenset[str] = frozenset()
    #: the fairness record, as Oczko's screen shows it: the shoe dealer's set-up
    #: fingerprint and each finished shoe's audit verdict (None before the table began)
    fairness: Fairness | None = None

    @property
    def my_boxes(self) -> tuple[int, ...]:
        """The boxes this phone's player owns, in order."""
        return tuple(sorted(b for b, owner in self.boxes.items() if owner == self.me))

    @property
    def my_turn(self) -> bool:
        """True when the table waits for this phone's player."""
        return self.turn == self.me


class CasinoTable(Protocol):
    """What a screen holds of a running casino table (the host's or a guest's).

    ``TableService.host_casino(...)`` / ``join_casino(address, ...)`` return one; the
    table calls the ``on_change`` callback given there (from its worker thread) after
    every change, and the screen reads :meth:`snapshot`. Every intent is checked by the
    phone's own engine copy first: an illegal one raises
    :class:`~app.rules.errors.IllegalAction` (or ``TableError``) and sends nothing.
    """

    def snapshot(self) -> CasinoSnapshot:
        """The table as this phone sees it now."""
        ...

    def take_box(self, box: int) -> None:
        """Sit down at a free box (between rounds)."""
        ...

    def leave_box(self, box: int) -> None:
        """Give up an own box (between rounds)."""
        ...

    def act(self, action: Action) -> None:
        """A bet (own box or behind another), a side bet or a decision of this player."""
        ...

    def bets_done(self) -> None:
        """This player's bets are in: the deal comes once every player said so (or
        when the bet time runs out)."""
        ...

    def start(self) -> None:
        """Host only: close the lobby and start the first shoe."""
        ...

    def leave(self) -> None:
        """Leave the table (the host's leaving ends it for everybody)."""
        ...
