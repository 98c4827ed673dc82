"""Issue 37 (items 9, 11, 12 and the ace hint): what a new player meets on the app's
screens, through the live app at 320x480, driven by touches.

This file is also the driver script (``python tests/test_newcomer_screens.py OUT``;
Kivy keeps one window per process). The app starts with ``--lang de`` over saved
prefs that say "auto" (the device's language), as ``blu21 app --lang de`` does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from kivy_driver import STALL, run_driver

# Longer than the default per-test limit (pyproject.toml): a Kivy process drives the newcomer's
# screens.
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-newcomer"))


def test_settings_show_the_language_given_at_start(run: dict) -> None:
    """``--lang de`` over a saved "auto": Settings highlight Deutsch, not "Device"."""
    assert run["settings_language"] == ["Deutsch"]


def test_home_keeps_history_and_settings_above_the_fold(run: dict) -> None:
    for lang in ("de", "en", "pl"):
        home = run["home"][lang]
        assert home["inside"] == {"history": True, "settings": True}, (lang, home)
        assert home["problems"] == [], (lang, home["problems"])


def test_ok_with_an_empty_name_says_why(run: dict) -> None:
    name = run["name"]
    assert name["after_empty"] == {"open": True, "problem": name["expected"], "shown": True}
    assert name["after_typed"] == {"open": False, "name": "Ola"}


def test_the_ace_hint_comes_once_in_the_first_round(run: dict) -> None:
    ace = run["ace"]
    assert ace["first_round"] is True  # under his cards in his first round
    assert ace["saved"] is True  # remembered once that round was over
    assert ace["later"] is False  # not in his next match
    assert ace["problems"] == []


def test_new_match_follows_the_bot_count_changed_meanwhile(run: dict) -> None:
    assert run["new_match"] == {"before": 3, "after": 5}


def test_statistics_charts_have_axes_and_a_legend(run: dict) -> None:
    stats = run["stats"]
    assert stats["legend"] and stats["x_axis"] >= 2 and stats["zero"] >= 2
    assert stats["problems"] == []


def test_desktop_join_says_how_and_in_german(run: dict) -> None:
    join = run["join"]
    assert join["paired_hint"] is False  # the Android-only hint is not on a desktop
    assert join["desktop_hint"] is True
    assert join["host_word"] == []  # no English "Host" in German
    assert join["problems"] == []


def test_desktop_host_may_open_the_table_to_the_local_network(run: dict) -> None:
    host = run["host"]
    assert host["loopback_text"] and host["lan_text"]
    assert host["default_address"].startswith("127.0.0.1:")
    assert host["lan_listens"].startswith("0.0.0.0:")
    assert not host["lan_shown"].startswith("0.0.0.0")  # the address guests type
    assert host["problems"] == []


def test_bluetooth_setup_on_a_desktop_says_what_it_is_for(run: dict) -> None:
    bt = run["bt"]
    assert bt["text"] == bt["expected"] and bt["problems"] == []


def test_a_casino_host_is_warned_that_leaving_ends_the_table(run: dict) -> None:
    casino = run["casino"]
    assert casino["question"] == casino["expected"]
    assert casino["after_no"] == "casino_lobby"
    assert casino["after_yes"] == ["oczko_menu", False]


def test_the_missing_multitouch_library_is_no_traceback_at_start() -> None:
    """Kivy's "MTDev is not supported" record (logged with a traceback at every
    desktop start) is dropped by the filter ``blu21 app`` installs before Kivy's input
    providers load; other records pass. (The real start could not be run here: this
    machine has no X server for ``blu21 app``.)"""
    import logging

    from app.views.main import QuietInputProbe, quiet_input_probe

    probe = QuietInputProbe()
    try:
        raise ImportError("libmtdev.so.1: cannot open shared object file")
    except ImportError:
        import sys as _sys

        exc_info = _sys.exc_info()
    mtdev = logging.LogRecord(
        "kivy",
        logging.ERROR,
        __file__,
        1,
        "Input: MTDev is not supported by your version of linux",
        (),
        exc_info,
    )
    other = logging.LogRecord("kivy", logging.ERROR, __file__, 1, "Window: failed", (), None)
    assert probe.filter(mtdev) is False and probe.filter(other) is True
    from kivy.logger import Logger

    quiet_input_probe()
    quiet_input_probe()  # (once only)
    assert sum(isinstance(f, QuietInputProbe) for f in Logger.filters) == 1


def _wait(cond, label: str):  # pragma: no cover - runs in the subprocess
    from kivy_driver import wait_for

    return wait_for(cond, label, STALL)


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess
    import json

    from kivy_driver import start_headless

    data_dir = start_headless(out, 320, 480)
    prefs = json.loads((data_dir / "prefs.json").read_text())
    prefs.update(language="auto", bots=2, oczko_rounds=1)
    (data_dir / "prefs.json").write_text(json.dumps(prefs))
    from kivy.clock import Clock
    from kivy.core.window import Window
    from kivy_driver import press, run_steps, tap
    from layout_geometry import check_window

    from app.i18n import _
    from app.views.app import Blu21App

    result: dict = {}

    def inside(widget) -> bool:
        x0, y0 = widget.to_window(widget.x, widget.y)
        return bool(y0 >= -1 and y0 + widget.height <= Window.height + 1 and x0 >= -1)

    def texts(screen) -> list[str]:
        from kivy.uix.label import Label

        return [w.text for w in screen.walk() if isinstance(w, Label) and w.opacity > 0]

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            Clock.schedule_once(lambda _dt: run_steps(self, self.checks(), out, result), 0.1)

        def on_stop(self) -> None:
            net = self.controllers.get("casino")
            if net is not None:
                net.leave()

        def checks(self):
            # -- Settings: the language given at start is the one highlighted ---------------
            settings = self.go("settings")
            yield
            result["settings_language"] = [
                b.text
                for b in settings.walk()
                if getattr(b, "pref", (None,))[0] == "language" and b.state == "down"
            ]
            # -- home at 320x480 in every language: everything above the fold -------------
            result["home"] = {}
            for lang in ("de", "en", "pl"):
                self.update_prefs(language=lang)
                home = self.go("home", remember=False)
                yield
                yield
                result["home"][lang] = {
                    "inside": {k: inside(home.ids[k]) for k in ("history", "settings")},
                    "problems": check_window(self, f"home:{lang}"),
                }
            self.update_prefs(language="en")
            yield
            # -- the name asked on first use: OK with nothing typed says why ---------------
            self.update_prefs(player_name="")
            asked = []
            self.with_name(lambda: asked.append(True))
            yield
            dialog = self.dialog
            tap(dialog.ids.ok)
            yield
            result["name"] = {
                "expected": _("Please type a name first."),
                "after_empty": {
                    "open": bool(dialog._is_open),
                    "problem": dialog.problem,
                    "shown": dialog.ids.problem.height > 0 and inside(dialog.ids.problem),
                },
            }
            dialog.ids.name.text = "Ola"
            tap(dialog.ids.ok)
            yield
            result["name"]["after_typed"] = {
                "open": bool(dialog._is_open),
                "name": self.prefs.player_name,
            }
            # -- practice: the ace hint in the first round, once; "New match" and bots -----
            table = self.screen("oczko_table")
            now = [0.0]
            table.clock = lambda: now[0]
            home = self.go("home", remember=False)
            yield
            tap(home.ids.oczko)
            yield
            tap(self.sm.get_screen("oczko_menu").ids.practice)
            yield
            hint = _("The ace always counts 11 here, never 1.")
            ace = result["ace"] = {"first_round": False, "problems": []}
            for _step in range(4000):
                vm = table.vm
                if vm.match_over:
                    break
                if vm.next_text:  # a tie: the tiebreak round of this one-round match
                    ace.setdefault("saved_after_first", self.prefs.seen_ace_hint)
                    tap(table.ids.next)
                    yield
                    continue
                if hint in vm.hint and not ace["first_round"]:
                    ace["first_round"] = True
                    yield
                    ace["problems"] += check_window(self, "first round with the ace hint")
                if vm.can_hold:
                    tap(table.ids.hold)
                else:
                    now[0] += 1.0
                    table.tick()
                yield
            ace["saved"] = ace.get("saved_after_first", self.prefs.seen_ace_hint)
            result["new_match"] = {"before": len(table.controller.names)}
            self.update_prefs(bots=4)  # changed in the settings meanwhile
            yield
            tap(table.ids.next)  # "New match"
            yield
            result["new_match"]["after"] = len(table.controller.names)
            ace["later"] = hint in table.vm.hint
            table.leave()
            table.clock = __import__("time").monotonic
            # -- statistics: the charts' axes and legend ----------------------------------
            stats = self.go("history_stats")
            yield
            yield
            shown = texts(stats)
            result["stats"] = {
                "legend": _("Filled: rounds won · frame: rounds played") in shown,
                "x_axis": sum(
                    t in (_("Rounds, oldest › newest"), _("Sessions, oldest › newest"))
                    for t in shown
                ),
                "zero": shown.count("0"),
                "problems": [p for p in check_window(self, "stats") if "outside" not in p],
            }
            # -- desktop join in German ---------------------------------------------------
            self.update_prefs(language="de")
            menu = self.go("oczko_menu", remember=False)
            yield
            tap(menu.ids.join)
            yield
            join = self.sm.get_screen("oczko_join")
            shown = texts(join)
            result["join"] = {
                "paired_hint": _(
                    "Paired phones are listed first: joining them is faster and more reliable."
                )
                in shown,
                "desktop_hint": _(
                    "Type the address shown in the host's lobby. A table on another "
                    "computer can be joined only when its host allowed the local network."
                )
                in shown,
                "host_word": [t for t in shown if "Host" in t.replace("Hostname", "")],
                "problems": check_window(self, "join:de"),
            }
            self.update_prefs(language="en")
            # -- desktop host: this computer only by default, the local network on request --
            host = result["host"] = {}
            screen = self.go("oczko_host")
            yield
            host["loopback_text"] = screen.ids.lan_text.text == _(
                "Only programs on this computer can join (127.0.0.1): to play with "
                "another computer, allow your network above."
            )
            host["problems"] = check_window(self, "host")
            press(screen.ids.open)  # (below the fold: the page scrolls)
            net = self.controllers["oczko_net"]
            yield from _wait(lambda: net.address and net.lobby, "the loopback lobby")
            host["default_address"] = net.address
            lobby = self.sm.get_screen("oczko_lobby")
            press(lobby.ids.leave_table)
            yield
            screen = self.go("oczko_host")
            yield
            screen.children[0].scroll_to(screen.ids.lan, animate=False)
            yield
            yield
            tap(screen.ids.lan)  # "Other computers on my network may join"
            yield
            host["lan_text"] = screen.lan and screen.ids.lan_text.text == _(
                "Computers on your local network join at the address the lobby shows "
                "(your firewall may ask)."
            )
            press(screen.ids.open)
            net = self.controllers["oczko_net"]
            yield from _wait(lambda: net.address and net.lobby, "the LAN lobby")
            yield from _wait(lambda: lobby.address, "the address in the lobby")
            host["lan_listens"] = net.address
            host["lan_shown"] = lobby.address.rsplit(" ", 1)[-1]
            press(lobby.ids.leave_table)
            yield
            # -- the Bluetooth set-up screen on a desktop ---------------------------------
            bt = self.go("bt_setup")
            bt.setup = None
            bt.refresh()
            yield
            result["bt"] = {
                "text": bt.ids.text.text,
                "expected": _(
                    "Bluetooth set-up: on a phone, this screen asks for the Bluetooth "
                    "permissions and turns Bluetooth on, so that phones at the table find "
                    "each other. It needs a phone. On this computer tables are joined by "
                    "address: there is nothing to set up here."
                ),
                "problems": check_window(self, "bt_setup"),
            }
            # -- a casino host leaving his lobby is told the table ends for everyone ------
            screen = self.go("oczko_host")
            screen.lan = False
            screen.choose_game("casino")
            yield
            press(screen.ids.open)
            casino = self.controllers["casino"]
            yield from _wait(lambda: casino.snapshot() is not None, "the casino lobby")
            yield
            clobby = self.sm.get_screen("casino_lobby")
            clobby.children[0].scroll_to(clobby.ids.leave_table, animate=False)
            yield
            yield
            tap(clobby.ids.leave_table)
            yield
            result["casino"] = {
                "question": self.dialog.message,
                "expected": _(
                    "Leave the table? You are its host: the table ends for every player."
                ),
            }
            self.dialog.answer(False)
            yield
            result["casino"]["after_no"] = self.sm.current
            tap(clobby.ids.leave_table)
            yield
            self.dialog.answer(True)
            yield
            result["casino"]["after_yes"] = [self.sm.current, "casino" in self.controllers]
            screen.choose_game("oczko")

    TestApp(data_dir=data_dir, language="de").run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]))
