"""The stored round: one immutable record per finished round, for both games.

A record has a small fixed part (the columns statistics need: who, when, the result,
the score before and after, counted facts) and ``detail``: a JSON object with
everything else (the round's events with their times, the rules in force, for
networked Oczko the fingerprint, names and audit verdicts). Statistics read only the
fixed part, so they stay fast over many rounds.

>>> r = RoundRecord(game="oczko", mode="practice", session="s1", number=1, started=1.0,
...                 ended=2.5, player="Ann", result="won", score_before="0", score_after="1")
>>> RoundRecord.from_json(r.to_json()) == r
True
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

GAMES = ("oczko", "blackjack")
MODES = ("practice", "network", "casino")
#: ``result`` of a round from the player's side: won / lost / push (blackjack: even;
#: Oczko: a tie at the top, nobody scores).
RESULTS = ("won", "lost", "push")

#: the audit verdict of a networked round (both games): ``detail["audit"]``
PENDING, PASSED, FAILED = "pending", "passed", "failed"
#: a casino round dealt from a shoe no audit could run on (a shuffler left with his
#: seed; issue 30): neither passed nor failed, nobody named
UNAUDITED = "unaudited"


def audit_status(audits: Sequence[Mapping[str, Any]], expected: int) -> str:
    """A networked round's audit verdict from the audits of its decks or shoes
    (``expected`` of them): failed as soon as one failed, unaudited when one could
    not be audited (and none failed), passed once all passed, else pending.

    >>> audit_status([{"ok": True}], 2), audit_status([{"ok": True}] * 2, 2)
    ('pending', 'passed')
    >>> audit_status([{"ok": False}], 2), audit_status([{"ok": False, "unaudited": True}], 2)
    ('failed', 'unaudited')
    """
    if any(not a.get("ok") and not a.get("unaudited") for a in audits):
        return FAILED
    if any(a.get("unaudited") for a in audits):
        return UNAUDITED
    return PASSED if len(audits) >= expected else PENDING


@dataclass(frozen=True)
class Facts:
    """The counted facts of one round, from the player's side (0 where they do not
    apply to the game).

    Blackjack: ``hands`` the player's hands (splits count each hand), ``wins``/
    ``pushes``/``losses`` of those hands, ``blackjacks`` paid, ``doubles_won`` and
    ``splits_won`` (hands won that were doubled / came from a split), ``decisions``
    the player's playing decisions, ``mistakes`` those whose EV was below the best
    legal one, ``ev_lost`` their EV lost in chips.

    Oczko: ``persian`` a Persian 21 dealt to the player, ``bust`` he went over 21 (or
    lost his link), ``held_total`` his total when he held (None otherwise),
    ``match_end`` "won"/"lost" when the match ended with this round.
    """

    hands: int = 0
    wins: int = 0
    pushes: int = 0
    losses: int = 0
    blackjacks: int = 0
    doubles_won: int = 0
    splits_won: int = 0
    decisions: int = 0
    mistakes: int = 0
    ev_lost: float = 0.0
    persian: int = 0
    bust: int = 0
    held_total: int | None = None
    match_end: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)


FACT_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Facts))


@dataclass(frozen=True)
class RoundRecord:
    """One finished round. ``score_before``/``score_after``: chips (blackjack, exact
    money as text: "1000", "8.4", "1/3") or the player's match points (Oczko).
    ``started``/``ended``: Unix time (seconds). ``id`` is the store's (None before
    it is stored); ``detail`` None means "not loaded" (lists and statistics)."""

    game: str
    mode: str
    session: str
    number: int
    started: float
    ended: float
    player: str
    result: str
    score_before: str
    score_after: str
    facts: Facts = field(default_factory=Facts)
    detail: Mapping[str, Any] | None = field(default_factory=dict)
    id: int | None = None

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game must be one of {GAMES}, not {self.game!r}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.result not in RESULTS:
            raise ValueError(f"result must be one of {RESULTS}, not {self.result!r}")

    def with_id(self, id_: int | None) -> RoundRecord:
        """A copy with the store's id."""
        return dataclasses.replace(self, id=id_)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (export, ``blu21 history --json``)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["facts"] = self.facts.to_json()
        out["detail"] = None if self.detail is None else dict(self.detail)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RoundRecord:
        """The record from :meth:`to_json`'s dict (ValueError/TypeError if malformed)."""
        values = dict(data)
        values["facts"] = Facts(**dict(values.get("facts") or {}))
        return cls(**values)


def dump_detail(detail: Mapping[str, Any]) -> bytes:
    """The detail as compact JSON, zlib-compressed (what the store keeps: a round's
    events repeat their keys, so this is several times smaller)."""
    text = json.dumps(detail, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return zlib.compress(text.encode("utf-8"), 6)


def load_detail(blob: bytes) -> dict[str, Any]:
    """The detail from :func:`dump_detail`'s bytes."""
    value = json.loads(zlib.decompress(blob).decode("utf-8"))
    if not isinstance(value, dict):
        raise ValueError("a round's detail must be a JSON object")
    return value
