"""The history screens, live and headless: the list (filter, newest first), a round's
replay stepped by touches, the fairness record, the statistics with their charts,
export and delete-all, at 320x480 and 360x640 in de, en and pl.

This file is also the driver script (``python tests/test_views_history.py OUT``): the
app starts on a data dir holding a corrupt history file (moved aside, the player told),
then rounds of both games are stored and the screens are driven.
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
from pathlib import Path

import pytest
from kivy_driver import run_driver, step_through

# Longer than the default per-test limit (pyproject.toml): a Kivy process drives the history
# screens.
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()
SIZES = ((320, 480), (360, 640))
LANGS = ("de", "en", "pl")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("history"))


def test_a_corrupt_history_is_moved_aside_and_the_player_told(run: dict) -> None:
    assert run["corrupt"]["moved"] is True
    assert run["corrupt"]["toast"]
    assert run["corrupt"]["kept_bytes"] is True


def test_the_list_is_newest_first_and_filters_by_game(run: dict) -> None:
    lst = run["list"]
    assert lst["rows"] == min(50, lst["stored"])
    assert lst["first_id"] == lst["newest_id"]
    # 5 shown, "Show more" added a page (PAGE is 50)
    assert lst["before_more"] == 5 < lst["stored"]
    assert lst["after_more"] == min(55, lst["stored"])
    assert lst["blackjack_only"] and all(lst["blackjack_only"])
    assert lst["oczko_only"] and all(lst["oczko_only"])


def test_a_round_is_replayed_step_by_step(run: dict) -> None:
    for game in ("oczko", "blackjack"):
        r = run["replay"][game]
        assert r["steps"] > 3
        assert r["captions_distinct"] > 3  # each step shows what happened
        assert r["reached_end"] and r["cards_shown"] > 0
    assert run["replay"]["blackjack"]["best_play_heading"]


def test_the_fairness_record_of_a_networked_round(run: dict) -> None:
    f = run["fairness"]
    assert f["heading"]
    assert any("123456" in line for line in f["lines"])
    assert any("Mallory" in line for line in f["lines"])  # the cheater is named


def test_statistics_and_charts(run: dict) -> None:
    s = run["stats"]
    assert s["charts"] == 4 and s["drawn"] == 4
    assert s["lines"] > 8
    assert s["limit_after_tap"] == 5000
    assert s["smaller_limit"] == {"asked": True, "kept_on_no": True, "after_yes": [1000, 1000]}


def test_export_json_and_csv(run: dict) -> None:
    e = run["export"]
    assert e["json_rounds"] == e["stored"] == e["csv_rows"]


def test_delete_all_asks_first(run: dict) -> None:
    assert run["delete"] == {"asked": True, "kept_on_no": True, "after_yes": 0}


def test_layouts_fit_at_every_size_and_language(run: dict) -> None:
    seen = {(tuple(k["size"]), k["lang"], k["screen"]) for k in run["layouts"]}
    for size in SIZES:
        for lang in LANGS:
            for screen in ("history", "history_round", "history_stats"):
                assert (size, lang, screen) in seen
    problems = [p for k in run["layouts"] for p in k["problems"]]
    assert problems == []
    assert run["buttons_checked"] > 50


# --------------------------------------------------------------------------- the driver


def _fill(store) -> dict:  # pragma: no cover - runs in the subprocess
    """Rounds of both games, played for real and stored, plus a networked round whose
    audit named a cheater."""
    import app.history.live as live
    from app.history.model import Facts, RoundRecord
    from app.views.sample_play import play_blackjack, play_practice

    play_practice(["Ola", "Ada", "Bruno"], rounds=3, seed=5)
    play_blackjack("Ola", ["Bot"], rounds=6, seed=7)
    events = [
        {"event": "round_started", "round": 1, "tiebreak": False, "order": [0, 1], "t": 0},
        {"event": "card_dealt", "round": 1, "seat": 0, "card": "Ts", "t": 0.1},
        {"event": "card_dealt", "round": 1, "seat": 1, "card": None, "t": 0.2},
        {"event": "card_dealt", "round": 1, "seat": 0, "card": "9h", "t": 0.3},
        {"event": "card_dealt", "round": 1, "seat": 1, "card": None, "t": 0.4},
        {"event": "held", "round": 1, "seat": 0, "total": 19, "reason": "hold", "t": 3},
        {"event": "held", "round": 1, "seat": 1, "total": None, "reason": "hold", "t": 5},
        {"event": "revealed", "round": 1, "seat": 1, "cards": ["Ac", "Ad"], "total": 22, "t": 6},
        {"event": "round_ended", "round": 1, "winner": 0, "totals": {"0": 19}, "t": 6},
    ]
    net = RoundRecord(
        "oczko", "network", "net-1", 1, 1e9, 1e9 + 6, "Ola", "won", "0", "1",
        Facts(held_total=19, decisions=1),
        {
            "names": ["Ola", "Mallory"], "me": 0, "rules": {"rounds": 1}, "order": [0, 1],
            "tiebreak": False, "events": events, "fingerprint": "123456",
            "audits": [{"deck": 0, "ok": False, "cheaters": ["Mallory"]}],
            "named": ["Mallory"],
        },
    )  # fmt: skip
    store.add(net)
    assert live.RECORDER.store is store
    return {"network_id": store.rounds(limit=1)[0].id}


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess
    data_dir = Path(tempfile.mkdtemp(prefix="blu21-history-"))
    (data_dir / "prefs.json").write_text('{"animation_speed": "off", "language": "en"}')
    garbage = b"not a database, a broken file" * 50
    (data_dir / "history.db").write_bytes(garbage)
    sys.path.insert(0, str(HERE.parents[1]))
    from app.views.screenshot import headless_environment

    headless_environment()
    from kivy.config import Config

    Config.set("graphics", "width", "320")
    Config.set("graphics", "height", "480")
    from kivy.clock import Clock
    from kivy.core.text import Label as CoreLabel
    from kivy.core.window import Window
    from kivy.metrics import dp
    from kivy.uix.button import Button
    from kivy.uix.label import Label
    from kivy.uix.togglebutton import ToggleButton
    from kivy_driver import tap as _tap

    from app.history.live import RECORDER
    from app.views.app import Blu21App, Toast
    from app.views.cardtex import HandView
    from app.views.history.screen import Chart

    result: dict = {"layouts": []}

    def buttons(screen, kind=Button):
        return [w for w in screen.walk() if isinstance(w, kind) and w.opacity > 0]

    def layout(screen, name: str, lang: str) -> None:
        problems = []
        width = Window.size[0]
        for w in screen.walk():
            if not getattr(w, "opacity", 1) or w.width <= 0:
                continue
            x, _y = w.to_window(w.x, w.y)
            if x < -0.5 or x + w.width > width + 0.5:
                problems.append(f"{name}/{lang}: {type(w).__name__} outside the width")
            if isinstance(w, Button) and w.height < dp(48) - 0.5:
                problems.append(f"{name}/{lang}: button {w.text!r} below 48 dp")
            if isinstance(w, Label) and w.text and w.texture_size[0] > w.width + 1:
                problems.append(f"{name}/{lang}: text {w.text[:30]!r} wider than its label")
            if isinstance(w, Label) and w.text and w.texture_size[1] > w.height + 1:
                problems.append(f"{name}/{lang}: text {w.text[:30]!r} taller than its label")
            if isinstance(w, Label) and w.text and w.text_size[0]:
                for word in w.text.split():  # no word broken in the middle
                    probe = CoreLabel(text=word, font_size=w.font_size, bold=w.bold)
                    probe.refresh()
                    if probe.texture.size[0] > w.text_size[0] + 1:
                        problems.append(f"{name}/{lang}: word {word!r} split in {w.text[:30]!r}")
        result["buttons_checked"] = result.get("buttons_checked", 0) + len(buttons(screen))
        result["layouts"].append(
            {"size": list(Window.size), "lang": lang, "screen": name, "problems": problems}
        )

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            Clock.schedule_once(self.run_checks, 1.0)  # after the history notice

        def run_checks(self, _dt) -> None:
            step_through(self, self.checks(), result, out)

        def checks(self):
            moved = RECORDER.store.moved_aside
            result["corrupt"] = {
                "moved": moved is not None and moved.exists(),
                "kept_bytes": moved is not None and moved.read_bytes() == garbage,
                "toast": any(isinstance(w, Toast) and w.text for w in Window.children),
            }
            store = RECORDER.store
            info = _fill(store)
            yield
            # the list: newest first, filtered by game
            screen = self.go("history")
            yield
            rows = [b for b in buttons(screen) if "->" in b.text]
            newest = store.rounds(limit=1)[0]
            result["list"] = {
                "rows": len(rows),
                "stored": store.count(),
                "first_id": newest.id if rows and rows[0].text == _line(newest) else None,
                "newest_id": newest.id,
            }
            # "Show more" lists a further page
            screen.shown = 5
            screen.refresh()
            yield
            result["list"]["before_more"] = len([b for b in buttons(screen) if "->" in b.text])
            screen._scroll.scroll_y = 0  # scrolled to the end of the list
            yield
            _tap(next(b for b in buttons(screen) if b.text == "Show more"))
            yield
            result["list"]["after_more"] = len([b for b in buttons(screen) if "->" in b.text])
            screen._scroll.scroll_y = 1
            yield
            for game, label in (("blackjack", "Blackjack"), ("oczko", "Oczko")):
                toggle = next(b for b in buttons(screen, ToggleButton) if b.text == label)
                _tap(toggle)
                yield
                rows = [b for b in buttons(screen) if "->" in b.text]
                result["list"][f"{game}_only"] = [
                    ("chips" if game == "blackjack" else "points") in b.text for b in rows
                ]
                replay = {}
                _tap(rows[0])
                yield
                rs = self.sm.get_screen("history_round")
                captions = set()
                cards = 0
                for _ in range(200):
                    captions.add(rs._frames[rs.step].caption)
                    cards += sum(len(h.cards) for h in rs.walk() if isinstance(h, HandView))
                    nxt = next(b for b in buttons(rs) if b.text == "Next step")
                    if rs.step == len(rs._frames) - 1:
                        break
                    _tap(nxt)
                    yield
                replay.update(
                    steps=len(rs._frames),
                    captions_distinct=len(captions),
                    reached_end=rs.step == len(rs._frames) - 1,
                    cards_shown=cards,
                    best_play_heading=any(
                        getattr(w, "text", "") == "Your decisions against best play"
                        for w in rs.walk()
                    ),
                )
                result.setdefault("replay", {})[game] = replay
                self.back()
                yield
            # the fairness record
            rs = self.go("history_round", round_id=info["network_id"])
            yield
            texts = [getattr(w, "text", "") for w in rs.walk()]
            result["fairness"] = {
                "heading": "How was this deck shuffled?" in texts,
                "lines": [t for t in texts if t],
            }
            # statistics and charts
            st = self.go("history_stats")
            yield
            charts = [w for w in st.walk() if isinstance(w, Chart)]
            result["stats"] = {
                "charts": len(charts),
                "drawn": sum(len(c.canvas.children) > 4 for c in charts),
                "lines": len([w for w in st.walk() if isinstance(w, Label) and w.text]),
            }
            st._scroll.scroll_y = 0  # scrolled down to the setting, as a player would
            yield
            _tap(next(b for b in buttons(st) if b.text == "5000"))
            yield
            result["stats"]["limit_after_tap"] = store.limit
            # a smaller limit that would delete rounds asks first
            many = store.rounds(limit=1)[0]
            store.add_many([many.with_id(None)] * 1000)
            before = store.count()
            st.refresh()
            st._scroll.scroll_y = 0
            yield
            _tap(next(b for b in buttons(st) if b.text == "1000"))
            yield
            asked = self.dialog is not None and self.dialog._is_open
            self.dialog.answer(False)
            kept = store.count() == before and store.limit == 5000
            yield
            _tap(next(b for b in buttons(st) if b.text == "1000"))
            yield
            self.dialog.answer(True)
            yield
            result["stats"]["smaller_limit"] = {
                "asked": asked,
                "kept_on_no": kept,
                "after_yes": [store.count(), store.limit],
            }
            # every screen at every size and language
            for size in SIZES:
                Window.size = size
                for lang in LANGS:
                    self.update_prefs(language=lang)
                    for name, state in (
                        ("history", {}),
                        ("history_round", {"round_id": info["network_id"]}),
                        ("history_stats", {}),
                    ):
                        screen = self.go(name, remember=False, **state)
                        yield
                        yield
                        layout(screen, name, lang)
                        self.root_widget.export_to_png(str(out / f"{name}-{lang}-{size[0]}.png"))
            Window.size = SIZES[0]
            self.update_prefs(language="en")
            # export
            screen = self.go("history")
            yield
            _tap(next(b for b in buttons(screen) if b.text == "Export"))
            yield
            exports = sorted((data_dir / "exports").iterdir())
            data = json.loads(next(p for p in exports if p.suffix == ".json").read_text())
            with next(p for p in exports if p.suffix == ".csv").open() as fh:
                csv_rows = list(csv.DictReader(fh))
            result["export"] = {
                "json_rounds": len(data),
                "csv_rows": len(csv_rows),
                "stored": store.count(),
            }
            # delete all: asked first; "no" keeps everything
            _tap(next(b for b in buttons(screen) if b.text == "Delete all"))
            yield
            asked = self.dialog is not None and self.dialog._is_open
            self.dialog.answer(False)
            kept = store.count() > 0
            _tap(next(b for b in buttons(screen) if b.text == "Delete all"))
            yield
            self.dialog.answer(True)
            yield
            result["delete"] = {"asked": asked, "kept_on_no": kept, "after_yes": store.count()}

    def _line(r):
        from app.views.history.vm import list_line

        return list_line(r)

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":
    drive(Path(sys.argv[1]))
