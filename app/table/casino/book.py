"""What the casino host keeps between events, what it observes, and what it may do.

The host's decisions are one pure function (:func:`app.table.casino.sequencer.step`)
of a :class:`CasinoBook` (frozen), an event and the :class:`CasinoFacts` the host's own
phone knows at that moment; it returns the next book and a list of effects the I/O
shell (:mod:`app.table.casino.host`) carries out. The events and effects both games
share come from :mod:`app.table.book`; this module adds the casino's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.table.book import Announce as Announce
from app.table.book import Back as Back
from app.table.book import CancelTimer as CancelTimer
from app.table.book import Close
from app.table.book import Drive as Drive
from app.table.book import Drop as Drop
from app.table.book import Expired as Expired
from app.table.book import Gone as Gone
from app.table.book import Say as Say
from app.table.book import SetTimer as SetTimer
from app.table.book import Stage as Stage
from app.table.book import Started as Started
from app.table.casino.messages import Announcement
from app.table.casino.state import OwedStep


@dataclass(frozen=True)
class CasinoBook:
    """The host's memory between events."""

    stage: Stage = Stage.LOBBY
    next_shoe: int = 1  # the id of the next shoe to start
    round: int = 0  # the round whose bets were opened last
    #: the decision the turn timer runs for: (round, the engine's event count)
    deciding: tuple[int, int] | None = None
    #: the round whose result the pause shows (None: no pause running)
    pausing: int | None = None
    #: the last round whose pause is over
    paused: int = 0
    #: players back on a new phone, with their new keys, waiting for the next round
    returning: tuple[tuple[str, str], ...] = ()
    #: the players a stall timer runs for (``stall:<player>``), each with the step of
    #: the shoe protocol it runs for (a new step: a new timer)
    stalling: tuple[tuple[str, OwedStep], ...] = ()
    #: players whose time ran out on the decisions of (round, phase) still pending
    overdue: tuple[int, str, frozenset[str]] | None = None


@dataclass(frozen=True)
class CasinoFacts:
    """What the host's phone knows now."""

    round: int  # the phone's round number (0: none yet)
    betting: bool  # the round takes bets
    settled: bool  # no round, or the round is settled
    bets: bool  # somebody has bet in the round
    all_done: bool  # every present player said his bets are in
    busy: bool  # the phone still applies queued events (cards on their way)
    deciders: tuple[str, ...]  # whose decisions the round waits for
    decision: int  # a count that changes with every decision (the engine's events)
    connected: frozenset[str]  # players whose phones are at the table (the host's too)
    present: frozenset[str]  # players the table counts as present (not left)
    want_shoe: bool  # another shoe should be shuffled now
    has_shoe: bool  # the shoe the next round deals from is shuffled
    order: tuple[int, ...]  # the seats a new shoe is shuffled among
    decks: int
    dead: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    phase: str = ""  # the engine's phase (insurance, play, double_follow ...)
    #: players whose part of a shoe in use (a pass, a lock, a key) the host still lacks,
    #: each with the step he owes it for (``CasinoPhone.owed_steps``)
    owing: dict[str, OwedStep] = field(default_factory=dict)
    bet_time: float = 30.0
    turn_time: float = 30.0
    pause: float = 0.0
    closed: bool = False
    #: every player present signed the last settled round's digest (a returning
    #: phone checks the chips it is shown against it)
    vouched: bool = True
    #: some of those digests are still on their way (from players of that round)
    vouching: bool = False


# -- what the casino adds to the shared events and effects (app.table.book) ----------

#: the events a casino host hears (every one shared with Oczko's host)
CasinoEvent = Drive | Started | Expired | Gone[str] | Back[str]


@dataclass(frozen=True)
class Readmit:
    """Send a returning player's phone the table as it stands (``CResume``) before his
    ``CBack``; his new phone deals from shoe ``first_shoe`` on."""

    player: str
    first_shoe: int


#: the table ends: the same effect as Oczko's ``Close``
End = Close

CasinoEffect = Announce[Announcement] | SetTimer | CancelTimer | Say | Readmit | Drop[str] | End
