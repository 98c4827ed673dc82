"""One phone's copy of a networked table: what both games share.

Every phone (the host's too) keeps a copy of the table it plays at: Oczko's
:class:`~app.table.oczko.phone.PhoneMatch` (the SRA deck) and the casino's
:class:`~app.table.casino.phone.CasinoPhone` (the SRA shoe). Both are a
:class:`PhoneCopy`: the host's public events wait in a queue that :meth:`PhoneCopy.pump`
applies as far as the opened cards allow (:class:`Waiting`), the dealer's frames come
in through :meth:`PhoneCopy.frame` and its background work runs in
:meth:`PhoneCopy.work`, what the phone must send goes to :attr:`PhoneCopy.outbox` and
what the screen may show to :attr:`PhoneCopy.log`. The per-game part is the engine (one
contract, :mod:`app.rules.engine`), the card source (deck or shoe) and whom a fault
names (a seat, a player id).

**The fairness record.** Each deck or shoe's audit verdict, as it comes in, is kept in
:attr:`PhoneCopy.audits` and logged (``{"event": "audit", <unit>: id, "ok", "cheaters"}``);
:attr:`PhoneCopy.fairness` is what a screen shows of it: the dealer's set-up
fingerprint and the verdicts so far.

**The round-end hook.** ``on_round_end`` (an optional observer given to either phone,
or set later as the attribute) is called with a :class:`RoundEnd` when a round is
settled and again, for the same round, once its audit verdict is known if it was not
then. Oczko scores a round only after its decks' audits passed, so its record comes
once, with ``audit`` set; a casino round's shoe is audited when the shoe is finished,
several rounds later, so its record comes first with ``audit=None`` and again with the
verdict. A consumer keys the records by ``(game, number)``:

>>> seen: dict[tuple[str, int], RoundEnd] = {}
>>> def keep(record: RoundEnd) -> None:
...     seen[(record.game, record.number)] = record      # the newest wins
>>> keep(RoundEnd("blackjack", 1, ((0, "Ann"),), (), {"net": {"p0": "5"}}, "ab12", (1,)))
>>> keep(seen[("blackjack", 1)].with_audit(True, ()))
>>> seen[("blackjack", 1)].audit, seen[("blackjack", 1)].result["net"]
(True, {'p0': '5'})

Connecting it: ``PhoneMatch(..., on_round_end=keep)``, ``CasinoPhone(...,
on_round_end=keep)``; a guest hands it to the phone it makes
(``GuestTable(..., on_round_end=keep)``, ``CasinoGuest(..., on_round_end=keep)``); on
the host, set ``host.phone.on_round_end = keep`` right after ``begin()`` / ``start()``
(the phone is made there, and no round can be settled before the guests answer; an
Oczko host may also fill ``host.phone.names``, seat -> name, which a guest fills from
its lobby). The hook runs on the table's worker thread, inside the phone's step: keep
it short (an exception it raises is logged and changes nothing at the table).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from app.table.dealer import DealerViolation, DeckVerdict, FrameDealer

_log = logging.getLogger(__name__)


class Waiting(Exception):
    """An event cannot be applied yet (a card is not open); retried by ``pump``."""


def frozen(entry: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only view of a JSON object (a log entry kept in an immutable record)."""
    return MappingProxyType(dict(entry))


@dataclass(frozen=True)
class RoundEnd:
    """One settled round as a phone saw it, for the history (immutable).

    ``game``: ``"oczko"`` or ``"blackjack"``; ``number``: the round at this table;
    ``players``: (seat, name) of those who played it (name ``""`` where this phone
    does not know it); ``events``: the engine's events of the round as JSON, in order
    (as this phone sees them: Oczko's hide other players' cards until the showdown);
    ``result``: the game's result (Oczko: the ``round_ended`` event's fields; casino:
    ``net`` per player id and ``house``, money as text); ``fingerprint``: the dealer's
    set-up fingerprint; ``units``: the decks or shoes its cards came from; ``audit``:
    True once every one of them passed its audit, False if one failed (``cheaters``:
    the seats it named), None while a verdict is still to come (and for good in a
    round no card was dealt in: ``units`` is empty then); ``unaudited``: True (with
    ``audit`` False, nobody named) when no audit could run on a unit of it, and none
    failed: a seat whose seed it needs left before revealing it (issue 30).
    """

    game: str
    number: int
    players: tuple[tuple[int, str], ...]
    events: tuple[Mapping[str, Any], ...]
    result: Mapping[str, Any]
    fingerprint: str
    units: tuple[int, ...]
    audit: bool | None = None
    cheaters: tuple[int, ...] = ()
    unaudited: bool = False

    def with_audit(self, ok: bool, cheaters: tuple[int, ...], unaudited: bool = False) -> RoundEnd:
        """The same round once its audit verdict is known."""
        return replace(self, audit=ok, cheaters=cheaters, unaudited=unaudited)


#: The observer a phone calls at a round's end (and once more at its audit verdict).
RoundEndHook = Callable[[RoundEnd], None]


@dataclass(frozen=True)
class Fairness:
    """What a screen shows of a table's fairness: the dealer's set-up ``fingerprint``
    (equal on every honest phone; "" before the set-up) and each deck or shoe's audit
    verdict so far, in the order they came (``unit`` id -> verdict)."""

    unit: str  # "deck" or "shoe"
    fingerprint: str
    verdicts: tuple[tuple[int, DeckVerdict], ...] = ()

    @property
    def ok(self) -> bool | None:
        """False once an audit failed (or could not run: ``unaudited``), True once one
        passed and none failed, else None."""
        if any(not v.ok for _, v in self.verdicts):
            return False
        return True if self.verdicts else None


class AuditedDealer(FrameDealer, Protocol):
    """A dealer whose decks (or shoes) are audited: the verdict, None while it runs."""

    def verdict(self, unit: int) -> DeckVerdict | None: ...


D = TypeVar("D", bound=AuditedDealer)


class PhoneCopy(Generic[D]):
    """The shared half of a phone's copy of a table; a game's class sets
    :attr:`dealer`, :attr:`outbox`, :attr:`log` and calls :meth:`_init_copy`, and
    provides :attr:`stopped`, :meth:`pump`, :meth:`_collect_verdicts`,
    :meth:`_send_frames` and :meth:`_dealer_fault`."""

    #: the game's name in a :class:`RoundEnd` and the name of its audited unit
    game: ClassVar[str]
    unit: ClassVar[str]
    dealer: D
    outbox: list[Any]
    log: list[dict[str, Any]]
    _queue: deque[Any]  # the host's public events not applied yet, in order

    def _init_copy(
        self,
        on_log: Callable[[dict[str, Any]], None] | None,
        on_round_end: RoundEndHook | None,
    ) -> None:
        self._on_log = on_log
        #: the observer of settled rounds (module docstring); may be set at any time
        self.on_round_end = on_round_end
        #: every audit verdict that came in, by deck or shoe (the fairness record)
        self.audits: dict[int, DeckVerdict] = {}

    # -- what a game provides -------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """True once this phone named a fault and takes nothing more in."""
        raise NotImplementedError

    def pump(self) -> None:
        """Apply queued public events as far as the cards allow."""
        raise NotImplementedError

    def _collect_verdicts(self) -> None:
        """Take in the audit verdicts that came in (:meth:`_audited` each)."""
        raise NotImplementedError

    def _send_frames(self, frames: list[bytes]) -> None:
        """Queue the dealer's frames for the host."""
        raise NotImplementedError

    def _dealer_fault(self, exc: DealerViolation) -> None:
        """The dealer caught somebody (a bad frame, a bad step)."""
        raise NotImplementedError

    def auditing(self) -> list[int]:
        """The decks or shoes whose audit runs here and has no verdict yet."""
        raise NotImplementedError

    @property
    def waiting(self) -> bool:
        """True while a public event waits in the queue (for cards, say)."""
        return bool(self._queue)

    def _work_steps(self, steps: int) -> int:
        """How many background steps one :meth:`work` call may run."""
        return steps

    def _send_now(self, sent: int) -> bool:
        """True if what the last step made must go out before any more work."""
        return False

    # -- shared -------------------------------------------------------------------------

    def frame(self, data: bytes) -> None:
        """A dealer frame from another seat (relayed by the host)."""
        if self.stopped:
            return
        try:
            self._send_frames(self.dealer.handle(data))
        except DealerViolation as exc:
            self._dealer_fault(exc)
        self.pump()

    def work(self, steps: int = 4) -> bool:
        """Run a few steps of the dealer's background work; True if more remains."""
        for _ in range(self._work_steps(steps)):
            if self.stopped or not self.dealer.has_work():
                break
            sent = len(self.outbox)
            try:
                self._send_frames(self.dealer.work())
            except DealerViolation as exc:
                self._dealer_fault(exc)
            if self._send_now(sent):
                break
        self._collect_verdicts()
        self.pump()
        return self.dealer.has_work()

    def _note(self, entry: dict[str, Any]) -> None:
        """Something the screen may show (and ``on_log`` hears)."""
        self.log.append(entry)
        if self._on_log is not None:
            self._on_log(entry)

    def _audited(self, unit: int, verdict: DeckVerdict) -> None:
        """Keep and log the audit verdict of deck or shoe ``unit``."""
        self.audits[unit] = verdict
        cheaters = list(verdict.cheaters)
        entry = {"event": "audit", self.unit: unit, "ok": verdict.ok, "cheaters": cheaters}
        if verdict.unaudited:  # (no audit could run: a shuffler left with his seed)
            entry["unaudited"] = True
        self._note(entry)

    @property
    def fairness(self) -> Fairness:
        """The fingerprint and the audit verdicts so far (for the screen)."""
        fingerprint = self.dealer.fingerprint if self.dealer.ready else ""
        return Fairness(self.unit, fingerprint, tuple(self.audits.items()))

    def _round_verdict(self, units: tuple[int, ...]) -> tuple[bool, tuple[int, ...], bool] | None:
        """The audit verdict of a round dealt from ``units`` (ok, cheaters, unaudited:
        see :class:`RoundEnd`): None while one is to come."""
        verdicts = [v for v in (self.audits.get(u) for u in units) if v is not None]
        if len(verdicts) < len(units):
            return None
        cheaters = sorted({c for v in verdicts for c in v.cheaters})
        ok = all(v.ok for v in verdicts)
        unaudited = not ok and all(v.ok or v.unaudited for v in verdicts)
        return ok, tuple(cheaters), unaudited

    def _round_end(self, record: RoundEnd) -> None:
        """Tell the observer (if any) of a settled round or of its verdict. An observer
        that fails is logged, never the table's fault: the round stands, play goes on."""
        if self.on_round_end is not None:
            try:
                self.on_round_end(record)
            except Exception:  # (a listener's bug must not stop a phone's loop)
                _log.exception("the round-end hook failed on round %d", record.number)


__all__ = ["AuditedDealer", "Fairness", "PhoneCopy", "RoundEnd", "RoundEndHook", "Waiting"]
