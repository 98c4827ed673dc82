"""The Bluetooth set-up screen, live: every step in de, en and pl at 320x480 and 480x800,
and a whole first run driven by touches (issue 22).

Like tests/test_app_kivy.py this file is also the driver script, run headless in a
subprocess (one Kivy window per process, its size fixed at start). The phone is a
scripted stand-in (:class:`ScriptedPhone`) answering like Android would; the Android
side of the flow itself runs against the JVM stand-ins in tests/test_transport_android.py.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from kivy_driver import run_driver, step_through

# Longer than the default per-test limit (pyproject.toml): a Kivy process walks the Bluetooth set-
# up in every language and size.
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()
SIZES = ("320x480", "480x800")
LANGS = ("de", "en", "pl")


@pytest.fixture(scope="module", params=SIZES)
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("bt-setup")
    os.environ["BLU21_TEST_SIZE"] = request.param
    try:
        return run_driver(HERE, out)
    finally:
        del os.environ["BLU21_TEST_SIZE"]


def test_every_step_fits_in_every_language(run: dict) -> None:
    states = run["states"]
    assert len(states) == len(LANGS) * 8, sorted(states)
    problems = [p for s in states.values() for p in s["problems"]]
    assert problems == []
    for key, state in states.items():
        assert state["text"], key  # every step explains itself
    # Each language shows its own words (no English left in German or Polish).
    for step in {k.split(":", 1)[1] for k in states}:
        texts = {lang: states[f"{lang}:{step}"]["text"] for lang in LANGS}
        assert len(set(texts.values())) == 3, (step, texts)


def test_a_first_run_by_touches(run: dict) -> None:
    flow = run["flow"]
    assert flow["steps"] == [
        "permissions",
        "permissions",  # refused once: asked again, with the reason
        "bluetooth_off",
        "visibility",
        "ready",
    ]
    assert flow["asked"] == [
        ["connect", "advertise"],
        ["connect", "advertise"],
        "enable",
        "discoverable",
    ]
    assert flow["then_called"] == 1
    assert flow["back_on"] == "oczko_host"
    assert flow["retry_showed_settings"] is True
    assert flow["guest"] == {"steps": ["permissions", "search_permission"], "paired_only": True}


class ScriptedPhone:
    """A phone for the screen: answers each request as scripted, on the next frame."""

    def __init__(self, answers: dict[str, list[bool]], state: str = "off") -> None:
        self.permissions = self
        self.answers = answers
        self.granted: set[str] = set()
        self._state = state
        self.asked: list[Any] = []

    # permissions
    def missing(self, use: str) -> list[str]:
        return [] if use in self.granted else [use]

    def request(self, uses: Any, on_done: Any) -> None:
        from kivy.clock import Clock

        uses = list(uses)
        self.asked.append(uses)
        for use in uses:
            if self.answers.get(use, [True]).pop(0):
                self.granted.add(use)
        Clock.schedule_once(lambda _dt: on_done(None), 0)

    # the adapter and the system dialogs
    def state(self) -> str:
        return self._state

    def location_blocks_discovery(self) -> bool:
        return False

    def request_enable(self, on_done: Any) -> bool:
        from kivy.clock import Clock

        self.asked.append("enable")
        self._state = "on"
        Clock.schedule_once(lambda _dt: on_done(True), 0)
        return True

    def request_discoverable(self, seconds: int, on_done: Any) -> None:
        from kivy.clock import Clock

        self.asked.append("discoverable")
        Clock.schedule_once(lambda _dt: on_done(True), 0)

    def open_settings(self, which: str) -> None:
        self.asked.append(f"settings:{which}")

    def stop_discovery(self) -> None:
        pass


def _layout_problems(screen: Any, key: str) -> list[str]:
    """Visible widgets that stick out of the screen, text wider than its widget, buttons
    under 48 dp or overlapping."""
    from kivy.core.window import Window
    from kivy.metrics import dp
    from kivy.uix.button import Button
    from kivy.uix.label import Label

    problems = []
    buttons = []
    for w in screen.walk():
        if not isinstance(w, Label) or w.opacity == 0 or not w.text:
            continue
        x, y = w.to_window(w.x, w.y)
        if x < -0.5 or x + w.width > Window.width + 0.5:
            problems.append(f"{key}: {w.text[:30]!r} outside the screen")
        if w.texture_size[0] > w.width + 1:
            problems.append(f"{key}: {w.text[:30]!r} wider than its widget")
        if w.texture_size[1] > w.height + 1:
            problems.append(f"{key}: {w.text[:30]!r} taller than its widget")
        if isinstance(w, Button):
            if w.height < dp(48) - 0.5:
                problems.append(f"{key}: button {w.text[:30]!r} under 48 dp")
            buttons.append((x, y, w))
    for i, (x1, y1, a) in enumerate(buttons):
        for x2, y2, b in buttons[i + 1 :]:
            apart_x = x1 >= x2 + b.width or x2 >= x1 + a.width
            if not apart_x and y1 < y2 + b.height and y2 < y1 + a.height:
                problems.append(f"{key}: buttons {a.text[:20]!r} and {b.text[:20]!r} overlap")
    return problems


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess
    data_dir = Path(tempfile.mkdtemp(prefix="blu21-test-"))
    (data_dir / "prefs.json").write_text('{"animation_speed": "off", "language": "en"}')
    sys.path.insert(0, str(HERE.parents[1]))
    from app.views.screenshot import headless_environment

    headless_environment()
    from kivy.config import Config

    width, height = os.environ.get("BLU21_TEST_SIZE", "320x480").split("x")
    Config.set("graphics", "width", width)
    Config.set("graphics", "height", height)
    from kivy.clock import Clock

    from app.table.readiness import Situation
    from app.table.service import TableService
    from app.views.app import Blu21App
    from app.views.setup.bluetooth import BluetoothSetup

    result: dict = {"states": {}, "flow": {}}
    step_states = {
        "no_adapter": ("host", Situation("host", adapter="no_adapter")),
        "permissions-host": ("host", Situation("host", missing=(("connect", ("C",)),))),
        "permissions-join-retry": (
            "join",
            Situation("join", missing=(("connect", ("C",)),), refused=frozenset({"connect"})),
        ),
        "bluetooth_off": ("join", Situation("join", adapter="off")),
        "visibility": ("host", Situation("host")),
        "search_permission": ("join", Situation("join", missing=(("scan", ("S",)),))),
        "search_permission-retry": (
            "join",
            Situation("join", missing=(("scan", ("S",)),), refused=frozenset({"scan"})),
        ),
        "location_off": ("join", Situation("join", location_blocks_discovery=True)),
    }

    class FixedSetup(BluetoothSetup):
        """A set-up whose phone is a fixed situation (for the layout of each step)."""

        def __init__(self, purpose: str, situation: Situation) -> None:
            super().__init__(None, purpose)
            self.fixed = situation

        def situation(self) -> Situation:
            return self.fixed

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            Clock.schedule_once(self.run_checks, 0.1)

        def run_checks(self, _dt) -> None:
            step_through(self, self.checks(), result, out)

        def checks(self):
            # every step, in every language
            for lang in LANGS:
                self.update_prefs(language=lang)
                for name, (purpose, situation) in step_states.items():
                    screen = self.go("bt_setup", remember=False)
                    screen.setup, screen.then = FixedSetup(purpose, situation), None
                    screen.refresh()
                    yield
                    yield
                    key = f"{lang}:{name}"
                    result["states"][key] = {
                        "text": screen.text,
                        "problems": _layout_problems(screen, key),
                    }
            self.update_prefs(language="en")

            # a whole first run for a host, by touches: refuse once, then allow all
            from kivy_driver import tap as _tap

            os.environ["ANDROID_ARGUMENT"] = "test"  # take the Android path
            phone = ScriptedPhone({"advertise": [False, True]})
            # the app's table service over Bluetooth, its transport the scripted phone
            self.service = TableService(lambda: phone, bluetooth=True)
            calls: list[Any] = []
            host = self.go("oczko_host")
            yield
            from app.views.setup.permissions import ensure_bluetooth

            ensure_bluetooth(self, "host", calls.append)
            screen = self.sm.get_screen("bt_setup")
            seen, settings_shown, last = [], False, None
            for _ in range(60):
                yield
                if calls:
                    break
                now = screen.setup.step()
                if (now.code, now.retry) != last:
                    seen.append(now.code)
                    last = (now.code, now.retry)
                    continue  # tap on the next frame, once the new texts are laid out
                settings_shown |= screen.retry and screen.ids.settings.opacity == 1
                if not screen.busy and not screen.ids.action.disabled:
                    _tap(screen.ids.action)
            seen.append("ready")
            result["flow"] = {
                "steps": seen,
                "asked": phone.asked,
                "then_called": len(calls),
                "back_on": self.sm.current,
                "retry_showed_settings": settings_shown,
            }
            # a guest who refuses the search: the way around (paired phones only)
            phone = ScriptedPhone({"scan": [False]}, state="on")
            assert self.service.transport() is not phone  # another phone now
            self.service = TableService(lambda: phone, bluetooth=True)
            join = self.go("oczko_join")
            yield
            ensure_bluetooth(self, "join", calls.append)
            yield
            yield
            guest_steps = [screen.setup.step().code]
            _tap(screen.ids.action)
            for _ in range(5):
                yield
            guest_steps.append(screen.setup.step().code)
            _tap(screen.ids.skip)
            yield
            result["flow"]["guest"] = {
                "steps": guest_steps,
                "paired_only": len(calls) == 2 and calls[1].paired_only,
            }
            del os.environ["ANDROID_ARGUMENT"]
            assert host is not None and join is not None

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":
    drive(Path(sys.argv[1]))
