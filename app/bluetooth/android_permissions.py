"""Android runtime permissions for Bluetooth, through python-for-android.

Android 12+ asks for BLUETOOTH_CONNECT / BLUETOOTH_SCAN / BLUETOOTH_ADVERTISE; API 23-30
for ACCESS_FINE_LOCATION before a discovery. They are requested when the player is about to
host or join (app/views/setup/permissions.py walks him through them) and *checked again before
every use*: a refused or revoked permission is a ``permission_denied``
:class:`~app.bluetooth.errors.TransportError` (details: ``missing``), never a crash.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from app.bluetooth.android_java import p4a_module, run_on_main
from app.bluetooth.errors import TransportError

PERMISSION_CONNECT = "android.permission.BLUETOOTH_CONNECT"
PERMISSION_SCAN = "android.permission.BLUETOOTH_SCAN"
PERMISSION_ADVERTISE = "android.permission.BLUETOOTH_ADVERTISE"
PERMISSION_FINE_LOCATION = "android.permission.ACCESS_FINE_LOCATION"

#: Android 12: the "nearby devices" permissions replace location for Bluetooth.
API_S = 31
#: Android 6: runtime permissions.
API_M = 23
#: Android 10 and 11 find nothing by discovery while the Location switch is off.
LOCATION_SWITCH_APIS = (29, 30)

#: What each use of Bluetooth needs: "connect" (listen, connect, paired list, names),
#: "scan" (discovery), "advertise" (making the host discoverable).
USES = ("connect", "scan", "advertise")


def permissions_for(sdk_int: int, *uses: str) -> tuple[str, ...]:
    """Runtime permissions needed for ``uses`` on API level ``sdk_int``, in request order.

    >>> permissions_for(34, "connect", "scan")
    ('android.permission.BLUETOOTH_CONNECT', 'android.permission.BLUETOOTH_SCAN')
    >>> permissions_for(30, "connect", "scan")
    ('android.permission.ACCESS_FINE_LOCATION',)
    >>> permissions_for(22, "scan")
    ()
    """
    unknown = set(uses) - set(USES)
    if unknown:
        raise ValueError(f"unknown Bluetooth uses {sorted(unknown)}; expected some of {USES}")
    needed: list[str] = []
    if sdk_int >= API_S:
        # Discovery reports devices whose names need CONNECT, so "scan" implies it.
        if {"connect", "scan"} & set(uses):
            needed.append(PERMISSION_CONNECT)
        if "scan" in uses:
            needed.append(PERMISSION_SCAN)
        if "advertise" in uses:
            needed.append(PERMISSION_ADVERTISE)
    elif sdk_int >= API_M and "scan" in uses:
        # BLUETOOTH and BLUETOOTH_ADMIN are install-time permissions before API 31;
        # only discovery needs a runtime grant (location, since it can locate the phone).
        needed.append(PERMISSION_FINE_LOCATION)
    return tuple(needed)


_CHECK_LOCK = threading.Lock()


class _DialogGate:
    """One permission request of the app's at a time, the next ones queued.

    Android answers a request made while another is open at once, as cancelled, before
    ``requestPermissions`` returns (AOSP ``Activity.requestPermissions``), and
    python-for-android stores the Python callback only after that call: the answer is
    lost and whoever waits for it (the set-up screen) waits for ever. So the app never
    makes a second request while one is open. Used on the main thread only.
    """

    def __init__(self) -> None:
        self.busy = False
        self.waiting: deque[Callable[[], None]] = deque()

    def enter(self, ask: Callable[[], None]) -> bool:
        """True: go on and ask; False: ``ask`` runs once the open request is answered."""
        if self.busy:
            self.waiting.append(ask)
            return False
        self.busy = True
        return True

    def leave(self) -> None:
        """The open request was answered (or never made): the next one may ask."""
        self.busy = False
        if self.waiting:
            self.waiting.popleft()()


_GATE = _DialogGate()


class PermissionsModule(Protocol):
    """What the transport calls of python-for-android's ``android.permissions``."""

    def check_permission(self, permission: str) -> bool:
        """Is ``permission`` granted right now?"""

    def request_permissions(
        self, permissions: list[str], callback: Callable[[list[str], list[bool]], None]
    ) -> None:
        """Show the system dialog; ``callback(permissions, grants)`` on Android's UI thread."""


class Permissions:
    """Runtime permissions through python-for-android's ``android.permissions``.

    ``module`` stands in for that module (tests); by default it is imported on first
    use, since it exists only on the device. ``on_main(fn)`` runs ``fn`` on the main
    thread: python-for-android creates its Java callback on the first request, which on
    Android works only there, and its answer comes on Android's UI thread.
    """

    def __init__(
        self,
        sdk_int: Callable[[], int],
        module: PermissionsModule | None = None,
        on_main: Callable[[Callable[[], None]], None] = run_on_main,
    ) -> None:
        self._sdk_int = sdk_int
        self._module = module
        self._on_main = on_main

    def _android_permissions(self) -> PermissionsModule:
        if self._module is None:
            self._module = p4a_module("android.permissions")
        return self._module

    def needed(self, *uses: str) -> tuple[str, ...]:
        """The runtime permissions ``uses`` need on this device."""
        return permissions_for(self._sdk_int(), *uses)

    def missing(self, *uses: str) -> list[str]:
        """Needed permissions not granted right now."""
        needed = self.needed(*uses)
        if not needed:
            return []
        module = self._android_permissions()
        # One check at a time: python-for-android's check_permission wraps the activity
        # afresh on every call, and two threads calling a Java method through different
        # wrappers at once crashed the JVM in our tests (pyjnius keeps the instance on
        # the method object it shares between them).
        with _CHECK_LOCK:
            return [p for p in needed if not module.check_permission(p)]

    def check(self, *uses: str) -> None:
        """Raise ``permission_denied`` (details: ``missing``) unless all are granted."""
        missing = self.missing(*uses)
        if missing:
            raise TransportError(
                "permission_denied",
                "Bluetooth permission not granted: " + ", ".join(missing),
                missing=missing,
            )

    def request(
        self, uses: Iterable[str], on_done: Callable[[TransportError | None], None]
    ) -> None:
        """Ask the user for what ``uses`` need; ``on_done(None)`` or ``on_done(error)``.

        Non-blocking, from any thread: the request is made on the main thread and
        ``on_done`` runs there too. The grant list the system passes back is not
        trusted (it is empty when the dialog is interrupted or another request was
        still open): permissions are checked again.
        """
        uses = tuple(uses)

        def finish(error: TransportError | None) -> None:  # on the main thread
            try:
                on_done(error)
            finally:
                _GATE.leave()

        def done(error: TransportError | None) -> None:
            self._on_main(lambda: finish(error))

        def answered(
            _permissions: list[str], _grants: list[bool]
        ) -> None:  # on Android's UI thread
            try:
                self.check(*uses)
            except TransportError as exc:
                done(exc)
            else:
                done(None)

        def ask() -> None:  # on the main thread
            if not _GATE.enter(ask):
                return  # another request is open: asked once it is answered
            error: TransportError | None = None
            try:
                missing = self.missing(*uses)
                if missing:
                    self._android_permissions().request_permissions(missing, answered)
                    return  # answered() finishes
            except Exception as exc:  # e.g. no activity yet: report, do not crash
                error = (
                    exc
                    if isinstance(exc, TransportError)
                    else TransportError(
                        "permission_denied",
                        f"could not ask for the Bluetooth permissions: {exc}",
                        missing=list(self.needed(*uses)),
                    )
                )
            finish(error)

        self._on_main(ask)

    def request_named(self, names: Sequence[str], on_done: Callable[[bool], None]) -> None:
        """Ask for runtime permissions by name (not a Bluetooth use, e.g. POST_NOTIFICATIONS),
        one dialog at a time like :meth:`request`; ``on_done(all granted)`` on the main
        thread. Non-blocking, from any thread; never raises."""
        wanted = list(names)

        def granted() -> bool:
            module = self._android_permissions()
            with _CHECK_LOCK:
                return all(module.check_permission(n) for n in wanted)

        def finish(ok: bool) -> None:  # on the main thread
            try:
                on_done(ok)
            finally:
                _GATE.leave()

        def answered(_permissions: list[str], _grants: list[bool]) -> None:  # UI thread
            try:
                ok = granted()
            except Exception:  # unknown: treat as refused
                ok = False
            self._on_main(lambda: finish(ok))

        def ask() -> None:  # on the main thread
            if not _GATE.enter(ask):
                return
            try:
                if not granted():
                    self._android_permissions().request_permissions(wanted, answered)
                    return  # answered() finishes
                ok = True
            except Exception:  # e.g. no activity yet: not granted, no crash
                ok = False
            finish(ok)

        self._on_main(ask)

    def ensure(self, *uses: str, timeout: float = 120.0) -> None:
        """Blocking :meth:`request`: returns when granted, else raises ``permission_denied``.

        Worker threads only: the request itself is posted to the main thread, which must
        not be blocked waiting for it.
        """
        done = threading.Event()
        result: list[TransportError | None] = []

        def on_done(error: TransportError | None) -> None:
            result.append(error)
            done.set()

        self.request(uses, on_done)
        if not done.wait(timeout):
            missing = self.missing(*uses)
            if missing:
                raise TransportError(
                    "permission_denied",
                    "no answer to the permission request in time",
                    missing=missing,
                )
            return
        if result[0] is not None:
            raise result[0]
