"""The values a casino phone keeps: players, shoes, faults, round records (the rules a
networked table plays, without a private peek, are ``table_rules.networked_rules``).

>>> from app.rules.table_rules import TableRules, networked_rules
>>> r = networked_rules(TableRules())     # a peek table is played without a peek
>>> r.hole_card, r.enhc_original_bets_only
('enhc', True)
>>> cut_range(52, 1)
(47, 52)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.rules.money import ZERO, Money
from app.table.phone_copy import Waiting as Waiting  # (one for both games)


def player_id(seat: int) -> str:
    """The public player id of a seat (the lobby's secret rejoin ids are never shown)."""
    return f"p{seat}"


@dataclass
class Player:
    """A player as every phone knows him."""

    pid: str
    seat: int
    name: str
    key: int
    chips: Money
    present: bool = True
    n: int = 0  # the last intent counter seen from him


@dataclass
class ShoeRec:
    """A shoe started at the table."""

    shoe: int
    order: tuple[int, ...]
    size: int
    cut: int | None = None  # from the joint seed, once this phone's dealer is set up
    started: bool = False  # handed to this phone's dealer (once it is set up)
    dead: int | None = None  # positions that stand when a shuffler left (None: alive)
    requested: int = 0  # positions asked to open so far (in order from 0)
    finished: bool = False
    audited: bool = False  # its audit's verdict is in

    @property
    def limit(self) -> int:
        return self.size if self.dead is None else min(self.size, self.dead)


#: A step of the shoe protocol a phone owes its part of: (kind, generation or shoe,
#: position); kind ``setup``, ``shuffle``, ``card`` (``CasinoPhone.owed_steps``) or
#: ``agree`` (a signed round digest a returning phone waits for).
OwedStep = tuple[str, int, int]


@dataclass(frozen=True)
class Fault:
    """Somebody broke the table's rules: ``player`` (``p0``: the host, who announced or
    relayed it), a stable ``code`` and a detail."""

    player: str
    code: str
    detail: str = ""


@dataclass
class RoundRecord:
    """What one settled round left: its digest and its net results."""

    number: int
    digest: str
    net: dict[str, Money] = field(default_factory=dict)
    house: Money = ZERO
    body: dict[str, Any] = field(default_factory=dict)  # what the digest hashes


def cut_range(size: int, penetration: Any) -> tuple[int, int]:
    """Where the cut card may lie in a shoe of ``size`` cards: within a tenth of the
    shoe before the rules' penetration (at least one card is dealt)."""
    high = max(1, min(size, int(size * penetration)))
    return max(1, high - size // 10), high
