"""Issue 37, item 1: a networked table's turn reaches the player wherever he is in the
app. Headless, over loopback TCP, through the app's screens; this file is also the
driver script (``python tests/test_turn_reaches.py OUT``, one Kivy window a process).

The player hosts an Oczko table from the app, a bot guest (``blu21 table --bot``)
joins, and after each round he opens "How was this deck shuffled?" instead of tapping
"Next round": the host deals the next round after its pause, and when the turn is
his the app brings him back to the table, where he holds in time (not held by the
timer). On the old app he stayed on the fairness record and the timer held his hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from kivy_driver import STALL, run_driver

# Longer than the default per-test limit (pyproject.toml): a Kivy process plays a hosted match
# against a bot guest.
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-turn"))


def test_the_turn_reaches_a_player_reading_the_fairness_record(run: dict) -> None:
    away = run["away"]
    assert away, "the player never left the table for the fairness record"
    # every turn dealt to him while he read the record brought him back in time
    assert run["timed_out"] == []
    assert run["brought_back"] >= 1
    for turn in run["brought_back_turns"]:
        assert turn["from"] == "history_round"
        assert turn["screen"] == "oczko_table"
        assert turn["left"] > 0  # his clock still ran when he acted
        assert turn["accepted"] is True  # his own hold, not the timer's
    assert run["toast"] == run["expected_toast"]
    assert run["toast_clear"] is True
    assert run["alerts"] >= run["brought_back"]  # the turn alert sounded on the table


def _wait(cond, label: str):  # pragma: no cover - runs in the subprocess
    from kivy_driver import wait_for

    return wait_for(cond, label, STALL)


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess
    data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=out))
    (data_dir / "prefs.json").write_text(
        json.dumps(
            {
                "animation_speed": "off",
                "language": "en",
                "oczko_rounds": 4,
                "turn_time": 15,
                "player_name": "Zosia",
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
    from kivy_driver import Stall, run_steps, tap

    from app.terminal.commands import default_dealer
    from app.views.app import Blu21App
    from app.views.oczko import network as oczko_network

    result: dict = {"away": 0, "brought_back": 0, "brought_back_turns": [], "timed_out": []}
    procs: list[subprocess.Popen] = []
    dealer = default_dealer()
    # the host deals a second after a round's end when its player does not go on (the
    # app's pause is a turn's time: the same course, only shorter)
    oczko_network.ROUND_PAUSE = 1.0

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            Clock.schedule_once(self.run_checks, 0.1)

        def run_checks(self, _dt) -> None:
            run_steps(self, self.checks(), out, result, delay=0.02)

        def on_stop(self) -> None:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()

        def notify(self, text: str, seconds: float = 3.5, top: bool = False) -> None:
            result.setdefault("toasts", []).append(text)
            super().notify(text, seconds, top)

        def checks(self):
            screen = self.go("oczko_host")
            yield
            screen.ids.open.dispatch("on_release")
            lobby = self.screen("oczko_lobby")
            net = self.controllers["oczko_net"]
            yield from _wait(lambda: net.address and net.lobby, "the host's lobby")
            guest = subprocess.Popen(
                [
                    *(sys.executable, "-m", "app", "table", "--join", net.address),
                    *("--name", "Guest", "--bot", "--quiet", "--dealer", dealer),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            procs.append(guest)
            yield from _wait(lambda: lobby.vm is not None and lobby.vm.can_start, "a ready guest")
            lobby.ids.start.dispatch("on_release")
            yield from _wait(lambda: self.sm.current == "oczko_table", "the table screen")
            table = self.screen("oczko_table")
            guard = Stall("the match to finish", STALL)
            while not net.over:
                guard.check()
                now = table.clock()
                vm = table.vm
                on_table = self.sm.current == "oczko_table"
                if on_table and vm is not None and vm.my_turn and not table.ids.hold.disabled:
                    left = net.time_left(now)
                    number = net.match.round.number
                    came_from = result.pop("came_from", None)
                    toast = self._toast
                    if came_from is not None and toast is not None and toast.parent:
                        # the message is clear of the Draw/Hold row at the bottom
                        clear = toast.y >= table.ids.actions.top
                        result["toast_clear"] = result.get("toast_clear", True) and clear
                    table.ids.hold.dispatch("on_release")
                    yield from _wait(
                        lambda: not net.my_turn_waits() or net.over, "the hold to be taken"
                    )
                    hand = next(
                        h
                        for h in (
                            net.match.history[number - 1].hands
                            if len(net.match.history) >= number
                            else net.match.round.hands
                        )
                        if h.seat == 0
                    )
                    if came_from is not None:
                        result["brought_back"] += 1
                        result["brought_back_turns"].append(
                            {
                                "from": came_from,
                                "screen": self.sm.current,
                                "left": left,
                                "accepted": hand.reason != "timeout",
                            }
                        )
                elif on_table and vm is not None and vm.next_text and table.fair_round:
                    yield  # (the row is laid out with the button in the next frame)
                    yield
                    if (
                        self.sm.transition.is_active  # (a screen change takes no touch)
                        or self.sm.current != "oczko_table"
                        or not (table.vm.next_text and table.fair_round)
                        or net.over
                        or net.my_turn_waits()
                    ):
                        continue
                    tap(table.ids.fair)  # read how the deck was shuffled instead
                    result["away"] += 1
                    result["came_from"] = self.sm.current
                    yield
                elif not on_table:
                    m = net.match
                    r = m.round if m is not None else None
                    held = [h for h in (r.hands if r is not None else ()) if h.seat == 0]
                    if held and held[0].reason == "timeout":
                        result["timed_out"].append(r.number)  # the timer held his hand
                        break
                yield
            result["alerts"] = table.turn_alerts
            toasts = result.pop("toasts", [])
            from app.i18n import _

            result["expected_toast"] = _("Your turn! Back at the table.")
            result["toast"] = next(
                (t for t in toasts if t == result["expected_toast"]), toasts[-1] if toasts else ""
            )
            table.leave()
            guest.wait(timeout=STALL)
            yield

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]))
