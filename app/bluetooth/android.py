"""Android RFCOMM links through pyjnius (the phone build).

The host listens for guests under a fixed service UUID
(``BluetoothAdapter.listenUsingRfcommWithServiceRecord``); a guest opens
``BluetoothDevice.createRfcommSocketToServiceRecord(SERVICE_UUID)`` to the host's
device and ``connect()``s, which finds the RFCOMM channel through SDP. Guests find
hosts among the paired devices (:meth:`AndroidTransport.paired_devices`, fast and
reliable: offer it first) or by discovery (:class:`Discovery`, a ~12 s inquiry).

Rules this module keeps (from the issue trackers of comparable apps):

* Java classes are looked up once, by :class:`JavaApi`, on the main thread
  (``autoclass`` from other threads cannot see app classes on Android), and every Java
  callback of python-for-android's (permission answers, activity results, broadcast
  receivers) is created there too: :class:`Permissions` posts requests made on a worker
  thread to the main thread (``on_main``, Kivy's clock in the app).
* Blocking calls (``accept``, ``connect``, ``read``, ``write``) run on worker threads;
  every thread of ours that touched Java calls ``jnius.detach()`` before it ends.
* Discovery is cancelled before connecting (it slows RFCOMM down to failure), and is
  never left running during a game.
* Runtime permissions (Android 12+: BLUETOOTH_CONNECT / BLUETOOTH_SCAN /
  BLUETOOTH_ADVERTISE; API 23-30: ACCESS_FINE_LOCATION for discovery) are requested
  with python-for-android's ``android.permissions`` when the player is about to host or
  join (app/views/permissions.py walks him through them, Bluetooth's switch and, for a
  host, the "visible to nearby phones" dialog), and *checked again before every use*;
  a refused or revoked permission, Bluetooth switched off, or no adapter at all give a
  :class:`~app.bluetooth.errors.TransportError` with code
  ``permission_denied`` / ``bluetooth_off`` / ``no_adapter``, never a crash. A
  ``SecurityException`` from Java (a permission revoked between check and use) maps
  to ``permission_denied`` too.
* Players are known by an app-generated id (:mod:`app.bluetooth.ids`), not by the
  Bluetooth address, which a phone cannot even read for itself.

Off the device the same code runs against stand-in Java classes on a desktop JVM
(tests/java, see tests/test_transport_android.py and docs/transport.md).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from app.bluetooth.errors import TransportError
from app.bluetooth.framing import DEFAULT_MAX_FRAME
from app.bluetooth.link import DEFAULT_MAX_PENDING, Inbox, Link, ListenerBase, StreamLink

log = logging.getLogger(__name__)

#: The RFCOMM service every blu21 host registers and every guest looks up (uuid5 of
#: "oczko.blu21.invalid"); changing it splits old and new apps into separate worlds.
SERVICE_UUID = "36c63c03-c78a-54d1-b3db-ce14a532598c"
#: Name of the SDP service record.
SERVICE_NAME = "blu21 Oczko"

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

#: How long the players may take to confirm the pairing dialog of a first connection
#: (on top of the connect timeout, which does not run meanwhile).
PAIRING_TIMEOUT = 60.0
#: How often the connect watchdog looks at the clock and the bond state (real seconds).
WATCH_STEP = 0.05
#: ``Activity.RESULT_CANCELED``: a system dialog refused or dismissed.
RESULT_CANCELED = 0
#: Request codes of our system dialogs (``startActivityForResult``).
REQUEST_ENABLE_CODE = 0xB121
REQUEST_DISCOVERABLE_CODE = 0xB122
#: AOSP ``BluetoothSocket.read`` throws this at the end of the stream instead of
#: returning -1 (``"bt socket closed, read return: " + ret``).
END_OF_STREAM_MESSAGE = "bt socket closed, read return: -1"

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


#: ``BluetoothClass.Device.Major`` values (public Android constants).
MAJOR_COMPUTER = 0x0100
MAJOR_PHONE = 0x0200
MAJOR_UNCATEGORIZED = 0x1F00


@dataclass(frozen=True)
class Device:
    """A remote device as the guest's host list shows it.

    ``major_class`` is its ``BluetoothClass`` major class (phone, computer, audio ...).
    """

    address: str
    name: str
    paired: bool
    major_class: int = MAJOR_UNCATEGORIZED

    @property
    def likely_host(self) -> bool:
        """Could this run blu21 (a phone, a tablet or computer, or unknown)? Headphones,
        cars and watches cannot: the host list may hide them.

        >>> Device("00:00:00:00:00:0A", "Ala", True, MAJOR_PHONE).likely_host
        True
        >>> Device("00:00:00:00:00:0B", "Headset", True, 0x0400).likely_host
        False
        """
        return self.major_class in (MAJOR_PHONE, MAJOR_COMPUTER, MAJOR_UNCATEGORIZED)


def merge_devices(paired: Iterable[Device], found: Iterable[Device]) -> list[Device]:
    """The host list: paired devices first, then discovered ones not already listed.

    >>> a, b = Device("00:00:00:00:00:0A", "Ala", True), Device("00:00:00:00:00:0B", "Bo", False)
    >>> [d.name for d in merge_devices([a], [b, Device(a.address, "Ala", False)])]
    ['Ala', 'Bo']
    """
    result: dict[str, Device] = {}
    for device in (*paired, *found):
        result.setdefault(device.address, device)
    return list(result.values())


class JavaApi:
    """The Java classes and pyjnius functions the transport uses, looked up once.

    Create it on the main thread (``autoclass`` there sees the app's class loader).
    """

    def __init__(self) -> None:
        import jnius  # imported here: only Android (and the JVM tests) have it

        autoclass = jnius.autoclass
        self.BluetoothAdapter = autoclass("android.bluetooth.BluetoothAdapter")
        self.BluetoothDevice = autoclass("android.bluetooth.BluetoothDevice")
        self.UUID = autoclass("java.util.UUID")
        self.VERSION = autoclass("android.os.Build$VERSION")
        self.cast = jnius.cast
        self.detach = jnius.detach
        self.JavaException = jnius.JavaException
        self.ACTION_FOUND: str = self.BluetoothDevice.ACTION_FOUND
        self.EXTRA_DEVICE: str = self.BluetoothDevice.EXTRA_DEVICE
        self.EXTRA_NAME: str = self.BluetoothDevice.EXTRA_NAME
        self.BOND_BONDED: int = self.BluetoothDevice.BOND_BONDED
        self.BOND_BONDING: int = self.BluetoothDevice.BOND_BONDING
        self.ACTION_NAME_CHANGED: str = self.BluetoothDevice.ACTION_NAME_CHANGED
        self.ACTION_DISCOVERY_FINISHED: str = self.BluetoothAdapter.ACTION_DISCOVERY_FINISHED
        self.Intent = autoclass("android.content.Intent")
        self.Bundle = autoclass("android.os.Bundle")
        self.Context = autoclass("android.content.Context")
        try:
            self.PythonActivity: Any = autoclass("org.kivy.android.PythonActivity")
        except Exception:  # not inside a python-for-android app: no system dialogs
            self.PythonActivity = None

    @property
    def sdk_int(self) -> int:
        """The device's API level (``Build.VERSION.SDK_INT``)."""
        return int(self.VERSION.SDK_INT)

    @property
    def activity(self) -> Any:
        """python-for-android's running activity, or None (no app: no system dialogs)."""
        return None if self.PythonActivity is None else self.PythonActivity.mActivity

    def detach_quietly(self) -> None:
        """``jnius.detach()`` for a thread that is about to end."""
        try:
            self.detach()
        except Exception:  # detaching a thread that never attached is harmless
            log.debug("jnius.detach failed", exc_info=True)


@contextmanager
def java_errors(api: JavaApi, code: str, what: str) -> Iterator[None]:
    """Turn a Java exception into a :class:`TransportError` (``SecurityException`` ->
    ``permission_denied``, anything else -> ``code``)."""
    try:
        yield
    except api.JavaException as exc:
        raise _translate(exc, code, what) from exc


def _translate(exc: Any, code: str, what: str) -> TransportError:
    classname = getattr(exc, "classname", "") or ""
    message = getattr(exc, "innermessage", None) or str(exc)
    if classname == "java.lang.SecurityException":
        return TransportError("permission_denied", f"{what}: {message}", missing=[])
    return TransportError(code, f"{what}: {classname}: {message}")


_CHECK_LOCK = threading.Lock()


def run_on_main(fn: Callable[[], None]) -> None:
    """Run ``fn`` on the app's main thread: at once if this is it, else through Kivy's
    clock (thread-safe), which runs it on the next frame."""
    if threading.current_thread() is threading.main_thread():
        fn()
        return
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: fn(), 0)


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
        module: Any = None,
        on_main: Callable[[Callable[[], None]], None] = run_on_main,
    ) -> None:
        self._sdk_int = sdk_int
        self._module = module
        self._on_main = on_main

    def _android_permissions(self) -> Any:
        if self._module is None:
            try:
                import android.permissions as module  # python-for-android, on device only
            except ImportError as exc:
                raise TransportError(
                    "unsupported",
                    "android.permissions (python-for-android) is not available here",
                ) from exc
            self._module = module
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

        def done(error: TransportError | None) -> None:
            self._on_main(lambda: on_done(error))

        def answered(_permissions: Any, _grants: Any) -> None:  # on Android's UI thread
            try:
                self.check(*uses)
            except TransportError as exc:
                done(exc)
            else:
                done(None)

        def ask() -> None:  # on the main thread
            try:
                missing = self.missing(*uses)
                if not missing:
                    on_done(None)
                    return
                self._android_permissions().request_permissions(missing, answered)
            except Exception as exc:  # e.g. no activity yet: report, do not crash
                on_done(
                    exc
                    if isinstance(exc, TransportError)
                    else TransportError(
                        "permission_denied",
                        f"could not ask for the Bluetooth permissions: {exc}",
                        missing=list(self.needed(*uses)),
                    )
                )

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


def is_end_of_stream(exc: Any) -> bool:
    """Is this Java exception Android's way of saying "end of stream"?

    >>> class E: classname, innermessage = "java.io.IOException", END_OF_STREAM_MESSAGE
    >>> is_end_of_stream(E())
    True
    """
    message = getattr(exc, "innermessage", None) or str(exc)
    return getattr(exc, "classname", "") == "java.io.IOException" and message.startswith(
        END_OF_STREAM_MESSAGE
    )


class JavaSocketStream:
    """A connected ``BluetoothSocket`` as a :class:`~app.bluetooth.link.ByteStream`."""

    def __init__(self, api: JavaApi, socket: Any) -> None:
        self._api = api
        self._socket = socket
        with java_errors(api, "io_error", "opening the socket streams"):
            self._in = socket.getInputStream()
            self._out = socket.getOutputStream()
        self._closed = False
        self._lock = threading.Lock()

    def read(self, max_bytes: int) -> bytes:
        buf = bytearray(max_bytes)
        try:
            n = self._in.read(buf, 0, max_bytes)  # pyjnius copies the Java array back
        except self._api.JavaException as exc:
            if is_end_of_stream(exc):
                return b""  # the peer closed: the link checks for a truncated frame
            raise OSError(f"{exc.classname}: {exc.innermessage}") from exc
        return b"" if n < 0 else bytes(buf[:n])

    def write(self, data: bytes) -> None:
        try:
            self._out.write(data)
            self._out.flush()
        except self._api.JavaException as exc:
            raise OSError(f"{exc.classname}: {exc.innermessage}") from exc

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        with suppress(self._api.JavaException):
            self._socket.close()  # also wakes a read blocked in another thread

    def thread_done(self) -> None:
        self._api.detach_quietly()


class AndroidListener(ListenerBase):
    """The host's RFCOMM server socket. ``address`` is informational (the phone's name):
    guests pick the host from their device list."""

    def __init__(self, transport: AndroidTransport, server: Any, address: str) -> None:
        super().__init__(address)
        self._transport = transport
        self._server = server

    def accept(self, timeout: float | None = None, inbox: Inbox | None = None) -> Link:
        """Wait for the next guest (blocking; ``close()`` from another thread aborts it)."""
        api = self._transport.api
        if self._closed.is_set():
            raise TransportError("closed", "listener is closed")
        self._transport.permissions.check("connect")
        start = time.monotonic()
        try:
            if timeout is None:
                socket = self._server.accept()
            else:
                socket = self._server.accept(max(1, int(timeout * 1000)))
        except api.JavaException as exc:
            if self._closed.is_set():
                raise TransportError("closed", "listener is closed") from exc
            if timeout is not None and time.monotonic() - start >= timeout * 0.9:
                raise TransportError("timeout", f"no guest within {timeout} s") from exc
            self._transport.adapter()  # bluetooth_off / no_adapter if that is the cause
            raise _translate(exc, "listen_failed", "accepting a guest") from exc
        return self._transport._link(socket, inbox)

    def close(self) -> None:
        """Stop listening; a blocked :meth:`accept` raises ``closed``."""
        if not self._mark_closed():
            return
        with suppress(self._transport.api.JavaException):
            self._server.close()

    def thread_done(self) -> None:
        self._transport.api.detach_quietly()


class Discovery:
    """Finds nearby phones with a Bluetooth inquiry (~12 s); stop it before a game.

    Only phones that are discoverable answer (a host asks to be, see
    :meth:`AndroidTransport.request_discoverable`). ``on_found(device)`` is called once
    per new device, and again when a name arrives later (the found broadcast carries
    the name only "if available"; ``NAME_CHANGED`` brings it, so a device may first
    come with ``name == ""``); ``on_finished()`` when the inquiry ends. Both run on a
    Java thread: keep them short (schedule UI work). Start and stop it on the main
    thread (python-for-android's receiver is an app class). ``broadcast`` stands in for
    python-for-android's ``android.broadcast`` module.
    """

    def __init__(
        self,
        transport: AndroidTransport,
        on_found: Callable[[Device], None],
        on_finished: Callable[[], None] | None = None,
        broadcast: Any = None,
    ) -> None:
        self._transport = transport
        self._on_found = on_found
        self._on_finished = on_finished
        self._broadcast = broadcast
        self._receiver: Any = None
        self._seen: dict[str, Device] = {}
        self._lock = threading.Lock()
        self.running = False

    def start(self) -> None:
        """Register for results and start the inquiry (checks permissions and adapter)."""
        transport, api = self._transport, self._transport.api
        transport.permissions.check("scan")
        adapter = transport.adapter()
        broadcast = self._broadcast
        if broadcast is None:
            try:
                import android.broadcast as broadcast  # python-for-android, on device only
            except ImportError as exc:
                raise TransportError(
                    "unsupported", "android.broadcast (python-for-android) is not available"
                ) from exc
        self._receiver = broadcast.BroadcastReceiver(
            self._on_receive,
            actions=[api.ACTION_FOUND, api.ACTION_NAME_CHANGED, api.ACTION_DISCOVERY_FINISHED],
        )
        self._receiver.start()
        self.running = True
        try:
            with java_errors(api, "discovery_failed", "starting discovery"):
                if adapter.isDiscovering():
                    adapter.cancelDiscovery()
                started = adapter.startDiscovery()
            if not started:
                raise TransportError("discovery_failed", "the adapter refused to start discovery")
        except TransportError:
            self.stop()
            raise

    def _on_receive(self, _context: Any, intent: Any) -> None:
        # Runs on a Java thread: never let an exception escape into Java.
        api = self._transport.api
        try:
            action = intent.getAction()
            if action in (api.ACTION_FOUND, api.ACTION_NAME_CHANGED):
                raw = intent.getParcelableExtra(api.EXTRA_DEVICE)
                if raw is None:
                    return
                device = api.cast("android.bluetooth.BluetoothDevice", raw)
                found = self._transport._device(device, intent.getStringExtra(api.EXTRA_NAME))
                with self._lock:
                    known = self._seen.get(found.address)
                    if action == api.ACTION_NAME_CHANGED and known is None:
                        return  # a renamed device this inquiry has not found
                    if known is not None and (known.name or not found.name):
                        return  # nothing new to show
                    self._seen[found.address] = found
                self._on_found(found)
            elif action == api.ACTION_DISCOVERY_FINISHED:
                self.running = False
                if self._on_finished is not None:
                    self._on_finished()
        except Exception:
            log.exception("discovery callback failed")

    def stop(self) -> None:
        """Cancel the inquiry and unregister (idempotent, never raises)."""
        self.running = False
        receiver, self._receiver = self._receiver, None
        self._transport._cancel_discovery()
        if receiver is not None:
            try:
                receiver.stop()
            except Exception:
                log.debug("unregistering the discovery receiver failed", exc_info=True)
        if self._transport._discovery is self:
            self._transport._discovery = None


class AndroidTransport:
    """RFCOMM through the Android Bluetooth API. Construct it on the main thread.

    ``api``, ``permissions_module``, ``broadcast_module`` and ``activity_module``
    default to the real pyjnius classes and python-for-android modules; tests pass
    stand-ins for the modules (the Java side is replaced on the class path instead).
    ``on_main`` runs a function on the main thread (see :func:`run_on_main`); ``clock``
    is the monotonic clock (seconds) the connect timeout is measured with.
    """

    name = "android"

    def __init__(
        self,
        *,
        service_uuid: str = SERVICE_UUID,
        service_name: str = SERVICE_NAME,
        secure: bool = True,
        max_frame: int = DEFAULT_MAX_FRAME,
        max_pending: int = DEFAULT_MAX_PENDING,
        api: JavaApi | None = None,
        permissions_module: Any = None,
        broadcast_module: Any = None,
        activity_module: Any = None,
        on_main: Callable[[Callable[[], None]], None] = run_on_main,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api if api is not None else JavaApi()
        self.service_uuid = service_uuid
        self.service_name = service_name
        # Secure sockets need pairing (the system shows its pairing dialog on first use);
        # insecure ones skip authentication.
        self.secure = secure
        self.max_frame = max_frame
        self.max_pending = max_pending
        self.permissions = Permissions(lambda: self.api.sdk_int, permissions_module, on_main)
        self._broadcast_module = broadcast_module
        self._activity_module = activity_module
        self._on_main = on_main
        self._clock = clock
        self._results: dict[int, Callable[[bool], None]] = {}
        self._results_bound = False
        self._uuid = self.api.UUID.fromString(service_uuid)
        self._discovery: Discovery | None = None

    # -- state ----------------------------------------------------------------------------

    def adapter(self) -> Any:
        """The Bluetooth adapter, ready to use: ``no_adapter`` / ``bluetooth_off`` if not."""
        adapter = self.api.BluetoothAdapter.getDefaultAdapter()
        if adapter is None:
            raise TransportError("no_adapter", "this device has no Bluetooth")
        if not adapter.isEnabled():
            raise TransportError("bluetooth_off", "Bluetooth is switched off")
        return adapter

    def state(self) -> str:
        """``"on"``, ``"off"`` or ``"no_adapter"``, without raising (for the UI)."""
        try:
            self.adapter()
        except TransportError as exc:
            return "off" if exc.code == "bluetooth_off" else exc.code
        return "on"

    def request_enable(self, on_done: Callable[[bool], None] | None = None) -> bool:
        """Show the system dialog that asks to switch Bluetooth on; False if already on.

        ``on_done(on)`` runs on the main thread once the player answered (``on`` is
        whether Bluetooth is on now). Call it on the main thread.
        """
        self.permissions.check("connect")
        adapter = self.api.BluetoothAdapter.getDefaultAdapter()
        if adapter is None:
            raise TransportError("no_adapter", "this device has no Bluetooth")
        if adapter.isEnabled():
            return False
        intent = self.api.Intent(self.api.BluetoothAdapter.ACTION_REQUEST_ENABLE)
        self._start_for_result(
            intent, REQUEST_ENABLE_CODE, lambda _ok: on_done and on_done(self.state() == "on")
        )
        return True

    def request_discoverable(
        self, seconds: int = 300, on_done: Callable[[bool], None] | None = None
    ) -> None:
        """Show the system dialog that makes this phone visible to discovery (the host,
        for guests that have not paired with it) for ``seconds`` (1-3600).

        ``on_done(visible)`` runs on the main thread with the player's answer. Call it on
        the main thread.
        """
        if not 1 <= seconds <= 3600:
            raise ValueError(f"discoverable time must be 1..3600 s, got {seconds}")
        self.permissions.check("advertise")
        self.adapter()
        bt = self.api.BluetoothAdapter
        intent = self.api.Intent(bt.ACTION_REQUEST_DISCOVERABLE)
        # Through a Bundle: pyjnius would pick putExtra(String, long) or (String, boolean)
        # for a Python int, and Android ignores a long here. Bundle.putInt has one overload.
        extras = self.api.Bundle()
        extras.putInt(bt.EXTRA_DISCOVERABLE_DURATION, int(seconds))
        intent.putExtras(extras)
        self._start_for_result(intent, REQUEST_DISCOVERABLE_CODE, on_done)

    def _start_for_result(
        self, intent: Any, code: int, on_done: Callable[[bool], None] | None
    ) -> None:
        activity = self.api.activity
        if activity is None:
            raise TransportError("unsupported", "no python-for-android activity to show a dialog")
        if not self._results_bound:
            module = self._activity_module
            if module is None:
                try:
                    import android.activity as module  # python-for-android, on device only
                except ImportError as exc:
                    raise TransportError(
                        "unsupported", "android.activity (python-for-android) is not available"
                    ) from exc
                self._activity_module = module
            module.bind(on_activity_result=self._on_activity_result)
            self._results_bound = True
        if on_done is not None:
            self._results[code] = on_done
        with java_errors(self.api, "unsupported", "showing a system dialog"):
            activity.startActivityForResult(intent, code)

    def _on_activity_result(self, code: int, result: int, _intent: Any) -> None:
        # On Android's UI thread; the answer goes to the main thread. Enable: RESULT_OK
        # (-1) or RESULT_CANCELED; discoverable: the granted seconds or RESULT_CANCELED.
        callback = self._results.pop(code, None)
        if callback is not None:
            accepted = result != RESULT_CANCELED
            self._on_main(lambda: callback(accepted))

    def open_settings(self, which: str) -> None:
        """Open the system settings: ``"app"`` (this app's permissions, for a permission
        Android no longer asks for) or ``"location"`` (the Location switch)."""
        from jnius import autoclass  # framework classes: found from any thread

        settings = autoclass("android.provider.Settings")
        if which == "app":
            intent = self.api.Intent(settings.ACTION_APPLICATION_DETAILS_SETTINGS)
            activity = self.api.activity
            package = "" if activity is None else activity.getPackageName()
            intent.setData(autoclass("android.net.Uri").fromParts("package", package, None))
        elif which == "location":
            intent = self.api.Intent(settings.ACTION_LOCATION_SOURCE_SETTINGS)
        else:
            raise ValueError(f"unknown settings {which!r}; expected app or location")
        activity = self.api.activity
        if activity is None:
            raise TransportError("unsupported", "no python-for-android activity to open settings")
        with java_errors(self.api, "unsupported", "opening the settings"):
            activity.startActivity(intent)

    def location_blocks_discovery(self) -> bool:
        """True on Android 10/11 with the Location switch off: discovery then finds
        nothing although it starts fine, so the player must be told. Never raises."""
        if self.api.sdk_int not in LOCATION_SWITCH_APIS:
            return False
        try:
            service = self.api.activity.getSystemService(self.api.Context.LOCATION_SERVICE)
            manager = self.api.cast("android.location.LocationManager", service)
            return not manager.isLocationEnabled()
        except Exception:  # unknown: do not warn
            log.debug("could not read the Location switch", exc_info=True)
            return False

    def ensure_permissions(self, *uses: str, timeout: float = 120.0) -> None:
        """Ask for what ``uses`` need and wait (worker thread only); see :class:`Permissions`."""
        self.permissions.ensure(*uses, timeout=timeout)

    # -- devices --------------------------------------------------------------------------

    def _device(self, device: Any, fallback_name: str | None = None) -> Device:
        with java_errors(self.api, "io_error", "reading a device"):
            name = device.getName() or fallback_name or ""
            paired = device.getBondState() == self.api.BOND_BONDED
            bt_class = device.getBluetoothClass()
            major = MAJOR_UNCATEGORIZED if bt_class is None else bt_class.getMajorDeviceClass()
        return Device(str(device.getAddress()), str(name), bool(paired), int(major))

    def paired_devices(self) -> list[Device]:
        """Paired phones, by name: the quick way to find a host (offer it first)."""
        self.permissions.check("connect")
        adapter = self.adapter()
        with java_errors(self.api, "io_error", "listing paired devices"):
            bonded = adapter.getBondedDevices()
            items = [] if bonded is None else bonded.toArray()
            devices = [
                self._device(self.api.cast("android.bluetooth.BluetoothDevice", d)) for d in items
            ]
        return sorted(devices, key=lambda d: (d.name.casefold(), d.address))

    def discover(
        self, on_found: Callable[[Device], None], on_finished: Callable[[], None] | None = None
    ) -> Discovery:
        """Start a :class:`Discovery` (stopping any earlier one); returns it."""
        self.stop_discovery()
        discovery = Discovery(self, on_found, on_finished, self._broadcast_module)
        discovery.start()
        self._discovery = discovery
        return discovery

    def stop_discovery(self) -> None:
        """Stop our discovery, if one runs."""
        if self._discovery is not None:
            self._discovery.stop()

    def _cancel_discovery(self) -> None:
        # cancelDiscovery needs BLUETOOTH_SCAN on API 31+ (without it we cannot have
        # started one); below it needs only BLUETOOTH_ADMIN, granted at install, even
        # when the player declined location.
        if self.api.sdk_int >= API_S and self.permissions.missing("scan"):
            return
        adapter = self.api.BluetoothAdapter.getDefaultAdapter()
        try:
            if adapter is not None and adapter.isEnabled():
                adapter.cancelDiscovery()
        except self.api.JavaException:
            log.debug("cancelDiscovery failed", exc_info=True)

    # -- links ----------------------------------------------------------------------------

    def _link(self, socket: Any, inbox: Inbox | None) -> Link:
        try:
            stream = JavaSocketStream(self.api, socket)
            peer = "bt:" + str(socket.getRemoteDevice().getAddress())
        except (TransportError, self.api.JavaException):
            with suppress(self.api.JavaException):
                socket.close()
            raise
        return StreamLink(
            stream, peer, inbox=inbox, max_frame=self.max_frame, max_pending=self.max_pending
        )

    def listen(self) -> AndroidListener:
        """Register the service and listen for guests (no discovery runs meanwhile)."""
        self.permissions.check("connect")
        adapter = self.adapter()
        self.stop_discovery()
        with java_errors(self.api, "listen_failed", "registering the service"):
            if self.secure:
                server = adapter.listenUsingRfcommWithServiceRecord(self.service_name, self._uuid)
            else:
                server = adapter.listenUsingInsecureRfcommWithServiceRecord(
                    self.service_name, self._uuid
                )
            name = adapter.getName() or ""
        return AndroidListener(self, server, f"bt:{name}")

    def connect(
        self,
        address: str,
        *,
        timeout: float = 15.0,
        inbox: Inbox | None = None,
        attempts: int = 2,
    ) -> Link:
        """Connect to the host phone at ``address`` (``"AA:BB:CC:DD:EE:FF"``; blocking).

        Cancels discovery first. A first ``connect()`` often fails on real radios, so it
        is tried ``attempts`` times within ``timeout``; when the time is up a watchdog
        closes the socket, which aborts the blocked call. While the phones show their
        pairing dialog (a first secure connection to an unpaired host: the bond state is
        BONDING) the timeout does not run; the players get up to
        :data:`PAIRING_TIMEOUT` to confirm it, and once paired the timeout starts afresh.
        """
        api = self.api
        address = address.removeprefix("bt:").upper()
        self.permissions.check("connect")
        adapter = self.adapter()
        if not api.BluetoothAdapter.checkBluetoothAddress(address):
            raise TransportError("bad_address", f"not a Bluetooth address: {address!r}")
        self.stop_discovery()
        self._cancel_discovery()
        with java_errors(api, "bad_address", f"looking up {address}"):
            device = adapter.getRemoteDevice(address)
        budget = _Budget(self._clock, timeout, lambda: self._bonding(device))
        failure = "no attempt made"
        for attempt in range(max(1, attempts)):
            if budget.left() <= 0:
                break
            if attempt:
                time.sleep(min(0.3, budget.left() / 2))
            with java_errors(api, "connect_failed", f"opening a socket to {address}"):
                if self.secure:
                    socket = device.createRfcommSocketToServiceRecord(self._uuid)
                else:
                    socket = device.createInsecureRfcommSocketToServiceRecord(self._uuid)
            watchdog = _Watchdog(api, socket, budget)
            try:
                socket.connect()
            except api.JavaException as exc:
                error = _translate(exc, "connect_failed", f"connecting to {address}")
                if error.code == "permission_denied":
                    raise error from exc
                if watchdog.fired.is_set():
                    raise TransportError(
                        "timeout", f"no answer from {address} in {timeout} s"
                    ) from exc
                with suppress(api.JavaException):
                    socket.close()
                self.adapter()  # bluetooth_off / no_adapter if that is the cause
                failure = str(error)
                log.info("connect attempt %d to %s failed: %s", attempt + 1, address, failure)
                continue
            finally:
                watchdog.stop()
            if watchdog.fired.is_set():  # the watchdog fired just as connect() returned
                raise TransportError("timeout", f"no answer from {address} in {timeout} s")
            return self._link(socket, inbox)
        raise TransportError("connect_failed", f"cannot connect to {address}: {failure}")

    def _bonding(self, device: Any) -> bool:
        try:
            return device.getBondState() == self.api.BOND_BONDING
        except Exception:  # a revoked permission: no pairing we could wait for
            return False


class _Budget:
    """The time a connection may take on ``clock``: ``timeout``, suspended while the
    phones pair (up to :data:`PAIRING_TIMEOUT`) and given afresh once they have."""

    def __init__(
        self, clock: Callable[[], float], timeout: float, pairing: Callable[[], bool]
    ) -> None:
        self._clock = clock
        self._pairing = pairing
        self._timeout = timeout
        self._deadline = clock() + timeout
        self._pairing_since: float | None = None
        self._lock = threading.Lock()

    def left(self) -> float:
        """Seconds left (<= 0: time is up); while pairing, the pairing time left."""
        with self._lock:
            now = self._clock()
            if self._pairing():
                if self._pairing_since is None:
                    self._pairing_since = now
                return self._pairing_since + PAIRING_TIMEOUT - now
            if self._pairing_since is not None:  # paired: the connection goes on from here
                self._deadline = max(self._deadline, now + self._timeout)
                self._pairing_since = None
            return self._deadline - now


class _Watchdog:
    """Closes ``socket`` (aborting a blocked ``connect()``) when ``budget`` runs out."""

    def __init__(self, api: JavaApi, socket: Any, budget: _Budget) -> None:
        self.fired = threading.Event()
        self._done = threading.Event()
        self._api = api
        self._socket = socket
        self._budget = budget
        self._thread = threading.Thread(target=self._run, name="connect-watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._done.wait(WATCH_STEP):
                if self._budget.left() <= 0:
                    self.fired.set()
                    with suppress(Exception):
                        self._socket.close()
                    return
        finally:
            self._api.detach_quietly()

    def stop(self) -> None:
        """End the watch (the connect call returned)."""
        self._done.set()
        self._thread.join()
