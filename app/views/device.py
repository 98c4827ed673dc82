"""Small device services (Android through pyjnius, imported lazily; no-ops elsewhere)."""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)


def on_android() -> bool:
    """True inside the python-for-android build."""
    return "ANDROID_ARGUMENT" in os.environ


def vibrate(milliseconds: int = 120) -> bool:
    """A short vibration (it is your turn); False where there is none. Never raises."""
    if not on_android():
        return False
    try:
        from jnius import autoclass

        activity = autoclass("org.kivy.android.PythonActivity").mActivity
        context = autoclass("android.content.Context")
        vibrator = activity.getSystemService(context.VIBRATOR_SERVICE)
        if vibrator is None or not vibrator.hasVibrator():
            return False
        effect = autoclass("android.os.VibrationEffect")
        vibrator.vibrate(effect.createOneShot(milliseconds, effect.DEFAULT_AMPLITUDE))
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
    end). python-for-android's services run in a process of their own, so one cannot
    hold these links; keeping the window awake can. False where there is no such flag
    (the desktop) or it failed. Never raises.
    """
    if not on_android():
        return False
    try:
        from android.runnable import run_on_ui_thread  # python-for-android
        from jnius import autoclass

        activity = autoclass("org.kivy.android.PythonActivity").mActivity
        flag = autoclass("android.view.WindowManager$LayoutParams").FLAG_KEEP_SCREEN_ON

        @run_on_ui_thread  # window flags may only change on the UI thread
        def apply() -> None:
            window = activity.getWindow()
            if on:
                window.addFlags(flag)
            else:
                window.clearFlags(flag)

        apply()
        return True
    except Exception:  # an old API or a missing module must not stop the game
        log.exception("keep_screen_on(%s) failed", on)
        return False
