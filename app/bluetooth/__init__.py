"""Transports: one frame-oriented link interface, three ways to carry it.

* :mod:`app.bluetooth.tcp` -- TCP, loopback and LAN (desktops, bots, tests);
* :mod:`app.bluetooth.android` -- Android RFCOMM through pyjnius (the phones);
* :mod:`app.bluetooth.rfcomm` -- Linux RFCOMM through the stdlib socket, where the
  interpreter has ``socket.AF_BLUETOOTH``.

The interface (:class:`Transport`, :class:`Listener`, :class:`Link` and the link
events) is in :mod:`app.bluetooth.link`, frames and fixed-width big integers in
:mod:`app.bluetooth.framing`, errors with stable codes in :mod:`app.bluetooth.errors`.
The Android module imports pyjnius only when a transport is made, so importing this
package is cheap everywhere. See docs/transport.md.
"""

from app.bluetooth.errors import FrameError, LinkClosed, TransportError
from app.bluetooth.link import (
    Acceptor,
    Closed,
    Link,
    Listener,
    ListenerFailed,
    Opened,
    Received,
    StreamLink,
    Transport,
)

__all__ = [
    "Acceptor",
    "Closed",
    "FrameError",
    "Link",
    "LinkClosed",
    "Listener",
    "ListenerFailed",
    "Opened",
    "Received",
    "StreamLink",
    "Transport",
    "TransportError",
]
