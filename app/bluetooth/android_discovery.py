"""Finding hosts: the paired devices and a Bluetooth inquiry (discovery).

Guests find hosts among the paired devices (fast and reliable: offer them first) or by
discovery (:class:`Discovery`, a ~12 s inquiry, cancelled before connecting since it slows
RFCOMM down to failure, and never left running during a game).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.bluetooth.android_java import JavaApi, java_errors, p4a_module
from app.bluetooth.android_permissions import API_S, Permissions
from app.bluetooth.android_types import (
    BluetoothAdapter,
    BluetoothDevice,
    BroadcastModule,
    BroadcastReceiver,
    Intent,
)
from app.bluetooth.errors import TransportError

log = logging.getLogger(__name__)

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


def device_from_java(
    api: JavaApi, device: BluetoothDevice, fallback_name: str | None = None
) -> Device:
    """The :class:`Device` of a Java ``BluetoothDevice`` (``fallback_name``: the name a
    broadcast carried, for a device that does not know its own yet)."""
    with java_errors(api, "io_error", "reading a device"):
        name = device.getName() or fallback_name or ""
        paired = device.getBondState() == api.BOND_BONDED
        bt_class = device.getBluetoothClass()
        major = MAJOR_UNCATEGORIZED if bt_class is None else bt_class.getMajorDeviceClass()
    return Device(str(device.getAddress()), str(name), bool(paired), int(major))


def cancel_discovery(api: JavaApi, permissions: Permissions) -> None:
    """Cancel any inquiry of this phone's adapter (never raises)."""
    # cancelDiscovery needs BLUETOOTH_SCAN on API 31+ (without it we cannot have started
    # one); below it needs only BLUETOOTH_ADMIN, granted at install, even when the player
    # declined location.
    if api.sdk_int >= API_S and permissions.missing("scan"):
        return
    adapter = api.BluetoothAdapter.getDefaultAdapter()
    try:
        if adapter is not None and adapter.isEnabled():
            adapter.cancelDiscovery()
    except api.JavaException:
        log.debug("cancelDiscovery failed", exc_info=True)


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

    Made by :meth:`AndroidTransport.discover`, which passes its Java classes, permissions
    and ``adapter()`` (the ready adapter, or ``no_adapter`` / ``bluetooth_off``);
    ``on_stopped(self)`` runs after every :meth:`stop`.
    """

    def __init__(
        self,
        api: JavaApi,
        permissions: Permissions,
        adapter: Callable[[], BluetoothAdapter],
        on_found: Callable[[Device], None],
        on_finished: Callable[[], None] | None = None,
        broadcast: BroadcastModule | None = None,
        on_stopped: Callable[[Discovery], None] | None = None,
        location_off: Callable[[], bool] | None = None,
    ) -> None:
        self._api = api
        self._location_off = location_off
        self._permissions = permissions
        self._adapter = adapter
        self._on_stopped = on_stopped
        self._on_found = on_found
        self._on_finished = on_finished
        self._broadcast = broadcast
        self._receiver: BroadcastReceiver | None = None
        self._seen: dict[str, Device] = {}
        self._lock = threading.Lock()
        self.running = False

    def start(self) -> None:
        """Register for results and start the inquiry (checks permissions and adapter)."""
        api = self._api
        self._permissions.check("scan")
        adapter = self._adapter()
        broadcast = self._broadcast
        if broadcast is None:
            broadcast = p4a_module("android.broadcast")
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
                # Android 10/11 refuse an inquiry while the Location switch is off (AOSP
                # checks the caller's fine location, the switch included): say so.
                if self._location_off is not None and self._location_off():
                    raise TransportError(
                        "location_off", "Android 10/11 search only while Location is on"
                    )
                raise TransportError("discovery_failed", "the adapter refused to start discovery")
        except TransportError:
            self.stop()
            raise

    def _on_receive(self, _context: object, intent: Intent) -> None:
        # Runs on a Java thread: never let an exception escape into Java.
        api = self._api
        try:
            action = intent.getAction()
            if action in (api.ACTION_FOUND, api.ACTION_NAME_CHANGED):
                raw = intent.getParcelableExtra(api.EXTRA_DEVICE)
                if raw is None:
                    return
                device = api.cast("android.bluetooth.BluetoothDevice", raw)
                found = device_from_java(api, device, intent.getStringExtra(api.EXTRA_NAME))
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
        cancel_discovery(self._api, self._permissions)
        if receiver is not None:
            try:
                receiver.stop()
            except Exception:
                log.debug("unregistering the discovery receiver failed", exc_info=True)
        if self._on_stopped is not None:
            self._on_stopped(self)
