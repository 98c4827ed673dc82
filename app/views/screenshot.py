"""``blu21 screenshot SCREEN OUT.png [--lang de] [--size 360x640]``: render a screen to a PNG.

The screen is shown with a representative state (a practice Oczko round in play, a
blackjack round at the insurance prompt, ...), reached by pressing the live screens'
buttons from the home screen (app/views/demos.py), rendered off-screen (SDL2 with Mesa;
no display needed) and saved. ``blu21 screenshot list`` prints the screens and states.
Nothing is left in the temporary directory.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.i18n import LANGUAGES
from app.i18n.args import ToolParser

if TYPE_CHECKING:
    from app.views.app import Blu21App
    from app.views.demos import Demo


def parse_size(text: str) -> tuple[int, int]:
    """``"360x640"`` -> (360, 640); at least 240x320, at most 4096 on a side.

    >>> parse_size("320x480")
    (320, 480)
    """
    from app.i18n import _

    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            _("the size must be WIDTHxHEIGHT in pixels, e.g. 360x640, not '{text}'").format(
                text=text
            )
        ) from exc
    if not (240 <= w <= 4096 and 320 <= h <= 4096):
        raise argparse.ArgumentTypeError(
            _("the size '{text}' is out of range: 240x320 to 4096x4096").format(text=text)
        )
    return w, h


def temporary_dir(prefix: str) -> str:
    """A fresh temporary directory, removed when the process ends."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, True)
    return path


def headless_environment(kivy_home: str | None = None) -> None:
    """Environment for rendering without a display (call before importing Kivy)."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_WINDOW", "sdl2")
    os.environ.setdefault("KIVY_METRICS_DENSITY", "1")
    if "KIVY_HOME" not in os.environ:
        os.environ["KIVY_HOME"] = kivy_home or temporary_dir("blu21-kivy-")
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")


def _demos() -> dict[str, Demo]:
    from app.views import demos

    return demos.DEMOS


def run_demo(
    app: Blu21App, key: str, then: Callable[[], None], fail: Callable[[str], None]
) -> None:
    """Play demo ``key`` on the running ``app``, one step per frame, then call ``then``
    (or ``fail`` with the error when a step fails)."""
    from kivy.clock import Clock

    steps = _demos()[key](app)

    def step(_dt: float) -> None:
        try:
            next(steps)
        except StopIteration:
            Clock.schedule_once(lambda _dt: then(), 0.3)  # the last layout pass
        except Exception as exc:  # a state the live screens did not reach
            fail(f"{type(exc).__name__}: {exc}")
        else:
            Clock.schedule_once(step, 0)

    step(0)


def main(argv: Sequence[str] | None = None) -> int:
    """Render one screen to a PNG; exit code 0 on success, 2 on bad arguments."""
    parser = ToolParser(prog="blu21 screenshot", description=__doc__.splitlines()[0])
    parser.add_argument("screen", help="screen name, or 'list'")
    parser.add_argument("out", nargs="?", help="output PNG file")
    parser.add_argument("--lang", choices=list(LANGUAGES), default="en")
    parser.add_argument("--size", type=parse_size, default=(360, 640))
    parser.add_argument("--data-dir", default=None, help="prefs/branding dir (default: empty)")
    parser.add_argument("--state", default=None, help="another representative state (see 'list')")
    args = parser.parse_args(list(argv or []))
    from app.views.registry import SCREENS

    if args.screen == "list":
        from app.views.demos import states

        print("\n".join(k.replace(":", " --state ") for k in states()))
        return 0
    if args.screen not in SCREENS:
        parser.error(f"unknown screen {args.screen!r}; one of: {', '.join(SCREENS)}")
    key = f"{args.screen}:{args.state}" if args.state else args.screen
    if key not in _demos():
        known = [k.split(":")[1] for k in _demos() if k.startswith(args.screen + ":")]
        parser.error(
            f"unknown state {args.state!r} for {args.screen}; "
            + (f"one of: {', '.join(known)}" if known else "it has no other states")
        )
    if not args.out:
        parser.error("the output file is required")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    headless_environment()
    from kivy.config import Config

    Config.set("graphics", "width", str(args.size[0]))
    Config.set("graphics", "height", str(args.size[1]))
    Config.set("graphics", "resizable", "0")
    from kivy.clock import Clock

    from app.views.app import Blu21App

    data_dir = args.data_dir or temporary_dir("blu21-data-")
    result = {"ok": False}

    class ShotApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            # no slide transition: the picture shows the screen, not the way to it
            self.prefs = self.prefs.replace(animation_speed="off")
            Clock.schedule_once(lambda _dt: run_demo(self, key, shoot, fail), 0)

        def on_stop(self) -> None:
            from app.views.demos import close_games

            close_games(self)  # a table opened for the picture

    def fail(error: str) -> None:
        print(f"blu21 screenshot: {key} was not reached: {error}", file=sys.stderr)
        app.stop()

    def shoot() -> None:
        from kivy.core.window import Window

        # the window's framebuffer, so dialogs and messages are in the picture
        tmp = Window.screenshot(name=str(Path(temporary_dir("blu21-shot-")) / "shot.png"))
        if tmp and Path(tmp).exists():
            shutil.move(tmp, out)
        result["ok"] = out.exists()
        app.stop()

    app = ShotApp(data_dir=data_dir, language=args.lang, first_screen="home")
    app.run()
    if not result["ok"]:
        print(f"blu21 screenshot: could not write {out}", file=sys.stderr)
        return 1
    print(out)
    return 0
