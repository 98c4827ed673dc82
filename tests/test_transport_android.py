"""The Android RFCOMM transport (app/bluetooth/android.py) against a real JVM.

The app code runs unchanged through pyjnius against stand-in Java classes
(tests/java/android/...: BluetoothAdapter, BluetoothDevice, BluetoothSocket,
BluetoothServerSocket, Build.VERSION, Bundle, Intent, Context, Parcelable; and
tests/java/org/kivy/android/PythonActivity for python-for-android's activity) that mimic the
public Android API and carry RFCOMM over loopback TCP; tests/java/android/bluetooth/
Standin.java lets a test play the system (Bluetooth off, permissions, paired and
nearby phones, API level). python-for-android's ``android.permissions`` and
``android.broadcast`` modules exist only on a phone: small fakes are put into
``sys.modules`` here (the app imports them lazily).

How it runs: a session fixture compiles the Java sources with ``javac`` into a
temporary directory. The class path must be set with ``jnius_config`` before jnius
starts the JVM, and a process can start only one JVM, so every scenario runs in a
fresh ``python`` subprocess (this file run as a script) with a hard timeout; the
subprocess sets the class path, imports jnius, installs the fake modules and calls
``scenario_<name>()``.

Finding the JDK: ``JAVA_HOME`` if it holds ``bin/javac`` and a ``libjvm.so``, else
the JDK of the ``javac`` on PATH, else the first JDK under /usr/lib/jvm. pyjnius
loads ``libjvm.so`` from ``JAVA_HOME``, which the subprocess gets set explicitly.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

JAVA_SOURCES = Path(__file__).resolve().parent / "java"
SCENARIO_TIMEOUT = 300.0  # hang guard for one subprocess (JVM start included), not a speed target

# ------------------------------------------------------------------------------------
# Finding a JDK
# ------------------------------------------------------------------------------------


def _has_jvm(home: Path) -> bool:
    return (home / "bin" / "javac").exists() and any(home.glob("lib/**/libjvm.so"))


def find_java_home() -> Path | None:
    """A JDK home with javac and libjvm.so (see the module docstring for the order)."""
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    javac = shutil.which("javac")
    if javac:
        candidates.append(Path(javac).resolve().parent.parent)
    jvm_dir = Path("/usr/lib/jvm")
    if jvm_dir.is_dir():
        candidates += sorted(p for p in jvm_dir.iterdir() if p.is_dir())
    return next((home for home in candidates if _has_jvm(home)), None)


def _scenarios() -> list[str]:
    return sorted(
        name.removeprefix("scenario_") for name in globals() if name.startswith("scenario_")
    )


# ------------------------------------------------------------------------------------
# Child side (one JVM per scenario)
# ------------------------------------------------------------------------------------

HOST = "02:00:00:00:00:01"  # the stand-in phone's own address (Standin.localAddress)
WAIT = 60.0  # hang guard on every wait inside a scenario, not a speed target


class Fakes:
    """Stand-ins for python-for-android's android.permissions / android.broadcast."""

    def __init__(self, jnius: Any) -> None:
        self.jnius = jnius
        self.Standin = jnius.autoclass("android.bluetooth.Standin")
        self.user_grants: set[str] | None = None  # None: the user grants everything asked
        self.user_answers = True
        self.requests: list[list[str]] = []
        self.checks_lie = False  # check_permission says yes whatever Java says

    def install(self) -> None:
        android = types.ModuleType("android")
        android.__path__ = []  # a package
        permissions = types.ModuleType("android.permissions")
        permissions.check_permission = self.check_permission
        permissions.request_permissions = self.request_permissions
        broadcast = types.ModuleType("android.broadcast")
        broadcast.BroadcastReceiver = self._broadcast_receiver_class()
        runnable = types.ModuleType("android.runnable")
        runnable.run_on_ui_thread = self.run_on_ui_thread
        android.permissions = permissions
        android.broadcast = broadcast
        android.runnable = runnable
        sys.modules.update(
            {
                "android": android,
                "android.permissions": permissions,
                "android.broadcast": broadcast,
                "android.runnable": runnable,
            }
        )

    def run_on_ui_thread(self, f: Any) -> Any:
        """Like python-for-android's decorator: the call is posted to the UI thread and
        returns at once."""

        def posted(*args: Any, **kwargs: Any) -> None:
            def ui() -> None:
                f(*args, **kwargs)
                self.jnius.detach()

            threading.Thread(target=ui, daemon=True).start()

        return posted

    def check_permission(self, permission: str) -> bool:
        return self.checks_lie or bool(self.Standin.hasPermission(permission))

    def request_permissions(self, permissions: list[str], callback: Any = None) -> None:
        # Like the phone: the answer comes later, on another (UI) thread.
        self.requests.append(list(permissions))
        if not self.user_answers:
            return

        def answer() -> None:
            grants = []
            for p in permissions:
                granted = self.user_grants is None or p in self.user_grants
                if granted:
                    self.Standin.setPermission(p, True)
                grants.append(granted)
            if callback is not None:
                callback(permissions, grants)
            self.jnius.detach()

        threading.Thread(target=answer, daemon=True).start()

    def _broadcast_receiver_class(self) -> type:
        jnius, Standin = self.jnius, self.Standin

        class Callback(jnius.PythonJavaClass):
            __javainterfaces__ = ("android/bluetooth/Standin$ReceiverCallback",)

            def __init__(self, callback: Any) -> None:
                super().__init__()
                self.callback = callback

            @jnius.java_method("(Landroid/content/Context;Landroid/content/Intent;)V")
            def onReceive(self, context: Any, intent: Any) -> None:
                self.callback(context, intent)

        class BroadcastReceiver:
            """Same constructor and start/stop as python-for-android's."""

            def __init__(self, callback: Any, actions: Any = None, categories: Any = None) -> None:
                if not actions and not categories:
                    raise Exception("You need to define at least actions or categories")
                self.actions = list(actions or [])
                self.listener = Callback(callback)

            def start(self) -> None:
                Standin.registerReceiver(self.listener, self.actions)

            def stop(self) -> None:
                Standin.unregisterReceiver(self.listener)

        return BroadcastReceiver


def _until(predicate: Any, what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _expect_error(code: str, call: Any, *args: Any, **kwargs: Any) -> Any:
    from app.bluetooth.errors import TransportError

    try:
        call(*args, **kwargs)
    except TransportError as exc:
        assert exc.code == code, f"expected {code}, got {exc.code}: {exc}"
        return exc
    raise AssertionError(f"expected TransportError {code}")


def _events(inbox: queue.Queue, n: int) -> list[Any]:
    return [inbox.get(timeout=WAIT) for _ in range(n)]


def _transport(fakes: Fakes, **kwargs: Any) -> Any:
    from app.bluetooth.android import AndroidTransport

    return AndroidTransport(**kwargs)


def scenario_host_and_two_guests(fakes: Fakes) -> None:
    """Host listens, two guests connect, frames both ways, one guest leaves."""
    from app.bluetooth.link import Acceptor, Closed, Opened, Received

    host = _transport(fakes)
    guest = _transport(fakes)
    detaches = []
    real_detach = host.api.detach
    host.api.detach = lambda: (detaches.append(threading.current_thread().name), real_detach())
    inbox: queue.Queue = queue.Queue()
    listener = host.listen()
    acceptor = Acceptor(listener, inbox)
    g1 = guest.connect(HOST, timeout=WAIT)
    g2 = guest.connect("bt:" + HOST.lower(), timeout=WAIT)
    opened = _events(inbox, 2)
    assert all(isinstance(e, Opened) for e in opened)
    h1, h2 = (e.link for e in opened)
    assert h1.peer == h2.peer == "bt:" + HOST  # one JVM plays all phones
    log = list(fakes.Standin.log())
    assert log.count("connect") == 2 and log.index("cancelDiscovery") < log.index("connect")

    g1.send(b"from g1")
    g2.send(b"from g2")
    got = {e.link: e.data for e in _events(inbox, 2)}
    assert sorted(got.values()) == [b"from g1", b"from g2"]
    by_guest = {got[h]: h for h in (h1, h2)}
    big = bytes(range(256)) * 400  # 100 KB: many reads, one frame
    by_guest[b"from g1"].send(big)
    by_guest[b"from g2"].send(b"to g2")
    assert g1.recv(WAIT) == big
    assert g2.recv(WAIT) == b"to g2"
    for i in range(50):  # many small frames keep their order
        g2.send(i.to_bytes(2, "big"))
    assert [int.from_bytes(e.data, "big") for e in _events(inbox, 50)] == list(range(50))

    g1.close()
    closed = inbox.get(timeout=WAIT)
    assert isinstance(closed, Closed) and closed.link is by_guest[b"from g1"]
    assert closed.code == "peer_closed", closed
    by_guest[b"from g2"].send(b"still here")
    assert g2.recv(WAIT) == b"still here"
    g2.send(b"me too")
    event = inbox.get(timeout=WAIT)
    assert isinstance(event, Received) and event.data == b"me too"

    assert acceptor.stop(WAIT)
    for link in (g2, *by_guest.values()):
        link.close()
    for link in (g1, g2, *by_guest.values()):
        assert link.join(WAIT)
    _until(lambda: fakes.Standin.openSockets() == 0, "every socket closed")
    # Each host link has a reader and a writer; each detached, as did the acceptor.
    assert len([n for n in detaches if n.startswith("link")]) == 4, detaches
    assert "acceptor" in detaches


def scenario_guest_sees_host_leave(fakes: Fakes) -> None:
    from app.bluetooth.errors import LinkClosed

    host = _transport(fakes)
    listener = host.listen()
    guest = _transport(fakes).connect(HOST, timeout=WAIT)
    seat = listener.accept(timeout=WAIT)
    seat.send(b"table closed")
    seat.close()
    listener.close()
    assert guest.recv(WAIT) == b"table closed"
    try:
        guest.recv(WAIT)
    except LinkClosed as exc:
        assert exc.code == "peer_closed"
    else:
        raise AssertionError("the guest must see the host leave")
    _expect_error("closed", listener.accept, timeout=1)


def scenario_malformed_frame_closes_only_that_link(fakes: Fakes) -> None:
    from app.bluetooth.link import Acceptor, Closed, Opened

    host = _transport(fakes)
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(host.listen(), inbox)
    good = _transport(fakes).connect(HOST, timeout=WAIT)
    # A rogue peer that speaks raw bytes: a Java socket of its own, no framing.
    device = host.api.BluetoothAdapter.getDefaultAdapter().getRemoteDevice(HOST)
    rogue = device.createRfcommSocketToServiceRecord(host._uuid)
    rogue.connect()
    links = [e.link for e in _events(inbox, 2) if isinstance(e, Opened)]
    assert len(links) == 2
    rogue.getOutputStream().write(b"GET / HTTP/1.1\r\n\r\n")
    closed = inbox.get(timeout=WAIT)
    assert isinstance(closed, Closed) and closed.code == "frame_magic", closed
    good.send(b"unaffected")
    assert inbox.get(timeout=WAIT).data == b"unaffected"
    rogue.close()
    good.close()
    acceptor.stop(WAIT)


def scenario_permission_refused(fakes: Fakes) -> None:
    from app.bluetooth.android import PERMISSION_CONNECT, PERMISSION_SCAN

    fakes.Standin.setPermission(PERMISSION_CONNECT, False)
    fakes.Standin.setPermission(PERMISSION_SCAN, False)
    fakes.user_grants = set()  # the user says no
    transport = _transport(fakes)
    assert transport.permissions.missing("connect", "scan") == [PERMISSION_CONNECT, PERMISSION_SCAN]
    exc = _expect_error("permission_denied", transport.ensure_permissions, "connect", timeout=WAIT)
    assert exc.details["missing"] == [PERMISSION_CONNECT]
    assert fakes.requests == [[PERMISSION_CONNECT]]
    for call, args in (
        (transport.listen, ()),
        (transport.connect, (HOST,)),
        (transport.paired_devices, ()),
        (transport.discover, (lambda d: None,)),
    ):
        _expect_error("permission_denied", call, *args)
    assert fakes.Standin.log() == []  # nothing touched the radio
    fakes.user_answers = False  # the dialog is dismissed without an answer
    _expect_error("permission_denied", transport.ensure_permissions, "connect", timeout=0.3)
    # Asking fails outright (python-for-android has no activity yet): an error, no crash.
    sys.modules["android.permissions"].request_permissions = None
    exc = _expect_error("permission_denied", transport.ensure_permissions, "connect", timeout=WAIT)
    assert exc.details["missing"] == [PERMISSION_CONNECT]


def scenario_permission_granted_on_request(fakes: Fakes) -> None:
    from app.bluetooth.android import PERMISSION_ADVERTISE, PERMISSION_CONNECT

    fakes.Standin.setPermission(PERMISSION_CONNECT, False)
    fakes.Standin.setPermission(PERMISSION_ADVERTISE, False)
    transport = _transport(fakes)
    answers: list[Any] = []
    transport.permissions.request(["connect", "advertise"], answers.append)
    _until(lambda: answers, "the permission answer")
    assert answers == [None]
    assert fakes.requests == [[PERMISSION_CONNECT, PERMISSION_ADVERTISE]]
    transport.ensure_permissions("connect", timeout=WAIT)  # granted now: no new dialog
    assert len(fakes.requests) == 1
    transport.listen().close()
    # Revoked in the settings while the app runs: the next use says so, no crash.
    fakes.Standin.setPermission(PERMISSION_CONNECT, False)
    _expect_error("permission_denied", transport.listen)


def scenario_permission_revoked_between_check_and_use(fakes: Fakes) -> None:
    from app.bluetooth.android import PERMISSION_CONNECT

    transport = _transport(fakes)
    fakes.Standin.setPermission(PERMISSION_CONNECT, False)
    fakes.checks_lie = True  # the check passes, Java throws SecurityException
    for call, args in (
        (transport.listen, ()),
        (transport.connect, (HOST,)),
        (transport.paired_devices, ()),
    ):
        exc = _expect_error("permission_denied", call, *args)
        assert "BLUETOOTH_CONNECT" in str(exc)


def scenario_bluetooth_off(fakes: Fakes) -> None:
    from app.bluetooth.link import Acceptor, Closed, ListenerFailed, Opened

    transport = _transport(fakes)
    assert transport.state() == "on"
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(transport.listen(), inbox)
    guest = transport.connect(HOST, timeout=WAIT, inbox=inbox)
    opened = _events(inbox, 2)
    assert all(isinstance(e, Opened) for e in opened)
    seat = next(e.link for e in opened if e.link is not guest)
    fakes.Standin.setEnabled(False)  # switched off mid-game: every link drops
    events = _events(inbox, 3)
    failed = [e for e in events if isinstance(e, ListenerFailed)]
    assert len(failed) == 1 and failed[0].error.code == "bluetooth_off", events
    closed = [e for e in events if isinstance(e, Closed)]
    codes = {e.link: e.code for e in closed}
    assert set(codes) == {guest, seat}
    assert set(codes.values()) <= {"peer_closed", "io_error"}, codes
    assert acceptor.stop(WAIT)
    assert transport.state() == "off"
    for call, args in (
        (transport.listen, ()),
        (transport.connect, (HOST,)),
        (transport.paired_devices, ()),
        (transport.discover, (lambda d: None,)),
    ):
        exc = _expect_error("bluetooth_off", call, *args)
        assert exc.to_json()["error"] == "bluetooth_off"


def scenario_no_adapter(fakes: Fakes) -> None:
    fakes.Standin.setPresent(False)
    transport = _transport(fakes)
    assert transport.state() == "no_adapter"
    _expect_error("no_adapter", transport.listen)
    _expect_error("no_adapter", transport.connect, HOST)


def scenario_android_11_needs_location_only_for_discovery(fakes: Fakes) -> None:
    from app.bluetooth.android import (
        PERMISSION_CONNECT,
        PERMISSION_FINE_LOCATION,
        PERMISSION_SCAN,
    )

    fakes.Standin.setSdk(30)
    for p in (PERMISSION_CONNECT, PERMISSION_SCAN, PERMISSION_FINE_LOCATION):
        fakes.Standin.setPermission(p, False)  # no such runtime grants before API 31
    fakes.user_grants = set()
    transport = _transport(fakes)
    assert transport.permissions.needed("connect") == ()
    transport.ensure_permissions("connect", timeout=WAIT)
    assert fakes.requests == []
    listener = transport.listen()
    guest = transport.connect(HOST, timeout=WAIT)
    seat = listener.accept(timeout=WAIT)
    guest.send(b"api 30")
    assert seat.recv(WAIT) == b"api 30"
    exc = _expect_error("permission_denied", transport.discover, lambda d: None)
    assert exc.details["missing"] == [PERMISSION_FINE_LOCATION]
    for link in (guest, seat):
        link.close()
    listener.close()


def scenario_paired_list_and_discovery(fakes: Fakes) -> None:
    from app.bluetooth.android import MAJOR_COMPUTER, MAJOR_PHONE, Device, merge_devices

    S = fakes.Standin
    S.addBonded("00:11:22:33:44:02", "zosia")
    S.addBonded("00:11:22:33:44:01", "Bartek")
    S.addBonded("00:11:22:33:44:09", "Headphones")
    S.setMajorClass("00:11:22:33:44:09", 0x0400)  # AUDIO_VIDEO
    S.addNearby("00:11:22:33:44:01", "Bartek")
    S.addNearby("00:11:22:33:44:03", "Celina")
    S.setMajorClass("00:11:22:33:44:03", MAJOR_COMPUTER)  # a tablet
    transport = _transport(fakes)
    paired = transport.paired_devices()
    assert paired == [
        Device("00:11:22:33:44:01", "Bartek", True, MAJOR_PHONE),
        Device("00:11:22:33:44:09", "Headphones", True, 0x0400),
        Device("00:11:22:33:44:02", "zosia", True, MAJOR_PHONE),
    ]
    assert [d.name for d in paired if d.likely_host] == ["Bartek", "zosia"]
    found: list[Device] = []
    finished = threading.Event()
    caller = threading.current_thread()
    threads: list[threading.Thread] = []

    def on_found(device: Device) -> None:
        threads.append(threading.current_thread())
        found.append(device)

    discovery = transport.discover(on_found, finished.set)
    assert finished.wait(WAIT)
    assert found == [
        Device("00:11:22:33:44:01", "Bartek", True, MAJOR_PHONE),
        Device("00:11:22:33:44:03", "Celina", False, MAJOR_COMPUTER),
    ]
    assert all(t is not caller for t in threads)  # results come on a Java thread
    assert [d.name for d in merge_devices(paired, found)] == [
        "Bartek",
        "Headphones",
        "zosia",
        "Celina",
    ]
    discovery.stop()
    assert S.receiverCount() == 0

    # Connecting while a discovery runs stops it first.
    S.addNearby("00:11:22:33:44:04", "Dawid")
    transport.discover(lambda d: None)
    assert S.receiverCount() == 1
    listener = transport.listen()  # hosting stops discovery too
    assert S.receiverCount() == 0
    transport.discover(lambda d: None)
    link = transport.connect(HOST, timeout=WAIT)
    assert S.receiverCount() == 0
    log = list(S.log())
    assert log[-2:] == ["cancelDiscovery", "connect"], log
    link.close()
    listener.close()


def scenario_connect_retries_a_flaky_radio(fakes: Fakes) -> None:
    transport = _transport(fakes)
    listener = transport.listen()
    fakes.Standin.failNextConnects(1)
    link = transport.connect(HOST, timeout=WAIT)
    seat = listener.accept(timeout=WAIT)
    link.send(b"second try")
    assert seat.recv(WAIT) == b"second try"
    assert list(fakes.Standin.log()).count("connect") == 2
    fakes.Standin.failNextConnects(5)
    exc = _expect_error("connect_failed", transport.connect, HOST, timeout=WAIT, attempts=2)
    assert "read failed" in str(exc)
    for each in (link, seat):
        each.close()
    listener.close()


def scenario_connect_timeout_aborts_a_blocked_connect(fakes: Fakes) -> None:
    transport = _transport(fakes)
    listener = transport.listen()
    # The radio would take an hour: only aborting at the time-out ends the call (a
    # connect that waited for the radio would run into SCENARIO_TIMEOUT).
    fakes.Standin.setConnectDelay(3_600_000)
    _expect_error("timeout", transport.connect, HOST, timeout=0.5)
    listener.close()
    _until(lambda: fakes.Standin.openSockets() == 0, "the aborted socket closed")


def scenario_connect_errors(fakes: Fakes) -> None:
    transport = _transport(fakes)
    _expect_error("bad_address", transport.connect, "not an address")
    _expect_error("bad_address", transport.connect, "00:11:22:33:44")
    exc = _expect_error("connect_failed", transport.connect, "00:11:22:33:44:55", timeout=WAIT)
    assert "Service discovery failed" in str(exc)  # nobody hosts there


def scenario_insecure_sockets_and_accept_timeout(fakes: Fakes) -> None:
    transport = _transport(fakes, secure=False)
    listener = transport.listen()
    assert "listenInsecure" in list(fakes.Standin.log())
    _expect_error("timeout", listener.accept, timeout=0.2)  # nobody connects
    guest = transport.connect(HOST, timeout=WAIT)
    seat = listener.accept(timeout=WAIT)
    seat.send(b"ok")
    assert guest.recv(WAIT) == b"ok"
    # A second host with the same service on the same phone is refused clearly.
    _expect_error("listen_failed", transport.listen)
    for link in (guest, seat):
        link.close()
    listener.close()


def scenario_system_dialogs_to_enable_and_be_discoverable(fakes: Fakes) -> None:
    from app.bluetooth.android import PERMISSION_ADVERTISE

    activity = fakes.jnius.autoclass("org.kivy.android.PythonActivity")
    transport = _transport(fakes)
    assert transport.request_enable() is False  # already on: no dialog
    fakes.Standin.setEnabled(False)
    assert transport.request_enable() is True
    _expect_error("bluetooth_off", transport.request_discoverable)
    fakes.Standin.setEnabled(True)
    transport.request_discoverable(120)
    started = list(activity.standinStarted())
    assert [i.getAction() for i in started] == [
        "android.bluetooth.adapter.action.REQUEST_ENABLE",
        "android.bluetooth.adapter.action.REQUEST_DISCOVERABLE",
    ]
    # The duration must travel as a Java int: Android ignores a long extra here.
    duration = started[1].getIntExtra("android.bluetooth.adapter.extra.DISCOVERABLE_DURATION", -1)
    assert duration == 120
    fakes.Standin.setPermission(PERMISSION_ADVERTISE, False)
    _expect_error("permission_denied", transport.request_discoverable)
    try:
        transport.request_discoverable(0)
    except ValueError:
        pass
    else:
        raise AssertionError("a zero discoverable time must be refused")
    fakes.Standin.setPresent(False)
    _expect_error("no_adapter", transport.request_enable)


def test_phones_in_separate_jvms(standin_env: dict[str, str], tmp_path: Path) -> None:
    """A host and two guests, each its own process and JVM, find each other through a
    shared registry directory (the stand-ins' "SDP"), as three phones would."""
    registry = tmp_path / "registry"
    registry.mkdir()
    base = dict(standin_env, BLU21_STANDIN_REGISTRY=str(registry))

    def start(name: str, address: str, **env: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, __file__, name],
            env=dict(base, BLU21_STANDIN_ADDRESS=address, **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    procs = [start("process_host", HOST_PHONE)]
    try:
        deadline = time.monotonic() + SCENARIO_TIMEOUT
        while not list(registry.glob("*.port")):  # the host has registered its service
            assert procs[0].poll() is None, procs[0].communicate()[0]
            assert time.monotonic() < deadline, "the host never started listening"
            time.sleep(0.05)
        procs += [start("process_guest", addr, BLU21_PHONE_NAME=n) for n, addr in PHONES.items()]
        for proc in procs:
            out, _ = proc.communicate(timeout=SCENARIO_TIMEOUT)
            assert proc.returncode == 0, out
            assert "ok" in out
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert not list(registry.glob("*.port"))  # the host unregistered on close


def _child_main(name: str) -> int:
    import faulthandler

    faulthandler.dump_traceback_later(SCENARIO_TIMEOUT - 10, exit=True)  # never hang
    import jnius_config

    jnius_config.set_classpath(os.environ["BLU21_STANDIN_CLASSES"])
    import jnius

    fakes = Fakes(jnius)
    fakes.install()
    fakes.Standin.reset()
    globals()[name if name.startswith("process_") else f"scenario_{name}"](fakes)
    print(f"scenario {name} ok")
    return 0


def scenario_the_screen_stays_on_while_a_table_runs(fakes: Fakes) -> None:
    from app.views.device import keep_screen_on

    window = fakes.jnius.autoclass("org.kivy.android.PythonActivity").mActivity.getWindow()
    keep = fakes.jnius.autoclass("android.view.WindowManager$LayoutParams").FLAG_KEEP_SCREEN_ON
    os.environ["ANDROID_ARGUMENT"] = "standin"  # what python-for-android sets
    try:
        assert keep_screen_on(True)
        _until(lambda: window.standinFlags() & keep, "the keep-screen-on flag")
        assert keep_screen_on(False)
        _until(lambda: not window.standinFlags() & keep, "the flag cleared")
        del sys.modules["android.runnable"]  # an old python-for-android: no harm done
        assert not keep_screen_on(True)
    finally:
        del os.environ["ANDROID_ARGUMENT"]
    assert not keep_screen_on(True)  # on the desktop: nothing to do


def scenario_a_whole_oczko_match_over_android_links(fakes: Fakes) -> None:
    """The table layer, unchanged, over the Android transport: a host and two guests
    play a full match with bots (the open test dealer; the clock is fake)."""
    from app.table.clock import FakeClock
    from app.table.dealer import OpenDealer
    from app.table.messages import Options
    from app.table.table import GuestTable, HostTable, simple_bot

    clock = FakeClock()
    host = HostTable(
        _transport(fakes).listen(),
        player_id="a" * 32,
        name="Ala",
        lang="pl",
        clock=clock,
        dealer_factory=lambda seat, n: OpenDealer(seat),
        options=Options(rounds=2),
        bot=simple_bot,
    )
    guests = [
        GuestTable.join(
            _transport(fakes),
            HOST,
            timeout=WAIT,
            player_id=c * 32,
            name=name,
            lang="de",
            clock=clock,
            dealer_factory=lambda seat, n: OpenDealer(seat),
            bot=simple_bot,
        )
        for c, name in (("b", "Bartek"), ("c", "Celina"))
    ]
    sides = (host, *guests)

    def run(until: Any) -> None:
        deadline = time.monotonic() + 3 * WAIT
        while not until():
            assert time.monotonic() < deadline, "the table stalled"
            for side in sides:
                side.step(0.002)

    run(lambda: all(g.seat is not None for g in guests))
    for g in guests:
        g.set_ready()
    run(lambda: host.seating.can_start())
    host.begin()
    run(lambda: all(s.phone is not None and s.phone.match.over for s in sides))
    results = {(s.phone.match.winner, s.phone.match.points) for s in sides}
    assert len(results) == 1, results
    assert all(s.phone.violation is None for s in sides)
    host.close("match_over")
    run(lambda: all(g.closed for g in guests))
    assert all(g.notices[-1].details.get("reason") == "match_over" for g in guests)


# -- several phones, one JVM each (run by test_phones_in_separate_jvms) -----------------

PHONES = {"Ala": "00:11:22:33:44:A1", "Bartek": "00:11:22:33:44:B2"}
HOST_PHONE = "00:11:22:33:44:C3"


def process_host(fakes: Fakes) -> None:
    """This JVM is the host phone: greets every guest by the address it sees, waits until
    all have left."""
    from app.bluetooth.link import Acceptor, Closed, Opened, Received

    transport = _transport(fakes)
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(transport.listen(), inbox)
    greeted: list[str] = []
    left = 0
    while left < len(PHONES):
        event = inbox.get(timeout=3 * WAIT)
        if isinstance(event, Received):
            name = event.data.decode()
            greeted.append(name)
            event.link.send(f"welcome {name}, you are {event.link.peer}".encode())
        elif isinstance(event, Closed):
            assert event.code == "peer_closed", event
            left += 1
        else:
            assert isinstance(event, Opened)
    assert sorted(greeted) == sorted(PHONES)
    assert acceptor.stop(WAIT)


def process_guest(fakes: Fakes) -> None:
    """This JVM is a guest phone that has paired with the host before."""
    name = os.environ["BLU21_PHONE_NAME"]
    fakes.Standin.addBonded(HOST_PHONE, "host phone")
    transport = _transport(fakes)
    [host] = transport.paired_devices()
    link = transport.connect(host.address, timeout=WAIT)
    link.send(name.encode())
    assert link.recv(WAIT).decode() == f"welcome {name}, you are bt:{PHONES[name]}"
    link.close()
    assert link.join(WAIT)


# ------------------------------------------------------------------------------------
# Parent side: the pytest tests (after the scenarios, which they list)
# ------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def standin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Compile the stand-ins once; the environment and class path for subprocesses."""
    home = find_java_home()
    if home is None:
        pytest.fail("no JDK found: install openjdk-17-jdk-headless or set JAVA_HOME")
    out = tmp_path_factory.mktemp("standin-classes")
    sources = sorted(str(p) for p in JAVA_SOURCES.rglob("*.java"))
    result = subprocess.run(
        [str(home / "bin" / "javac"), "--release", "11", "-d", str(out), *sources],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"javac failed:\n{result.stdout}\n{result.stderr}"
    env = dict(os.environ, JAVA_HOME=str(home), BLU21_STANDIN_CLASSES=str(out))
    return env


def test_standin_sources_cover_the_android_api_used() -> None:
    names = {p.relative_to(JAVA_SOURCES).as_posix() for p in JAVA_SOURCES.rglob("*.java")}
    for cls in ("BluetoothAdapter", "BluetoothDevice", "BluetoothSocket", "BluetoothServerSocket"):
        assert f"android/bluetooth/{cls}.java" in names
    assert "android/os/Build.java" in names


def test_the_transport_package_does_not_import_jnius_by_itself() -> None:
    # The JVM must start only when an Android transport is made (its class path is
    # fixed then); importing the package must not load pyjnius. A fresh interpreter,
    # since other tests may load jnius in this one.
    code = "import sys, app.bluetooth, app.bluetooth.android; assert 'jnius' not in sys.modules"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", _scenarios())
def test_android_scenario(name: str, standin_env: dict[str, str]) -> None:
    try:
        result = subprocess.run(
            [sys.executable, __file__, name],
            env=standin_env,
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"scenario {name} hung:\n{exc.stdout}\n{exc.stderr}")
    assert result.returncode == 0, f"scenario {name} failed:\n{result.stdout}\n{result.stderr}"
    assert f"scenario {name} ok" in result.stdout


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1]))
