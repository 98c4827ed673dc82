"""A guest's phone at a networked table: what both games share.

Oczko's :class:`~app.table.oczko.guest.GuestTable` and the casino's
:class:`~app.table.casino.guest.CasinoGuest` join through the lobby
(:class:`~app.table.lobby.GuestLobby`), then keep their own copy of the table (a
:class:`~app.table.phone_copy.PhoneCopy`) and check every announcement of the host
against it. What they do alike is here: the dealer frames the host relays are charged
to their sender's budget before the phone takes them in, what the phone has for the
host goes out in order, a removal "for cheating" the phone did not catch itself waits
for its own audits on the frames in hand (the host's word is no evidence), a phone
that caught the host says so and leaves, and the round-end hook (``on_round_end``,
:class:`~app.table.phone_copy.RoundEnd`) goes to the phone when it is made. The
per-game part: the messages, the phone (engine and deck or shoe), whom a fault names.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from app.table.errors import TableError
from app.table.frame_budget import FrameBudget
from app.table.lobby import GuestLobby
from app.table.messages import ProtocolFrame
from app.table.phone_copy import PhoneCopy, RoundEndHook

P = TypeVar("P", bound=PhoneCopy[Any])


class GuestCopy(GuestLobby, Generic[P]):
    """The shared half of a guest's table (``phone``: its copy once the table began)."""

    #: decisions' time a guest waits for the host's own part before naming it (longer
    #: than the host's watchdog on the others, which acts first on a guest's delay)
    host_patience = 2.0
    phone: P | None  # the game's copy of the table (PhoneMatch, CasinoPhone)
    _budget: FrameBudget  # what each sender's relayed dealer frames may cost
    #: the observer of settled rounds, handed to the phone when it is made (or set on
    #: ``phone.on_round_end`` later); see :mod:`app.table.phone_copy`
    on_round_end: RoundEndHook | None = None

    def _seat_may_change(self) -> bool:
        return self.phone is None

    def _charge(self, data: bytes, sender: int | None, unit: int, newest: int) -> None:
        """A relayed dealer frame is charged to its sender (0: the host, or unknown)
        before the phone takes it in: past the budget, the host relayed what an honest
        host refuses (TableError: my phone names the host and leaves)."""
        self._budget.charge(0 if sender is None else sender, data, deck=unit, newest=newest)
        if self.phone is not None:
            self.phone.frame(data)

    def _flush(self) -> None:
        """Send what my phone has for the host (reports, intents, dealer frames), in order."""
        phone = self.phone
        while phone is not None and phone.outbox:
            item = phone.outbox.pop(0)
            self.send(self.link, ProtocolFrame(item) if isinstance(item, bytes) else item)

    def _audit_first(self, phone: P, steps: int = 10_000) -> None:
        """The host removes a player as a cheater my phone has not caught: my own audits
        still running, on frames in hand, speak first (the host's word is no evidence:
        an equivocating host's audit names the honest seat it cheated, mine names the
        host, issue 30). If it names the host I leave naming it; if it cannot finish on
        what I hold, the removal is applied as announced."""
        while phone.auditing() and steps and not phone.stopped:
            steps -= 1
            if not phone.work():
                break
        if phone.stopped:
            self._after()

    def _removal(self, phone: P, mine: bool, cheat_unseen: bool) -> bool:
        """The host removes a player (``mine``: me, which it cannot while I am here;
        ``cheat_unseen``: for cheating my phone has not caught, so my own audits speak
        first). False if my phone named the host meanwhile (its word is moot then)."""
        if mine:
            raise TableError("bad_message", "the host says I left, while I am here")
        if cheat_unseen:
            self._audit_first(phone)
        return not self.closed

    def _leave_named(self, seat: int | None, code: str, detail: str = "") -> None:
        """My phone caught ``seat`` (None or 0: the host): say so and leave the table."""
        self.notice("violation", seat=seat, code=code, detail=detail)
        self.closed = True
        self.link.close_later(linger=0.5)

    def _after(self) -> None:
        """After every message: send what the phone has, act on what it caught."""
        raise NotImplementedError


__all__ = ["GuestCopy"]
