"""Oczko rounds as records, built from the engine's events as one phone saw them.

The input is the stream of ``event.to_json()`` dicts (seats as numbers), already
redacted for this phone (:func:`app.rules.oczko.views.redact`), each with the time it
happened: the practice match's events, or a networked phone's log
(:attr:`app.table.oczko.phone.PhoneMatch.log`, which also carries ``audit`` and ``violation``
entries). :class:`OczkoRounds` collects a round from ``round_started`` to
``round_ended`` and returns its :class:`~app.history.model.RoundRecord`; a match end or
an audit verdict that comes later is returned as an amended record of an earlier round.

The detail of an Oczko record::

    {"names": [...], "me": seat, "rules": {"rounds": 5, "turn_time": 30},
     "tiebreak": false, "order": [seats], "events": [{"event": ..., "t": seconds}, ...],
     network only: "fingerprint": "123456", "audits": [{"deck": d, "ok": true,
     "cheaters": [names]}], "audit": "pending" | "passed" | "failed" (all the round's
     decks: :func:`~app.history.model.audit_status`), "named": [names of players found
     cheating]}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.history.model import PENDING, Facts, RoundRecord, audit_status

#: entries of a phone's log that belong to the round being played
_ROUND_EVENTS = frozenset(
    {
        "round_started", "deck_replaced", "card_dealt", "persian21", "turn_started",
        "card_drawn", "held", "busted", "disconnected", "rejoined", "revealed", "round_ended",
    }
)  # fmt: skip


def facts_of(events: Sequence[Mapping[str, Any]], me: int) -> tuple[str, Facts]:
    """The player's result (won/lost/push) and facts from one round's events.

    >>> ev = [{"event": "held", "seat": 0, "total": 19, "reason": "hold"},
    ...       {"event": "round_ended", "winner": 0, "totals": {"0": 19}, "points": {"0": 1}}]
    >>> result, facts = facts_of(ev, 0)
    >>> result, facts.held_total, facts.decisions, facts.bust
    ('won', 19, 1, 0)
    """
    persian = bust = 0
    held: int | None = None
    decisions = 0
    result = "lost"
    for e in events:
        kind, mine = e.get("event"), e.get("seat") == me
        if kind == "persian21" and mine:
            persian = 1
        elif kind == "busted" and mine:
            bust, held = 1, None
        elif kind == "held" and mine:
            held = e.get("total")
            decisions += e.get("reason") in ("hold", "timeout")
        elif kind == "card_drawn" and mine:
            decisions += 1
        elif kind == "round_ended":
            winner = e.get("winner")
            if winner == me:
                result = "won"
            elif winner is None and _tied_top(e, me):
                result = "push"
            if held is None and not bust and not persian:
                total = (e.get("totals") or {}).get(str(me))
                held = total if isinstance(total, int) and total <= 21 else None
    return result, Facts(persian=persian, bust=bust, held_total=held, decisions=decisions)


def _tied_top(ended: Mapping[str, Any], me: int) -> bool:
    """Nobody scored and the player was among the best (a tie at the top)."""
    totals = {k: v for k, v in (ended.get("totals") or {}).items() if isinstance(v, int)}
    statuses = ended.get("statuses") or {}
    good = {k: v for k, v in totals.items() if v <= 21 and statuses.get(k) != "bust"}
    mine = good.get(str(me))
    return mine is not None and mine == max(good.values())


@dataclass
class _Open:
    started: float
    events: list[dict[str, Any]] = field(default_factory=list)
    #: verdicts that came before the round's end (a round is scored only once audited)
    audits: list[Mapping[str, Any]] = field(default_factory=list)


@dataclass
class _Stored:
    record: RoundRecord
    decks: int  # audits still expected for this round


class OczkoRounds:
    """Collects one phone's rounds of one match (``session``): feed it log entries."""

    def __init__(
        self,
        *,
        session: str,
        mode: str,
        me: int,
        names: Sequence[str],
        rules: Mapping[str, Any],
    ) -> None:
        self.session, self.mode, self.me = session, mode, me
        self.names = list(names)
        self.rules = dict(rules)
        self.fingerprint: str | None = None
        self._open: _Open | None = None
        self._awaiting: list[_Stored] = []  # stored rounds whose audits are due
        self._last: RoundRecord | None = None
        self._points = 0

    def _name(self, seat: Any) -> str:
        return self.names[seat] if isinstance(seat, int) and 0 <= seat < len(self.names) else "?"

    def feed(self, entry: Mapping[str, Any], t: float) -> list[RoundRecord]:
        """Take one log entry seen at time ``t``; returns the records to store: a new
        round (``id`` None) or an earlier one amended (its ``id`` set)."""
        kind = entry.get("event")
        if kind == "round_started":
            self._open = _Open(t)
        if kind in _ROUND_EVENTS and self._open is not None:
            self._open.events.append({**entry, "t": round(t - self._open.started, 3)})
            if kind == "round_ended":
                return [self._finish(t)]
            return []
        if kind == "match_ended" and self._last is not None:
            won = "won" if entry.get("winner") == self.me else "lost"
            return [
                self._amend(self._last, facts=dataclasses.replace(self._last.facts, match_end=won))
            ]
        if kind == "audit" and self._open is not None and not self._awaiting:
            self._open.audits.append(entry)
            return []
        if kind == "audit":
            return self._audit(entry)
        if kind == "violation" and self._last is not None:
            detail = dict(self._last.detail or {})
            detail["named"] = sorted({*detail.get("named", []), self._name(entry.get("seat"))})
            detail["violation"] = entry.get("code")
            return [self._amend(self._last, detail=detail)]
        return []

    @property
    def last_id(self) -> int | None:
        """The store's id of the latest finished round (None before one is stored)."""
        return None if self._last is None else self._last.id

    def stored(self, record: RoundRecord, round_id: int) -> None:
        """The store gave ``record`` the id ``round_id`` (later amendments use it)."""
        stored = record.with_id(round_id)
        for item in self._awaiting:
            if item.record is record:
                item.record = stored
        if self._last is record:
            self._last = stored

    def _finish(self, t: float) -> RoundRecord:
        assert self._open is not None
        events, started = self._open.events, self._open.started
        early = self._open.audits
        self._open = None
        first, last = events[0], events[-1]
        result, facts = facts_of(events, self.me)
        points = (last.get("points") or {}).get(str(self.me), self._points)
        before = points - (result == "won")
        self._points = points
        detail: dict[str, Any] = {
            "names": self.names,
            "me": self.me,
            "rules": self.rules,
            "tiebreak": bool(first.get("tiebreak")),
            "order": list(first.get("order") or ()),
            "events": events,
        }
        if self.mode == "network":
            detail.update(fingerprint=self.fingerprint, audits=[], audit=PENDING, named=[])
        record = RoundRecord(
            game="oczko",
            mode=self.mode,
            session=self.session,
            number=int(first.get("round") or 0),
            started=started,
            ended=t,
            player=self._name(self.me),
            result=result,
            score_before=str(before),
            score_after=str(points),
            facts=facts,
            detail=detail,
        )
        self._last = record
        if self.mode == "network":
            decks = 1 + sum(e.get("event") == "deck_replaced" for e in events)
            self._awaiting.append(_Stored(record, decks))
            for entry in early:
                self._audit(entry)
            return self._last
        return record

    def _amend(self, record: RoundRecord, **changes: Any) -> RoundRecord:
        new = dataclasses.replace(record, **changes)
        for item in self._awaiting:
            if item.record is record:
                item.record = new
        if self._last is record:
            self._last = new
        return new

    def _audit(self, entry: Mapping[str, Any]) -> list[RoundRecord]:
        # verdicts come in deck order, after their round's end: the oldest round still
        # waiting for audits gets this one
        if not self._awaiting:
            return []
        item = self._awaiting[0]
        detail = dict(item.record.detail or {})
        cheaters = [self._name(s) for s in entry.get("cheaters") or ()]
        audit = {"deck": entry.get("deck"), "ok": bool(entry.get("ok")), "cheaters": cheaters}
        audits = [*detail.get("audits", []), audit]
        detail["audits"] = audits
        detail["audit"] = audit_status(audits, len(audits) - 1 + item.decks)
        detail["named"] = sorted({*detail.get("named", []), *cheaters})
        new = self._amend(item.record, detail=detail)
        item.decks -= 1
        if item.decks <= 0:
            self._awaiting.pop(0)
        return [new]
