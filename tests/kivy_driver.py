"""Running a Kivy driver script headless: Kivy keeps one window and one event loop per
process, so each UI test file is also a driver script run in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def run_driver(script: Path, out: Path, timeout: float = 240) -> dict:
    """Run ``python script out`` with SDL rendering off-screen (a virtual X display as
    the fallback) and return the ``result.json`` it wrote; fail on its error."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIVY", "SDL"))}
    env.pop("DISPLAY", None)
    command = [sys.executable, str(script), str(out)]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if not (out / "result.json").exists() and shutil.which("xvfb-run"):
        # where SDL cannot render off-screen
        proc = subprocess.run(
            ["xvfb-run", "-a", *command], env=env, capture_output=True, text=True, timeout=timeout
        )
    result_file = out / "result.json"
    assert result_file.exists(), f"driver failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    data = json.loads(result_file.read_text())
    assert "error" not in data, data["error"]
    return data


# ----------------------------------------------------------- inside the driver process


def tap(button: Any) -> None:  # pragma: no cover - runs in the subprocess
    """A real touch (down + up) at the button's centre, through the window: the button
    must be the widget that gets it (laid out, visible, not covered)."""
    from kivy.tests.common import UnitTestTouch

    assert not button.disabled, f"tapped a disabled button: {button.text!r}"
    fired: list[bool] = []

    def on_release(*_args: Any) -> None:
        fired.append(True)

    button.bind(on_release=on_release)
    x, y = button.to_window(*button.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_up()
    button.unbind(on_release=on_release)
    assert fired, f"a touch at {(x, y)} did not reach the button {button.text!r}"


def press(button: Any) -> None:  # pragma: no cover - runs in the subprocess
    """Press a button by its events (for buttons off screen, e.g. in a scroll view)."""
    assert not button.disabled, f"pressed a disabled button: {button.text!r}"
    button.dispatch("on_press")
    button.dispatch("on_release")


def wait_for(cond: Any, label: str, seconds: float) -> Iterator[None]:  # pragma: no cover
    """A generator step: yield frames until ``cond()``, failing after ``seconds``."""
    import time

    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {label}")
        yield


def run_steps(app: Any, steps: Iterator[Any], out: Path, result: dict, delay: float = 0) -> None:
    """:func:`step_through` with the arguments in the order the layout drivers use."""
    step_through(app, steps, result, out, delay=delay)  # pragma: no cover - in the driver


def step_through(app, steps, result: dict, out: Path, finish=None, delay: float = 0) -> None:
    """In the driver: run the generator ``steps`` one step per frame (layouts settle in
    between), record a failure as ``result["error"]``, then run ``finish()``, write
    ``result.json`` into ``out`` and stop ``app``."""
    from kivy.clock import Clock

    def done() -> None:
        if finish is not None:
            finish()
        (out / "result.json").write_text(json.dumps(result, default=str))
        app.stop()

    def step(_dt) -> None:
        try:
            next(steps)
        except StopIteration:
            done()
        except BaseException:
            import traceback

            result["error"] = traceback.format_exc()
            done()
        else:
            Clock.schedule_once(step, delay)

    step(0)


def start_headless(out: Path, width: int, height: int) -> Path:
    """In a driver subprocess: a fresh data folder with English prefs for "Zosia", the
    project and tests/ importable, Kivy headless at ``width`` x ``height``; returns the
    data folder (for ``TestApp(data_dir=...)``)."""
    import tempfile

    data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=out))
    (data_dir / "prefs.json").write_text(
        json.dumps({"animation_speed": "off", "language": "en", "player_name": "Zosia"})
    )
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here.parent))
    sys.path.insert(0, str(here))
    from app.views.screenshot import headless_environment

    headless_environment()
    from kivy.config import Config

    Config.set("graphics", "width", str(width))
    Config.set("graphics", "height", str(height))
    return data_dir
