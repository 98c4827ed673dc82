"""Issue 37, item 5: the Oczko table with seven players and its results, at 320x480
and 360x640, in the live app driven by touches.

This file is also the driver script (``python tests/test_oczko_crowded.py OUT``; Kivy
keeps one window per process). Practice matches (seeded decks) are played to their end
by the buttons; at every turn and every result the whole window is checked with
:mod:`layout_geometry`, and, what that check cannot see inside a scroll view, that
every other player's tile (his cards or hand, status, total and points) and every line
of a result are on screen without scrolling.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from kivy_driver import run_driver

# Longer than the default per-test limit (pyproject.toml): Kivy processes play crowded tables to
# the match result.
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()
#: (window size, language, bots, seed)
RUNS = [
    ((320, 480), "en", 6, 3),
    ((320, 480), "de", 6, 5),
    ((360, 640), "en", 6, 3),
    ((360, 640), "pl", 6, 5),
    ((320, 480), "en", 2, 7),
    ((320, 480), "pl", 2, 9),
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-crowded"))


def test_every_run_was_played_to_the_match_result(run: dict) -> None:
    assert set(run["runs"]) == {f"{w}x{h}:{lang}:{bots + 1}" for (w, h), lang, bots, _s in RUNS}
    for key, rec in run["runs"].items():
        assert rec["results"] >= 1 and rec["match_over"], key


def test_every_players_tile_is_on_screen_at_every_turn_and_result(run: dict) -> None:
    hidden = [h for rec in run["runs"].values() for h in rec["tiles_hidden"]]
    assert hidden == [], "\n".join(hidden[:20])


def test_every_line_of_a_result_is_on_screen(run: dict) -> None:
    cut = [c for rec in run["runs"].values() for c in rec["results_cut"]]
    assert cut == [], "\n".join(cut[:20])


def test_no_layout_problem(run: dict) -> None:
    problems = [p for rec in run["runs"].values() for p in rec["problems"]]
    assert problems == [], "\n".join(problems[:40])


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess
    import random

    from kivy_driver import start_headless

    data_dir = start_headless(out, 320, 480)
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy_driver import run_steps, tap
    from layout_geometry import check_window

    from app.views.app import Blu21App

    result: dict = {"runs": {}}

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            Clock.schedule_once(lambda _dt: run_steps(self, self.checks(), out, result), 0.1)

        def look(self, table, rec: dict, where: str) -> None:
            seats, banner = table.ids.seats, table.ids.banner
            shown = seats.parent.height  # the seats' scroll view
            if shown + 1 < seats.height:
                rec["tiles_hidden"].append(
                    f"{rec['key']}:{where}: tiles {seats.height:.0f} px tall, {shown:.0f} px shown"
                )
            if table.vm.banner and banner.parent.height + 1 < banner.height:
                rec["results_cut"].append(
                    f"{rec['key']}:{where}: result {banner.height:.0f} px tall, "
                    f"{banner.parent.height:.0f} px shown: {table.vm.banner!r}"
                )
            for p in check_window(self, f"{rec['key']}:{where}"):
                if p not in rec["problems"]:
                    rec["problems"].append(p)

        def checks(self):
            table = self.screen("oczko_table")
            now = [0.0]
            table.clock = lambda: now[0]
            for size, lang, bots, seed in RUNS:
                Window.size = size
                self.update_prefs(language=lang, bots=bots, oczko_rounds=3)
                yield
                key = f"{size[0]}x{size[1]}:{lang}:{bots + 1}"
                rec = result["runs"][key] = {
                    "key": key,
                    "results": 0,
                    "match_over": False,
                    "tiles_hidden": [],
                    "results_cut": [],
                    "problems": [],
                }
                self.history.clear()
                home = self.go("home", remember=False)
                yield
                tap(home.ids.oczko)
                yield
                table.demo_rng = random.Random(seed)
                tap(self.sm.get_screen("oczko_menu").ids.practice)
                yield
                seen_turns: set[int] = set()
                for _step in range(6000):
                    yield
                    vm = table.vm
                    c = table.controller
                    if vm.next_text:
                        yield  # (laid out)
                        rec["results"] += 1
                        self.look(table, rec, f"result{len(c.match.history)}")
                        if vm.match_over:
                            rec["match_over"] = True
                            break
                        tap(table.ids.next)
                    elif vm.can_draw:
                        number = len(c.match.history) + 1
                        if number not in seen_turns:
                            seen_turns.add(number)
                            yield
                            self.look(table, rec, f"turn{number}")
                        total = int(vm.my_total.split()[-1])
                        tap(table.ids.draw if total < 15 else table.ids.hold)
                    else:
                        now[0] += 1.0
                        table.tick()
                table.leave()

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]))
