"""The casino table across phones, through the live screens: host, lobby, table.

This file is also the driver script (``python tests/test_app_casino.py OUT [only]``;
Kivy keeps one window per process). The app's table service is
:class:`casino_fakes.FakeCasinoService`: the table is a fake :class:`CasinoTable` over
a real multi-player blackjack ``Round`` whose bots own the other boxes, bet behind the
player's boxes and take the dealer-busts bet, and which calls ``on_change`` from a
worker thread as the real table does. For every run of the matrix the app's player
chooses casino blackjack on the host screen (European rules: betting behind and the
dealer-busts bet), opens the table, takes his boxes in the lobby, starts, bets on his
boxes, behind a bot's box and on the dealer busting, then plays by touches (splitting
his pairs), and the round settles. After every step the whole window is checked with
:mod:`layout_geometry` (buttons at least 48 dp, no text cut off, cards readable,
nothing outside the window) and the table must not scroll. Every tap is checked
against the intent the fake table received; the buttons shown are the engine's legal
actions. One run also names a cheater, lets the player's time run out (the countdown
follows the injected clock) and ends with the host leaving.

Matrix (a CI budget of 90 s for this file and the casino states of
tests/test_screenshot_states.py together): 2, 4 and 7 boxes at 320x480, 7 at 360x640
(with split hands) and at 800x600, in English; German and Polish at 320x480 with 7
boxes and at 360x640 with 4 (split hands). A guest's join by address is
played once at 320x480. The player splits every pair he is dealt: at 320x480 seven
boxes with split hands crowd the table (its own boxes stay big, the others become
chips in a row that scrolls sideways); the bots take their time (``slow_bots``), so
every other box is seen in play and its chip must be framed and scrolled into view.
In one run (``RESPLIT``) the player's first box is split into four hands: the hands
that keep big cards stay rows, from the one in play on, the others go to its chip.
With ``BLU21_CASINO_SHOTS=/tmp/DIR`` every checked state is also saved as a PNG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from kivy_driver import run_driver

# Longer than the default per-test limit (pyproject.toml): the casino screens' matrix: Kivy
# processes play whole rounds (about 30 s quiet).
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()

PHONE, MIDDLE, DESKTOP = (320, 480), (360, 640), (800, 600)
#: (window size, language, boxes taken at the table)
MATRIX: list[tuple[tuple[int, int], str, int]] = [
    (PHONE, "en", 2),
    (PHONE, "en", 4),
    (PHONE, "en", 7),
    (MIDDLE, "en", 7),
    (DESKTOP, "en", 7),
    (PHONE, "de", 7),
    (MIDDLE, "de", 4),
    (PHONE, "pl", 7),
    (MIDDLE, "pl", 4),
]
#: the run that also names a cheater, times the player out and loses its host
FAULTS = "320x480:en:4"
#: the run whose first box is split into four hands (three more eights come)
RESPLIT = "320x480:en:7"
#: the bots' boxes and the player's, by boxes taken
SEATS = {2: ((2,), (1,)), 4: ((2, 4, 5), (1,)), 7: ((2, 4, 5, 6, 7), (1, 3))}
BOTS = ("Ola", "Jürgen", "Małgorzata", "Ann", "Bruno")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-casino"))


def test_every_run_of_the_matrix_was_played(run: dict) -> None:
    expected = {f"{w}x{h}:{lang}:{n}" for (w, h), lang, n in MATRIX}
    assert set(run["runs"]) == expected


def test_nothing_overlaps_or_leaves_the_screen(run: dict) -> None:
    problems = [p for r in run["runs"].values() for p in r["problems"]]
    assert problems == [], "\n".join(problems[:60])


def test_the_table_says_whose_phone_the_shoe_waits_for(run: dict) -> None:
    """The progress line under the status (as Oczko's): what runs, whose phone (the
    second player's, a bot's name) and how far along the shoe's chain, in the
    player's language, fitting the screen at every size (checked above)."""
    words = {
        "en": ("Shuffling the shoe", "Waiting for", "step 2 of"),
        "de": ("Schlitten wird", "Warten auf", "Schritt 2 von"),
        "pl": ("Tasowanie sabotu", "Czekamy na", "krok 2 z"),
    }
    for key, r in run["runs"].items():
        lang = key.split(":")[1]
        for word in (*words[lang], BOTS[0]):
            assert word in r["progress"], (key, r["progress"])


def test_the_table_never_scrolls_and_shows_every_box(run: dict) -> None:
    for key, r in run["runs"].items():
        assert r["scrolls"] is False, key  # (only the row of chips scrolls, sideways)
        boxes = int(key.rsplit(":", 1)[1])
        # the dealer, every box (a hand row or a chip) and the split hands as rows
        assert r["settled"] and r["rows"] > boxes, (key, r["rows"])


def test_a_crowded_table_keeps_own_boxes_big_and_the_box_in_play_in_view(run: dict) -> None:
    """At 320x480 seven boxes with split hands: the player's box in play stays a row
    of big cards, the others are chips; every other box in play was framed and
    scrolled into view, and the chip of the box he bets behind shows his stake."""
    for key, r in run["runs"].items():
        if key.startswith("320x480") and key.endswith(":7"):
            assert r["crowded"], key
            assert [b for b, seen, _x in r["in_view"]] == [2, 4, 5, 6, 7], (key, r["in_view"])
            assert all(seen for _b, seen, _x in r["in_view"]), (key, r["in_view"])
            assert r["in_view"][-1][2] > 0.5, key  # box 7 was reached by scrolling
            assert len(r["big"]) == 1 and r["big"][0].endswith("3"), (key, r["big"])
            you = {"en": "You", "de": "Du", "pl": "Ty"}[key.split(":")[1]]
            assert r["chip_behind"].startswith(you + ":"), (key, r["chip_behind"])
        if key == RESPLIT:
            # box 1 split into four: two hands stay big from the one in play on, its
            # other hands are on its chip with their numbers
            windows = r["window"]
            assert windows and all(len(rows) == 2 for rows, _chip in windows), windows
            assert windows[-1] == [
                ["Box 1, hand 3", "Box 1, hand 4"],
                windows[-1][1],
            ] and windows[-1][1].startswith("1: "), windows
            assert "\n2: " in windows[-1][1], windows
        elif not key.startswith("320x480"):
            # the dealer and every hand keep readable cards: no chips
            assert not r["crowded"] and r["in_view"] == [], key
            assert r["chip_behind"] == "", key


def test_the_table_shows_the_shoes_fingerprint_and_audit(run: dict) -> None:
    """As Oczko's table shows its deck's fingerprint, the casino table shows its shoe's
    and the newest audit, in every language on every screen (checked for fit with
    everything else: tests above): both lines taller than 560 dp (360x640), on a
    shorter one (320x480, 800x600; the old table showed nothing there) in short at the
    status's end, or in a line of its own while the hand rows are shown: the box
    buttons and the cards keep their room."""
    sizes = {key.split(":")[0] for key in run["runs"]}
    assert {"320x480", "360x640", "800x600"} <= sizes, sizes
    for key, rec in run["runs"].items():
        assert "fairness" in rec, key
        assert rec["fairness_label"][0] > 0, (key, rec["fairness_label"])  # laid out
        assert rec["tall"] or not key.startswith("360x640"), key
        lines = rec["fairness"].split("\n")
        if rec["tall"]:
            assert len(lines) == 2 and "123 456" in lines[0], (key, lines)
            continue
        lang = key.split(":")[1]
        assert lines == ["#123 456 ✓"], (key, lang, lines)
        # at the status's end: its text at 12 sp at least (checked above)
        assert rec["fairness_label"][1] >= 12, (key, rec["fairness_label"])


def test_every_tap_sent_its_intent_and_the_buttons_were_the_legal_actions(run: dict) -> None:
    for key, r in run["runs"].items():
        assert r["bad_intents"] == [], (key, r["bad_intents"])
        assert r["bad_buttons"] == [], (key, r["bad_buttons"])
        kinds = {i[0] for i in r["intents"]}
        assert {"take_box", "start", "bet", "side_bet", "stand"} <= kinds, (key, kinds)
        assert "split" in kinds, key
        assert "behind" in r["intents_behind"], key  # a bet behind a bot's box


def test_the_lobby_showed_rules_and_house_edge_before_sitting_down(run: dict) -> None:
    for key, r in run["runs"].items():
        assert r["lobby_rules"] >= 10, key
        assert r["lobby_edge"], key


def test_a_guest_joins_by_address_and_reads_the_rules_before_sitting_down(run: dict) -> None:
    r = run["join"]
    assert r["problems"] == [], r["problems"]
    assert r["call"] == ["join_casino", "127.0.0.1:5000"]
    assert r["rules"] >= 10 and r["edge"].startswith("House edge of these rules:")
    assert r["start_hidden"] and r["intents"] == [["take_box", 1]]
    assert r["box_button_kept"]


def test_countdown_cheater_and_host_leaving_are_shown(run: dict) -> None:
    r = run["runs"][FAULTS]
    assert r["countdown"] == ["20 s", "13 s"], r["countdown"]
    assert r["countdown_label"].endswith(" 13 s") and r["buttons_kept"], r
    assert r["timed_out"] and "Time is up" in r["timed_out"], r["timed_out"]
    assert "Jürgen" in r["cheater"] and "Cheating" in r["cheater"], r["cheater"]
    assert "host left" in r["host_left"], r["host_left"]
    assert r["over_chips"].startswith("Your chips:"), r["over_chips"]
    assert r["back_to_menu"] == "oczko_menu"
    assert r["turn_alerts"] >= 1  # the player's turn was announced


# --------------------------------------------------------------------------- the driver


def drive(out: Path, only: str = "") -> None:  # pragma: no cover - runs in the subprocess
    sys.path.insert(0, str(HERE.parent))
    from kivy_driver import start_headless

    data_dir = start_headless(out, 320, 480)
    from casino_fakes import FakeCasinoService, FakeCasinoTable
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy.uix.scrollview import ScrollView
    from kivy_driver import draw_on_demand, press, run_steps, tap
    from layout_geometry import check_window

    from app.rules.engine import kinds_of
    from app.rules.table_rules import EUROPEAN
    from app.table.clock import FakeClock
    from app.views.app import Blu21App

    result: dict = {"runs": {}}
    current: dict = {}
    shots = os.environ.get("BLU21_CASINO_SHOTS", "")  # a directory under /tmp, or none

    def make(hosting: bool, on_change, options: dict) -> FakeCasinoTable:
        n = current["boxes"]
        bots, mine = SEATS[n]
        names = {"me": "Zosia", **{f"b{i}": BOTS[i] for i in range(len(bots))}}
        # pairs for the player's boxes: 8s on his first box, 9s on his second
        order = sorted([*bots, *mine])
        firsts = ["8s" if b == mine[0] else "9c" if b in mine[1:] else "Td" for b in order]
        seconds = ["8h" if b == mine[0] else "9d" if b in mine[1:] else "7c" for b in order]
        table = FakeCasinoTable(
            "me",
            names,
            options.get("rules", EUROPEAN),  # a guest sits at the host's rules
            {b: f"b{i}" for i, b in enumerate(bots)},
            prefix=" ".join([*firsts, "6d", *seconds, *current["more"]]),
            clock=current["clock"],
            on_change=on_change,
            threaded=True,
        )
        # the casino phone's fairness record as the screen's adapter reads it (the
        # shoe's fingerprint and its audit): the table screen shows both lines
        table.phone = SimpleNamespace(  # type: ignore[attr-defined]
            dealer=SimpleNamespace(fingerprint="123456"),
            log=[{"event": "audit", "shoe": 1, "ok": True, "cheaters": []}],
        )
        current["table"] = table
        return table

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            self.draw = draw_on_demand()  # (nobody looks: laid out, not drawn)
            Clock.schedule_once(lambda _dt: run_steps(self, self.checks(), out, result), 0.1)

        def check(self, rec: dict, where: str) -> None:
            if shots:  # the screenshot pass: every checked state as a PNG (under /tmp)
                name = f"{rec['key']}-{len(rec['problems'])}-{where}".replace(":", "_")
                self.draw()
                made = Window.screenshot(name=str(Path(shots) / "shot.png"))
                Path(made).rename(Path(shots) / (name.replace(" ", "_").replace(",", "") + ".png"))
            problems = check_window(self, f"{rec['key']}:{where}")
            rec["problems"].extend(p for p in problems if p not in rec["problems"])
            screen = self.sm.get_screen(self.sm.current)
            if self.sm.current == "casino_table":
                from kivy.metrics import dp

                rec["tall"] = screen.height > dp(560)  # (room for the fairness lines)
                label = screen.ids.fairness if rec["tall"] else screen.ids.status
                shown = label.text if rec["tall"] else label.text.rpartition(" · ")[2]
                if not rec["tall"] and screen.ids.fairness.text:  # its own line
                    label = screen.ids.fairness
                    shown = label.text
                if "123" in shown:
                    rec["fairness"] = shown
                    rec["fairness_label"] = [label.texture_size[1], label.font_size]
            if self.sm.current == "casino_table":
                # (the row of the other boxes' chips scrolls sideways, never the table)
                rec["scrolls"] = rec["scrolls"] or any(
                    isinstance(w, ScrollView) and w.do_scroll_y for w in screen.walk()
                )

        def home(self):
            if self.sm.current != "home":
                self.history.clear()
            return self.go("home", remember=False)

        def checks(self):
            self.service = FakeCasinoService(make)
            for size, lang, boxes in MATRIX:
                key = f"{size[0]}x{size[1]}:{lang}:{boxes}"
                if only not in key:
                    continue
                Window.size = size
                self.update_prefs(language=lang)
                yield
                yield
                rec = result["runs"][key] = {
                    "key": key,
                    "problems": [],
                    "scrolls": False,
                    "bad_intents": [],
                    "bad_buttons": [],
                    "intents": [],
                    "intents_behind": [],
                    "in_view": [],
                    "window": [],
                    "crowded": False,
                }
                more = ("8c", "8d", "8h") if key == RESPLIT else ()
                current.update(boxes=boxes, clock=FakeClock(), more=more)
                yield from self.play(rec, boxes, key == FAULTS)
                self.home()
                yield
            if not only or only == "join":
                Window.size = PHONE
                self.update_prefs(language="en")
                current.update(boxes=2, clock=FakeClock(), more=())
                result["join"] = rec = {"key": "join", "problems": [], "scrolls": False}
                yield from self.join(rec)
                self.home()
                yield

        def join(self, rec: dict):
            """A guest: casino blackjack on the join screen, the host's address, the
            lobby with the host's rules and their house edge, a box taken."""
            home = self.home()
            yield
            tap(home.ids.blackjack)
            yield
            tap(self.sm.get_screen("bj_menu").ids.join_table)
            yield
            join = self.sm.get_screen("oczko_join")
            join.ids.address.text = "127.0.0.1:5000"
            self.check(rec, "join")
            tap(join.ids.search)
            lobby = self.screen("casino_lobby")
            for _ in range(300):
                yield
                if lobby.vm is not None and "computing" not in lobby.edge:
                    break
            call = self.service.calls[-1]
            rec["call"] = [call[0], call[1].get("address")]
            rec["rules"], rec["edge"] = len(lobby.ids.rules.children), lobby.edge
            rec["start_hidden"] = lobby.ids.start.opacity == 0 and lobby.ids.start.disabled
            self.check(rec, "guest lobby")
            # the lobby follows the table every tick: its box buttons are updated in
            # place, never rebuilt under a finger that is on one
            before = lobby.buttons["box1"]
            lobby.refresh()
            rec["box_button_kept"] = lobby.buttons["box1"] is before and before.parent is not None
            press(lobby.buttons["box1"])
            yield
            rec["intents"] = [list(i) for i in current["table"].intents]
            lobby.leave_table()

        def expect(self, rec: dict, kind: str, before: int) -> None:
            """The last tap sent exactly one intent of ``kind`` to the table."""
            table = current["table"]
            sent = table.intents[before:]
            name = (sent[0][1].kind.value if sent[0][0] == "act" else sent[0][0]) if sent else ""
            if len(sent) != 1 or name != kind:
                rec["bad_intents"].append((kind, [str(s) for s in sent]))
            else:
                rec["intents"].append((kind, str(sent[0][1])))

        def settle(self, screen):
            """Render the table's newest change now, then let two frames lay it out
            (the screen also polls, every 0.1 s; a tap must hit laid-out buttons)."""
            screen.tick()
            yield
            yield

        def window(self, rec: dict, screen) -> None:
            """The player's box split into more hands than keep big cards: the rows
            shown and the chip with its other hands."""
            chip = screen.chips.get(1)
            if screen._focus_shown == (1,) and chip is not None:
                titles = [r.title for r in reversed(screen.ids.boxes.children)]
                if [titles, chip.hands_text] not in rec["window"]:
                    rec["window"].append([titles, chip.hands_text])
                    self.check(rec, f"window {len(rec['window'])}")

        def in_view(self, rec: dict, screen, vm) -> None:
            """Another player's box is in play: on a crowded table its chip is framed
            and scrolled into the row's view (within a pixel)."""
            box = next((b.number for b in vm.boxes if b.in_play), None)
            chip = screen.chips.get(box)
            if not screen.crowded or chip is None:
                return
            rec["crowded"] = True
            strip = screen.ids.strip
            x0 = strip.to_window(strip.x, strip.y)[0]
            cx = chip.to_window(chip.x, chip.y)[0]
            seen = x0 - 1 <= cx and cx + chip.width <= x0 + strip.width + 1 and chip.current
            rec["in_view"].append([box, bool(seen), round(strip.scroll_x, 2)])
            self.check(rec, f"box {box} in play")

        def legal_shown(self, rec: dict, screen) -> None:
            """The play buttons shown are exactly the engine's legal actions."""
            table = current["table"]
            legal = set(kinds_of(table.round.legal_actions("me")))
            shown = {
                k
                for k in ("hit", "stand", "double", "split", "surrender")
                if k in screen.buttons
                and not screen.buttons[k].disabled
                and screen.buttons[k].parent is not None
            }
            if shown != legal & {"hit", "stand", "double", "split", "surrender"}:
                rec["bad_buttons"].append((sorted(shown), sorted(legal)))

        def play(self, rec: dict, boxes: int, faults: bool):
            home = self.home()
            yield
            tap(home.ids.oczko)
            yield
            tap(self.sm.get_screen("oczko_menu").ids.host)
            yield
            host = self.sm.get_screen("oczko_host")
            casino = next(b for b in host.ids.games.children if b.game == "casino")
            tap(casino)
            yield
            european = next(b for b in host.ids.casino_rules.children if b.choice == "european")
            press(european)
            yield
            self.check(rec, "host")
            press(host.ids.open)
            lobby = self.screen("casino_lobby")
            for _ in range(200):
                yield
                if lobby.vm is not None:
                    break
            yield
            rec["lobby_rules"] = len(lobby.ids.rules.children)
            self.check(rec, "lobby")
            _bots, mine = SEATS[boxes]
            table = current["table"]
            for n in mine:
                before = len(table.intents)
                press(lobby.buttons[f"box{n}"])
                self.expect(rec, "take_box", before)
                yield
            for _ in range(300):  # the house edge is computed on a worker thread
                if "computing" not in lobby.edge and lobby.edge:
                    break
                yield
            rec["lobby_edge"] = lobby.edge
            self.check(rec, "lobby, boxes taken")
            before = len(table.intents)
            press(lobby.ids.start)
            self.expect(rec, "start", before)
            screen = self.screen("casino_table")
            for _ in range(100):
                yield
                if (
                    self.sm.current == "casino_table"
                    and screen.vm is not None
                    and not self.sm.transition.is_active
                ):
                    break
            screen.clock = table.clock.now
            yield
            yield
            self.check(rec, "betting")
            # bets: each own box, behind the first bot's box, the dealer-busts bet
            for n in (*mine, 2):
                tap(screen.buttons[f"box{n}"])
                yield from self.settle(screen)
                before = len(table.intents)
                tap(screen.buttons["chip10"])
                self.expect(rec, "bet", before)
                if n == 2:
                    rec["intents_behind"].append(
                        "behind" if table.round.box_owner(2) == "b0" else "own"
                    )
                yield from self.settle(screen)
            before = len(table.intents)
            tap(screen.buttons["side_bet"])
            self.expect(rec, "side_bet", before)
            yield from self.settle(screen)
            self.check(rec, "bets placed")
            # the bots take their time: each of their boxes is seen in play
            table.slow_bots = True
            table.close_bets()
            yield from self.settle(screen)
            self.check(rec, "dealt")
            countdown_done = not faults
            for _ in range(60):
                yield from self.settle(screen)
                vm = screen.vm
                if vm.stage != "playing":
                    break
                if vm.prompt is not None:
                    kind = vm.prompt.choices[-1][0]
                    before = len(table.intents)
                    tap(screen.buttons[kind])
                    self.expect(rec, kind, before)
                    continue
                if not vm.my_turn:
                    self.in_view(rec, screen, vm)
                    table.bot_moves()
                    continue
                self.legal_shown(rec, screen)
                self.window(rec, screen)
                if not countdown_done:
                    countdown_done = True
                    rec["countdown"] = [vm.turn.rsplit(" ", 2)[-2] + " s"]
                    stand = screen.buttons["stand"]
                    table.clock.advance(7)
                    screen.tick()
                    yield
                    rec["countdown"].append(screen.vm.turn.rsplit(" ", 2)[-2] + " s")
                    rec["countdown_label"] = screen.ids.turn.text
                    # the seconds change the turn line only: a finger on a button keeps it
                    rec["buttons_kept"] = screen.buttons["stand"] is stand
                    self.check(rec, "first turn")
                kind = "split" if vm.actions.get("split") else "stand"
                before = len(table.intents)
                tap(screen.buttons[kind])
                self.expect(rec, kind, before)
                if kind == "split":
                    yield from self.settle(screen)
                    self.check(rec, f"split {len(rec['intents'])}")
                    self.window(rec, screen)
                if faults and kind == "stand" and "timed_out" not in rec:
                    # the next decision times out: the hand stands for him
                    yield
                    if screen.vm.my_turn:
                        table.time_out()
                        yield from self.settle(screen)
                        rec["timed_out"] = screen.vm.message
            yield from self.settle(screen)
            rec["settled"] = screen.vm.stage == "settled"
            ids = screen.ids
            rec["rows"] = len(ids.boxes.children) + len(ids.dealer.children) + len(screen.chips)
            rec["big"] = sorted({r.title.split(" · ")[0].split(",")[0] for r in ids.boxes.children})
            rec["chip_behind"] = screen.chips[2].detail if 2 in screen.chips else ""
            self.check(rec, "settled")
            # the next shoe is late: the progress line says whose phone and how far
            table.waits = (("shoe", (1,)), (2, len(table.players)))
            table._changed()
            yield from self.settle(screen)
            rec["progress"] = screen.ids.status.text
            self.check(rec, "waiting for the shoe")
            table.waits = None
            table._changed()
            yield from self.settle(screen)
            if faults:
                rec.setdefault("timed_out", "")
                table.name_cheater("b1")
                yield from self.settle(screen)
                rec["cheater"] = screen.ids.message.text
                self.check(rec, "cheater")
                table.host_leaves()
                yield from self.settle(screen)
                rec["host_left"] = screen.vm.message
                rec["over_chips"] = screen.vm.result
                self.check(rec, "host left")
                tap(screen.buttons["menu"])
                yield
                rec["back_to_menu"] = self.sm.current
                rec["turn_alerts"] = screen.turn_alerts
            else:
                screen.leave()

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]), *sys.argv[2:3])
