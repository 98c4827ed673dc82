"""The values the host's sequencer works on: its book, what it sees, what it hears, what
it asks for (no I/O; see :mod:`app.table.oczko.sequencer` and :mod:`app.table.oczko.host`).

* :class:`HostBook`: everything the host keeps track of between two events (frozen; the
  sequencer returns a new one).
* :class:`Facts`: what the host's own phone knows at the moment of an event (its copy of
  the match, what its dealer waits for), observed by the I/O shell before every step.
* the events (:data:`HostEvent`) and the effects (:data:`Effect`) of one step: the ones
  both games share come from :mod:`app.table.book`; this module adds Oczko's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.rules.oczko.match import Match
from app.table.book import Announce as Announce
from app.table.book import Back as Back
from app.table.book import CancelTimer as CancelTimer
from app.table.book import Close as Close
from app.table.book import Drive as Drive
from app.table.book import Drop as Drop
from app.table.book import Expired as Expired
from app.table.book import Gone as Gone
from app.table.book import Say as Say
from app.table.book import SetTimer as SetTimer
from app.table.book import Stage as Stage
from app.table.book import Started as Started
from app.table.messages import Message
from app.table.oczko.phone import PublicEvent

#: (round, seat) pairs: who reported what in which round
RoundSeats = frozenset[tuple[int, int]]


def seats_in(pairs: RoundSeats, number: int) -> frozenset[int]:
    """The seats paired with round ``number``.

    >>> sorted(seats_in(frozenset({(1, 2), (1, 3), (2, 1)}), 1))
    [2, 3]
    """
    return frozenset(seat for n, seat in pairs if n == number)


@dataclass(frozen=True)
class HostBook:
    """The host's bookkeeping between events."""

    stage: Stage = Stage.LOBBY
    set_up: frozenset[int] = frozenset()  # guests whose dealer said it is set up
    deck: int = 0  # the deck in play (the newest announced but a deck shuffled ahead)
    ahead: int = 0  # the deck shuffled in the background for the next round (0: none)
    ahead_seats: frozenset[int] = frozenset()  # ... among these players
    newest: int = 0  # the newest deck announced (in play, ahead, or dropped)
    went: frozenset[int] = frozenset()  # rounds whose first deck was started
    dealt: RoundSeats = frozenset()  # phones that opened their deal
    persian: RoundSeats = frozenset()  # ... and reported a Persian 21
    auto21: RoundSeats = frozenset()  # phones dealt 21 (held by themselves)
    closed_deal: frozenset[int] = frozenset()  # rounds whose deal went into the engines
    #: (round, seat, cards): the decision the turn timer runs for
    turn_key: tuple[int, int, int] | None = None
    drawing: int | None = None  # seat whose drawn card the host waits to hear about
    drawing_deck: int = 0  # the deck that card comes from
    deck_due: bool = False  # a fresh deck, once the card on its way is in
    #: (stage, round, blockers) the stall timer runs for
    stall_key: tuple[str, int | None, frozenset[int]] | None = None
    returning: frozenset[int] = frozenset()  # seats back on a new link, for the next round
    paused: frozenset[int] = frozenset()  # rounds whose pause before the deal has begun
    pausing: int | None = None  # the round whose deal waits for the pause to end
    #: players who have read the last round's result during the pause (``NextRound``)
    read: frozenset[int] = frozenset()

    @property
    def fresh_deck(self) -> int:
        """The number of the next deck to announce (after every deck so far)."""
        return max(self.deck, self.ahead, self.newest) + 1


@dataclass(frozen=True)
class Facts:
    """What the host's phone knows when an event comes in (observed, never changed by
    the sequencer)."""

    match: Match
    guests: frozenset[int]  # guests' seats still connected
    linked: frozenset[int] = frozenset()  # seats with a live link (a returning player's)
    closed: bool = False
    dealer_ready: bool = False
    fingerprint: str = ""
    waiting: bool = False  # a public event waits for cards on the host's phone
    redraw: int | None = None  # a seat whose voided draw is to be dealt again
    cut_off: bool = False  # the card on its way lacks a leaver's part
    violation: tuple[int | None, str] | None = None  # (seat, code) the host's phone caught
    #: the deck in play has every dealt card openable, no card on its way and the
    #: cards of the next draws locked (the next round's deck must not hold them up)
    deck_ready: bool = False
    #: deck -> the seats its dealer waits for (the set-up is deck 0)
    waiting_for: Mapping[int, frozenset[int]] = field(default_factory=dict)
    #: decks of the round in play somebody complained about, or whose audit runs
    disputed: tuple[int, ...] = ()
    complained: bool = False  # somebody complained about a deck of the round in play
    #: disputed deck -> the cheaters its verdict names (absent: no verdict yet)
    verdicts: Mapping[int, frozenset[int]] = field(default_factory=dict)
    unproven: frozenset[int] = frozenset()  # Persian 21s reported and not proven
    turn_time: int = 30
    round_pause: float = 0.0
    bot_action: str | None = None  # what the host's bot would do now (None: no bot)
    auto_read: frozenset[int] = frozenset()  # seats whose bot reads every result at once
    #: players the host's phone will not readmit before the waiting round (cheaters it
    #: named; a leaver who left a round unaudited, until its replay is over)
    barred: frozenset[int] = frozenset()

    def waits(self, deck: int) -> frozenset[int]:
        """The seats the dealer of ``deck`` waits for."""
        return self.waiting_for.get(deck, frozenset())


# -- events -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """A phone's report (``SetUp``, ``Dealt``, ``Drew``; seat 0 is the host's own)."""

    seat: int
    message: Message


@dataclass(frozen=True)
class Decide:
    """A player's decision; ``round`` None: the host's own player (no late-click check)."""

    seat: int
    action: str
    round: int | None = None


@dataclass(frozen=True)
class ReadNext:
    """A player has read the last result and asks for the deal of ``round``."""

    seat: int
    round: int


@dataclass(frozen=True)
class Remove:
    """Take ``seat`` out (the round is void if disputed or he cheated), then drop him."""

    seat: int
    reason: str
    code: str = ""


@dataclass(frozen=True)
class LeaveSeat:
    """Announce that ``seat`` left; ``back``: he is already back on a new link."""

    seat: int
    reason: str
    back: bool = False


@dataclass(frozen=True)
class AfterLeft:
    """After ``Left``: a fresh deck for a round still dealing (``in_round``: he played
    in it)."""

    seat: int
    in_round: bool


HostEvent = (
    Drive
    | Started
    | Report
    | Decide
    | ReadNext
    | Expired
    | Gone[int]
    | Back[int]
    | Remove
    | LeaveSeat
    | AfterLeft
)


# -- effects ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Broadcast:
    """Send a message to every guest (not applied to any match: e.g. ``Turn``)."""

    message: Message


@dataclass(frozen=True)
class Forgive:
    """The host's phone's violation was handled (a guest was named): clear it."""


@dataclass(frozen=True)
class Readmit:
    """Players are back before round ``number``: tell everybody to set the dealer up
    anew among ``seats`` for the decks from ``first``; each of ``back`` gets the match."""

    number: int
    back: tuple[int, ...]
    seats: tuple[int, ...]
    first: int


@dataclass(frozen=True)
class Then:
    """Feed ``event`` to the sequencer once the effects before it are done (it sees the
    facts as they are then)."""

    event: HostEvent


Effect = (
    Announce[PublicEvent]
    | Broadcast
    | Say
    | SetTimer
    | CancelTimer
    | Drop[int]
    | Close
    | Forgive
    | Readmit
    | Then
)
