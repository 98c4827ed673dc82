"""Running a Kivy driver script headless: Kivy keeps one window and one event loop per
process, so each UI test file is also a driver script run in a subprocess.

Hang guards here are progress-based (issue 17): a driver, or a wait inside it, fails
only when the app has shown no progress for :data:`STALL` real seconds, never because
a loaded machine made the whole run take long. The driver beats a file while it
progresses (:func:`beat`); the test process kills it only when the beats stop."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: Real seconds without any progress after which a driver, or a wait in it, counts as
#: hung. A guard against a test that would never end, not a speed target: its clock
#: starts again at every sign of progress, so a slow machine only makes runs longer.
STALL = 240.0

#: frames a second in a driver (:func:`draw_on_demand`; Kivy's default is 60)
FPS = 250.0

#: where a driver process beats (set by :func:`run_driver` for its subprocess)
PROGRESS_ENV = "BLU21_DRIVER_PROGRESS"

#: what a wait yields for a frame in which nothing progressed (no beat)
IDLE = object()


def run_driver(script: Path, out: Path, stall: float = STALL) -> dict:
    """Run ``python script out`` with SDL rendering off-screen (a virtual X display as
    the fallback) and return the ``result.json`` it wrote; fail on its error. The
    driver is killed as hung only after ``stall`` seconds without a beat."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIVY", "SDL"))}
    env.pop("DISPLAY", None)
    env[PROGRESS_ENV] = str(out / "progress")
    command = [sys.executable, str(script), str(out)]
    output = _watched(command, env, out, stall)
    hung = output[1].endswith("; killed\n")
    if not hung and not (out / "result.json").exists() and shutil.which("xvfb-run"):
        # where SDL cannot render off-screen
        output = _watched(["xvfb-run", "-a", *command], env, out, stall)
    result_file = out / "result.json"
    assert result_file.exists(), f"driver failed:\n{output[0][-3000:]}\n{output[1][-5000:]}"
    data = json.loads(result_file.read_text())
    assert "error" not in data, data["error"]
    return data


def _watched(command: list[str], env: dict[str, str], out: Path, stall: float) -> tuple[str, str]:
    """Run ``command`` to its end, killing it once its beats stopped for ``stall``
    seconds (its start counts as a beat); returns its stdout and stderr."""
    progress = out / "progress"
    with (
        open(out / "driver.out", "w+") as stdout,
        open(out / "driver.err", "w+") as stderr,
    ):
        proc = subprocess.Popen(command, env=env, stdout=stdout, stderr=stderr, text=True)
        seen, since = _beats(progress), time.monotonic()
        while proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1.0)
            now, beats = time.monotonic(), _beats(progress)
            if beats != seen:
                seen, since = beats, now
            elif now - since > stall:
                proc.kill()
                proc.wait()
                stderr.write(f"\nhung: no progress for {stall:.0f} s; killed\n")
        stdout.seek(0)
        stderr.seek(0)
        return stdout.read(), stderr.read()


def _beats(progress: Path) -> str:
    try:
        return progress.read_text()
    except OSError:
        return ""


# ----------------------------------------------------------- inside the driver process


_beat_state = {"count": 0, "written": 0.0}


def beat() -> None:  # pragma: no cover - runs in the subprocess
    """The app progressed: tell the test process (at most a few writes a second)."""
    path = os.environ.get(PROGRESS_ENV)
    _beat_state["count"] += 1
    now = time.monotonic()
    if path and now - _beat_state["written"] >= 0.5:
        _beat_state["written"] = now
        Path(path).write_text(str(_beat_state["count"]))


def screen_state() -> Any:  # pragma: no cover - runs in the subprocess
    """What the window shows, as a value that changes whenever the app shows progress:
    the current widgets with their texts, values and whether they are enabled."""
    from kivy.core.window import Window

    seen = []
    for root in list(Window.children):
        for w in root.walk():
            text, value = getattr(w, "text", None), getattr(w, "value", None)
            seen.append(
                (
                    type(w).__name__,
                    text if isinstance(text, str) else None,
                    value if isinstance(value, int | float) else None,
                    bool(getattr(w, "disabled", False)),
                )
            )
    return tuple(seen)


class Stall:
    """A hang guard for a wait in the driver: :meth:`check` fails once ``progress()``
    (default: :func:`screen_state`) has kept one value for ``seconds`` real seconds,
    never while it changes, however long the whole wait takes."""

    def __init__(
        self, label: str, seconds: float = STALL, progress: Callable[[], Any] | None = None
    ) -> None:
        self.label = label
        self.seconds = seconds
        self.progress = progress or screen_state
        self._seen: Any = self.progress()
        self._since = self._sampled = time.monotonic()

    def check(self) -> bool:  # pragma: no cover - runs in the subprocess
        """True if the app progressed since the last sample (then it beats); an
        AssertionError once it has not for ``seconds``. Samples at most 4 times a second
        (reading the whole window is not free)."""
        now = time.monotonic()
        if now - self._sampled < 0.25:
            return False
        self._sampled = now
        seen = self.progress()
        if seen != self._seen:
            self._seen, self._since = seen, now
            beat()
            return True
        if now - self._since > self.seconds:
            raise AssertionError(
                f"hung: no progress for {self.seconds:.0f} s waiting for {self.label}"
            )
        return False


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


def wait_for(
    cond: Any, label: str, seconds: float = STALL, progress: Callable[[], Any] | None = None
) -> Iterator[Any]:  # pragma: no cover - runs in the subprocess
    """A generator step: yield frames until ``cond()``, failing only once the app has
    shown no progress (``progress()``, default: what the window shows) for ``seconds``
    (a hang guard, not a time limit: see :class:`Stall`)."""
    guard = Stall(label, seconds, progress)
    while not cond():
        guard.check()
        yield IDLE


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
            if next(steps) is not IDLE:
                beat()  # (a step done; a wait beats itself when the app progresses)
        except StopIteration:
            done()
        except BaseException:
            import traceback

            result["error"] = traceback.format_exc()
            done()
        else:
            Clock.schedule_once(step, delay)

    step(0)


def draw_on_demand() -> Callable[[], None]:  # pragma: no cover - runs in the subprocess
    """In a driver, once the window exists: frames go on laying out, updating textures and
    canvas instructions (everything the checks read), but the window is no longer drawn
    to the screen each frame, which nobody looks at (a quarter of a driver's time went
    into drawing), and frames follow each other at up to :data:`FPS` a second, not 60
    (most of a driver's frames take a millisecond or two). Returns ``draw()``, which
    draws the window now: call it right before ``Window.screenshot`` (which reads the
    drawn pixels)."""
    from kivy.clock import Clock
    from kivy.core.window import Window

    # A step of a driver waits for the next frame, not for a 60th of a second: frames
    # come as fast as their work allows, up to FPS a second (a wait on another process
    # then costs a few percent of a core, not a spinning one).
    Clock._max_fps = FPS
    kind = type(Window)
    # (the event loop dispatches these by name: instance attributes shadow the methods)
    Window.on_draw = lambda *_args: None
    Window.on_flip = lambda *_args: None

    def draw() -> None:
        kind.on_draw(Window)

    return draw


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
