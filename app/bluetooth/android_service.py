"""The table's foreground service on Android: an open table goes on while the app is not
on screen.

Android 14+ freezes an app's process about 10 s after it leaves the screen (the player
reads a message, turns the screen off) unless something keeps it up; a frozen host sends no
heartbeats and every guest's table ends after 20 s of silence. A foreground service keeps
the process up. It must run in the app's own process, which holds the table's Bluetooth
sockets: python-for-android's Python services run in a process of their own, so the service
is a small Java class (``recipes/blu21/java/org/blu21/TableService.java``) of type
``connectedDevice``, declared through ``recipes/blu21/service/AndroidManifest.xml``.

:class:`TableKeeper` starts it when a table opens (on screen, and only once
``BLUETOOTH_CONNECT`` is granted: Android 14 refuses a ``connectedDevice`` service
without a Bluetooth permission) and stops it when the table ends. On Android 13+ it asks
once for ``POST_NOTIFICATIONS``, so that the notification which returns to the table is
shown; refused, the service runs all the same (the table works, the notification is only
in the system's task manager).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from app.bluetooth.android_java import run_on_main
from app.bluetooth.android_permissions import API_S, Permissions

log = logging.getLogger(__name__)

#: the Java service (recipes/blu21/java; declared in recipes/blu21/service's manifest)
SERVICE_CLASS = "org.blu21.TableService"
PERMISSION_POST_NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS"
#: Android 13: notifications need a runtime permission
API_TIRAMISU = 33


class TableKeeper:
    """Starts and stops the table's foreground service (Android; a no-op elsewhere).

    ``texts()`` gives the notification's title, text and channel name in the player's
    language. ``permissions`` checks ``BLUETOOTH_CONNECT`` and asks for notifications (by
    default python-for-android's module through :class:`Permissions`). Use it on the main
    thread (Java classes are looked up there).
    """

    def __init__(
        self,
        texts: Callable[[], tuple[str, str, str]],
        permissions: Permissions | None = None,
        on_main: Callable[[Callable[[], None]], None] = run_on_main,
    ) -> None:
        self._texts = texts
        self._on_main = on_main
        self._permissions = permissions
        self._asked_notifications = False
        self.running = False

    def _java(self) -> tuple[Any, Any, int]:
        from jnius import autoclass

        activity = autoclass("org.kivy.android.PythonActivity").mActivity
        service = autoclass(SERVICE_CLASS)
        sdk = int(autoclass("android.os.Build$VERSION").SDK_INT)
        return activity, service, sdk

    def _perms(self, sdk: int) -> Permissions:
        if self._permissions is None:
            self._permissions = Permissions(lambda: sdk, on_main=self._on_main)
        return self._permissions

    def open(self) -> bool:
        """Start the service (the table is open); False when it was not started (no
        Bluetooth permission, Android refused, or not on Android). Never raises."""
        if self.running:
            return True
        try:
            activity, service, sdk = self._java()
            perms = self._perms(sdk)
            if sdk >= API_S and perms.missing("connect"):
                log.info("table service not started: BLUETOOTH_CONNECT not granted")
                return False
            self._start(activity, service)
            self.running = True
            if sdk >= API_TIRAMISU and not self._asked_notifications:
                self._asked_notifications = True
                perms.request_named([PERMISSION_POST_NOTIFICATIONS], self._notifications)
            return True
        except Exception:  # the table works without the service (the screen stays on)
            log.exception("could not start the table's foreground service")
            return False

    def _start(self, activity: Any, service: Any) -> None:
        title, text, channel = self._texts()
        service.start(activity, title, text, channel)

    def _notifications(self, granted: bool) -> None:
        # Allowed now: post the notification again (it was held back without the grant).
        if granted and self.running:
            try:
                activity, service, _sdk = self._java()
                self._start(activity, service)
            except Exception:
                log.exception("could not show the table's notification")

    def close(self) -> None:
        """Stop the service (the table ended). Never raises."""
        if not self.running:
            return
        self.running = False
        try:
            activity, service, _sdk = self._java()
            service.stop(activity)
        except Exception:
            log.exception("could not stop the table's foreground service")
