"""The first-run Bluetooth flow's controller: asks Android at the moment it matters.

:class:`BluetoothSetup` reads the phone's situation from the transport the app's
:class:`~app.table.service.TableService` hands it (Android's), names the next step
(:func:`app.table.readiness.next_step`) and performs it when the player taps: the
permission request (hosting: connect + advertise; joining: connect + scan), the system
dialog that switches Bluetooth on, the host's "visible to nearby phones" dialog, the
system settings. Answers arrive on the main thread (the transport's ``on_main``), where
``on_change()`` lets the screen re-render. No Kivy here: the JVM tests drive it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from app.i18n import _
from app.table.readiness import USES_ASKED, Situation, Step, next_step, read_situation

log = logging.getLogger(__name__)

#: how long a host stays visible to nearby phones (seconds): a lobby fills in minutes
VISIBLE_SECONDS = 300


class BluetoothSetup:
    """The flow for ``purpose`` ("host" or "join") on ``transport``."""

    def __init__(
        self, transport: Any, purpose: str, on_change: Callable[[], None] = lambda: None
    ) -> None:
        self.transport = transport
        self.purpose = purpose
        self.on_change = on_change
        self.refused: set[str] = set()
        self.asked_visible = False
        self.visible = False
        self.paired_only = False
        self.enable_refused = False
        self.busy = False  # a system dialog is open: ignore taps until it answers

    # -- reading the phone ----------------------------------------------------------------
    def situation(self) -> Situation:
        """What the phone reports now (never raises: an unreadable state asks again)."""
        return read_situation(
            self.transport,
            self.purpose,
            refused=frozenset(self.refused),
            asked_visible=self.asked_visible,
            paired_only=self.paired_only,
        )

    def step(self) -> Step:
        """The next step for the player."""
        return next_step(self.situation())

    # -- the player's taps ----------------------------------------------------------------
    def act(self) -> None:
        """Do what the current step asks for (the screen's main button)."""
        if self.busy:
            return
        code = self.step().code
        try:
            if code in ("permissions", "search_permission"):
                self._ask(USES_ASKED[(self.purpose, code)])
            elif code == "bluetooth_off":
                self.busy = self.transport.request_enable(self._enabled)
            elif code == "visibility":
                self.busy = True
                self.transport.request_discoverable(VISIBLE_SECONDS, self._visible)
            elif code == "location_off":
                self.transport.open_settings("location")
        except Exception:  # a dialog that cannot be shown: say nothing new, no crash
            log.exception("Bluetooth set-up step %s failed", code)
            self.busy = False
        self.on_change()

    def skip(self) -> None:
        """Go on without the optional step (paired phones only)."""
        code = self.step().code
        if code == "visibility":
            self.asked_visible = True
        elif code in ("search_permission", "location_off"):
            self.paired_only = True
        self.on_change()

    def open_app_settings(self) -> None:
        """Android no longer asks after two refusals: the app's settings page can."""
        try:
            self.transport.open_settings("app")
        except Exception:
            log.exception("cannot open the app settings")

    def _ask(self, uses: tuple[str, ...]) -> None:
        self.busy = True

        def answered(_error: Any) -> None:
            self.busy = False
            for use in uses:
                try:
                    if self.transport.permissions.missing(use):
                        self.refused.add(use)
                except Exception:
                    self.refused.add(use)
            self.on_change()

        self.transport.permissions.request(uses, answered)

    def _enabled(self, on: bool) -> None:
        self.busy = False
        self.enable_refused = not on
        self.on_change()

    def _visible(self, visible: bool) -> None:
        self.busy = False
        self.asked_visible = True
        self.visible = visible
        self.on_change()


class Visibility:
    """Keeps a host visible to nearby phones while its lobby is open.

    Android makes a phone visible for at most 300 s per request (``visible_left`` of the
    transport counts down what it granted), and a lobby may stay open longer: when the
    time runs out while the lobby is open, :meth:`tick` asks again (the system dialog,
    one tap). A refusal ends it: the host goes on with paired phones only. Only a host
    that was made visible at its request is kept visible. Call :meth:`tick` on the main
    thread (the screen's clock); no Kivy here.
    """

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.asking = False
        self.refused = False

    def seconds_left(self) -> int | None:
        """Whole seconds the host stays visible; None when it is not kept visible."""
        left = getattr(self.transport, "visible_left", lambda: None)()
        if left is None or self.refused:
            return None
        return int(left + 0.999)

    def tick(self) -> int | None:
        """Ask again if the visible time ran out; the seconds left (None: not kept)."""
        left = self.seconds_left()
        if left == 0 and not self.asking:
            self.asking = True
            try:
                self.transport.request_discoverable(VISIBLE_SECONDS, self._answered)
            except Exception:  # no dialog possible now (Bluetooth off ...): try later
                log.exception("asking to stay visible failed")
                self.asking = False
        return left

    def _answered(self, visible: bool) -> None:
        self.asking = False
        self.refused = not visible

    def text(self) -> str:
        """What the lobby says about it ('' when nothing)."""
        left = self.seconds_left()
        if left is None:
            return ""
        if left == 0:
            return _("No longer visible to nearby phones: asking again…")
        return _("Visible to nearby phones for {time} more").format(
            time=f"{left // 60}:{left % 60:02d}"
        )


def lobby_visible_text(
    visibility: Visibility | None, hosting: bool, transport: Callable[[], Any]
) -> tuple[str, Visibility | None]:
    """A host lobby's line on how long it stays visible to nearby phones (both games'
    lobbies), and the :class:`Visibility` to keep for the next tick (made on first use,
    from ``transport()``); '' for a guest or a paired-only host. Never raises: nothing
    about visibility may stop a lobby."""
    if not hosting:
        return "", visibility
    try:
        if visibility is None:
            visibility = Visibility(transport())
        visibility.tick()
        return str(visibility.text()), visibility
    except Exception:  # no transport, Bluetooth off ...: the lobby goes on without it
        return "", visibility

