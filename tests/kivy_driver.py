"""Running a Kivy driver script headless: Kivy keeps one window and one event loop per
process, so each UI test file is also a driver script run in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


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
