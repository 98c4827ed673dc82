"""``blu21 app``: start the Kivy app (also the Android entry point, via /main.py)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.i18n import LANGUAGES, N_, _, detect_language, set_language
from app.i18n.args import ToolParser


def process_age() -> float:
    """Seconds since this process was started (Linux /proc; else since import)."""
    try:
        with open("/proc/self/stat") as fh:
            start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as fh:
            uptime = float(fh.read().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _IMPORTED


_IMPORTED = time.perf_counter()


def rss_mib() -> float:
    """Resident memory of this process in MiB (Linux), else 0."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


#: why the window cannot open (translated when printed; the command names stay as they are)
NO_DISPLAY = N_(
    "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set): "
    "run it in a desktop session, or render a screen to a file with "
    "'blu21 screenshot SCREEN OUT.png'"
)
DISPLAY_UNREACHABLE = N_(
    "no display answers at {display}, so the window cannot open: run it in a desktop "
    "session, or render a screen to a file with 'blu21 screenshot SCREEN OUT.png'"
)


def _connects(family: int, address: Any, timeout: float) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(address)
        return True
    except OSError:
        return False


def x_display_answers(display: str, timeout: float = 2.0) -> bool:
    """Does an X server answer at ``display`` (``:0``, ``unix:1.0``, ``host:10``)? A form
    this cannot check counts as answering (never a false alarm).

    >>> x_display_answers("not a display")
    True
    """
    host, sep, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not sep or not number.isdigit() or "/" in host:
        return True  # e.g. XQuartz's launchd path: not ours to judge
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        # Linux's abstract socket first (X servers listen on both), then the file
        return _connects(socket.AF_UNIX, "\0" + path, timeout) or _connects(
            socket.AF_UNIX, path, timeout
        )
    try:
        socket.create_connection((host.strip("[]"), 6000 + int(number)), timeout).close()
        return True
    except OSError:
        return False


def wayland_display_answers(env: Mapping[str, str]) -> bool:
    """Is the Wayland compositor's socket there? (Unknown counts as yes.)"""
    name = env.get("WAYLAND_DISPLAY", "")
    if name.startswith("/"):
        return os.path.exists(name)
    runtime = env.get("XDG_RUNTIME_DIR")
    return runtime is None or os.path.exists(os.path.join(runtime, name))


def display_problem(
    env: Mapping[str, str], x_answers: Callable[[str], bool] = x_display_answers
) -> str:
    """Why the app's window cannot open here ('' when it can), translated: without a
    display (none set, or nothing answering at the one set) SDL would fall back to an
    off-screen window and the app would run silently, with no window, until killed.

    >>> display_problem({"DISPLAY": ":0"}, lambda d: True), display_problem(
    ...     {"ANDROID_ARGUMENT": "x"})
    ('', '')
    >>> display_problem({}).split(":")[0]
    'no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set)'
    >>> display_problem({"DISPLAY": ":99"}, lambda d: False).split(",")[0]
    'no display answers at :99'
    """
    if env.get("ANDROID_ARGUMENT"):
        return ""
    if env.get("SDL_VIDEODRIVER") and env.get("SDL_VIDEODRIVER") not in ("x11", "wayland"):
        return ""  # a driver chosen on purpose (kmsdrm, offscreen for tests)
    x11, wayland = env.get("DISPLAY", ""), env.get("WAYLAND_DISPLAY", "")
    if not (x11 or wayland):
        return _(NO_DISPLAY)
    if (wayland and wayland_display_answers(env)) or (x11 and x_answers(x11)):
        return ""
    return _(DISPLAY_UNREACHABLE).format(display=x11 or wayland)


class QuietInputProbe(logging.Filter):
    """Kivy logs a full traceback at every desktop start when the Linux multitouch
    library (MTDev) is missing, which reads like a crash: it is normal (the mouse and
    touchpad work without it), so that record is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Input: MTDev is not supported")


def quiet_input_probe() -> None:
    """Install :class:`QuietInputProbe` on Kivy's logger (before its input providers
    are imported)."""
    from kivy.logger import Logger

    if not any(isinstance(f, QuietInputProbe) for f in Logger.filters):
        Logger.addFilter(QuietInputProbe())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the app. ``--lang`` overrides the language, ``--size WxH`` the window.

    ``--measure`` prints start-up to first frame and resident memory as JSON and quits
    (``--peer`` measures a bare one-label Kivy app the same way, for comparison).
    """
    parser = ToolParser(prog="blu21 app", description="Run the blu21 app.")
    parser.add_argument("--lang", choices=["auto", *LANGUAGES], default=None)
    parser.add_argument("--size", default=None, help="window size, e.g. 360x640")
    parser.add_argument("--data-dir", default=None, help="where prefs.json is kept")
    parser.add_argument("--screen", default="home", help="first screen (for development)")
    parser.add_argument("--measure", action="store_true", help="print start-up numbers, quit")
    parser.add_argument("--peer", action="store_true", help="with --measure: a bare Kivy app")
    args = parser.parse_args(list(argv or []))
    os.environ.setdefault("KIVY_NO_ARGS", "1")  # our argv is ours, not Kivy's
    if args.measure:
        from app.views.screenshot import headless_environment

        headless_environment()
    set_language(detect_language() if args.lang in (None, "auto") else args.lang)
    if args.size:
        from app.views.screenshot import parse_size

        try:
            w, h = parse_size(args.size)
        except argparse.ArgumentTypeError as exc:
            parser.error(f"--size: {exc}")  # one line and status 2, as argparse says it
        from kivy.config import Config

        Config.set("graphics", "width", str(w))
        Config.set("graphics", "height", str(h))
    if args.measure:
        return _measure(args)
    problem = display_problem(os.environ)
    if problem:
        print(f"blu21: {problem}", file=sys.stderr)
        return 1
    quiet_input_probe()
    from app.views.app import Blu21App

    Blu21App(data_dir=args.data_dir, language=args.lang, first_screen=args.screen).run()
    return 0


def _measure(args: argparse.Namespace) -> int:
    import sys

    from kivy.app import App
    from kivy.clock import Clock

    if args.peer:
        from kivy.uix.label import Label

        class Peer(App):
            def build(self) -> Any:
                return Label(text="hello")

        base: type = Peer
        kwargs: dict[str, Any] = {}
    else:
        from app.views.app import Blu21App

        base, kwargs = Blu21App, {"data_dir": args.data_dir, "language": args.lang}

    result: dict[str, Any] = {}

    class Measured(base):
        def on_start(self) -> None:
            super().on_start()

            def first_frame(_dt: float) -> None:  # runs after the first frame is drawn
                result["first_frame_ms"] = round(process_age() * 1000)
                result["rss_mib"] = round(rss_mib(), 1)
                result["modules"] = len(sys.modules)
                self.stop()

            Clock.schedule_once(first_frame, 0)

    Measured(**kwargs).run()
    result["app"] = "kivy-label-peer" if args.peer else "blu21"
    print(json.dumps(result))
    return 0
