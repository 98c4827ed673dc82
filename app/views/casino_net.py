"""The networked casino table for the screens: a :class:`CasinoTable` opened through
the app's table service, and the screens' side of it.

Opening a table blocks (listening, connecting, the first messages), so
:class:`CasinoNet` opens it on a worker thread through ``TableService.host_casino`` /
``join_casino``; the table then runs its own worker and calls ``on_change`` from it
after every change. Here that only counts a version under a lock: the screens poll
:meth:`CasinoNet.tick` from a Kivy ``Clock`` event (the main thread) and read
:meth:`snapshot`. Intents go straight to the table, which checks them with its own
engine copy first; a refused intent comes back as a translated message.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from app.i18n.codes import error_message, message_for
from app.table.casino_snapshot import CasinoSnapshot, CasinoStage, CasinoTable


class CasinoNet:
    """A hosted (``hosting``) or joined casino table of this phone.

    ``options``: what the service's ``host_casino`` / ``join_casino`` take besides
    ``on_change`` (``name``, ``lang``, ``rules``, ``turn_time``, ...); ``address`` the
    host to join. ``awake(on)`` keeps the screen on while the table is open.
    ``make(on_change)``: a table on this phone instead (the screenshots' demos).
    """

    def __init__(
        self,
        *,
        hosting: bool,
        service: Any,
        address: str = "",
        awake: Callable[[bool], Any] | None = None,
        make: Callable[[Callable[[], None]], CasinoTable] | None = None,
        **options: Any,
    ) -> None:
        self.hosting = hosting
        self.address = address
        #: an error code when the table could not be opened or joined
        self.error: str | None = None
        self._service = service
        self._options = options
        self._table: CasinoTable | None = None
        #: keeps the screen on while the table is open (called on the main thread)
        self._awake: Callable[[bool], Any] = awake or (lambda _on: None)
        self._version = 0
        self._seen = -1
        self._lock = threading.Lock()
        self._opened = threading.Event()
        if make is not None:  # a table on this phone (demos): nothing to wait for
            self._table = make(self._bump)
            self._opened.set()
            return
        self._thread = threading.Thread(target=self._open, name="blu21-casino", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        try:
            if self.hosting:
                table = self._service.host_casino(on_change=self._bump, **self._options)
                self.address = str(getattr(table, "address", "") or self.address)
            else:
                table = self._service.join_casino(
                    self.address, on_change=self._bump, **self._options
                )
            self._table = table
            self._service.on_main(lambda: self._awake(True))
        except Exception as exc:  # any failure to open is shown by its code
            code = getattr(exc, "code", "connection_lost")
            self.error = "connect_failed" if code == "timeout" else str(code)
        finally:
            self._opened.set()
            self._bump()

    def _bump(self) -> None:
        with self._lock:
            self._version += 1

    # -- the screens' side ---------------------------------------------------------------
    def wait_open(self, timeout: float = 15.0) -> bool:
        """Wait until the table is open (False on failure or timeout)."""
        return self._opened.wait(timeout) and self.error is None

    @property
    def table(self) -> CasinoTable | None:
        """The open table (None while opening or after a failure)."""
        return self._table

    def tick(self) -> bool:
        """True once after each change of the table."""
        with self._lock:
            moved = self._version != self._seen
            self._seen = self._version
        return moved

    def snapshot(self) -> CasinoSnapshot | None:
        """The table as this phone sees it now (None until it is open)."""
        return None if self._table is None else self._table.snapshot()

    @property
    def closed(self) -> bool:
        """The table failed to open or is over."""
        if self.error is not None:
            return True
        snap = self.snapshot()
        return snap is not None and snap.stage is CasinoStage.OVER

    def send(self, intent: str, *args: Any) -> str:
        """Call ``intent`` (take_box, leave_box, act, start) on the table; '' when it
        was accepted, else the translated reason (nothing was sent)."""
        table = self._table
        if table is None:
            return message_for("connection_lost")
        try:
            getattr(table, intent)(*args)
        except Exception as exc:  # IllegalAction / TableError: shown, nothing changes
            return error_message(exc)
        return ""

    def leave(self) -> None:
        """Leave the table (the host's leaving ends it for every phone)."""
        table = self._table
        if table is not None:
            # a link that is already gone has nothing more to say
            with contextlib.suppress(Exception):
                table.leave()
        self._service.on_main(lambda: self._awake(False))
        self._bump()
