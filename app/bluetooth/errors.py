"""Errors of the transport layer, each with a stable code.

A :class:`TransportError` carries a ``code`` that the UI translates through gettext
(``"bluetooth_off"``, ``"permission_denied"`` ...) and an English message for logs.
:class:`FrameError` is the subset raised for malformed frames; a reader that meets
one closes that one link with the error's code and nothing else.

Codes
-----
Set-up: ``no_adapter`` (the device has no Bluetooth), ``bluetooth_off``,
``permission_denied`` (details: ``missing``), ``unsupported`` (the platform or the
interpreter lacks the transport, e.g. no ``socket.AF_BLUETOOTH``), ``bad_address``,
``listen_failed``, ``connect_failed``, ``discovery_failed``, ``location_off`` (Android
10/11 refuse discovery while the Location switch is off), ``timeout``.

Link life: ``closed`` (the link or listener was already closed), ``local_close``,
``peer_closed`` (clean end of stream), ``connection_lost`` (the stream ended in a way that
does not say whether the peer closed it or went out of range: Android's RFCOMM read
error), ``io_error``, ``send_overflow`` (the peer does
not read what we send), ``internal_error``.

Frames: ``frame_magic`` (garbage where a frame must start), ``frame_too_large``,
``frame_checksum`` (corrupt bytes), ``frame_truncated`` (stream ended inside a frame),
``bad_int`` (a big integer that does not fit its fixed width), ``bad_type`` (a value
of the wrong type where bytes or an integer must be).
"""

from __future__ import annotations

from app.errors import CodedError


class TransportError(CodedError):
    """A transport operation failed; ``code`` says why, in a stable, translatable way."""


class FrameError(TransportError, ValueError):
    """Bytes on a link that are not a valid frame, or a value that cannot be encoded."""


class LinkClosed(TransportError):
    """Raised by ``Link.recv`` once the link is closed; ``code`` says how it closed."""
