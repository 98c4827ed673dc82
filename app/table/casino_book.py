"""What the casino host keeps between events, what it observes, and what it may do.

The host's decisions are one pure function (:func:`app.table.casino_sequencer.step`)
of a :class:`CasinoBook` (frozen), an event and the :class:`CasinoFacts` the host's own
phone knows at that moment; it returns the next book and a list of effects the I/O
shell (:mod:`app.table.casino_host`) carries out.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from app.table.casino_messages import Announcement
from app.table.casino_state import OwedStep
from app.table.host_book import CancelTimer as CancelTimer  # (the Oczko host's effects)
from app.table.host_book import Say as Say
from app.table.host_book import SetTimer as SetTimer


class Stage(enum.StrEnum):
    """Where the host's table is."""

    LOBBY = "lobby"
    PLAY = "play"
    OVER = "over"


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


# -- events ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Drive:
    """Decide the next public event, if any is due."""


@dataclass(frozen=True)
class Started:
    """The host closed the lobby: the table begins."""


@dataclass(frozen=True)
class Expired:
    """A timer ran out: ``bet``, ``turn``, ``pause`` or ``stall:<player>``."""

    name: str


@dataclass(frozen=True)
class Gone:
    """A player's phone left the table (``reason``: a CLeft reason)."""

    player: str
    reason: str


@dataclass(frozen=True)
class Back:
    """A player who had left is back on a new phone, signing with ``key``."""

    player: str
    key: str


CasinoEvent = Drive | Started | Expired | Gone | Back

# -- effects --------------------------------------------------------------------------


@dataclass(frozen=True)
class Announce:
    """Send to every guest and apply on the host's own phone."""

    message: Announcement


@dataclass(frozen=True)
class Readmit:
    """Send a returning player's phone the table as it stands (``CResume``) before his
    ``CBack``; his new phone deals from shoe ``first_shoe`` on."""

    player: str
    first_shoe: int


@dataclass(frozen=True)
class Drop:
    """Close the link of ``player`` (he is then gone: ``reason``)."""

    player: str
    reason: str


@dataclass(frozen=True)
class End:
    """The table ends (``reason``: a stable code every phone shows)."""

    reason: str


CasinoEffect = Announce | SetTimer | CancelTimer | Say | Readmit | Drop | End
