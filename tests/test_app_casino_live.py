"""The live app's casino screens against the REAL networked table, over TCP loopback.

This file is also the driver script (``python tests/test_app_casino_live.py OUT``;
Kivy keeps one window per process). The app's table service is the real
:class:`app.table.service.TableService` over TCP with the SRA shoe (the default group:
what the app deals with) and a :class:`FakeClock` that never moves, so no bet or
decision time runs out: the table moves only on what the phones send.

* **host**: the app hosts casino blackjack (European rules: betting behind, the
  dealer-busts bet) and ``blu21 casino --join ADDRESS --bot`` sits down in its own
  process. On the lobby screen the player takes box 1 and starts; on the table screen
  he bets by touches on his box and behind the bot's box, taps "Deal", plays his
  decisions by touches (stand) and the round settles. All along, what the screen
  shows (every hand row's cards, the dealer's, the player's chips, the chips line,
  whose turn it is) must equal the snapshot of the table behind it; the settled chips
  must equal what the bot's phone prints for the same round, and be conserved.
* **guest**: the app joins a table hosted by ``blu21 casino --host --bot``, takes a
  free box on the table screen, bets, plays and settles the same way; the host ends
  the table after one round and the screen says so with the chips the host printed.

Nothing waits on the machine's speed: every wait is for an event (a frame, a
snapshot, a process's line); a wait fails only after STALL seconds in which the app
showed no progress (kivy_driver.Stall), however long the run takes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from kivy_driver import STALL, run_driver

# Longer than the default per-test limit (pyproject.toml): the live app hosts a casino table
# against real guests through its screens.
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()
#: real seconds without progress after which a wait counts as hung (a guard)
HANG = STALL


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-casino-live"))


def _check_side(r: dict, stages: set[str]) -> None:
    assert not r.get("closed_in_play"), r["closed_in_play"]  # (the table's notices)
    assert r["mismatches"] == [], r["mismatches"][:5]
    # the screen was compared with the table at every stage of the round
    assert stages <= set(r["compared"]), r["compared"]
    assert r["my_bets"] >= 1, r
    # every decision the table asked of the player was a touch, with the screen saying
    # it was his turn (a natural asks none: the SRA shoe is random, ~5 % of runs)
    if r["needed_decision"]:
        assert r["decisions"] >= 1 and "Your" in r["compared_turns"], r
    assert r["rows"] >= 3, r  # the dealer and at least both players' hands
    assert r["conserved"], r
    # every table message the screen showed was a translated one, none a bare code
    assert not [m for m in r["messages"] if "not possible now (" in m], r["messages"]
    # the other phone (a separate process) printed the same chips for the round
    assert r["peer_result"] is not None, r["peer_output"]
    assert r["peer_result"]["chips"] == r["chips"], (r["peer_result"], r["chips"])
    assert r["peer_result"]["conserved"] is True


def test_the_app_hosts_and_the_screen_shows_the_real_table(run: dict) -> None:
    r = run["host"]
    assert r["lobby_box_taken"] and r["lobby_players"] == 2, r
    # the lobby lists every player by name and whether he is ready (has a box)
    assert r["lobby_lines"][0] == "Zosia  ·  Box 1  ·  ready", r["lobby_lines"]
    bot = r["lobby_lines"][1]
    assert bot.endswith("  ·  not ready yet") or bot.endswith("  ·  ready"), bot
    # the table shows the SRA shoe's fingerprint (six digits, as Oczko's deck's)
    assert re.fullmatch(
        r"Table fingerprint: \d{3} \d{3} \(the same on every phone\)", r["fairness"]
    )
    assert r["address"].startswith("127.0.0.1:"), r["address"]
    assert r["behind"], "the bet behind the bot's box did not reach the table"
    _check_side(r, {"betting", "playing", "settled"})
    assert r["peer_exit"] == 0, r["peer_output"]


def test_the_app_joins_and_the_screen_shows_the_real_table(run: dict) -> None:
    r = run["guest"]
    # (the host ends the table as soon as every phone agreed on the round: the
    # settled round is checked when the screen got to draw it, the end always)
    _check_side(r, {"betting", "playing", "over"})
    assert "host left" in r["over_message"], r["over_message"]
    assert r["over_chips"].startswith("Your chips:"), r["over_chips"]


# --------------------------------------------------------------------------- the driver


class Peer:  # pragma: no cover - runs in the driver
    """A ``blu21 casino`` process whose output lines are collected as they come."""

    def __init__(self, *args: str) -> None:
        from app.spawn import blu21_command

        self.proc = subprocess.Popen(
            blu21_command("casino", *args),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def line(self, prefix: str) -> str | None:
        return next((x for x in self.lines if x.startswith(prefix)), None)

    def result(self) -> dict | None:
        line = self.line("RESULT ")
        return None if line is None else json.loads(line[len("RESULT ") :])

    def finish(self) -> int:
        """Wait for the process to end (killed after the hang guard)."""
        try:
            return self.proc.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess
    sys.path.insert(0, str(HERE.parent))
    from kivy_driver import start_headless

    data_dir = start_headless(out, 360, 640)
    from kivy.clock import Clock
    from kivy_driver import Stall, draw_on_demand, press, run_steps, tap, wait_for

    from app.rules.money import money_text
    from app.table.casino.snapshot import CasinoStage
    from app.table.clock import FakeClock
    from app.table.service import TableService, tcp_transport
    from app.views.app import Blu21App
    from app.views.blackjack.vm import chips
    from app.views.casino.vm import name_of

    clock = FakeClock()  # never moved: no time limit runs out
    service = TableService(tcp_transport, dealer=lambda: "sra", clock=lambda: clock)
    result: dict[str, Any] = {}
    peers: list[Peer] = []

    def frames(cond: Any, label: str) -> Any:
        return wait_for(cond, label, HANG)

    def expected(snap: Any) -> dict[str, Any]:
        """What the screen must show for snapshot ``snap``."""
        r = snap.round
        rows: list[list[int]] = []
        if r is not None and r.dealer:
            rows.append([c.code for c in r.dealer])  # (no hole card at a networked table)
        if r is not None:
            for n in range(1, snap.rules.boxes + 1):
                rows.extend([c.code for c in h.cards] for h in r.hands if h.box == n and h.cards)
        turn = ""
        if snap.stage is CasinoStage.OVER:
            rows = []  # the table has ended: its message and the chips say all
        if snap.stage is CasinoStage.PLAYING and snap.turn is not None:
            turn = "Your" if snap.turn == snap.me else name_of(snap, snap.turn)
        return {
            "stage": snap.stage.value,
            "balance": "Chips: " + chips(snap.chips.get(snap.me, 0)),
            "chips": {name_of(snap, p): chips(c) for p, c in snap.chips.items()},
            "rows": rows,
            "turn": turn,
        }

    def shown(screen: Any) -> dict[str, Any]:
        """What the table screen shows now (its widgets)."""
        vm = screen.vm
        betting = vm is None or screen._betting(vm)  # (boxes are buttons, no hands)
        rows = [] if betting else [list(w.ids.cards.cards) for w in screen.ids.boxes.children]
        return {
            "stage": vm.stage if vm else "",
            "balance": screen.ids.balance.text,
            "chips_line": screen.ids.chips.text,
            "rows": rows[::-1],
            "turn": screen.ids.turn.text,
        }

    def agree(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
        bad = []
        for key in ("stage", "balance", "rows"):
            if want[key] != got[key]:
                bad.append(f"{key}: table {want[key]!r} screen {got[key]!r}")
        for name, amount in want["chips"].items():
            if f"{name} {amount}" not in got["chips_line"]:
                bad.append(f"chips of {name}: table {amount} screen {got['chips_line']!r}")
        if want["turn"] and want["turn"] not in got["turn"]:
            bad.append(f"turn: table {want['turn']!r} screen {got['turn']!r}")
        return bad

    def touch(screen: Any, name: str, wanted: Any = None) -> Any:
        """Tap the screen's button ``name`` once it has been laid out and enabled: the
        same button, enabled, for two frames (the screen redraws some buttons on a change
        of the table and updates others in place, the lobby's boxes among them: a box
        button exists before the screen has taken the snapshot that enables it).
        ``wanted()``: whether the table still asks for that tap; once it does not (a
        decision tapped before came in meanwhile) no tap, and the result is False."""
        last, same, renewed = None, 0, 0
        guard = Stall(f"the button {name}", HANG)
        while same < 2:
            if wanted is not None and not wanted():
                return False
            try:
                guard.check()
            except AssertionError as exc:  # say what the button and the table were doing
                seen = {
                    "button": None if last is None else ("disabled" if last.disabled else "on"),
                    "on_screen": last is not None and last.get_root_window() is not None,
                    "renewed": renewed,
                    "prompt": None if screen.vm is None else str(screen.vm.prompt),
                    "table": None if screen.net is None else stuck(screen.net, name),
                }
                raise AssertionError(f"{exc}: {seen}") from None
            yield
            button = screen.buttons.get(name)
            usable = button is not None and not button.disabled
            renewed += button is not last
            same = same + 1 if usable and button is last else 0
            last = button
        tap(last)
        return True

    def stuck(net: Any, kind: str) -> dict[str, Any]:
        """What the joining phone's table showed when a decision tapped did not come
        (read from the driver's thread while the table's worker runs: a diagnosis)."""
        table = net.table
        phone = getattr(table, "phone", None)
        snap = net.snapshot()
        return {
            "worker_snapshot_behind": table is not None and table.snapshot() != snap,
            "intents_queued": net._intents.qsize(),
            "tapped": kind,
            "stage": snap.stage.value,
            "turn": snap.turn,
            "round_waits_for": None if snap.round is None else sorted(snap.round.waiting_for()),
            "my_legal": []
            if snap.round is None
            else [f"{a.kind.value} {a.box}" for a in snap.round.legal_actions(snap.me)],
            "notices": [f"{n.code} {dict(n.params)}" for n in snap.notices],
            "taps": [str(t) for t in getattr(table, "_taps", [])],
            "refused": sorted(getattr(table, "_refused", set())),
            "waiting": None if phone is None else phone.waiting,
            "owed": None if phone is None else str(phone.owed_steps()),
            "sent": None if phone is None else phone.players[phone.me].n,
            "log": [] if phone is None else [str(e)[:200] for e in phone.log[-12:]],
        }

    def notices(net: Any) -> int:
        """How many notices this phone's table has given so far (it keeps the newest)."""
        table = net.table
        return 0 if table is None else int(getattr(table, "notes_total", 0))

    def refused_since(net: Any, total: int) -> bool:
        """Whether a notice given since there were ``total`` is a refused intent (read
        from the driver's thread while the table's worker runs: the list is replaced,
        never changed in place)."""
        grown = notices(net) - total
        newest = list(getattr(net.table, "_notes", []))[-grown:] if grown > 0 else []
        me = net.snapshot().me  # (a host also notes the intents of others it refused)
        return any(
            n.code == "intent_refused" and dict(n.params).get("player", me) == me for n in newest
        )

    def compare(rec: dict, screen: Any, net: Any) -> Any:
        """Wait until the screen has drawn the table's newest snapshot (it follows
        the table by itself), then check that it shows exactly that snapshot."""
        state: dict[str, Any] = {}

        def drawn() -> bool:
            snap = net.snapshot()
            want = expected(snap)
            state.update(snap=snap, want=want, got=shown(screen))
            return not agree(want, state["got"]) and net.snapshot() == snap

        guard = Stall("the screen to draw the table", HANG)
        while not drawn():
            try:
                guard.check()
            except AssertionError:  # record what differed, do not hang
                rec["mismatches"].append(agree(state["want"], state["got"]))
                return
            yield
        want = state["want"]
        rec["compared"].append(want["stage"])
        message = screen.ids.message.text
        if message and message not in rec["messages"]:
            rec["messages"].append(message)
        if want["stage"] in ("playing", "settled"):
            rec["rows"] = max(rec["rows"], len(want["rows"]))
        if want["turn"]:
            rec["compared_turns"].append(want["turn"])

    toasts: list[str] = []  # what the app told the player at the bottom of the screen

    class TestApp(Blu21App):
        def notify(self, text: str, seconds: float = 3.5) -> None:
            toasts.append(text)
            super().notify(text, seconds)

        def on_start(self) -> None:
            super().on_start()
            self.draw = draw_on_demand()  # (nobody looks: laid out, not drawn)
            Clock.schedule_once(lambda _dt: run_steps(self, self.checks(), out, result), 0.1)

        def home(self) -> Any:
            if self.sm.current != "home":
                self.history.clear()
            return self.go("home", remember=False)

        def checks(self) -> Any:
            self.service = service
            try:
                yield from self.hosting()
                yield from self.joining()
            finally:
                for peer in peers:
                    if peer.proc.poll() is None:
                        peer.proc.kill()
                        peer.proc.wait()

        def new_record(self, key: str) -> dict[str, Any]:
            rec: dict[str, Any] = {
                "mismatches": [],
                "compared": [],
                "compared_turns": [],
                "my_bets": 0,
                "decisions": 0,
                "behind": False,
                "rows": 0,
                "needed_decision": True,
                "messages": [],
            }
            result[key] = rec
            return rec

        # -- the app hosts ------------------------------------------------------------
        def hosting(self) -> Any:
            rec = self.new_record("host")
            home = self.home()
            yield
            tap(home.ids.oczko)
            yield
            tap(self.sm.get_screen("oczko_menu").ids.host)
            yield
            host = self.sm.get_screen("oczko_host")
            tap(next(b for b in host.ids.games.children if b.game == "casino"))
            yield
            press(next(b for b in host.ids.casino_rules.children if b.choice == "european"))
            yield
            press(host.ids.open)
            lobby = self.screen("casino_lobby")
            net = self.controllers["casino"]
            yield from frames(lambda: lobby.vm is not None and net.address, "the lobby")
            rec["address"] = net.address
            # the bot's phone prints its result once every phone agreed on the round
            peer = Peer("--join", net.address, "--bot", "--name", "Bruno", "--quiet",
                        "--rounds", "1", "--result-json")  # fmt: skip
            peers.append(peer)
            # (the lobby redraws its buttons when the bot sits down: a button drawn this
            # frame is not laid out yet, a touch would miss it on a loaded machine)
            yield from touch(lobby, "box1")
            yield from frames(lambda: lobby.buttons["box1"].state == "down", "box 1 taken")
            rec["lobby_box_taken"] = True
            table = net.table
            yield from frames(
                lambda: len(lobby.vm.boxes) and len(net.snapshot().players) == 2,
                "the bot in the lobby",
            )
            rec["lobby_players"] = len(net.snapshot().players)
            yield from frames(lambda: len(lobby.ids.players.children) == 2, "the names")
            rec["lobby_lines"] = [w.text for w in reversed(lobby.ids.players.children)]
            # the bot's key comes right after his seat: until then the table refuses
            yield from frames(lambda: len(table._keys) == 1, "the bot's key")
            yield
            press(lobby.ids.start)  # (below the rules: the lobby scrolls)
            yield from self.round(rec, net, box=1, behind=2)
            # the other phone prints its result once every phone agreed on the round
            yield from frames(lambda: peer.result() is not None, "the bot's result")
            rec["peer_result"] = peer.result()
            screen = self.screen("casino_table")
            screen.leave()  # the host leaves: the bot's phone ends
            rec["peer_exit"] = peer.finish()
            rec["peer_output"] = peer.lines[-20:]
            self.home()
            yield

        # -- the app joins ------------------------------------------------------------
        def joining(self) -> Any:
            rec = self.new_record("guest")
            peer = Peer(
                "--host", "--bot", "--name", "Ola", "--start-with", "2", "--rounds", "1",
                "--result-json", "--bet-time", "600", "--turn-time", "600", "--quiet",
            )  # fmt: skip
            peers.append(peer)
            yield from frames(lambda: peer.line("listening on ") is not None, "the host")
            address = str(peer.line("listening on ")).split()[-1]
            home = self.home()
            yield
            tap(home.ids.blackjack)
            yield
            tap(self.sm.get_screen("bj_menu").ids.join_table)
            yield
            join = self.sm.get_screen("oczko_join")
            join.ids.address.text = address
            yield
            tap(join.ids.search)
            yield from self.round(rec, None, box=None, behind=None)
            net = self.controllers["casino"]
            screen = self.screen("casino_table")
            # the host ends the table after the round: the screen says so
            yield from frames(lambda: net.closed, "the host leaving")
            yield from frames(lambda: screen.vm is not None and screen.vm.over, "the end")
            yield from compare(rec, screen, net)
            self.count(rec, net.snapshot())
            rec["over_message"] = screen.ids.message.text
            rec["over_chips"] = screen.vm.result
            rec["peer_result"] = peer.result()
            rec["peer_exit"] = peer.finish()
            rec["peer_output"] = peer.lines[-20:]
            yield from touch(screen, "menu")
            yield

        # -- one round on the table screen ---------------------------------------------
        def round(self, rec: dict, net: Any, box: int | None, behind: int | None) -> Any:
            """From the lobby to a settled round, by touches: ``box`` is the own box
            taken in the lobby (None: take the first free one on the table screen),
            ``behind`` a box to bet behind once its owner has bet."""
            screen = self.screen("casino_table")
            yield from frames(
                lambda: self.sm.current == "casino_table" and not self.sm.transition.is_active,
                "the table screen",
            )
            net = self.controllers["casino"]
            screen.clock = clock.now
            yield from frames(lambda: net.snapshot().stage is CasinoStage.BETTING, "bets open")
            yield from compare(rec, screen, net)
            me = net.snapshot().me
            if box is None:  # take a free box on the table screen (after the bot's)
                yield from frames(lambda: "box1" in screen.buttons, "the boxes")
                yield from frames(lambda: len(net.snapshot().boxes) >= 1, "the bot's box")
                snap = net.snapshot()
                box = next(n for n in range(1, snap.rules.boxes + 1) if n not in snap.boxes)
                yield from touch(screen, f"box{box}")
                yield from frames(lambda: net.snapshot().boxes.get(box) == me, "own box")
            yield from frames(lambda: f"box{box}" in screen.buttons, "own box button")
            yield from touch(screen, f"box{box}")
            yield from frames(lambda: "chip10" in screen.buttons, "the chips")
            yield from touch(screen, "chip10")
            rec["my_bets"] += 1
            yield from frames(
                lambda: net.snapshot().round.box_owner(box) == me, "the bet on the own box"
            )
            yield from compare(rec, screen, net)
            if behind is not None:

                def owner_bet() -> bool:
                    snap = net.snapshot()
                    return snap.boxes.get(behind) is not None and (
                        snap.round.box_owner(behind) == snap.boxes[behind]
                    )

                yield from frames(owner_bet, "the bot's bet")
                yield from frames(lambda: f"box{behind}" in screen.buttons, "the bot's box")
                yield from touch(screen, f"box{behind}")
                yield from frames(
                    lambda: screen.selected_box == behind and "chip10" in screen.buttons,
                    "the chips behind",
                )
                yield from touch(screen, "chip10")

                def behind_placed() -> bool:
                    r = net.snapshot().round
                    return any(h.stake_of(me) for h in r.box_hands(behind))

                yield from frames(behind_placed, "the bet behind")
                rec["behind"] = True
                rec["my_bets"] += 1
            yield from frames(lambda: "deal" in screen.buttons, "the deal button")
            yield from touch(screen, "deal")
            yield from frames(lambda: net.snapshot().stage is not CasinoStage.BETTING, "deal")
            # the shoe's fingerprint, as Oczko's table shows its deck's (360x640)
            yield from frames(lambda: bool(screen.ids.fairness.text), "the fingerprint")
            rec["fairness"] = screen.ids.fairness.text
            # play: every decision of this player by a touch, the screen checked
            guard = Stall("the round to settle", HANG)
            while net.snapshot().stage is CasinoStage.PLAYING:
                guard.check()
                yield from compare(rec, screen, net)
                vm = screen.vm
                if vm is None or vm.stage != "playing":
                    continue
                if vm.prompt is not None:
                    kind = vm.prompt.choices[-1][0]
                elif vm.my_turn and vm.actions.get("stand"):
                    kind = "stand"
                else:
                    yield
                    continue
                if kind not in screen.buttons:
                    yield
                    continue
                before, told = net.snapshot().round, len(toasts)

                def asks(kind: str = kind) -> bool:
                    # (the decision a tap before made may come in while the button is
                    # awaited: the screen then asks for another one, or for none)
                    vm = screen.vm
                    if vm is None or vm.stage != "playing":
                        return False
                    if vm.prompt is not None:
                        return kind in (c[0] for c in vm.prompt.choices)
                    return bool(vm.my_turn and vm.actions.get(kind))

                if not (yield from touch(screen, kind, asks)):
                    continue
                rec["decisions"] += 1

                said = notices(net)

                def decided(b: Any = before, n: int = told, r: int = said) -> bool:
                    # (or the table ended meanwhile: said below, not waited for until
                    # the hang guard; or the tap was refused: the player is told why,
                    # and taps again if it is still his turn. The phone refuses a tap
                    # with a toast; the host refuses one it relayed (CNo) with a notice
                    # on the screen's message line, and the round stays as it was: a
                    # wait for the round alone waited for a change that never came)
                    return (
                        net.snapshot().round is not b
                        or net.closed
                        or len(toasts) > n
                        or refused_since(net, r)
                    )

                try:
                    yield from frames(decided, "the decision")
                except AssertionError:
                    rec["stuck"] = stuck(net, kind)  # (what the table was waiting for)
                    raise
                refused = len(toasts) > told or refused_since(net, said)
                if refused and net.snapshot().round is before:
                    why = toasts[-1] if len(toasts) > told else screen.ids.message.text
                    rec["refused_taps"] = [*rec.get("refused_taps", []), why]
                    rec["decisions"] -= 1
                    continue
                last = net.snapshot()
                if net.closed and last.round is before:  # (it ended, the decision never in)
                    rec["closed_in_play"] = [f"{n.code} {dict(n.params)}" for n in last.notices]
                    break
            yield from frames(lambda: net.snapshot().stage is not CasinoStage.PLAYING, "settle")
            snap = net.snapshot()
            r = snap.round
            rec["needed_decision"] = any(
                h.owner == me and not h.natural for h in r.hands if h.cards
            )
            if snap.stage is CasinoStage.SETTLED:
                yield from compare(rec, screen, net)
                self.count(rec, net.snapshot())

        def count(self, rec: dict, snap: Any) -> None:
            """The chips the table says now, and whether they are conserved."""
            rec["chips"] = {p: money_text(c) for p, c in sorted(snap.chips.items())}
            total = sum(snap.chips.values()) + snap.house
            rec["conserved"] = total == len(snap.players) * snap.rules.starting_chips

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]))
