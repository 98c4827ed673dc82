"""Signatures of the frames waiting in a phone's inbox, checked together before they are read.

Every dealer frame is signed, and each signature check costs about one exponentiation:
checked one by one as the frames are read, the keys for a drawn card (one frame from
each other seat, arriving within a few tens of milliseconds) cost the host six checks in
a row before it relays the last one (about 0.23 s on a cheap phone, issue 17). Checked
as one batch (:func:`app.protocol.keys.verify_many`: one native call, spread over the
phone's cores) they cost about a quarter of that.

Nothing is judged here: :func:`precheck` only tells the dealer which signatures are
good (``dealer.precheck``, if it has one), exactly as they would be checked where each
frame is authenticated; a frame whose signature failed, or that is no dealer frame, is
handled as before, one by one and in order, and named there.

>>> import queue
>>> class Dealer:
...     seen: list[list[bytes]] = []
...     def precheck(self, frames: list[bytes]) -> None:
...         self.seen.append(frames)
>>> inbox: queue.Queue[object] = queue.Queue()
>>> precheck(inbox, Dealer())  # (nothing waiting: nothing to do)
>>> Dealer.seen
[]
"""

from __future__ import annotations

import queue
from typing import Any

from app.bluetooth.link import Received
from app.table.errors import TableError
from app.table.messages import ProtocolFrame, decode


def waiting_frames(inbox: queue.Queue[Any], limit: int) -> list[bytes]:
    """The data of the (at most ``limit``) first frames waiting in ``inbox``, in order,
    without taking them out (the table reads them as before)."""
    with inbox.mutex:
        events = list(inbox.queue)[:limit]
    return [e.data for e in events if isinstance(e, Received)]


def precheck(inbox: queue.Queue[Any], dealer: object, limit: int = 64) -> None:
    """Check the signatures of the dealer frames waiting in ``inbox`` in one batch
    (``dealer.precheck``), so that reading them one by one costs no check each."""
    check = getattr(dealer, "precheck", None)
    if check is None:
        return
    frames = []
    for data in waiting_frames(inbox, limit):
        try:
            message = decode(data)
        except TableError:
            continue  # (judged where it is read)
        if isinstance(message, ProtocolFrame):
            frames.append(message.data)
    if len(frames) >= 2:
        check(frames)


__all__ = ["precheck", "waiting_frames"]
