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
