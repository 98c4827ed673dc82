"""Every screen and state ``blu21 screenshot list`` names, reached through the live
screens (app/views/demos.py) and checked with :mod:`layout_geometry`, in English, German
and Polish at 320x480 and 360x640, and in every other shipped language (French, Spanish,
Italian, Czech, Ukrainian, Turkish) at 320x480, the size where text clips first (one size
for those keeps the run time modest); in landscape at 1280x800 and 960x600 in English
and German (Android 16 ignores the portrait lock on large screens); and the
``blu21 screenshot`` command itself.

This file is also the driver script (``python tests/test_screenshot_states.py OUT``).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from kivy_driver import run_driver

# Longer than the default per-test limit (pyproject.toml): one Kivy process renders every screen
# state in every language and size (about 300 s on a quiet 2-core machine).
pytestmark = pytest.mark.timeout(1800)

HERE = Path(__file__).resolve()
PORTRAIT = ((320, 480), (360, 640))
#: Android 16 (API 36) ignores the portrait lock on large screens (smallest width >= 600
#: dp): a tablet's or an unfolded foldable's landscape window, and the smallest such one
LANDSCAPE = ((1280, 800), (960, 600))
SIZES = PORTRAIT + LANDSCAPE
ALL_SIZES = ("en", "de", "pl")  # the languages checked at both portrait sizes
WIDE = ("en", "de")  # the languages checked in landscape (German: the longest words)


def languages_at(size: tuple[int, int]) -> tuple[str, ...]:
    """The languages whose states are checked at ``size``: every shipped one at the
    smallest size, English, German and Polish at the other portrait size too, English
    and German in landscape."""
    from app.i18n import LANGUAGES

    if size in LANDSCAPE:
        return WIDE
    return tuple(LANGUAGES) if size == SIZES[0] else ALL_SIZES


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-states"))


def test_every_listed_state_was_reached_in_every_language_and_size(run: dict) -> None:
    from app.views.demos import states

    listed = _blu21("screenshot", "list").stdout.split("\n")
    assert [x.replace(" --state ", ":") for x in listed if x] == states()
    expected = {
        f"{s}@{w}x{h}:{lang}" for s in states() for w, h in SIZES for lang in languages_at((w, h))
    }
    assert set(run["checked"]) == expected
    shipped = {"en", "de", "pl", "fr", "es", "it", "cs", "uk", "tr"}
    assert {k.split(":")[-1] for k in run["checked"]} == shipped


def test_every_screen_and_state_renders(run: dict) -> None:
    """(from tests/test_app_kivy.py: there every screen was rendered a second time)"""
    from app.views.registry import SCREENS

    assert set(SCREENS) <= set(run["screens"])
    assert len(run["screens"]) > len(SCREENS)  # the extra states rendered too
    for name, info in run["screens"].items():
        assert Path(info["png"]).stat().st_size > 2000, name  # something was drawn
        assert info["size"][0] > 0, name


def test_touch_targets_are_at_least_48dp(run: dict) -> None:
    """(from tests/test_app_kivy.py; the layout check also asks 48 dp of the width)"""
    assert run["buttons_checked"] > 20
    assert run["small_buttons"] == []


def test_deal_and_flip_follow_the_animation_speed(run: dict) -> None:
    slow, off = run["animation"]["slow"], run["animation"]["off"]
    assert slow[0] < 1 and slow[1] < 1 and slow[2] == [[1, "flip"]]
    assert off[:2] == [1, 1]  # "off": at once


def test_no_layout_problem_in_any_state(run: dict) -> None:
    problems = [p for ps in run["checked"].values() for p in ps]
    assert problems == [], "\n".join(problems[:60])


def test_a_networked_table_says_on_the_rules_page_what_differs(run: dict) -> None:
    from app import i18n
    from app.rules.table_rules import TableRules
    from app.views.rules_text import NETWORKED_RULES, networked_differences

    table = TableRules(late_surrender=True, triple_seven=True)
    for lang, shown in run["networked_rules"].items():
        i18n.set_language(lang)
        want = networked_differences(table)
        assert [t for _k, t in want] == shown[: len(want)], lang
        assert len(want) == len(NETWORKED_RULES) - 1  # every difference but "European"
        if lang != "en":
            assert all(t not in NETWORKED_RULES.values() for _k, t in want), lang
    i18n.set_language("en")
    assert run["networked_rules"]["en"][0] == "At a table across phones"


def test_the_rules_screen_shows_the_house_edge_blu21_edge_computes(run: dict, tmp_path) -> None:
    text, rules = run["edge"]
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules))
    from app.rules.table_rules import TableRules
    from app.strategy.edge import house_edge

    edge = house_edge(TableRules.from_json(rules)).house_edge
    assert text.startswith(f"House edge of these rules: {100 * edge:.2f} %")
    cli = _blu21("edge", "--preset", "classic").stdout  # the rules shown are classic's
    assert f"house edge:  {100 * edge:.4f} %" in cli


def _blu21(*args: str, tmp: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIVY", "SDL"))}
    env.pop("DISPLAY", None)
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    return subprocess.run(
        [sys.executable, "-m", "app", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_an_unknown_state_is_an_error(tmp_path: Path) -> None:
    proc = _blu21("screenshot", "bj_table", str(tmp_path / "x.png"), "--state", "nosuch")
    assert proc.returncode == 2
    assert "unknown state 'nosuch' for bj_table" in proc.stderr
    assert "insurance" in proc.stderr  # the states it has
    assert not (tmp_path / "x.png").exists()
    proc = _blu21("screenshot", "home", str(tmp_path / "x.png"), "--state", "result")
    assert proc.returncode == 2 and "has no other states" in proc.stderr


def test_a_screenshot_leaves_nothing_in_the_temp_dir(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "shot.png"
    proc = _blu21(
        *("screenshot", "oczko_table", str(out), "--lang", "pl", "--size", "320x480"),
        *("--state", "result"),
        tmp=temp,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    head = out.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (320, 480)
    assert list(temp.iterdir()) == []


def test_the_app_without_a_display_says_so() -> None:
    proc = _blu21()
    assert proc.returncode == 1
    assert "no display" in proc.stderr and "blu21 screenshot" in proc.stderr


# --------------------------------------------------------------------------- the driver


def drive(out: Path, only: str = "") -> None:  # pragma: no cover - runs in the subprocess
    """``only``: check just the states whose name contains it (while developing)."""
    sys.path.insert(0, str(HERE.parents[1]))
    sys.path.insert(0, str(HERE.parent))
    data_dir = Path(tempfile.mkdtemp(prefix="states-", dir=out))
    (data_dir / "prefs.json").write_text(
        json.dumps({"animation_speed": "off", "language": "en", "player_name": "Zosia"})
    )
    from app.views.screenshot import headless_environment

    headless_environment()
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy.metrics import dp
    from kivy.uix.button import Button
    from kivy_driver import draw_on_demand, run_steps
    from layout_geometry import check_window

    from app.views.app import Blu21App
    from app.views.demos import DEMOS, states

    result: dict = {"checked": {}, "screens": {}, "buttons_checked": 0, "small_buttons": []}

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            self.draw = draw_on_demand()  # (drawn only for the screenshots)
            Clock.schedule_once(lambda _dt: run_steps(self, self.checks(), out, result), 0.1)

        def buttons(self, key: str, png: str) -> None:
            """Every button of the state's screen that is shown (also outside the window,
            in a scroll view) at least 48 dp tall (moved from tests/test_app_kivy.py)."""
            screen = self.sm.get_screen(key.split(":")[0])
            result["screens"][key] = {"size": list(screen.size), "png": png}
            for w in screen.walk():
                if isinstance(w, Button) and w.opacity > 0 and w.width > 0:
                    result["buttons_checked"] += 1
                    if w.height < dp(48) - 0.5:
                        result["small_buttons"].append(f"{key}:{w.text}:{w.height}")

        def checks(self):
            for size in SIZES:
                Window.size = size
                for lang in languages_at(size):
                    self.update_prefs(language=lang)
                    for key in [k for k in states() if only in k]:
                        t0 = time.monotonic()
                        yield from DEMOS[key](self)
                        seconds = result.setdefault("seconds", {})
                        seconds[key] = seconds.get(key, 0) + time.monotonic() - t0
                        yield
                        yield
                        where = f"{key}@{size[0]}x{size[1]}:{lang}"
                        if key == "rules_blackjack:networked":
                            page = self.sm.get_screen("rules_blackjack").ids.page
                            shown = [w.text for w in reversed(page.children)]
                            result.setdefault("networked_rules", {})[lang] = shown
                        if key == "bj_rules" and lang == "en":
                            screen = self.sm.get_screen("bj_rules")
                            result["edge"] = [screen.edge_label.text, screen.rules.to_json()]
                        result["checked"][where] = check_window(self, where)
                        if size == SIZES[0]:
                            name = f"{key.replace(':', '-')}-{lang}.png"
                            self.draw()
                            made = Window.screenshot(name=str(out / name))
                            if lang == "en":
                                self.buttons(key, made)
            for _ in DEMOS["home"](self):  # closes what the last state opened
                pass
            # deal and flip animations follow the animation-speed setting
            from app.views.cardtex import BACK, HandView

            anim = result["animation"] = {}
            for speed in ("slow", "off"):
                self.update_prefs(animation_speed=speed)
                hand = HandView(size=(300, 100))
                hand.cards = [1, BACK]
                hand.cards = [1, BACK, 7]  # dealt
                dealt = hand.progress
                yield
                hand.cards = [1, 5, 7]  # turned face up
                flipped = hand.progress
                anim[speed] = [dealt, flipped, sorted(hand._moving.items())]

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]), *sys.argv[2:3])
