"""The real Kivy app, headless (SDL2 offscreen on Mesa), driven by simulated touches.

Kivy keeps global state (one window, one event loop per process), so the app runs in a
subprocess: this file is also the driver script (``python tests/test_app_kivy.py OUT``),
which starts the app, switches the language live, plays a full
practice Oczko match by pressing the real buttons, and writes what it saw as JSON.
Every screen and state is rendered, its buttons checked, by tests/test_screenshot_states.py
(the same Kivy process that checks their layout in every language and size).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from kivy_driver import run_driver, step_through

# Longer than the default per-test limit (pyproject.toml): one Kivy process renders every screen
# of the app (about 30 s quiet).
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("kivy")
    data = run_driver(HERE, out)
    data["_dir"] = str(out)
    return data


def test_app_starts_and_renders_its_first_frame(run: dict) -> None:
    # (every screen and state rendered, its buttons at least 48 dp: in one Kivy process
    # with the states of tests/test_screenshot_states.py, issue 34)
    assert run["first_frame_ms"] > 0
    print(
        f"\nresident memory after both games: {run['rss_mib_end']:.1f} MiB,"
        f" {run['card_textures']} card textures drawn"
    )


def test_language_switches_live(run: dict) -> None:
    assert run["language"]["before"] == "Settings"
    assert run["language"]["after"] == "Einstellungen"
    assert run["language"]["title"] == "Einstellungen"
    assert run["language"]["prefs_saved"] == "de"
    assert run["language"]["rules_heading"] == "Oczko: die Regeln"  # Python-built text too


def test_venue_branding(run: dict) -> None:
    assert run["branding"] == {"title": "Café Karo", "welcome": ["Welcome!", "Willkommen!"]}


def test_card_textures_are_reused(run: dict) -> None:
    assert run["textures_reused"] is True


def test_full_practice_match_by_touches(run: dict) -> None:
    m = run["practice"]
    assert m["over"] is True
    assert m["presses"]["draw"] + m["presses"]["hold"] > 0
    assert m["presses"]["next"] >= 1  # at least one round result was shown and dismissed
    if m["winner"] == m["my_name"]:
        assert m["banner"].startswith("You win the match")  # the player: "you"
    else:
        assert m["banner"].startswith(m["winner"] + " wins the match")
    assert m["rounds"] >= 1
    assert m["my_name"] == "Zosia"  # typed in the settings, saved, used at the table


def test_leaving_a_game_asks_first(run: dict) -> None:
    assert run["leave"] == {
        "asked": True,
        "stayed": "oczko_table",
        "left_to": "oczko_menu",
        "back_gesture_closes_question": True,
    }


def test_table_rules_saved_and_a_rule_without_effect_not_offered(run: dict) -> None:
    assert run["table_rules"] == {
        "hole_card": "enhc",
        "late_surrender": False,
        "rounds": 10,
        "surrender_offered": False,
    }
    assert "European" in run["rules_shown"]


def test_full_blackjack_session_by_touches(run: dict) -> None:
    bj = run["blackjack"]
    assert bj["screen"] == "bj_summary"
    assert bj["rounds"] == 10
    assert {"betting", "play", "settled"} <= set(bj["phases"])
    assert bj["legal_matches"] is True  # enabled buttons == the engine's legal actions
    assert all(bj["results"])  # every round showed its result
    assert bj["hints"] and all(h.startswith("Hint: ") for h in bj["hints"])
    labels = [label for label, _value in bj["summary"]]
    assert labels[0] == "Rounds played" and bj["summary"][0][1] == "10 / 10"


def test_corrupt_prefs_start_with_defaults_and_a_message(run: dict) -> None:
    assert run["corrupt_prefs_message"]


def _blu21(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIVY", "SDL"))}
    env.pop("DISPLAY", None)
    env["BLU21_DATA_DIR"] = str(tmp)
    return subprocess.run(
        [sys.executable, "-m", "app", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_screenshot_command(tmp_path: Path) -> None:
    import struct

    out = tmp_path / "shot.png"
    proc = _blu21(
        "screenshot",
        "oczko_table",
        str(out),
        "--lang",
        "pl",
        "--size",
        "320x480",
        "--state",
        "result",
        tmp=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    head = out.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (320, 480)


def test_screenshot_command_rejects_bad_arguments(tmp_path: Path) -> None:
    assert _blu21("screenshot", "nowhere", "x.png", tmp=tmp_path).returncode == 2
    assert _blu21("screenshot", "home", "x.png", "--size", "10x10", tmp=tmp_path).returncode == 2


def test_measure_start_up(tmp_path: Path) -> None:
    proc = _blu21("app", "--measure", tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["app"] == "blu21" and data["first_frame_ms"] > 0 and data["rss_mib"] > 0


# --------------------------------------------------------------------------- the driver


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess
    import time

    t0 = time.perf_counter()
    data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=out))
    (data_dir / "prefs.json").write_text('{"animation_speed": "off", "language": "en"')
    (data_dir / "branding.json").write_text(
        json.dumps(
            {
                "name": "Café Karo",
                "welcome": {"en": "Welcome!", "de": "Willkommen!"},
                "colours": {"primary": "#0b6e4f"},
            }
        )
    )
    sys.path.insert(0, str(HERE.parents[1]))
    from app.views.screenshot import headless_environment

    headless_environment()
    from kivy.config import Config

    Config.set("graphics", "width", "320")
    Config.set("graphics", "height", "480")
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy_driver import press, tap

    from app.views.app import Blu21App, Toast

    result: dict = {"screens": {}}

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            Clock.schedule_once(
                lambda _dt: result.__setitem__("first_frame_ms", (time.perf_counter() - t0) * 1000),
                0,
            )
            Clock.schedule_once(self.run_checks, 0.1)

        def run_checks(self, _dt) -> None:
            step_through(self, self.checks(), result, out)

        def checks(self) -> None:
            result["corrupt_prefs_message"] = any(
                isinstance(w, Toast) and w.text for w in Window.children
            )
            self.update_prefs(animation_speed="off")
            self.controllers.clear()

            # live language switch from the settings screen
            home = self.go("home", remember=False)
            rules_page = self.screen("rules_oczko")
            before = home.ids.settings.text
            result["branding"] = {
                "title": self.root_widget.ids.title.text,
                "welcome": [home.welcome],
            }
            settings = self.go("settings")
            deutsch = next(
                w for w in settings.walk() if getattr(w, "pref", None) == ("language", "de")
            )
            press(deutsch)
            yield
            result["language"] = {
                "before": before,
                "after": home.ids.settings.text,
                "title": self.root_widget.ids.title.text,
                "prefs_saved": json.loads((data_dir / "prefs.json").read_text())["language"],
                "rules_heading": rules_page.ids.page.children[-1].text,
            }
            result["branding"]["welcome"].append(home.welcome)
            self.update_prefs(language="en")
            field = self.go("settings").ids["name"]
            field.focus = True
            field.text = "  Zosia  "
            field.focus = False
            yield

            # a full practice match against bots, by touches, on a fake clock
            home = self.go("home", remember=False)
            press(home.ids.oczko)
            press(self.sm.get_screen("oczko_menu").ids.practice)
            table = self.sm.get_screen("oczko_table")
            assert self.sm.current == "oczko_table"
            now = [0.0]
            table.clock = lambda: now[0]
            c = table.controller
            c.timer.deadline = c.turn_time if c.match.to_act == c.me else 0.0  # fake clock
            presses = {"draw": 0, "hold": 0, "next": 0}
            for _ in range(5000):
                vm = table.vm
                if vm.match_over:
                    break
                if vm.next_text or vm.can_draw:
                    yield  # the row of buttons is laid out anew
                    vm = table.vm
                if vm.next_text:
                    tap(table.ids.next)
                    presses["next"] += 1
                elif vm.can_draw:
                    total = int(vm.my_total.split()[-1])
                    key = "draw" if total < 15 else "hold"
                    tap(table.ids[key])
                    presses[key] += 1
                else:
                    now[0] += 1.0
                    table.tick()
            from app.views.cardtex import textures

            drawn = textures.rendered
            for _ in range(5):
                table.refresh()
            result["textures_reused"] = textures.rendered == drawn
            c = table.controller
            result["practice"] = {
                "over": table.vm.match_over,
                "presses": presses,
                "winner": c.names[c.match.winner],
                "banner": table.vm.banner,
                "rounds": len(c.match.history),
                "my_name": c.names[0],
            }
            yield
            self.root_widget.export_to_png(str(out / "practice_end.png"))

            # leaving a game in progress asks first; "No" stays, "Yes" leaves
            yield
            tap(table.ids.next)  # a new match
            tap(self.root_widget.ids.back)
            asked = self.dialog is not None and self.dialog._is_open
            press(self.dialog.ids.no)
            stayed = self.sm.current
            press(self.root_widget.ids.back)
            Window.dispatch("on_keyboard", 27, 0, None, [])  # the back gesture
            closed = not self.dialog._is_open and self.sm.current == "oczko_table"
            press(self.root_widget.ids.back)
            press(self.dialog.ids.yes)
            result["leave"] = {
                "asked": asked,
                "stayed": stayed,
                "left_to": self.sm.current,
                "back_gesture_closes_question": closed,
            }
            yield

            # table rules: a preset; late surrender (it needs peek) is not even offered
            home = self.go("home", remember=False)
            press(home.ids.blackjack)
            menu = self.sm.get_screen("bj_menu")
            press(menu.ids.table_rules)
            rules = self.sm.get_screen("bj_rules")
            european = next(w for w in rules.walk() if getattr(w, "preset", None) == "european")
            press(european)
            offered = any(
                getattr(w, "rule", None) == ("late_surrender", True) for w in rules.walk()
            )
            ten_rounds = next(w for w in rules.walk() if getattr(w, "rule", None) == ("rounds", 10))
            press(ten_rounds)
            saved = json.loads((data_dir / "prefs.json").read_text())
            result["table_rules"] = {
                "hole_card": saved["table_rules"]["hole_card"],
                "late_surrender": saved["table_rules"]["late_surrender"],
                "rounds": saved["table_rules"]["rounds"],
                "surrender_offered": offered,
            }
            yield

            # a full blackjack session by touches: bets, deal, every decision, results
            self.back()
            menu = self.sm.get_screen("bj_menu")
            result["rules_shown"] = menu.rules_text
            self.update_prefs(show_hints=True)
            hints: list[str] = []
            press(menu.ids.start)
            table = self.sm.get_screen("bj_table")
            seen_phases, legal_matches, rounds, results = set(), True, 0, []
            for _ in range(2000):
                if self.sm.current != "bj_table":
                    break
                yield  # the controls are rebuilt after each action: lay them out
                vm = table.vm
                seen_phases.add(vm.phase)
                b = table.buttons
                if vm.prompt is not None:
                    seen_phases.add("prompt:" + vm.prompt.choices[-1][0])
                    tap(b[vm.prompt.choices[-1][0]])
                elif vm.phase == "betting":
                    if "chip10" in b and rounds % 2 == 0:
                        press(b["box4"] if rounds % 4 == 2 else b["box1"])
                        yield
                        tap(table.buttons["chip10"])
                        yield
                    if table.vm.side_bet is not None and rounds % 3 == 0:
                        tap(table.buttons["side_bet"])
                        yield
                    tap(table.buttons["deal"])
                elif vm.phase == "settled":
                    results.append(vm.result)
                    rounds += 1
                    tap(b["next"])
                else:
                    legal = {a.kind.value for a in table.game.legal()}
                    for kind in ("hit", "stand", "double", "split", "surrender"):
                        legal_matches &= (not b[kind].disabled) == (kind in legal)
                    hints.append(table.ids.hint.text)
                    hand = table.game.round.current
                    tap(b["hit"] if hand.total < 13 and not b["hit"].disabled else b["stand"])
            from app.views.main import rss_mib

            # every screen built, a match and a session played (reported, not asserted)
            result["rss_mib_end"] = rss_mib()
            result["card_textures"] = textures.rendered
            summary = self.sm.get_screen("bj_summary")
            result["blackjack"] = {
                "screen": self.sm.current,
                "rounds": rounds,
                "phases": sorted(seen_phases),
                "legal_matches": legal_matches,
                "hints": hints,
                "results": results,
                "summary": [list(x) for x in summary.lines],
            }

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":
    drive(Path(sys.argv[1]))
