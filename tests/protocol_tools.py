"""Test-only tools for the SRA protocol: an attacker's phone signing what it likes.

The real seat (:class:`app.protocol.seat.Seat`) only ever signs its own honest frames;
an attacker controls his phone, so he can sign anything with his own key and his own
sequence numbers. These helpers play him (and read a seat's transcript) without
reaching into the seat's private state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from app.protocol import deal
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.seat import Seat
from app.protocol.transcript import Round


def send(seat: Seat, kind: Kind, round_id: int, **fields: object) -> Message:
    """A frame signed by ``seat`` with its next sequence number in ``round_id``."""
    return seat.core.send(kind, round_id, **fields)


def forged(seat: Seat, msg: Message, **changes: object) -> Message:
    """``msg`` (one of ``seat``'s own) with ``changes``, signed again by ``seat`` under
    the same sequence number: what a cheater's phone sends instead of its honest frame."""
    return seat.core.sign(replace(msg, sig=b"", **changes))  # type: ignore[arg-type]


def claim_message(
    seat: Seat,
    round_id: int,
    kind: ClaimKind,
    positions: Sequence[int],
    codes: Sequence[int],
    total: int,
) -> Message:
    """A CLAIM of any cards and total, with ``seat``'s true keys for the positions."""
    return deal.claim_message(seat.core, seat.round(round_id), kind, positions, codes, total)


#: ``(round, frame) -> frames to send instead`` (None: the frame as it is).
Tamper = Callable[[Round, Message], "list[Message] | None"]


def tamper_with(seat: Seat, tamper: Tamper) -> None:
    """From now on every frame ``seat``'s work produces passes through ``tamper`` (the
    cheater's phone changes, drops or adds frames, and its own transcript as it likes)."""
    honest = seat.work

    def work() -> list[Message]:
        out: list[Message] = []
        for msg in honest():
            other = tamper(seat.round(msg.round_id), msg) if msg.round_id else None
            out += [msg] if other is None else other
        return out

    seat.work = work  # type: ignore[method-assign]


def withhold(seat: Seat, rnd: Round, msg: Message) -> list[Message]:
    """Take back ``msg``, the latest frame of ``seat`` in ``rnd``, as if never made."""
    seat.core.my_seq[rnd.round_id] -= 1
    if msg.kind == Kind.AUDIT:
        rnd.audits.pop(seat.seat, None)
    return []


class TamperingSeat(Seat):
    """A cheater's seat: :meth:`tamper` may replace each frame its work produces."""

    def tamper(self, rnd: Round, msg: Message) -> Message | None:
        """Another frame to send instead of ``msg`` (None: send it as it is)."""
        del rnd, msg
        return None

    def work(self) -> list[Message]:
        out = []
        for msg in super().work():
            other = self.tamper(self.round(msg.round_id), msg) if msg.round_id else None
            out.append(msg if other is None else other)
        return out
