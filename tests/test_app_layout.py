"""The live layout test: the real app, driven by touches, checked after every round.

This file is also the driver script (``python tests/test_app_layout.py OUT``; Kivy keeps
one window per process). In one app process, the window resized and the language
switched live between runs, it plays

* practice Oczko: a 5-round match against two bots, then the first round of a new match;
* a networked 3-phone match over 127.0.0.1: the app hosts, two ``blu21 table --bot``
  guest processes join, the app's player decides by touches;
* a 10-hand blackjack session;

and after every round (and at the lobby, the first turn, the betting) checks the whole
window with :mod:`layout_geometry`: buttons at least 48 dp both ways, no text wider or
taller than its box, no word broken or cut off, nothing outside the window. The
Draw/Hold row must stay where it is from round to round and from match to match.

Matrix (chosen for a CI budget of about three minutes for this file and the states
test together): every run at 320x480, 360x640 and 800x600 in English; practice also in
German and Polish at both phone sizes; the networked match also in German at 360x640,
blackjack also in Polish at 320x480 (every blackjack state is checked in all three
languages at both phone sizes by the states test); practice also in French, Spanish,
Italian, Czech, Ukrainian and Turkish at 320x480. The blackjack table must show
everything without scrolling: two boxes of the player's, a bet behind the bot's box, the
dealer-busts bet and split hands (five hands and more), all in the window. The networked
match uses the open dealer (the same screens; the SRA shuffle of three phones costs
about a minute a match on a busy machine; tests/test_views_network.py plays SRA through
the screens, and the shuffle's state is among the checked screenshot states). The
states of ``blu21 screenshot list`` are checked in all three languages at both phone
sizes by tests/test_screenshot_states.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from kivy_driver import STALL, run_driver

# Longer than the default per-test limit (pyproject.toml): one Kivy process per run of the layout
# matrix plays whole matches (about 90 s quiet).
pytestmark = pytest.mark.timeout(900)

HERE = Path(__file__).resolve()
WAIT = STALL  # real seconds without progress after which a wait counts as hung

PHONE, MIDDLE, DESKTOP = (320, 480), (360, 640), (800, 600)
#: (window size, language, runs)
MATRIX: list[tuple[tuple[int, int], str, tuple[str, ...]]] = [
    (PHONE, "en", ("practice", "network", "blackjack")),
    (MIDDLE, "en", ("practice", "network", "blackjack")),
    (DESKTOP, "en", ("practice", "network", "blackjack")),
    (PHONE, "de", ("practice",)),
    (MIDDLE, "de", ("practice", "network")),
    (PHONE, "pl", ("practice", "blackjack")),
    (MIDDLE, "pl", ("practice",)),
    # every other shipped language: practice at the smallest phone (their screens and
    # states are all checked at 320x480 by the states test)
    *((PHONE, lang, ("practice",)) for lang in ("fr", "es", "it", "cs", "uk", "tr")),
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-layout"))


def _runs(run: dict, kind: str) -> dict:
    found = {k: v for k, v in run["runs"].items() if k.startswith(kind + ":")}
    assert found, kind
    return found


def test_every_run_of_the_matrix_was_played(run: dict) -> None:
    expected = {f"{kind}:{w}x{h}:{lang}" for (w, h), lang, kinds in MATRIX for kind in kinds}
    assert set(run["runs"]) == expected


def test_no_layout_problem_after_any_round(run: dict) -> None:
    problems = [p for r in run["runs"].values() for p in r["problems"]]
    assert problems == [], "\n".join(problems[:60])


def test_practice_rounds_each_showed_a_result_and_the_row_stayed(run: dict) -> None:
    for key, r in _runs(run, "practice").items():
        assert r["results_shown"] >= 1, key
        assert r["rounds"] >= 1, key
        rows = r["rows"]
        # the row of every turn the player had (a deal can leave him one turn only, e.g.
        # after Persian 21s) and of the next match's first turn: at least two compared
        assert len(rows) >= 1, key
        assert all(row == rows[0] for row in rows), (key, rows)
        assert r["new_match_row"] == rows[0], key
        assert r["alerts"] >= r["turns"], key  # every turn was announced
        assert r["gear"] is True, key  # the settings opened at the table go back to it


def test_every_networked_round_showed_its_result(run: dict) -> None:
    for key, r in _runs(run, "network").items():
        assert r["over"], key
        assert r["rounds"] >= 2, key
        # the result of every round (the last one with the match result) was on screen,
        # naming every player
        assert r["results_shown"] == r["rounds"], key
        assert all(r["names_in_result"]), key  # every other hand on its tile, finished


def test_blackjack_sessions_were_played(run: dict) -> None:
    for key, r in _runs(run, "blackjack").items():
        assert r["hands"] == 10, key
        assert r["screen"] == "bj_summary", key
        # the whole table on screen without scrolling, also with four hands and more
        assert r["scrolls"] is False, key
        assert r["most_hands"] >= (5 if key.startswith("blackjack:320x480") else 7), key


# --------------------------------------------------------------------------- the driver


def _scrolls(screen) -> bool:  # pragma: no cover - runs in the subprocess
    """Whether anything on ``screen`` is in a scroll view (there the geometry check
    cannot see what lies below the window)."""
    from kivy.uix.scrollview import ScrollView

    return any(isinstance(w, ScrollView) for w in screen.walk())


def _wait(cond, label: str):  # pragma: no cover - runs in the subprocess
    from kivy_driver import wait_for

    return wait_for(cond, label, WAIT)


def drive(out: Path, only: str = "") -> None:  # pragma: no cover - runs in the subprocess
    """``only``: play just the runs whose key contains it (while developing)."""
    data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=out))
    (data_dir / "prefs.json").write_text(
        json.dumps(
            {
                "animation_speed": "off",
                "language": "en",
                "player_name": "Zosia",
                "bots": 2,
                # a bot's box to bet behind and the side bet: a crowded table
                "table_rules": {"rounds": 10, "betting_behind": True, "dealer_busts_bet": True},
            }
        )
    )
    sys.path.insert(0, str(HERE.parents[1]))
    sys.path.insert(0, str(HERE.parent))
    from app.views.screenshot import headless_environment

    headless_environment()
    from kivy.config import Config

    Config.set("graphics", "width", "320")
    Config.set("graphics", "height", "480")
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy_driver import Stall, draw_on_demand, press, run_steps, tap
    from layout_geometry import check_window

    from app.table.service import tcp_service
    from app.views.app import Blu21App
    from app.views.oczko import network as oczko_network

    result: dict = {"runs": {}}
    procs: list[subprocess.Popen] = []
    oczko_network.ROUND_PAUSE = 1.0  # the guests' reading time; this phone shows it anyway

    def row(table) -> list:
        ids = table.ids
        return [[round(v) for v in (*b.to_window(*b.pos), *b.size)] for b in (ids.draw, ids.hold)]

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            self.draw = draw_on_demand()  # (nobody looks: laid out, not drawn)
            Clock.schedule_once(lambda _dt: run_steps(self, self.checks(), out, result), 0.1)

        def on_stop(self) -> None:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()

        def check(self, rec: dict, where: str) -> None:
            problems = check_window(self, f"{rec['key']}:{where}")
            rec["problems"].extend(p for p in problems if p not in rec["problems"])

        def home(self):
            if self.sm.current != "home":
                self.history.clear()
            return self.go("home", remember=False)

        def checks(self):
            for size, lang, kinds in MATRIX:
                Window.size = size
                self.update_prefs(language=lang)
                yield
                yield
                for kind in kinds:
                    key = f"{kind}:{size[0]}x{size[1]}:{lang}"
                    if only not in key:
                        continue
                    rec = result["runs"][key] = {"key": key, "problems": []}
                    t0 = time.monotonic()
                    yield from getattr(self, kind)(rec)
                    rec["seconds"] = round(time.monotonic() - t0, 1)
                    self.home()
                    yield

        # -- practice: 5 rounds, then the first round of the next match -----------------
        def practice(self, rec: dict):
            self.update_prefs(oczko_rounds=5)
            now = [0.0]
            table = self.screen("oczko_table")
            table.clock = lambda: now[0]
            alerts = table.turn_alerts
            home = self.home()
            yield
            tap(home.ids.oczko)
            yield
            tap(self.sm.get_screen("oczko_menu").ids.practice)
            yield
            rows: list = []
            rec.update(results_shown=0, rounds=0)
            seen_turn: set[int] = set()
            for _ in range(3000):
                yield
                vm = table.vm
                c = table.controller
                if vm.next_text:
                    rec["results_shown"] += 1
                    self.check(rec, f"result{len(c.match.history)}")
                    if vm.match_over:
                        break
                    tap(table.ids.next)
                elif vm.can_draw:
                    number = len(c.match.history) + 1
                    if number not in seen_turn:
                        seen_turn.add(number)
                        rows.append(row(table))
                        self.check(rec, f"turn{number}")
                    if "gear" not in rec:  # the settings mid-game, then back: same game
                        game = table.controller
                        tap(self.root_widget.ids.settings)
                        yield
                        tap(self.root_widget.ids.back)
                        yield
                        rec["gear"] = self.sm.current == "oczko_table" and table.controller is game
                        continue
                    total = int(vm.my_total.split()[-1])
                    tap(table.ids.draw if total < 15 else table.ids.hold)
                else:
                    now[0] += 1.0
                    table.tick()
            rec["rounds"] = len(table.controller.match.history)
            rec["rows"] = rows
            rec["turns"], rec["alerts"] = len(seen_turn), table.turn_alerts - alerts
            tap(table.ids.next)  # a new match
            rec["new_match_row"] = None
            for _ in range(400):
                yield
                if table.vm.can_draw:
                    rec["new_match_row"] = row(table)
                    self.check(rec, "new match")
                    break
                if table.vm.next_text and not table.vm.match_over:
                    tap(table.ids.next)  # a round decided at the deal (a Persian 21)
                    continue
                now[0] += 1.0
                table.tick()
            table.leave()
            table.clock = time.monotonic

        # -- a networked 3-phone match hosted by the app ------------------------------------
        def network(self, rec: dict):
            # the open dealer: the screens are the same as with SRA, the CI budget is not
            dealer = "open"
            self.service = tcp_service(dealer=lambda: dealer)
            self.update_prefs(oczko_rounds=5, turn_time=20)
            home = self.home()
            yield
            tap(home.ids.oczko)
            yield
            tap(self.sm.get_screen("oczko_menu").ids.host)
            yield
            host = self.sm.get_screen("oczko_host")
            self.check(rec, "host")
            t_open = time.monotonic()
            tap(host.ids.open)
            lobby = self.screen("oczko_lobby")
            net = self.controllers["oczko_net"]
            yield from _wait(lambda: net.address and net.lobby, "the host's lobby")
            for name in ("Ola", "Jürgen"):
                procs.append(
                    subprocess.Popen(
                        [
                            *(sys.executable, "-m", "app", "table", "--join", net.address),
                            *("--name", name, "--bot", "--quiet", "--dealer", dealer),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            yield from _wait(
                lambda: lobby.vm is not None and lobby.vm.can_start and len(lobby.vm.players) == 3,
                "two ready guests",
            )
            yield
            self.check(rec, "lobby")
            rec["lobby_at"] = round(time.monotonic() - t_open, 1)
            tap(lobby.ids.start)
            yield from _wait(lambda: self.sm.current == "oczko_table", "the table screen")
            table = self.screen("oczko_table")
            rec.update(results_shown=0, names_in_result=[])
            shown: set[int] = set()
            turn_checked: set[int] = set()
            guard = Stall("the hosted match to finish", WAIT)
            while True:
                try:
                    guard.check()
                except AssertionError:
                    m = net.match
                    raise AssertionError(
                        f"the hosted match did not finish: over={net.over} "
                        f"history={len(m.history) if m else None} to_act={m and m.to_act} "
                        f"awaiting={net.awaiting_next} shown={sorted(shown)} "
                        f"closed={net.closed} message={net.message!r} "
                        f"banner={table.vm and table.vm.banner!r}"
                    ) from None
                yield
                vm, m = table.vm, net.match
                if vm is None or m is None:
                    continue
                finished = len(m.history)
                if vm.banner and finished and finished not in shown:
                    shown.add(finished)
                    rec["results_shown"] += 1
                    # every other player's tile: his name and how his hand ended
                    from app.i18n import _

                    others = [n for i, n in enumerate(net.names) if i != net.seat]
                    rec["names_in_result"].append(
                        [s.name for s in vm.seats] == others
                        and all(s.status_text != _("playing") for s in vm.seats)
                    )
                    yield
                    self.check(rec, f"result{finished}")
                    if vm.match_over:
                        break
                    if finished % 2:
                        tap(table.ids.next)  # the player goes on (or the next deal does)
                elif vm.can_draw and not table.ids.draw.disabled:
                    if finished + 1 not in turn_checked:
                        turn_checked.add(finished + 1)
                        self.check(rec, f"turn{finished + 1}")
                    total = int(vm.my_total.split()[-1])
                    tap(table.ids.draw if total < 15 else table.ids.hold)
                    before = vm.my_cards
                    yield from _wait(
                        lambda b=before: not table.vm.can_draw or table.vm.my_cards != b,
                        "the move",
                    )
                elif net.over and vm.match_over and finished in shown:
                    break
            rec["over"] = net.over
            rec["rounds"] = len(net.match.history)
            table.leave()
            while procs:
                p = procs.pop()
                try:
                    p.wait(timeout=WAIT)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()

        # -- a 10-hand blackjack session ----------------------------------------------------
        def blackjack(self, rec: dict):
            self.update_prefs(show_hints=True)
            home = self.home()
            yield
            tap(home.ids.blackjack)
            yield
            menu = self.sm.get_screen("bj_menu")
            self.check(rec, "menu")
            import random

            self.screen("bj_table").demo_rng = random.Random(16)  # the same shoe every run
            press(menu.ids.start)
            table = self.sm.get_screen("bj_table")
            hands = turns = 0
            for _ in range(2000):
                if self.sm.current != "bj_table":
                    break
                yield
                vm, b = table.vm, table.buttons
                if vm.prompt is not None:
                    tap(b[vm.prompt.choices[-1][0]])
                elif vm.phase == "betting":
                    if hands == 0:
                        self.check(rec, "betting")
                    if "chip10" in b:
                        # a crowded table: boxes of his own, a bet behind the
                        # bot's box and the dealer-busts bet (every other round)
                        behind = [x.number for x in vm.boxes if x.behind and x.bet_range]
                        boxes = [1, 2, 3, 5] if Window.size[1] > 480 else [1, 2]
                        for n in [*boxes, *behind[:1]] if hands % 2 == 0 else [1]:
                            press(table.buttons[f"box{n}"])
                            yield
                            tap(table.buttons["chip10"])
                            yield
                        if hands % 2 == 0 and "side_bet" in table.buttons:
                            tap(table.buttons["side_bet"])
                            yield
                        self.check(rec, f"bets{hands + 1}")
                    tap(table.buttons["deal"])
                elif vm.phase == "settled":
                    hands += 1
                    self.check(rec, f"hand{hands}")
                    rec["most_hands"] = max(
                        rec.get("most_hands", 0), sum(len(x.hands) for x in vm.boxes)
                    )
                    rec["scrolls"] = rec.get("scrolls", False) or _scrolls(table)
                    tap(b["next"])
                else:
                    hand = table.game.round.current
                    if turns % 8 == 0:
                        self.check(rec, f"turn{turns}")
                        rec["scrolls"] = rec.get("scrolls", False) or _scrolls(table)
                    turns += 1
                    # more hands on the table: at 320x480 up to six (what fits there
                    # with cards of 49 dp), at the larger sizes as many as the shoe gives
                    count = sum(len(x.hands) for x in vm.boxes)
                    if not b["split"].disabled and (count < 6 or Window.size[1] > 480):
                        tap(b["split"])
                    else:
                        tap(b["hit"] if hand.total < 13 and not b["hit"].disabled else b["stand"])
            rec["hands"] = hands
            rec["screen"] = self.sm.current
            yield
            self.check(rec, "summary")

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]), *sys.argv[2:3])
