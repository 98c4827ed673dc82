"""Android RFCOMM links through pyjnius (the phone build).

The host listens for guests under a fixed service UUID
(``BluetoothAdapter.listenUsingRfcommWithServiceRecord``); a guest opens
``BluetoothDevice.createRfcommSocketToServiceRecord(SERVICE_UUID)`` to the host's
device and ``connect()``s, which finds the RFCOMM channel through SDP. Guests find
hosts among the paired devices (:meth:`AndroidTransport.paired_devices`, fast and
reliable: offer it first) or by discovery (:class:`Discovery`, a ~12 s inquiry).

The transport is split by concern; this module holds :class:`AndroidTransport` (the
adapter's state, the system dialogs, listening and connecting) and re-exports the public
names of the others, so ``app.bluetooth.android`` stays the one import of the phone build:

* :mod:`app.bluetooth.android_java` -- the Java classes, looked up once on the main thread,
  Java exceptions as :class:`~app.bluetooth.errors.TransportError`, :func:`run_on_main`;
* :mod:`app.bluetooth.android_permissions` -- the runtime permissions, requested when the
  player is about to host or join and *checked again before every use*;
* :mod:`app.bluetooth.android_discovery` -- paired devices and the inquiry;
* :mod:`app.bluetooth.android_socket` -- RFCOMM sockets as links, the connect watchdog.

Rules the transport keeps (from the issue trackers of comparable apps):

* Java classes and every Java callback of python-for-android's (permission answers,
  activity results, broadcast receivers) are created on the main thread.
* Blocking calls (``accept``, ``connect``, ``read``, ``write``) run on worker threads;
  every thread of ours that touched Java calls ``jnius.detach()`` before it ends.
* Discovery is cancelled before connecting (it slows RFCOMM down to failure), and is
  never left running during a game.
* A refused or revoked permission, Bluetooth switched off, or no adapter at all give a
  :class:`~app.bluetooth.errors.TransportError` with code
  ``permission_denied`` / ``bluetooth_off`` / ``no_adapter``, never a crash.
* Players are known by an app-generated id (:mod:`app.bluetooth.ids`), not by the
  Bluetooth address, which a phone cannot even read for itself.

Off the device the same code runs against stand-in Java classes on a desktop JVM
(tests/java, see tests/test_transport_android.py and docs/transport.md).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import suppress

from app.bluetooth.android_discovery import (
    MAJOR_COMPUTER,
    MAJOR_PHONE,
    MAJOR_UNCATEGORIZED,
    Device,
    Discovery,
    cancel_discovery,
    device_from_java,
    merge_devices,
)
from app.bluetooth.android_java import (
    JavaApi,
    java_errors,
    p4a_module,
    run_on_main,
    translate_java_error,
)
from app.bluetooth.android_permissions import (
    API_M,
    API_S,
    LOCATION_SWITCH_APIS,
    PERMISSION_ADVERTISE,
    PERMISSION_CONNECT,
    PERMISSION_FINE_LOCATION,
    PERMISSION_SCAN,
    USES,
    Permissions,
    PermissionsModule,
    permissions_for,
)
from app.bluetooth.android_service import TableKeeper
from app.bluetooth.android_socket import (
    PAIRING_TIMEOUT,
    AndroidListener,
    ConnectBudget,
    ConnectWatchdog,
    open_link,
)
from app.bluetooth.android_types import (
    ActivityModule,
    BluetoothAdapter,
    BluetoothDevice,
    BluetoothSocket,
    BroadcastModule,
    Intent,
    JavaUuid,
)
from app.bluetooth.errors import TransportError
from app.bluetooth.framing import DEFAULT_MAX_FRAME
from app.bluetooth.link import DEFAULT_MAX_PENDING, Inbox, Link

__all__ = [
    "API_M",
    "API_S",
    "LOCATION_SWITCH_APIS",
    "MAJOR_COMPUTER",
    "MAJOR_PHONE",
    "MAJOR_UNCATEGORIZED",
    "PAIRING_TIMEOUT",
    "PERMISSION_ADVERTISE",
    "PERMISSION_CONNECT",
    "PERMISSION_FINE_LOCATION",
    "PERMISSION_SCAN",
    "REQUEST_DISCOVERABLE_CODE",
    "REQUEST_ENABLE_CODE",
    "RESULT_CANCELED",
    "SERVICE_NAME",
    "SERVICE_UUID",
    "USES",
    "AndroidListener",
    "AndroidTransport",
    "Device",
    "Discovery",
    "JavaApi",
    "Permissions",
    "merge_devices",
    "permissions_for",
    "run_on_main",
]

log = logging.getLogger(__name__)

#: The RFCOMM service every blu21 host registers and every guest looks up (uuid5 of
#: "oczko.blu21.invalid"); changing it splits old and new apps into separate worlds.
SERVICE_UUID = "36c63c03-c78a-54d1-b3db-ce14a532598c"
#: Name of the SDP service record.
SERVICE_NAME = "blu21 Oczko"

#: ``Activity.RESULT_CANCELED``: a system dialog refused or dismissed.
RESULT_CANCELED = 0
#: Request codes of our system dialogs (``startActivityForResult``).
REQUEST_ENABLE_CODE = 0xB121
REQUEST_DISCOVERABLE_CODE = 0xB122


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
        secure: bool | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
        max_pending: int = DEFAULT_MAX_PENDING,
        api: JavaApi | None = None,
        permissions_module: PermissionsModule | None = None,
        broadcast_module: BroadcastModule | None = None,
        activity_module: ActivityModule | None = None,
        on_main: Callable[[Callable[[], None]], None] = run_on_main,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api if api is not None else JavaApi()
        self.service_uuid = service_uuid
        self.service_name = service_name
        # True: authenticated links only (pairing dialogs on both phones the first time);
        # False: unauthenticated only; None (the default): the host listens insecure, so it
        # accepts every guest without a dialog of its own (AOSP accepts an incoming Just
        # Works pairing by itself), and a guest connects secure to a phone it is paired
        # with (no dialog) and insecure otherwise (one yes/no on the guest, no bond kept).
        # The table needs no link-level authentication: its security is the signatures and
        # the SRA shuffle between the players' own keys (docs/android.md, "Pairing").
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
        self._uuid: JavaUuid = self.api.UUID.fromString(service_uuid)
        self._discovery: Discovery | None = None
        #: until when (``clock``) Android made this phone visible at our request
        self._visible_until: float | None = None
        self._keeper: TableKeeper | None = None

    # -- state ----------------------------------------------------------------------------

    def adapter(self) -> BluetoothAdapter:
        """The Bluetooth adapter, ready to use: ``no_adapter`` / ``bluetooth_off`` if not."""
        adapter: BluetoothAdapter | None = self.api.BluetoothAdapter.getDefaultAdapter()
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
        self, intent: Intent, code: int, on_done: Callable[[bool], None] | None
    ) -> None:
        activity = self.api.activity
        if activity is None:
            raise TransportError("unsupported", "no python-for-android activity to show a dialog")
        if not self._results_bound:
            module = self._activity_module
            if module is None:
                module = self._activity_module = p4a_module("android.activity")
            module.bind(on_activity_result=self._on_activity_result)
            self._results_bound = True
        if on_done is not None:
            self._results[code] = on_done
        with java_errors(self.api, "unsupported", "showing a system dialog"):
            activity.startActivityForResult(intent, code)

    def _on_activity_result(self, code: int, result: int, _intent: Intent | None) -> None:
        # On Android's UI thread; the answer goes to the main thread. Enable: RESULT_OK
        # (-1) or RESULT_CANCELED; discoverable: the granted seconds or RESULT_CANCELED.
        if code == REQUEST_DISCOVERABLE_CODE and result > 0:  # the seconds granted
            self._visible_until = self._clock() + result
        callback = self._results.pop(code, None)
        if callback is not None:
            accepted = result != RESULT_CANCELED
            self._on_main(lambda: callback(accepted))

    def keep_table_open(self, on: bool, texts: Callable[[], tuple[str, str, str]]) -> bool:
        """Run (``on``) or stop the table's foreground service, which keeps this process
        (and the table's links) up while the app is off screen; ``texts()``: the
        notification's title, text and channel name. Main thread. See
        :class:`~app.bluetooth.android_service.TableKeeper`. Never raises."""
        if self._keeper is None:
            self._keeper = TableKeeper(texts, self.permissions, self._on_main)
        if on:
            return self._keeper.open()
        self._keeper.close()
        return True

    def visible_left(self) -> float | None:
        """Seconds this phone stays visible to discovery at our last request (0 once it
        ran out); None if Android never made it visible for us. Android grants at most
        300 s per request, so a host whose lobby stays open must ask again."""
        if self._visible_until is None:
            return None
        return max(0.0, self._visible_until - self._clock())

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
        activity = self.api.activity
        if self.api.sdk_int not in LOCATION_SWITCH_APIS or activity is None:
            return False  # (no activity: no app, so no player to tell)
        try:
            service = activity.getSystemService(self.api.Context.LOCATION_SERVICE)
            manager = self.api.cast("android.location.LocationManager", service)
            return not manager.isLocationEnabled()
        except Exception:  # unknown: do not warn
            log.debug("could not read the Location switch", exc_info=True)
            return False

    def ensure_permissions(self, *uses: str, timeout: float = 120.0) -> None:
        """Ask for what ``uses`` need and wait (worker thread only); see :class:`Permissions`."""
        self.permissions.ensure(*uses, timeout=timeout)

    # -- devices --------------------------------------------------------------------------

    def paired_devices(self) -> list[Device]:
        """Paired phones, by name: the quick way to find a host (offer it first)."""
        self.permissions.check("connect")
        adapter = self.adapter()
        with java_errors(self.api, "io_error", "listing paired devices"):
            bonded = adapter.getBondedDevices()
            items = [] if bonded is None else bonded.toArray()
            cast = self.api.cast
            devices = [
                device_from_java(self.api, cast("android.bluetooth.BluetoothDevice", d))
                for d in items
            ]
        return sorted(devices, key=lambda d: (d.name.casefold(), d.address))

    def discover(
        self, on_found: Callable[[Device], None], on_finished: Callable[[], None] | None = None
    ) -> Discovery:
        """Start a :class:`Discovery` (stopping any earlier one); returns it."""
        self.stop_discovery()
        discovery = Discovery(
            self.api,
            self.permissions,
            self.adapter,
            on_found,
            on_finished,
            self._broadcast_module,
            on_stopped=self._forget_discovery,
            location_off=self.location_blocks_discovery,
        )
        discovery.start()
        self._discovery = discovery
        return discovery

    def stop_discovery(self) -> None:
        """Stop our discovery, if one runs."""
        if self._discovery is not None:
            self._discovery.stop()

    def _forget_discovery(self, discovery: Discovery) -> None:
        if self._discovery is discovery:
            self._discovery = None

    # -- links ----------------------------------------------------------------------------

    def wrap_socket(self, socket: BluetoothSocket, inbox: Inbox | None) -> Link:
        """A connected ``BluetoothSocket`` as a link with this transport's frame limits."""
        return open_link(
            self.api, socket, inbox, max_frame=self.max_frame, max_pending=self.max_pending
        )

    def listen(self) -> AndroidListener:
        """Register the service and listen for guests (no discovery runs meanwhile)."""
        self.permissions.check("connect")
        adapter = self.adapter()
        self.stop_discovery()
        with java_errors(self.api, "listen_failed", "registering the service"):
            if self.secure:  # (None: insecure, which also takes secure guests)
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
        cancel_discovery(self.api, self.permissions)
        with java_errors(api, "bad_address", f"looking up {address}"):
            device = adapter.getRemoteDevice(address)
        budget = ConnectBudget(self._clock, timeout, lambda: self._bonding(device))
        failure = "no attempt made"
        for attempt in range(max(1, attempts)):
            if budget.left() <= 0:
                break
            if attempt:
                time.sleep(min(0.3, budget.left() / 2))
            with java_errors(api, "connect_failed", f"opening a socket to {address}"):
                secure = self.secure
                if secure is None:  # authenticated when paired already: no dialog either way
                    secure = device.getBondState() == api.BOND_BONDED
                if secure:
                    socket = device.createRfcommSocketToServiceRecord(self._uuid)
                else:
                    socket = device.createInsecureRfcommSocketToServiceRecord(self._uuid)
            watchdog = ConnectWatchdog(api, socket, budget)
            try:
                socket.connect()
            except api.JavaException as exc:
                error = translate_java_error(exc, "connect_failed", f"connecting to {address}")
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
            return self.wrap_socket(socket, inbox)
        raise TransportError("connect_failed", f"cannot connect to {address}: {failure}")

    def _bonding(self, device: BluetoothDevice) -> bool:
        try:
            return bool(device.getBondState() == self.api.BOND_BONDING)
        except Exception:  # a revoked permission: no pairing we could wait for
            return False
