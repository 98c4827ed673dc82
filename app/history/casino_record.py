"""Networked casino rounds as records, built from one phone's log as it saw them.

The input is plain values (:class:`app.history.network.PhoneView`): the phone's log
(the engine's events as JSON between the notes ``bets_open`` and ``round_settled``,
and the notes ``audit`` and ``fault``), what the phone agreed on for each settled round
(:class:`Settled`: the round as JSON, the chips after it, the cards' shoes) and the
engine's round whenever the table waits for this player (his decisions are reviewed
against best play from it, as one-phone blackjack's are: :func:`review_entry`).

A round is stored when it settles; the verdict of a shoe's audit comes later (a shoe
is audited once its cut card came out), so each round that dealt from that shoe is
then returned again, amended. The detail of a networked blackjack record is the
one-phone record's (:mod:`app.history.blackjack_record`) and::

    {"names": {pid: name}, "digest": "...", "shoes": [1], "fingerprint": "123456",
     "audits": [{"shoe": 1, "ok": true, "cheaters": [names]}],
     "audit": "pending" | "passed" | "failed" | "unaudited", "named": [names]}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.history.blackjack_record import count_facts, is_decision, review_entry
from app.history.model import PENDING, Facts, RoundRecord, audit_status
from app.rules.blackjack.events import EVENTS
from app.rules.money import Money, money_json, to_money


@dataclass(frozen=True)
class Settled:
    """What the phone agreed on for one settled round (its signed digest's body)."""

    digest: str
    #: the settled round as JSON (``Round.to_json(reveal=True)``: hands, stakes, net)
    result: Mapping[str, Any]
    #: each player's chips after the round (exact amounts as JSON)
    chips: Mapping[str, Any]
    #: the shoes the round's cards came from
    shoes: tuple[int, ...]


def json_facts(result: Mapping[str, Any], me: str, decisions: Sequence[Mapping[str, Any]]) -> Facts:
    """The player's counted facts of a settled round from its JSON (as
    :func:`app.history.blackjack_record.hand_facts` counts them from the round)."""
    settled = []
    for h in result.get("hands") or ():
        stake = next((s for s in h.get("stakes") or () if s.get("player") == me), None)
        if stake is not None and stake.get("outcome") is not None:
            doubled = to_money(stake.get("doubled") or 0) > 0
            settled.append((str(stake["outcome"]), doubled, bool(h.get("from_split"))))
    return count_facts(settled, decisions)


@dataclass
class _Open:
    number: int
    started: float
    events: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    #: the engine's round when the table waited for this player, by its event count
    before: dict[int, Any] = field(default_factory=dict)


class CasinoRounds:
    """Collects one phone's rounds at one networked casino table (``session``)."""

    def __init__(
        self, *, session: str, me: str, names: Mapping[str, str], rules: Mapping[str, Any]
    ) -> None:
        self.session, self.me = session, me
        self.names = dict(names)
        self.rules = dict(rules)
        self.fingerprint: str | None = None
        self._open: _Open | None = None
        self._engine = 0  # engine events of the open round so far
        self._stored: list[RoundRecord] = []  # rounds whose audits may still come
        self._verdicts: dict[int, dict[str, Any]] = {}  # shoe -> its audit, as stored
        self._last: RoundRecord | None = None

    def _name(self, seat: Any) -> str:
        return self.names.get(f"p{seat}", str(seat)) if isinstance(seat, int) else str(seat)

    def waiting(self, number: int, rnd: Any) -> None:
        """The engine's round ``rnd`` of round ``number`` while it waits for this
        player (kept to review his next decision against)."""
        if self._open is not None and self._open.number == number and rnd is not None:
            self._open.before[len(rnd.events)] = rnd

    def feed(
        self, entry: Mapping[str, Any], t: float, settled: Settled | None = None
    ) -> list[RoundRecord]:
        """Take one log entry seen at time ``t`` (``settled``: what the phone agreed on
        for the round a ``round_settled`` entry ends); returns the records to store:
        a new round (``id`` None) or an earlier one amended (its ``id`` set)."""
        kind = entry.get("event")
        if kind == "bets_open":
            self._open = _Open(int(entry.get("round") or 0), t)
            self._engine = 0
            return []
        if kind == "audit":
            return self._audit(entry)
        if kind == "fault" and self._last is not None and entry.get("player") != self.me:
            detail = dict(self._last.detail or {})
            detail["named"] = sorted({*detail.get("named", []), self._name_of(entry.get("player"))})
            detail["violation"] = entry.get("code")
            return [self._amend(self._last, detail=detail)]
        opened = self._open
        if opened is None:
            return []
        if kind == "round_settled" and "round" in entry:  # (the phone's note; the
            # engine's own ``round_settled`` event, without the number, is one of its events)
            if settled is None or entry.get("round") != opened.number:
                self._open = None
                return []
            return [self._finish(opened, settled, t)]
        if kind not in EVENTS:
            return []  # (the phone's notes: a player left or came back, a fault)
        at = self._engine
        self._engine += 1
        opened.events.append({**entry, "t": round(t - opened.started, 3)})
        if is_decision(entry, self.me):
            before = opened.before.get(at)
            d = None if before is None else review_entry(before, self.me, entry)
            if d is not None:
                opened.decisions.append({"t": round(t - opened.started, 3), **d})
        return []

    def _name_of(self, pid: Any) -> str:
        return self.names.get(str(pid), str(pid))

    @property
    def last_id(self) -> int | None:
        """The store's id of the latest settled round (None before one is stored)."""
        return None if self._last is None else self._last.id

    def stored(self, record: RoundRecord, round_id: int) -> None:
        """The store gave ``record`` the id ``round_id`` (later amendments use it)."""
        stored = record.with_id(round_id)
        self._stored = [stored if r is record else r for r in self._stored]
        if self._last is record:
            self._last = stored

    def _finish(self, opened: _Open, settled: Settled, t: float) -> RoundRecord:
        self._open = None
        me = self.me
        after = to_money(settled.chips.get(me, 0))
        net: Money = to_money((settled.result.get("net") or {}).get(me, 0))
        result = "won" if net > 0 else "lost" if net < 0 else "push"
        detail: dict[str, Any] = {
            "rules": self.rules,
            "me": me,
            "names": self.names,
            "events": opened.events,
            "decisions": opened.decisions,
            "digest": settled.digest,
            "shoes": list(settled.shoes),
            "fingerprint": self.fingerprint,
            "audits": [],
            "audit": PENDING,
            "named": [],
        }
        record = RoundRecord(
            game="blackjack",
            mode="network",
            session=self.session,
            number=opened.number,
            started=opened.started,
            ended=t,
            player=self.names.get(me, me),
            result=result,
            score_before=str(money_json(after - net)),
            score_after=str(money_json(after)),
            facts=json_facts(settled.result, me, opened.decisions),
            detail=detail,
        )
        self._last = record
        self._stored.append(record)
        for shoe in settled.shoes:  # a shoe audited already (one a leaver ended early)
            if shoe in self._verdicts:
                record = self._with_audit(record, self._verdicts[shoe])
        return record

    def _amend(self, record: RoundRecord, **changes: Any) -> RoundRecord:
        new = dataclasses.replace(record, **changes)
        self._stored = [new if r is record else r for r in self._stored]
        if self._last is record:
            self._last = new
        return new

    def _with_audit(self, record: RoundRecord, audit: dict[str, Any]) -> RoundRecord:
        detail = dict(record.detail or {})
        audits = [*detail.get("audits", []), audit]
        detail["audits"] = audits
        detail["audit"] = audit_status(audits, len(detail.get("shoes") or ()))
        detail["named"] = sorted({*detail.get("named", []), *audit["cheaters"]})
        return self._amend(record, detail=detail)

    def _audit(self, entry: Mapping[str, Any]) -> list[RoundRecord]:
        shoe = entry.get("shoe")
        if not isinstance(shoe, int) or shoe in self._verdicts:
            return []
        cheaters = [self._name(s) for s in entry.get("cheaters") or ()]
        audit = {"shoe": shoe, "ok": bool(entry.get("ok")), "cheaters": cheaters}
        if entry.get("unaudited") is True:  # (a shuffler left with his seed: issue 30)
            audit["unaudited"] = True
        self._verdicts[shoe] = audit
        out = []
        for record in list(self._stored):
            if shoe in ((record.detail or {}).get("shoes") or ()):
                out.append(self._with_audit(record, audit))
        # (a round whose every shoe is audited needs nothing more)
        self._stored = [r for r in self._stored if (r.detail or {}).get("audit") == PENDING]
        return out


__all__ = ["CasinoRounds", "Settled", "json_facts"]
