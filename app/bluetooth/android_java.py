"""The Java side of the Android transport: classes looked up once, Java exceptions turned
into :class:`~app.bluetooth.errors.TransportError`, and the main-thread rule.

Java classes are looked up once, by :class:`JavaApi`, on the main thread (``autoclass``
from other threads cannot see app classes on Android), and every Java callback of
python-for-android's (permission answers, activity results, broadcast receivers) is created
there too (:func:`run_on_main`). Every thread of ours that touched Java calls
:meth:`JavaApi.detach_quietly` before it ends. A ``SecurityException`` (a permission
revoked between check and use) maps to ``permission_denied``.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from app.bluetooth.errors import TransportError

if TYPE_CHECKING:
    from app.bluetooth.android_types import Activity

log = logging.getLogger(__name__)

#: AOSP ``BluetoothSocket.read`` throws this at the end of the stream instead of
#: returning -1 (``"bt socket closed, read return: " + ret``).
END_OF_STREAM_MESSAGE = "bt socket closed, read return: -1"


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
    def activity(self) -> Activity | None:
        """python-for-android's running activity, or None (no app: no system dialogs)."""
        if self.PythonActivity is None:
            return None
        activity: Activity | None = self.PythonActivity.mActivity
        return activity

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
        raise translate_java_error(exc, code, what) from exc


def translate_java_error(exc: BaseException, code: str, what: str) -> TransportError:
    """The :class:`TransportError` for Java exception ``exc`` raised while doing ``what``."""
    classname = getattr(exc, "classname", "") or ""
    message = getattr(exc, "innermessage", None) or str(exc)
    if classname == "java.lang.SecurityException":
        return TransportError("permission_denied", f"{what}: {message}", missing=[])
    return TransportError(code, f"{what}: {classname}: {message}")


def p4a_module(name: str) -> Any:
    """python-for-android's module ``name`` (``android.permissions``, ``android.broadcast``,
    ``android.activity``), which exists only in the app on a phone: ``unsupported`` elsewhere.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise TransportError(
            "unsupported", f"{name} (python-for-android) is not available here"
        ) from exc


def run_on_main(fn: Callable[[], None]) -> None:
    """Run ``fn`` on the app's main thread: at once if this is it, else through Kivy's
    clock (thread-safe), which runs it on the next frame."""
    if threading.current_thread() is threading.main_thread():
        fn()
        return
    from kivy.clock import Clock

    Clock.schedule_once(lambda _dt: fn(), 0)


def is_end_of_stream(exc: object) -> bool:
    """Is this Java exception Android's way of saying "end of stream"?

    >>> class E: classname, innermessage = "java.io.IOException", END_OF_STREAM_MESSAGE
    >>> is_end_of_stream(E())
    True
    """
    message = getattr(exc, "innermessage", None) or str(exc)
    return getattr(exc, "classname", "") == "java.io.IOException" and message.startswith(
        END_OF_STREAM_MESSAGE
    )
