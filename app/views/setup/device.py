"""Small device services (Android through pyjnius, imported lazily; no-ops elsewhere)."""

from __future__ import annotations

import logging
import os
from typing import Any

log = logging.getLogger(__name__)


def on_android() -> bool:
    """True inside the python-for-android build."""
    return "ANDROID_ARGUMENT" in os.environ


#: Android 8 (API 26): ``VibrationEffect``; older phones vibrate by milliseconds.
API_VIBRATION_EFFECT = 26

_java: dict[str, Any] = {}


def _classes() -> dict[str, Any]:
    """The Java classes these services use, looked up once on the main thread (a worker
    thread cannot find app classes such as PythonActivity on Android)."""
    if not _java:
        from jnius import autoclass, cast

        _java.update(
            activity=autoclass("org.kivy.android.PythonActivity").mActivity,
            Context=autoclass("android.content.Context"),
            VERSION=autoclass("android.os.Build$VERSION"),
            LayoutParams=autoclass("android.view.WindowManager$LayoutParams"),
            cast=cast,
        )
    return _java


def prepare() -> None:
    """Look the Java classes up now (call on the main thread at start). Never raises."""
    if on_android():
        try:
            _classes()
        except Exception:  # a missing class only disables the service that needs it
            log.exception("device services unavailable")


def vibrate(milliseconds: int = 120) -> bool:
    """A short vibration (it is your turn); False where there is none. Never raises.

    ``VibrationEffect`` exists from API 26; phones on 24-25 use ``vibrate(long)``.
    """
    if not on_android():
        return False
    try:
        java = _classes()
        service = java["activity"].getSystemService(java["Context"].VIBRATOR_SERVICE)
        if service is None:
            return False
        vibrator = java["cast"]("android.os.Vibrator", service)
        if not vibrator.hasVibrator():
            return False
        if int(java["VERSION"].SDK_INT) >= API_VIBRATION_EFFECT:
            from jnius import autoclass

            effect = autoclass("android.os.VibrationEffect")
            vibrator.vibrate(effect.createOneShot(milliseconds, effect.DEFAULT_AMPLITUDE))
        else:
            vibrator.vibrate(int(milliseconds))
        return True
    except Exception:  # a missing permission or an old API must not stop the game
        log.exception("vibration failed")
        return False


def system_bar_insets() -> tuple[int, int] | None:
    """(status bar, navigation bar) heights in pixels on Android, else None."""
    if not on_android():
        return None
    try:
        from jnius import autoclass

        resources = autoclass("org.kivy.android.PythonActivity").mActivity.getResources()
        sizes = []
        for name in ("status_bar_height", "navigation_bar_height"):
            ident = resources.getIdentifier(name, "dimen", "android")
            sizes.append(resources.getDimensionPixelSize(ident) if ident > 0 else 0)
        return sizes[0], sizes[1]
    except Exception:  # fall back to typical sizes rather than fail at start
        log.exception("could not read the system bar sizes")
        return None


def keep_screen_on(on: bool) -> bool:
    """Keep the screen on (``on``) while a table runs, or let it sleep again.

    The table's links live in the app's process: a phone whose screen goes off in the
    middle of a match would stop its heartbeats and be dropped (the host's table would
    end). :func:`table_open` also runs the table's foreground service, which keeps the
    process up when the player leaves the app anyway. Call it on the main thread (it looks
    Java classes up); the window flag itself is changed on Android's UI thread. False
    where there is no such flag (the desktop) or it failed. Never raises.
    """
    if not on_android():
        return False
    try:
        from android.runnable import run_on_ui_thread  # python-for-android

        java = _classes()
        flag = java["LayoutParams"].FLAG_KEEP_SCREEN_ON
        activity = java["activity"]

        def apply() -> None:
            window = activity.getWindow()
            if on:
                window.addFlags(flag)
            else:
                window.clearFlags(flag)

        run_on_ui_thread(apply)()  # window flags may only change on the UI thread
        return True
    except Exception:  # an old API or a missing module must not stop the game
        log.exception("keep_screen_on(%s) failed", on)
        return False


def _table_texts() -> tuple[str, str, str]:
    from app.i18n import _

    return (
        _("Blu21: your table is open"),
        _("The table goes on while you are away. Tap to return to it."),
        _("Open table"),
    )


def table_open(on: bool) -> bool:
    """A network table opened (``on``) or ended: keep the screen on, and on Android run
    the table's foreground service (the transport's ``keep_table_open``,
    app/bluetooth/android_service.py) so that the table goes on while the player looks at
    another app or turns the screen off. Call it on the main thread. True if the service
    runs (on) / was asked to stop. Never raises."""
    keep_screen_on(on)
    if not on_android():
        return False
    try:
        from kivy.app import App

        app = App.get_running_app()
        transport = app.service.transport()  # the app's one (Android) transport
        keep = getattr(transport, "keep_table_open", None)
        return bool(keep is not None and keep(on, _table_texts))
    except Exception:  # the table works without it
        log.exception("table_open(%s) failed", on)
        return False
