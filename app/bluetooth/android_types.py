"""The Java objects the Android transport calls, as Protocols.

pyjnius objects carry no type hints (they are ``Any`` to mypy); these Protocols name the
methods of the Android API (android.bluetooth, android.content) that the transport uses, so
a misspelt method or a wrong argument is caught by ``mypy --strict`` before a phone sees
it. The stand-in classes of the JVM tests (tests/java) implement the same methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class JavaUuid(Protocol):
    """``java.util.UUID``."""


class InputStream(Protocol):
    """``java.io.InputStream``."""

    def read(self, buffer: bytearray, offset: int, length: int) -> int: ...


class OutputStream(Protocol):
    """``java.io.OutputStream``."""

    def write(self, data: bytes) -> None: ...

    def flush(self) -> None: ...


class BluetoothSocket(Protocol):
    """``android.bluetooth.BluetoothSocket``."""

    def connect(self) -> None: ...

    def close(self) -> None: ...

    def getInputStream(self) -> InputStream: ...

    def getOutputStream(self) -> OutputStream: ...

    def getRemoteDevice(self) -> BluetoothDevice: ...


class BluetoothServerSocket(Protocol):
    """``android.bluetooth.BluetoothServerSocket``."""

    def accept(self, timeout_ms: int = ...) -> BluetoothSocket: ...

    def close(self) -> None: ...


class BluetoothClass(Protocol):
    """``android.bluetooth.BluetoothClass``."""

    def getMajorDeviceClass(self) -> int: ...


class BluetoothDevice(Protocol):
    """``android.bluetooth.BluetoothDevice``."""

    def getAddress(self) -> str: ...

    def getName(self) -> str | None: ...

    def getBondState(self) -> int: ...

    def getBluetoothClass(self) -> BluetoothClass | None: ...

    def createRfcommSocketToServiceRecord(self, uuid: JavaUuid) -> BluetoothSocket: ...

    def createInsecureRfcommSocketToServiceRecord(self, uuid: JavaUuid) -> BluetoothSocket: ...


class JavaSet(Protocol):
    """``java.util.Set``."""

    def toArray(self) -> list[Any]: ...


class BluetoothAdapter(Protocol):
    """``android.bluetooth.BluetoothAdapter``."""

    def isEnabled(self) -> bool: ...

    def isDiscovering(self) -> bool: ...

    def startDiscovery(self) -> bool: ...

    def cancelDiscovery(self) -> bool: ...

    def getName(self) -> str | None: ...

    def getBondedDevices(self) -> JavaSet | None: ...

    def getRemoteDevice(self, address: str) -> BluetoothDevice: ...

    def listenUsingRfcommWithServiceRecord(
        self, name: str, uuid: JavaUuid
    ) -> BluetoothServerSocket: ...

    def listenUsingInsecureRfcommWithServiceRecord(
        self, name: str, uuid: JavaUuid
    ) -> BluetoothServerSocket: ...


class Intent(Protocol):
    """``android.content.Intent``."""

    def getAction(self) -> str | None: ...

    def getParcelableExtra(self, name: str) -> Any: ...

    def getStringExtra(self, name: str) -> str | None: ...

    def putExtras(self, extras: Any) -> Any: ...

    def setData(self, uri: Any) -> Any: ...


class Activity(Protocol):
    """``android.app.Activity`` (python-for-android's ``PythonActivity.mActivity``)."""

    def startActivity(self, intent: Intent) -> None: ...

    def startActivityForResult(self, intent: Intent, request_code: int) -> None: ...

    def getPackageName(self) -> str: ...

    def getSystemService(self, name: str) -> Any: ...


class BroadcastReceiver(Protocol):
    """python-for-android's ``android.broadcast.BroadcastReceiver``."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class BroadcastModule(Protocol):
    """python-for-android's ``android.broadcast``."""

    def BroadcastReceiver(
        self, callback: Callable[[Any, Intent], None], actions: list[str]
    ) -> BroadcastReceiver: ...


class ActivityModule(Protocol):
    """python-for-android's ``android.activity``: activity results reach Python."""

    def bind(self, *, on_activity_result: Callable[[int, int, Intent | None], None]) -> None: ...
