"""``blu21 app``: start the Kivy app (also the Android entry point, via /main.py)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the app. ``--lang`` overrides the language, ``--size WxH`` the window."""
    parser = argparse.ArgumentParser(prog="blu21 app", description="Run the blu21 app.")
    parser.add_argument("--lang", choices=["auto", "en", "de", "pl"], default=None)
    parser.add_argument("--size", default=None, help="window size, e.g. 360x640")
    parser.add_argument("--data-dir", default=None, help="where prefs.json is kept")
    parser.add_argument("--screen", default="home", help="first screen (for development)")
    args = parser.parse_args(list(argv or []))
    os.environ.setdefault("KIVY_NO_ARGS", "1")  # our argv is ours, not Kivy's
    if args.size:
        from app.views.screenshot import parse_size

        w, h = parse_size(args.size)
        from kivy.config import Config

        Config.set("graphics", "width", str(w))
        Config.set("graphics", "height", str(h))
    from app.views.app import Blu21App

    Blu21App(data_dir=args.data_dir, language=args.lang, first_screen=args.screen).run()
    return 0
