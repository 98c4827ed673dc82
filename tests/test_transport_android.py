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
    """The test's view of the phone: python-for-android's modules (tests/android_fakes.py,
    over the Java stand-ins), the stand-in system (``Standin``) and the app's main
    thread, whose queue :func:`_until` drains as Kivy's clock would."""

    def __init__(self, jnius: Any) -> None:
        import android_fakes

        self.jnius = jnius
        self.Standin = jnius.autoclass("android.bluetooth.Standin")
        self.modules = android_fakes.install(jnius)
        self.main: queue.Queue = queue.Queue()

    def on_main(self, fn: Any) -> None:
        """Run ``fn`` on the main thread (now, or when the main thread next waits)."""
        if threading.current_thread() is threading.main_thread():
            fn()
        else:
            self.main.put(fn)

    def run_main(self) -> None:
        while True:
            try:
                fn = self.main.get_nowait()
            except queue.Empty:
                return
            fn()

    def clock(self) -> float:
        """The stand-in system's simulated time, in seconds."""
        return self.Standin.now() / 1000

    def advance(self, seconds: float) -> None:
        """Let simulated time pass (discovery, dialogs, pairing, connect delays)."""
        self.Standin.advance(int(seconds * 1000))


def _until(predicate: Any, what: str, timeout: float = WAIT) -> None:
    """Wait (real time, a bound against hangs) while the main thread's queue runs."""
    deadline = time.monotonic() + timeout
    fakes = _FAKES[0] if _FAKES else None
    while True:
        if fakes is not None:
            fakes.run_main()
        if predicate():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


_FAKES: list[Fakes] = []


def fresh_install(scenario: Any) -> Any:
    """Mark a scenario that starts like a first run: no permission granted, nothing
    paired. Other scenarios start on a phone whose player allowed Bluetooth before and
    paired with the host (HOST)."""
    scenario.fresh_install = True
    return scenario


def _in_thread(call: Any, *args: Any, **kwargs: Any) -> tuple[threading.Thread, list[Any]]:
    """Run a blocking call on a worker thread: ([result] or [exception])."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(call(*args, **kwargs))
        except Exception as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


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

    kwargs.setdefault("on_main", fakes.on_main)
    kwargs.setdefault("clock", fakes.clock)
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
    assert closed.code == "connection_lost", closed  # Android cannot tell closed from gone
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
        assert exc.code == "connection_lost"
    else:
        raise AssertionError("the guest must see the host leave")
    _expect_error("closed", listener.accept, timeout=1)


def _host_with_a_guest_and_a_raw_socket(fakes: Fakes) -> tuple[Any, queue.Queue, Any, Any]:
    """A host's acceptor and inbox, a guest's link, and a raw Java socket to the host (a
    peer of its own making: no framing), both opened on the host."""
    from app.bluetooth.link import Acceptor, Opened

    host = _transport(fakes)
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(host.listen(), inbox)
    guest = _transport(fakes).connect(HOST, timeout=WAIT)
    device = host.api.BluetoothAdapter.getDefaultAdapter().getRemoteDevice(HOST)
    raw = device.createRfcommSocketToServiceRecord(host._uuid)
    raw.connect()
    assert all(isinstance(e, Opened) for e in _events(inbox, 2))
    return acceptor, inbox, guest, raw


def scenario_malformed_frame_closes_only_that_link(fakes: Fakes) -> None:
    from app.bluetooth.link import Closed

    acceptor, inbox, good, rogue = _host_with_a_guest_and_a_raw_socket(fakes)
    rogue.getOutputStream().write(b"GET / HTTP/1.1\r\n\r\n")
    closed = inbox.get(timeout=WAIT)
    assert isinstance(closed, Closed) and closed.code == "frame_magic", closed
    good.send(b"unaffected")
    assert inbox.get(timeout=WAIT).data == b"unaffected"
    rogue.close()
    good.close()
    acceptor.stop(WAIT)


def _ask(fakes: Fakes, transport: Any, *uses: str) -> Any:
    """Ask for ``uses`` as the app does (from the main thread); the answer (None or the
    error) once the simulated user has answered."""
    answers: list[Any] = []
    transport.permissions.request(uses, answers.append)
    _until(lambda: answers, "the permission answer")
    return answers[0]


@fresh_install
def scenario_permission_refused(fakes: Fakes) -> None:
    from app.bluetooth.android import PERMISSION_CONNECT, PERMISSION_SCAN

    S = fakes.Standin
    S.setAnswer(PERMISSION_CONNECT, "deny")
    transport = _transport(fakes)
    assert transport.permissions.missing("connect", "scan") == [PERMISSION_CONNECT, PERMISSION_SCAN]
    exc = _ask(fakes, transport, "connect")
    assert exc.code == "permission_denied" and exc.details["missing"] == [PERMISSION_CONNECT]
    assert list(S.dialogs()) == [PERMISSION_CONNECT]
    for call, args in (
        (transport.listen, ()),
        (transport.connect, (HOST,)),
        (transport.paired_devices, ()),
        (transport.discover, (lambda d: None,)),
    ):
        _expect_error("permission_denied", call, *args)
    assert S.log() == []  # nothing touched the radio
    # Refused a second time: from then on Android answers "denied" without a dialog.
    assert _ask(fakes, transport, "connect").code == "permission_denied"
    assert _ask(fakes, transport, "connect").code == "permission_denied"
    assert list(S.dialogs()) == [PERMISSION_CONNECT] * 2
    # The dialog dismissed without an answer (empty results): denied, no crash.
    S.setAnswer(PERMISSION_SCAN, "dismiss")
    exc = _ask(fakes, transport, "scan")
    assert exc.code == "permission_denied" and PERMISSION_SCAN in exc.details["missing"]
    # Asking fails outright (python-for-android has no activity yet): an error, no crash.
    fakes.modules["android.permissions"].request_permissions = None
    exc = _ask(fakes, transport, "advertise")
    assert exc.code == "permission_denied"


@fresh_install
def scenario_permission_granted_on_request(fakes: Fakes) -> None:
    from app.bluetooth.android import PERMISSION_ADVERTISE, PERMISSION_CONNECT

    S = fakes.Standin
    transport = _transport(fakes)
    assert _ask(fakes, transport, "connect", "advertise") is None  # hosting needs both
    assert list(S.dialogs()) == [PERMISSION_CONNECT, PERMISSION_ADVERTISE]
    assert _ask(fakes, transport, "connect") is None  # granted now: no new dialog
    assert len(S.dialogs()) == 2
    transport.listen().close()
    # Revoked in the settings while the app runs: the next use says so, no crash.
    S.setPermission(PERMISSION_CONNECT, False)
    _expect_error("permission_denied", transport.listen)


@fresh_install
def scenario_permission_requests_one_at_a_time(fakes: Fakes) -> None:
    """Android shows one permission dialog at a time: a second request while one is open
    is answered as cancelled before requestPermissions returns (AOSP
    Activity.requestPermissions), and python-for-android stores its callback only after
    that call, so the answer is lost. The app never asks twice at once: the second
    request (another transport's, too) waits for the first dialog, then asks."""
    from app.bluetooth.android import PERMISSION_CONNECT, PERMISSION_SCAN

    S = fakes.Standin
    S.setAnswerDelay(5_000)  # the player reads the dialog for 5 s
    transport, other = _transport(fakes), _transport(fakes)
    first: list[Any] = []
    second: list[Any] = []
    transport.permissions.request(["connect"], first.append)
    other.permissions.request(["scan"], second.append)
    fakes.run_main()
    assert not first and not second
    # What the app no longer does: p4a's own second request while a dialog is open gets
    # its (synchronous) answer lost. (The stand-in answers it on this thread.)
    raw: list[Any] = []
    fakes.modules["android.permissions"].request_permissions(
        [PERMISSION_SCAN], lambda *a: raw.append(a)
    )
    assert raw == []  # lost: a caller waiting for it would wait for ever
    fakes.advance(5)
    _until(lambda: first, "the first request's answer")
    assert first == [None]
    fakes.advance(5)  # the second dialog, shown after the first
    _until(lambda: second, "the second request's answer")
    assert second == [None]
    assert list(S.dialogs()) == [PERMISSION_CONNECT, PERMISSION_SCAN]
    assert transport.permissions.missing("connect", "scan") == []


@fresh_install
def scenario_permissions_from_a_worker_thread_are_asked_on_the_main_thread(fakes: Fakes) -> None:
    """python-for-android creates its Java callback on the first request; off the main
    thread that fails on a phone (app classes), and so it does on the stand-ins."""
    from app.bluetooth.android import PERMISSION_CONNECT

    raw = fakes.modules["android.permissions"]
    _thread, out = _in_thread(raw.request_permissions, [PERMISSION_CONNECT], None)
    _until(lambda: out, "the raw request from a worker thread")
    # (pyjnius on a desktop JVM fails the same way for its own reason: an attached
    # thread's context class loader is null.)
    assert "PermissionsCallback" in str(out[0]), out
    transport = _transport(fakes)
    _thread, out = _in_thread(transport.ensure_permissions, "connect", timeout=WAIT)
    _until(lambda: out, "ensure() on a worker thread")  # the main thread runs the request
    assert out == [None], out
    assert list(fakes.Standin.dialogs()) == [PERMISSION_CONNECT]
    # An app class is not found from a worker thread, unless pyjnius has it cached from
    # a lookup on the main thread.
    name = "org.kivy.android.PythonActivity$ActivityResultListener"
    _thread, out = _in_thread(fakes.jnius.autoclass, name)
    _until(lambda: out, "a lookup on a worker thread")
    assert isinstance(out[0], fakes.jnius.JavaException), out
    listener = fakes.jnius.autoclass(name)
    _thread, out = _in_thread(fakes.jnius.autoclass, name)
    _until(lambda: out, "a cached lookup")
    assert out == [listener]


def scenario_permission_revoked_between_check_and_use(fakes: Fakes) -> None:
    from app.bluetooth.android import PERMISSION_CONNECT

    transport = _transport(fakes)
    fakes.Standin.setPermission(PERMISSION_CONNECT, False)
    # The check passes (as it did a moment ago), Java throws SecurityException.
    fakes.modules["android.permissions"].check_permission = lambda permission: True
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
    assert set(codes.values()) <= {"connection_lost", "io_error"}, codes
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

    S = fakes.Standin
    S.setSdk(30)
    for p in (PERMISSION_CONNECT, PERMISSION_SCAN, PERMISSION_FINE_LOCATION):
        S.setPermission(p, False)  # no such runtime grants before API 31
    S.setAnswer(PERMISSION_FINE_LOCATION, "deny")
    transport = _transport(fakes)
    assert transport.permissions.needed("connect") == ()
    assert _ask(fakes, transport, "connect") is None
    assert list(S.dialogs()) == []
    listener = transport.listen()
    assert _ask(fakes, transport, "scan").code == "permission_denied"  # location declined
    guest = transport.connect(HOST, timeout=WAIT)
    # Cancelling discovery needs only BLUETOOTH_ADMIN here: done although location was
    # declined (another app's or the settings' discovery slows the connection down).
    assert list(S.log())[-2:] == ["cancelDiscovery", "connect"], list(S.log())
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
    S.setMajorClass(HOST, 0x0100)  # the host this phone paired with: a computer
    S.addNearby("00:11:22:33:44:01", "Bartek")
    S.addNearby("00:11:22:33:44:03", "Celina")
    S.setMajorClass("00:11:22:33:44:03", MAJOR_COMPUTER)  # a tablet
    transport = _transport(fakes)
    paired = transport.paired_devices()
    assert paired == [
        Device("00:11:22:33:44:01", "Bartek", True, MAJOR_PHONE),
        Device("00:11:22:33:44:09", "Headphones", True, 0x0400),
        Device(HOST, "Standin phone", True, MAJOR_COMPUTER),
        Device("00:11:22:33:44:02", "zosia", True, MAJOR_PHONE),
    ]
    assert [d.name for d in paired if d.likely_host] == ["Bartek", "Standin phone", "zosia"]
    found: list[Device] = []
    finished = threading.Event()
    caller = threading.current_thread()
    threads: list[threading.Thread] = []

    def on_found(device: Device) -> None:
        threads.append(threading.current_thread())
        found.append(device)

    discovery = transport.discover(on_found, finished.set)
    fakes.advance(11)  # an inquiry takes about 12 s
    _until(lambda: len(found) == 2, "both phones found")
    assert not finished.is_set()
    fakes.advance(1)
    assert finished.wait(WAIT)
    assert found == [
        Device("00:11:22:33:44:01", "Bartek", True, MAJOR_PHONE),
        Device("00:11:22:33:44:03", "Celina", False, MAJOR_COMPUTER),
    ]
    assert all(t is not caller for t in threads)  # results come on a Java thread
    assert [d.name for d in merge_devices(paired, found)] == [
        "Bartek",
        "Headphones",
        "Standin phone",
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
    fakes.Standin.setConnectDelay(40_000)  # the radio would take 40 (simulated) s
    _thread, out = _in_thread(transport.connect, HOST, timeout=15)
    _until(lambda: "connect" in list(fakes.Standin.log()), "connect() to block")
    fakes.advance(14)
    time.sleep(0.2)  # a few watchdog steps: it must not fire before the time is up
    assert not out
    fakes.advance(2)
    _until(lambda: out, "the watchdog to abort the connect")
    assert getattr(out[0], "code", None) == "timeout", out
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
    # The player dismisses the dialog: Bluetooth stays off.
    fakes.Standin.setAnswer("android.bluetooth.adapter.action.REQUEST_ENABLE", "dismiss")
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


def scenario_end_of_stream_is_a_lost_connection_and_truncation_is_caught(fakes: Fakes) -> None:
    """Android's BluetoothSocket throws at the end of the stream ("bt socket closed, read
    return: -1") whether the other phone closed the socket or went out of range: the
    link's end is "connection_lost" (a player who leaves says goodbye first), and a frame
    cut off by the end is still caught as truncated."""
    from app.bluetooth.framing import encode_frame
    from app.bluetooth.link import Closed

    acceptor, inbox, polite, rude = _host_with_a_guest_and_a_raw_socket(fakes)
    polite.send(b"bye")
    assert inbox.get(timeout=WAIT).data == b"bye"
    polite.close()
    closed = inbox.get(timeout=WAIT)
    assert isinstance(closed, Closed) and closed.code == "connection_lost", closed
    frame = encode_frame(b"half of this frame never arrives")
    rude.getOutputStream().write(frame[: len(frame) // 2])
    rude.close()
    closed = inbox.get(timeout=WAIT)
    assert isinstance(closed, Closed) and closed.code == "frame_truncated", closed
    assert acceptor.stop(WAIT)


@fresh_install
def scenario_a_first_connection_waits_for_the_pairing_dialog(fakes: Fakes) -> None:
    """A secure link to a host never paired with: both phones show the pairing dialog.
    The connect timeout (15 s) does not run while the players confirm it (20 s)."""
    S = fakes.Standin
    S.grantAll()
    S.setPairing(20_000, False)
    transport = _transport(fakes, secure=True)  # authenticated links asked for
    listener = transport.listen()
    _thread, out = _in_thread(transport.connect, HOST, timeout=15)
    _until(lambda: "pairing" in list(S.log()), "the pairing dialog")
    fakes.advance(16)  # past the connect timeout, still pairing
    time.sleep(0.2)  # a few watchdog steps: it must not close the socket
    assert not out, out
    fakes.advance(5)  # confirmed
    _until(lambda: out, "the connection after pairing")
    link = out[0]
    assert not isinstance(link, Exception), link
    seat = listener.accept(timeout=WAIT)
    link.send(b"paired")
    assert seat.recv(WAIT) == b"paired"
    [host] = [d for d in transport.paired_devices() if d.address == HOST]
    assert host.paired
    for each in (link, seat, listener):
        each.close()


@fresh_install
def scenario_a_refused_pairing_fails_the_connection(fakes: Fakes) -> None:
    S = fakes.Standin
    S.grantAll()
    S.setPairing(3_000, True)
    transport = _transport(fakes, secure=True)
    listener = transport.listen()
    _thread, out = _in_thread(transport.connect, HOST, timeout=15, attempts=1)
    _until(lambda: "pairing" in list(S.log()), "the pairing dialog")
    fakes.advance(4)
    _until(lambda: out, "the refused pairing")
    assert getattr(out[0], "code", None) == "connect_failed", out
    assert not any(d.address == HOST for d in transport.paired_devices())
    listener.close()


def scenario_a_lobby_open_longer_than_300_s_asks_to_stay_visible(fakes: Fakes) -> None:
    """Android makes a phone visible for at most 300 s per request; a host whose lobby
    stays open asks again when the time runs out, and the lobby shows the time left. A
    refused request ends it (paired phones only)."""
    from app.views.setup.bluetooth import Visibility

    S = fakes.Standin
    adapter = fakes.jnius.autoclass("android.bluetooth.BluetoothAdapter")
    transport = _transport(fakes)
    listener = transport.listen()
    visibility = Visibility(transport)
    assert visibility.tick() is None and visibility.text() == ""  # not asked to be visible
    answers: list[bool] = []
    transport.request_discoverable(3600, answers.append)  # more than Android grants
    _until(lambda: answers, "the first answer")
    assert answers == [True]
    assert visibility.tick() == 300  # capped at 300 s
    assert visibility.text() == "Visible to nearby phones for 5:00 more"
    fakes.advance(299.5)
    assert visibility.tick() == 1 and adapter.getDefaultAdapter().getScanMode() == (
        adapter.SCAN_MODE_CONNECTABLE_DISCOVERABLE
    )
    fakes.advance(1)
    assert adapter.getDefaultAdapter().getScanMode() == adapter.SCAN_MODE_CONNECTABLE
    assert visibility.tick() == 0  # ran out with the lobby open: asked again
    assert visibility.tick() == 0 and visibility.asking  # (once)
    _until(lambda: list(S.dialogs()).count(adapter.ACTION_REQUEST_DISCOVERABLE) == 2, "again")
    _until(lambda: not visibility.asking, "the second answer")
    assert visibility.tick() == 300
    assert adapter.getDefaultAdapter().getScanMode() == adapter.SCAN_MODE_CONNECTABLE_DISCOVERABLE
    S.setAnswer(adapter.ACTION_REQUEST_DISCOVERABLE, "deny")
    fakes.advance(300)
    assert visibility.tick() == 0
    _until(lambda: not visibility.asking, "the refusal")
    assert visibility.tick() is None and visibility.text() == ""  # no more asking
    assert list(S.dialogs()).count(adapter.ACTION_REQUEST_DISCOVERABLE) == 3
    listener.close()


@fresh_install
def scenario_seven_unpaired_guests_join_without_a_dialog_on_the_host(fakes: Fakes) -> None:
    """The default: the host listens insecure and accepts every guest without a dialog of
    its own (AOSP auto-accepts an incoming temporary Just Works pairing); a guest not
    paired with the host connects insecure: one yes/no on the guest (Just Works consent),
    no numbers, no bond kept. A guest paired before connects secure, without a dialog."""
    from app.bluetooth.link import Acceptor, Opened

    S = fakes.Standin
    S.grantAll()
    S.setPairing(2_000, False)  # each guest's player taps "pair" within 2 s
    host = _transport(fakes)
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(host.listen(), inbox)
    assert "listenInsecure" in list(S.log())
    links = []
    for i in range(7):
        _thread, out = _in_thread(_transport(fakes).connect, HOST, timeout=15)
        _until(lambda i=i: list(S.log()).count("consent") == i + 1, "the guest's consent")
        fakes.advance(2)
        _until(lambda out=out: out, "the connection")
        assert not isinstance(out[0], Exception), out
        links.append(out[0])
    assert [type(e) for e in _events(inbox, 7)] == [Opened] * 7
    log = list(S.log())
    assert "pairing" not in log and log.count("consent") == 7, log
    assert not any(d.address == HOST for d in _transport(fakes).paired_devices())
    # once paired (in the settings, or an earlier secure table), no dialog at all
    links.pop().close()
    _until(lambda: not inbox.empty(), "the host sees a guest go")
    inbox.get()
    S.addBonded(HOST, "Standin phone")
    paired = _transport(fakes).connect(HOST, timeout=15)
    assert isinstance(_events(inbox, 1)[0], Opened)
    assert list(S.log()).count("consent") == 7 and "pairing" not in list(S.log())
    assert acceptor.stop(WAIT)
    for link in (paired, *links):
        link.close()


def scenario_a_host_holds_at_most_seven_links(fakes: Fakes) -> None:
    from app.bluetooth.link import Acceptor, Opened

    host = _transport(fakes)
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(host.listen(), inbox)
    guests = [_transport(fakes).connect(HOST, timeout=WAIT, attempts=1) for _ in range(7)]
    assert all(isinstance(e, Opened) for e in _events(inbox, 7))
    _expect_error("connect_failed", _transport(fakes).connect, HOST, timeout=WAIT, attempts=1)
    guests.pop().close()  # one leaves: a place is free again
    guests.append(_transport(fakes).connect(HOST, timeout=WAIT, attempts=1))
    for g in guests:
        g.close()
    assert acceptor.stop(WAIT)


def scenario_discovery_finds_discoverable_phones_and_late_names(fakes: Fakes) -> None:
    from app.bluetooth.android import Device

    S = fakes.Standin
    S.addNearby("00:11:22:33:44:01", "Ala", True, 0)
    S.addNearby("00:11:22:33:44:02", "Bartek", False, 0)  # not discoverable: never found
    S.addNearby("00:11:22:33:44:03", "Celina", True, 4_000)  # her name comes 4 s later
    S.addNearby("00:11:22:33:44:04", None, True, 0)  # a name that never comes
    found: list[Device] = []
    finished = threading.Event()
    transport = _transport(fakes)
    assert not transport.location_blocks_discovery()
    discovery = transport.discover(found.append, finished.set)
    fakes.advance(5)
    _until(lambda: len(found) == 3, "three phones")
    assert [(d.address[-2:], d.name) for d in found] == [("01", "Ala"), ("03", ""), ("04", "")]
    fakes.advance(4)
    _until(lambda: len(found) == 4, "Celina's name")
    assert (found[3].address, found[3].name) == ("00:11:22:33:44:03", "Celina")
    assert not finished.is_set()
    fakes.advance(4)
    assert finished.wait(WAIT)
    assert len(found) == 4
    discovery.stop()


def scenario_android_10_and_11_find_nothing_with_location_off(fakes: Fakes) -> None:
    S = fakes.Standin
    S.addNearby("00:11:22:33:44:01", "Ala")
    S.setLocationOn(False)
    transport = _transport(fakes)
    for sdk, blocked in ((28, False), (29, True), (30, True), (31, False)):
        S.setSdk(sdk)
        assert transport.location_blocks_discovery() is blocked, sdk
    S.setSdk(29)
    # Android 10/11 refuse to start (startDiscovery() is false): a specific, translated
    # message, not "That is not possible now (discovery_failed)"
    from app.i18n import set_language
    from app.i18n.codes import message_for

    for sdk in (29, 30):
        S.setSdk(sdk)
        exc = _expect_error("location_off", transport.discover, lambda d: None)
        assert S.receiverCount() == 0 and "startDiscovery" not in list(S.log())
        texts = set()
        for lang in ("en", "de", "pl"):
            set_language(lang)
            texts.add(message_for(exc.code))
        set_language("en")
        assert len(texts) == 3 and not any("location_off" in t for t in texts), texts
    S.setLocationOn(True)
    found: list[Any] = []
    finished = threading.Event()
    transport.discover(found.append, finished.set)
    fakes.advance(13)
    assert finished.wait(WAIT)
    assert [d.name for d in found] == ["Ala"]


def scenario_leaving_the_search_cancels_discovery(fakes: Fakes) -> None:
    S = fakes.Standin
    S.addNearby("00:11:22:33:44:01", "Ala")
    transport = _transport(fakes)
    transport.discover(lambda d: None)
    transport.stop_discovery()
    assert list(S.log())[-1] == "cancelDiscovery"
    assert S.receiverCount() == 0
    fakes.advance(13)
    assert S.receiverCount() == 0


@fresh_install
def scenario_hosting_asks_for_bluetooth_and_visibility(fakes: Fakes) -> None:
    """Bluetooth switched off on a fresh install: the host asks for connect + advertise,
    to switch Bluetooth on and to be visible; a refusal is reported, not a crash."""
    from app.bluetooth.android import PERMISSION_ADVERTISE, PERMISSION_CONNECT

    S = fakes.Standin
    S.setEnabled(False)
    transport = _transport(fakes)
    assert transport.state() == "off"
    assert _ask(fakes, transport, "connect", "advertise") is None
    answers: list[bool] = []
    S.setAnswer("android.bluetooth.adapter.action.REQUEST_ENABLE", "deny")
    assert transport.request_enable(answers.append) is True
    _until(lambda: answers, "the enable answer")
    assert answers == [False] and transport.state() == "off"
    S.setAnswer("android.bluetooth.adapter.action.REQUEST_ENABLE", "allow")
    transport.request_enable(answers.append)
    _until(lambda: len(answers) == 2, "the second enable answer")
    assert answers[1] is True and transport.state() == "on"
    S.setAnswer("android.bluetooth.adapter.action.REQUEST_DISCOVERABLE", "deny")
    transport.request_discoverable(300, answers.append)
    _until(lambda: len(answers) == 3, "the visibility answer")
    assert answers[2] is False
    S.setAnswer("android.bluetooth.adapter.action.REQUEST_DISCOVERABLE", "allow")
    transport.request_discoverable(300, answers.append)
    _until(lambda: len(answers) == 4, "the second visibility answer")
    assert answers[3] is True
    assert list(S.dialogs()) == [
        PERMISSION_CONNECT,
        PERMISSION_ADVERTISE,
        "android.bluetooth.adapter.action.REQUEST_ENABLE",
        "android.bluetooth.adapter.action.REQUEST_ENABLE",
        "android.bluetooth.adapter.action.REQUEST_DISCOVERABLE",
        "android.bluetooth.adapter.action.REQUEST_DISCOVERABLE",
    ]
    transport.listen().close()


@fresh_install
def scenario_first_run_flow_for_a_host(fakes: Fakes) -> None:
    """The set-up screen's controller on a fresh phone with Bluetooth off: permissions,
    the switch, visibility, each asked when the player taps, each refusal explained."""
    from app.views.setup.bluetooth import BluetoothSetup

    S = fakes.Standin
    S.setEnabled(False)
    changes: list[str] = []
    setup = BluetoothSetup(_transport(fakes), "host")
    setup.on_change = lambda: changes.append(setup.step().code)
    S.setAnswer("android.permission.BLUETOOTH_ADVERTISE", "deny")
    assert setup.step().code == "permissions" and not setup.step().retry
    setup.act()
    _until(lambda: not setup.busy, "the permission answer")
    step = setup.step()
    assert (step.code, step.retry) == ("permissions", True)  # refused: say why, ask again
    S.setAnswer("android.permission.BLUETOOTH_ADVERTISE", "allow")
    setup.act()
    _until(lambda: not setup.busy, "the second permission answer")
    assert setup.step().code == "bluetooth_off"
    S.setAnswer("android.bluetooth.adapter.action.REQUEST_ENABLE", "deny")
    setup.act()
    _until(lambda: not setup.busy, "the enable answer")
    assert setup.step().code == "bluetooth_off" and setup.enable_refused
    S.setAnswer("android.bluetooth.adapter.action.REQUEST_ENABLE", "allow")
    setup.act()
    _until(lambda: not setup.busy, "the second enable answer")
    assert setup.step().code == "visibility" and setup.step().can_skip
    setup.act()
    _until(lambda: not setup.busy, "the visibility answer")
    assert setup.step().code == "ready" and setup.visible
    assert changes[-1] == "ready"
    assert list(S.dialogs()) == [
        "android.permission.BLUETOOTH_CONNECT",
        "android.permission.BLUETOOTH_ADVERTISE",
        "android.permission.BLUETOOTH_ADVERTISE",
        "android.bluetooth.adapter.action.REQUEST_ENABLE",
        "android.bluetooth.adapter.action.REQUEST_ENABLE",
        "android.bluetooth.adapter.action.REQUEST_DISCOVERABLE",
    ]


@fresh_install
def scenario_first_run_flow_for_a_guest(fakes: Fakes) -> None:
    """A guest asked for connect + scan; he refuses the search: paired phones only. On
    Android 11 with Location off he is told, and may go on with paired phones."""
    from app.table.readiness import can_search
    from app.views.setup.bluetooth import BluetoothSetup

    S = fakes.Standin
    S.setAnswer("android.permission.BLUETOOTH_SCAN", "deny")
    setup = BluetoothSetup(_transport(fakes), "join")
    assert setup.step().code == "permissions"
    setup.act()
    _until(lambda: not setup.busy, "the permission answer")
    step = setup.step()
    assert (step.code, step.retry, step.can_skip) == ("search_permission", True, True)
    setup.open_app_settings()  # where a twice-refused permission can still be allowed
    [settings] = fakes.jnius.autoclass("org.kivy.android.PythonActivity").standinStarted()
    assert settings.getAction() == "android.settings.APPLICATION_DETAILS_SETTINGS"
    assert settings.getData().toString() == "package:org.blu21.blu21"
    setup.skip()
    assert setup.step().code == "ready" and not can_search(setup.situation())
    assert list(S.dialogs()) == [
        "android.permission.BLUETOOTH_CONNECT",
        "android.permission.BLUETOOTH_SCAN",
    ]
    S.reset()  # another phone: Android 11, location granted, Location switch off
    S.setSdk(30)
    S.setPermission("android.permission.ACCESS_FINE_LOCATION", True)
    S.setLocationOn(False)
    setup = BluetoothSetup(_transport(fakes), "join")
    assert setup.step().code == "location_off"
    setup.act()  # opens the Location settings
    started = fakes.jnius.autoclass("org.kivy.android.PythonActivity").standinStarted()
    assert [i.getAction() for i in started][-1] == "android.settings.LOCATION_SOURCE_SETTINGS"
    S.setLocationOn(True)  # the player switched it on and came back
    assert setup.step().code == "ready" and can_search(setup.situation())


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
    _FAKES.append(fakes)
    fakes.Standin.reset()  # this (main) thread becomes the app's main thread
    scenario = globals()[name if name.startswith("process_") else f"scenario_{name}"]
    if not getattr(scenario, "fresh_install", False):
        fakes.Standin.grantAll()
        fakes.Standin.addBonded(HOST, "Standin phone")
    scenario(fakes)
    print(f"scenario {name} ok")
    return 0


def scenario_the_screen_stays_on_while_a_table_runs(fakes: Fakes) -> None:
    from app.views.setup import device
    from app.views.setup.device import keep_screen_on

    window = fakes.jnius.autoclass("org.kivy.android.PythonActivity").mActivity.getWindow()
    keep = fakes.jnius.autoclass("android.view.WindowManager$LayoutParams").FLAG_KEEP_SCREEN_ON
    # Window flags belong to the UI thread: from any other thread Android refuses.
    try:
        window.addFlags(keep)
    except fakes.jnius.JavaException as exc:
        assert "CalledFromWrongThreadException" in exc.classname, exc.classname
    else:
        raise AssertionError("a window flag changed off the UI thread")
    os.environ["ANDROID_ARGUMENT"] = "standin"  # what python-for-android sets
    try:
        device.prepare()  # the app does this on the main thread at start
        assert keep_screen_on(True)
        _until(lambda: window.standinFlags() & keep, "the keep-screen-on flag")
        assert keep_screen_on(False)
        _until(lambda: not window.standinFlags() & keep, "the flag cleared")
        assert window.standinWrongThread() == 1  # only the direct attempt above
        del sys.modules["android.runnable"]  # an old python-for-android: no harm done
        assert not keep_screen_on(True)
    finally:
        del os.environ["ANDROID_ARGUMENT"]
    assert not keep_screen_on(True)  # on the desktop: nothing to do


def scenario_vibration_on_every_api_level(fakes: Fakes) -> None:
    """VibrationEffect needs API 26; phones on 24-25 (minapi 24) vibrate by millis."""
    from app.views.setup import device

    vibrator = fakes.jnius.autoclass("android.os.Vibrator")
    os.environ["ANDROID_ARGUMENT"] = "standin"
    try:
        device.prepare()
        for sdk, ms in ((24, 100), (25, 110), (26, 120), (35, 130)):
            fakes.Standin.setSdk(sdk)
            assert device.vibrate(ms), sdk
        assert list(vibrator.standinVibrations()) == [100, 110, 120, 130]
    finally:
        del os.environ["ANDROID_ARGUMENT"]


def scenario_a_whole_oczko_match_over_android_links(fakes: Fakes) -> None:
    """The table layer, unchanged, over the Android transport: a host and two guests
    play a full match with bots (the open test dealer; the clock is fake)."""
    from app.table.clock import FakeClock
    from app.table.dealer import OpenDealer
    from app.table.messages import Options
    from app.table.oczko.guest import GuestTable, HostTable, simple_bot

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


def scenario_a_dropped_link_is_a_lost_connection_and_a_goodbye_is_a_leave(fakes: Fakes) -> None:
    """At a table over Android links: a guest whose link drops (out of range: no goodbye)
    is "lost", shown as a lost connection in every language; one who taps Leave (a
    goodbye first) "left". Android's read error is the same for both ends."""
    from app.i18n import set_language
    from app.i18n.codes import message_for
    from app.table.clock import FakeClock
    from app.table.dealer import OpenDealer
    from app.table.oczko.guest import GuestTable, HostTable

    clock = FakeClock()
    host = HostTable(
        _transport(fakes).listen(),
        player_id="a" * 32,
        name="Ala",
        lang="pl",
        clock=clock,
        dealer_factory=lambda seat, n: OpenDealer(seat),
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
        )
        for c, name in (("b", "Bartek"), ("c", "Celina"))
    ]
    sides = (host, *guests)

    def run(until: Any) -> None:
        deadline = time.monotonic() + 3 * WAIT
        while not until():
            assert time.monotonic() < deadline, "the table stalled"
            for side in sides:
                if not getattr(side, "closed", False):
                    side.step(0.002)

    def gone() -> dict[str, str]:
        return {
            n.details["name"]: n.details["reason"] for n in host.notices if n.code == "player_left"
        }

    run(lambda: all(g.seat is not None for g in guests))
    bartek, celina = guests
    bartek.link.close()  # walked out of range: his phone said nothing
    celina.leave()  # tapped Leave: a goodbye, then the link closes
    run(lambda: len(gone()) == 2)
    assert gone() == {"Bartek": "lost", "Celina": "left"}, gone()
    from app.views.oczko.network import _LEFT_MESSAGES

    code = _LEFT_MESSAGES.get("lost", "player_lost")
    texts = []
    for lang in ("en", "de", "pl"):
        set_language(lang)
        texts.append(message_for(code, name="Bartek"))
    set_language("en")
    assert texts[0] == "Bartek lost the connection and is out of the match.", texts
    assert len(set(texts)) == 3 and all("Bartek" in t for t in texts), texts
    host.close("host_left")


# -- the app off screen: the table's foreground service (issue 33) ----------------------

ROOT = Path(__file__).resolve().parent.parent
SERVICE = "org.blu21.TableService"


def declared_build() -> dict[str, Any]:
    """What the build declares, read from the build files themselves: buildozer.spec's
    permissions and target API, the service element of recipes/blu21/service's manifest,
    the application arguments (the back opt-out)."""
    import configparser
    import xml.etree.ElementTree as ET

    spec = configparser.ConfigParser(interpolation=None)
    spec.read(ROOT / "buildozer.spec")
    app = spec["app"]
    permissions = []
    for entry in app["android.permissions"].split(","):
        entry = entry.strip()
        if entry.startswith("("):
            entry = dict(kv.split("=", 1) for kv in entry.strip("()").split(";"))["name"]
        permissions.append(entry if "." in entry else f"android.permission.{entry}")
    ns = "{http://schemas.android.com/apk/res/android}"
    manifest = ET.parse(ROOT / "recipes" / "blu21" / "service" / "AndroidManifest.xml")
    services = {
        e.get(f"{ns}name"): {k.replace(ns, ""): v for k, v in e.attrib.items()}
        for e in manifest.getroot().iter("service")
    }
    arguments = (ROOT / app["android.extra_manifest_application_arguments"]).read_text()
    return {
        "permissions": permissions,
        "services": services,
        "target": int(app["android.api"]),
        "back_opt_out": 'android:enableOnBackInvokedCallback="false"' in arguments,
    }


def _declare(fakes: Fakes, **overrides: Any) -> Any:
    """Tell the stand-in system what the app declares (the build's files, or overrides)."""
    build = {**declared_build(), **overrides}
    process = fakes.jnius.autoclass("android.app.AppProcess")
    for permission in build["permissions"]:
        process.declarePermission(permission)
    for name, attrs in build["services"].items():
        process.declareService(name, attrs.get("foregroundServiceType", ""))
    process.declareApplication(build["target"], build["back_opt_out"])
    return process


def _keeper(fakes: Fakes) -> Any:
    from app.bluetooth.android_service import TableKeeper

    return TableKeeper(
        lambda: ("Blu21: your table is open", "Tap to return to it.", "Open table"),
        on_main=fakes.on_main,
    )


def _host_in_the_background(fakes: Fakes, service: bool) -> dict[str, Any]:
    """A host and two guests (bots) in a match; mid-match the host's player switches to
    another app for 60 s (simulated, on the tables' fake clock and the stand-in system's
    alike), then comes back. The host's phone runs only while its process is not frozen
    (``AppProcess.frozen``): a frozen process runs no thread, so its table is not
    stepped. What each phone saw."""
    from app.table.clock import FakeClock
    from app.table.dealer import OpenDealer
    from app.table.messages import Options
    from app.table.oczko.guest import GuestTable, HostTable, simple_bot

    process = _declare(fakes)
    fakes.Standin.setSdk(34)  # Android 14: the cached-apps freezer
    clock = FakeClock()
    host_transport = _transport(fakes)
    host = HostTable(
        host_transport.listen(),
        player_id="a" * 32,
        name="Ala",
        lang="pl",
        clock=clock,
        dealer_factory=lambda seat, n: OpenDealer(seat),
        options=Options(rounds=5, turn_time=30),
    )  # no bot: Ala plays herself, and she is away
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
    texts = ("Blu21: your table is open", "Tap to return to it.", "Open table")
    if service:  # the table opened, on screen: the service starts (app.views.setup.device)
        assert host_transport.keep_table_open(True, lambda: texts)
        _until(lambda: process.isForeground(SERVICE), "the foreground service")
    frozen_seen = []

    def tick(seconds: float = 0.0) -> None:
        clock.advance(seconds)
        fakes.advance(seconds)
        frozen = bool(process.frozen())
        frozen_seen.append(frozen)
        for side in (host, *guests):
            if side is host and frozen:
                continue  # a frozen process runs nothing: no heartbeat, no turn timer
            for _ in range(3):
                side.step(0.002)

    def run(until: Any, what: str) -> None:
        deadline = time.monotonic() + 3 * WAIT
        while not until():
            assert time.monotonic() < deadline, f"the table stalled: {what}"
            tick()

    run(lambda: all(g.seat is not None for g in guests), "seats")
    for g in guests:
        g.set_ready()
    run(lambda: host.seating.can_start(), "ready")
    host.begin()
    run(lambda: all(s.phone is not None for s in (host, *guests)), "the match")
    start_round = host.phone.match.rounds_played
    process.leaveScreen()  # mid-match: Ala reads a message
    for _ in range(240):  # 60 s away
        tick(0.25)
    away = {
        "frozen": any(frozen_seen),
        "host_lost": [
            name
            for name, g in zip(("Bartek", "Celina"), guests, strict=True)
            if any(n.code == "host_lost" for n in g.notices)
        ],
        "dropped": [n.details for n in host.notices if n.code == "player_left"],
        "host_rounds": host.phone.match.rounds_played - start_round,
        "guest_rounds": [g.phone.match.rounds_played - start_round for g in guests],
    }
    process.returnToScreen()  # back: the table as it is now
    tick(0.25)
    away["agree"] = all(
        g.phone.match.points == host.phone.match.points
        and g.phone.match.rounds_played == host.phone.match.rounds_played
        for g in guests
        if not g.closed
    )
    away["crashed"] = process.crashed()
    print("away:", away)
    host_transport.keep_table_open(False, lambda: texts)  # the table ends
    _until(lambda: not process.isRunning(SERVICE), "the service stopped")
    host.close("host_left")
    return away


def scenario_a_host_away_for_a_minute_keeps_the_table_with_the_service(fakes: Fakes) -> None:
    away = _host_in_the_background(fakes, service=True)
    assert not away["frozen"] and away["crashed"] is None, away
    assert away["host_lost"] == [] and away["dropped"] == [], away
    # the table went on: her turns timed out, rounds were played, every phone agrees
    assert away["host_rounds"] >= 1 and away["guest_rounds"] == [away["host_rounds"]] * 2, away
    assert away["agree"], away


def scenario_without_the_service_the_others_see_the_host_freeze(fakes: Fakes) -> None:
    away = _host_in_the_background(fakes, service=False)
    assert away["frozen"], away
    # 10 s after she left her process froze; 20 s of silence later every guest's table
    # ends with "the host is gone"
    assert sorted(away["host_lost"]) == ["Bartek", "Celina"], away


@fresh_install
def scenario_the_table_service_follows_androids_rules(fakes: Fakes) -> None:
    """Started only with BLUETOOTH_CONNECT (Android 14's rule for connectedDevice), in the
    app's process, with a notification that returns to the table (POST_NOTIFICATIONS asked
    on 13+; refused, the service still runs), never from the background, stopped with
    the table. The build's own declarations are what the stand-in system checks."""
    S = fakes.Standin
    process = _declare(fakes)
    build = declared_build()
    attrs = build["services"][SERVICE]
    assert attrs["foregroundServiceType"] == "connectedDevice" and "process" not in attrs
    for p in ("FOREGROUND_SERVICE", "FOREGROUND_SERVICE_CONNECTED_DEVICE", "POST_NOTIFICATIONS"):
        assert f"android.permission.{p}" in build["permissions"], p
    keeper = _keeper(fakes)
    assert not keeper.open()  # no BLUETOOTH_CONNECT yet: not even tried
    assert not process.isRunning(SERVICE)
    S.setPermission("android.permission.BLUETOOTH_CONNECT", True)
    assert keeper.open()
    _until(lambda: process.isForeground(SERVICE), "the foreground service")
    _until(lambda: "android.permission.POST_NOTIFICATIONS" in list(S.dialogs()), "the dialog")
    _until(lambda: process.notification(SERVICE) is not None, "the notification")
    note = process.notification(SERVICE)
    assert str(note.title) == "Blu21: your table is open" and note.ongoing
    back = note.contentIntent.standinIntent()  # back to the table, as the launcher does
    intent = fakes.jnius.autoclass("android.content.Intent")
    assert back.getAction() == intent.ACTION_MAIN and back.hasCategory(intent.CATEGORY_LAUNCHER)
    assert back.standinClassName() == "org.kivy.android.PythonActivity"
    assert back.getFlags() & intent.FLAG_ACTIVITY_NEW_TASK
    keeper.close()
    assert not process.isRunning(SERVICE)
    # Notifications refused: the service (and the table) run all the same.
    S.reset()
    process = _declare(fakes)
    S.setPermission("android.permission.BLUETOOTH_CONNECT", True)
    S.setAnswer("android.permission.POST_NOTIFICATIONS", "deny")
    keeper = _keeper(fakes)
    assert keeper.open()
    _until(lambda: process.isForeground(SERVICE), "the foreground service")
    _until(lambda: "android.permission.POST_NOTIFICATIONS" in list(S.dialogs()), "the dialog")
    fakes.run_main()
    assert process.notification(SERVICE) is None and process.isForeground(SERVICE)
    keeper.close()
    # From the background Android 12+ refuses to start one: no crash, the table goes on.
    process.leaveScreen()
    assert not keeper.open() and not process.isRunning(SERVICE)
    process.returnToScreen()
    # Android 9: no type, no channel needed; the same class works.
    S.setSdk(28)
    assert keeper.open()
    _until(lambda: process.isForeground(SERVICE), "the service on Android 9")
    keeper.close()
    assert process.crashed() is None, list(process.events())
    # The stand-in system checks the declarations: without the connectedDevice permission
    # Android 14 refuses startForeground (the app would crash), so the build's matter.
    S.reset()
    perms = [p for p in build["permissions"] if not p.endswith("CONNECTED_DEVICE")]
    process = _declare(fakes, permissions=perms)
    S.setPermission("android.permission.BLUETOOTH_CONNECT", True)
    assert keeper.open()
    _until(lambda: process.crashed() is not None, "the refusal")
    assert "FOREGROUND_SERVICE_CONNECTED_DEVICE" in process.crashed()


def scenario_back_at_api_36_reaches_the_app_only_with_the_opt_out(fakes: Fakes) -> None:
    """Android 16 at target 36: the back key is delivered only to an app that opted out of
    predictive back; otherwise the system finishes the activity and the app leaves the
    screen (a host's table would freeze 10 s later without the service)."""
    S = fakes.Standin
    process = _declare(fakes)  # the build: target 36, opted out
    S.setSdk(36)
    assert process.pressBack() == "key" and process.onScreen()
    S.reset()
    process = _declare(fakes, back_opt_out=False)
    S.setSdk(35)
    assert process.pressBack() == "key"  # Android 15: still the key
    S.setSdk(36)
    assert process.pressBack() == "finished" and not process.onScreen()
    fakes.advance(AWAY_FROZEN_AFTER)
    assert process.frozen()


AWAY_FROZEN_AFTER = 10.0  # s: AppProcess.FREEZE_AFTER_MS


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
            assert event.code == "connection_lost", event
            left += 1
        else:
            assert isinstance(event, Opened)
    assert sorted(greeted) == sorted(PHONES)
    assert acceptor.stop(WAIT)


@fresh_install
def process_guest(fakes: Fakes) -> None:
    """This JVM is a guest phone that has paired with the host before."""
    name = os.environ["BLU21_PHONE_NAME"]
    fakes.Standin.grantAll()
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
    # the app's own Java (the table's foreground service), compiled against the stand-ins
    sources += sorted(str(p) for p in (ROOT / "recipes" / "blu21" / "java").rglob("*.java"))
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


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("lost", "Ola's connection was lost."),
        ("silent", "Ola's connection was lost."),
        ("left", "Ola left the table."),
    ],
)
def test_the_casino_screen_says_a_dropped_link_was_lost(reason: str, expected: str) -> None:
    # The casino host reports a guest whose link dropped as reason "lost" (Android's read
    # error says nothing about a choice): the screen must not say he left.
    from fractions import Fraction

    from app.rules.table_rules import TableRules
    from app.table.casino.snapshot import CasinoSnapshot, Notice
    from app.views.casino.vm import notice_text

    s = CasinoSnapshot(
        me="me",
        rules=TableRules(),
        players=("me", "b0"),
        names={"b0": "Ola"},
        chips={"me": Fraction(1000)},
    )
    assert notice_text(s, Notice("player_left", {"player": "b0", "reason": reason})) == expected


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
