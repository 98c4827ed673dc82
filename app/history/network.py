"""Networked rounds of both games, one recording path for the app and the terminal.

What the history needs of a phone at a networked table is a :class:`PhoneView` of
plain values: its log, the names, its seat or player id, the shuffle's fingerprint, and
for blackjack what the phone agreed on for each settled round and the engine's round
while the table waits for this player. One small adapter per game reads them from the
phone as it is today (:func:`oczko_view`, :func:`casino_view`; :func:`phone_view` picks
one); :class:`TableRounds` feeds the new log entries of each view to the game's
collector (:class:`~app.history.oczko_record.OczkoRounds`,
:class:`~app.history.casino_record.CasinoRounds`) and returns the records to store.
:meth:`app.history.live.Recorder.table` is the one hook: the app's screens
(``NetworkTable``, ``CasinoNet``) and the terminal tables (``blu21 table``,
``blu21 casino``) call it after each step of their table.

Nothing here imports the table: the adapters read public attributes only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.history.casino_record import CasinoRounds, Settled
from app.history.model import RoundRecord
from app.history.oczko_record import OczkoRounds


@dataclass(frozen=True)
class PhoneView:
    """One phone's copy of a networked table, as plain values."""

    game: str  # "oczko" or "blackjack"
    #: the phone's copy of the match (a new one, after a rejoin, starts its log anew)
    phone: object
    me: Any  # Oczko: the seat; blackjack: the player id
    #: Oczko: names by seat; blackjack: names by player id
    names: Sequence[str] | Mapping[str, str]
    log: Sequence[Mapping[str, Any]]
    fingerprint: str | None
    rules: Mapping[str, Any]
    #: blackjack: the round number and the engine's round when it waits for ``me``
    waiting: tuple[int, Any] | None = None
    #: blackjack: what the phone agreed on for a settled round (None: not settled here)
    settled: Callable[[int], Settled | None] = lambda _n: None


def _fingerprint(dealer: Any) -> str | None:
    code = str(getattr(dealer, "fingerprint", "") or "")
    return code if code.isdigit() else None


def oczko_view(table: Any) -> PhoneView | None:
    """An Oczko table's phone (``HostTable`` / ``GuestTable``), None before the match."""
    phone = getattr(table, "phone", None)
    if phone is None:
        return None
    seating = getattr(table, "seating", None)
    if seating is not None:  # the host's
        names: Sequence[str] = [s.name for s in seating.sitters]
    else:
        lobby = getattr(table, "lobby", None)
        names = [p.name for p in lobby.players] if lobby is not None else []
    return PhoneView(
        game="oczko",
        phone=phone,
        me=phone.seat,
        names=names,
        log=phone.log,
        fingerprint=_fingerprint(phone.dealer),
        rules={"rounds": phone.options.rounds, "turn_time": phone.options.turn_time},
    )


def casino_view(table: Any) -> PhoneView | None:
    """A casino table's phone (``CasinoHost`` / ``CasinoGuest``), None before it deals."""
    phone = getattr(table, "phone", None)
    if phone is None:
        return None
    rnd = phone.round
    waits = rnd is not None and phone.me in phone.deciders()

    def settled(number: int) -> Settled | None:
        rec = phone.records.get(number)
        if rec is None:
            return None
        body = rec.body
        return Settled(
            digest=rec.digest,
            result=body.get("result") or {},
            chips=body.get("chips") or {},
            shoes=tuple(sorted({int(c[0]) for c in body.get("cards") or ()})),
        )

    return PhoneView(
        game="blackjack",
        phone=phone,
        me=phone.me,
        names={p.pid: p.name for p in phone.players.values()},
        log=phone.log,
        fingerprint=_fingerprint(phone.dealer),
        rules=phone.rules.to_json(),
        waiting=(phone.round_no, rnd) if waits else None,
        settled=settled,
    )


def phone_view(table: Any) -> PhoneView | None:
    """The view of either game's table (the casino's phone keeps settled ``records``)."""
    phone = getattr(table, "phone", None)
    if phone is None:
        return None
    return casino_view(table) if hasattr(phone, "records") else oczko_view(table)


def _by_id(names: Sequence[str] | Mapping[str, str]) -> dict[str, str]:
    return dict(names) if isinstance(names, Mapping) else {f"p{i}": n for i, n in enumerate(names)}


class TableRounds:
    """One table's rounds on this phone (``session``): feed it views after each step."""

    def __init__(self, session: str, first: PhoneView) -> None:
        self.session = session
        self.game = first.game
        self.rounds: OczkoRounds | CasinoRounds
        if first.game == "oczko":
            self.rounds = OczkoRounds(
                session=session, mode="network", me=first.me, names=list(first.names),
                rules=first.rules,
            )  # fmt: skip
        else:
            self.rounds = CasinoRounds(
                session=session, me=first.me, names=_by_id(first.names), rules=first.rules
            )
        self._phone: object = None
        self._seen = 0

    @property
    def last_id(self) -> int | None:
        """The store's id of the latest finished round."""
        return self.rounds.last_id

    def stored(self, record: RoundRecord, round_id: int) -> None:
        """The store gave ``record`` the id ``round_id``."""
        self.rounds.stored(record, round_id)

    def feed(self, view: PhoneView, now: float) -> Iterator[list[RoundRecord]]:
        """The records to store (new or amended) for each new entry of the phone's
        log, one list per entry: the caller stores each before the next is read (an
        amendment needs the id the store gave the round)."""
        if view.phone is not self._phone:  # a new copy of the match (a rejoin)
            self._phone, self._seen = view.phone, 0
        rounds = self.rounds
        if view.fingerprint:
            rounds.fingerprint = view.fingerprint
        log = view.log
        new, self._seen = log[self._seen :], len(log)
        if isinstance(rounds, OczkoRounds):
            rounds.names = list(view.names) or rounds.names
            rounds.me = view.me
            for entry in new:
                yield rounds.feed(entry, now)
            return
        rounds.names.update(_by_id(view.names))
        for entry in new:
            settled = None
            if entry.get("event") == "round_settled" and "round" in entry:
                number = entry.get("round")
                settled = view.settled(number) if isinstance(number, int) else None
            yield rounds.feed(entry, now, settled)
        if view.waiting is not None:  # (after the entries: the round as it is now)
            rounds.waiting(*view.waiting)


__all__ = ["PhoneView", "TableRounds", "casino_view", "oczko_view", "phone_view"]
