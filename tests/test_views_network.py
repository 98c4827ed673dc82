"""The networked Oczko table through the app's screens, headless, over loopback TCP.

Like tests/test_app_kivy.py, this file is also the driver script (Kivy keeps one
window per process): ``python tests/test_views_network.py OUT``. The driver

* hosts a table from the "Host a table" screen, lets an ``app.table`` bot guest process
  join over 127.0.0.1, starts the match from the lobby and plays one round on the
  Oczko table screen by pressing its buttons (SRA dealer when app.protocol is there);
* joins a terminal host (``blu21 table --host``) from the "Join a table" screen by
  typing its address, sees the lobby, and shows the "host left" message when the host
  quits.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from kivy_driver import STALL, run_driver

from app.views.table.bridge import direct, never

# Longer than the default per-test limit (pyproject.toml): a Kivy process plays a hosted match
# through the screens.
pytestmark = pytest.mark.timeout(600)

HERE = Path(__file__).resolve()
#: real seconds without progress after which a wait counts as hung (a guard)
WAIT = STALL


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return run_driver(HERE, tmp_path_factory.mktemp("kivy-net"))


def test_hosted_match_is_played_through_the_screens(run: dict) -> None:
    host = run["host"]
    assert host["address"].startswith("127.0.0.1:")
    assert host["lobby_players"] == 2
    assert host["start_enabled"] is True
    assert host["reached_table"] is True
    assert host["my_turns"] >= 1  # the host player decided by pressing "Hold"
    assert host["over"] is True
    # the bot guest on the other end saw the same match
    assert host["guest_result"] == host["result"]


def test_the_table_offers_how_the_deck_was_shuffled(run: dict) -> None:
    from app.i18n import _

    fair = run["host"]["fair"]
    assert fair["screen"] == "history_round"
    texts = fair["texts"]
    assert _("How was this deck shuffled?") in texts
    assert fair["fingerprint"]  # the SRA dealer's, as the table screen shows it
    assert _("Table fingerprint: {code}").format(code=fair["fingerprint"]) in texts
    prefix = _("Shuffled in turn by: {names}").split("{")[0]
    (shuffled,) = [t for t in texts if t.startswith(prefix)]
    assert sorted(shuffled[len(prefix) :].split(", ")) == sorted(fair["names"])
    assert _("Audit: every card was dealt once and every claim was true.") in texts
    assert any("docs/protocol.md" in t for t in texts)  # how to check it oneself
    assert fair["back_to"] == "oczko_table"  # back to the round's result
    # at 320x480 in de, pl and en: fits, buttons of 48 dp, no broken word
    assert fair["problems"] == []


def test_joining_by_address_shows_the_lobby_and_the_host_leaving(run: dict) -> None:
    join = run["join"]
    assert join["lobby_players"] == 2
    assert join["seat"] == 1
    assert join["host_left_message"] == join["expected_host_left"]
    assert join["host_left_message"]


def test_back_arrow_in_the_lobby_leaves_the_table(run: dict) -> None:
    assert run["back"] == {"left": True}


def test_without_the_secure_dealer_no_table_opens_and_the_player_reads_why(run: dict) -> None:
    """No silent fall-back to the open dealer: hosting and joining stay on their screen,
    no table is opened, and the player reads the translated reason."""
    text = run["no_dealer_message"]
    assert text and run["no_dealer"] == [
        ["oczko_host", False, text],
        ["oczko_join", False, text],
    ]


def test_enter_in_the_address_field_joins(run: dict) -> None:
    """Issue 16, item 10: the address typed on the keyboard and Enter sit the player
    down (the lobby test above then sees him seated), without the search button."""
    join = run["join"]
    assert join["focused"] and join["typed"]
    assert join["enter_joined"] is True


def test_back_after_leaving_the_table_never_returns_into_its_lobby(run: dict) -> None:
    """Issue 16, item 10: 'Leave the table' shows the Oczko menu with the table gone;
    the back gesture then goes home, not into a dead 'Waiting for the table' lobby nor
    through the screens that led to it."""
    leave = run["leave"]
    assert leave["guest"] == ["oczko_menu", False, "home"]
    assert leave["host"] == ["oczko_menu", False, "home"]


def test_host_left_message_is_translated() -> None:
    from app.i18n import set_language
    from app.i18n.codes import message_for

    texts = set()
    for lang in ("en", "de", "pl"):
        set_language(lang)
        texts.add(message_for("host_left"))
    set_language("en")
    assert len(texts) == 3


def _pushed(net, cond) -> None:
    """Wait until the worker has pushed what ``cond`` needs: woken by each push the
    table's listeners get (the 60 s are a hang guard, not a speed target)."""
    changed = threading.Event()
    stop = net.listen(changed.set)
    try:
        while not cond():
            assert changed.wait(60), "nothing pushed"
            changed.clear()
    finally:
        stop()


def _tcp():
    """The desktop's table service (TCP on loopback), as the app builds it."""
    from app.table.service import tcp_service

    return tcp_service()


def _wait(cond, label: str):  # pragma: no cover - runs in the subprocess
    from kivy_driver import wait_for

    return wait_for(cond, label, WAIT)


def drive(out: Path) -> None:  # pragma: no cover - runs in the subprocess

    data_dir = Path(tempfile.mkdtemp(prefix="data-", dir=out))
    (data_dir / "prefs.json").write_text(
        json.dumps(
            {
                "animation_speed": "off",
                "language": "en",
                "oczko_rounds": 1,
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
    from kivy.core.window import Window
    from kivy_driver import Stall, press, run_steps, tap

    from app.i18n.codes import message_for
    from app.terminal.commands import default_dealer
    from app.views.app import Blu21App

    result: dict = {}
    procs: list[subprocess.Popen] = []
    dealer = default_dealer()

    class TestApp(Blu21App):
        def on_start(self) -> None:
            super().on_start()
            Clock.schedule_once(self.run_checks, 0.1)

        def run_checks(self, _dt) -> None:
            run_steps(self, self.checks(), out, result, delay=0.02)

        def from_home(self, which: str):
            """From home, as after a fresh start, by touches to the Oczko ``which``
            screen ("host" or "join"); returns it."""
            self.history.clear()
            home = self.go("home", remember=False)
            yield
            tap(home.ids.oczko)
            yield
            tap(self.sm.get_screen("oczko_menu").ids[which])
            yield
            return self.sm.get_screen(f"oczko_{which}")

        def on_stop(self) -> None:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()

        def checks(self):
            # -- host a table from the app, a bot guest joins over loopback --------------
            host = result["host"] = {}
            screen = self.go("oczko_host")
            yield
            screen.ids.open.dispatch("on_release")
            lobby = self.screen("oczko_lobby")
            net = self.controllers["oczko_net"]
            yield from _wait(lambda: net.address and net.lobby, "the host's lobby")
            host["address"] = net.address
            guest = subprocess.Popen(
                [
                    *(sys.executable, "-m", "app", "table", "--join", net.address),
                    *("--name", "Guest", "--bot", "--quiet", "--result-json"),
                    *("--dealer", dealer),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            procs.append(guest)
            yield from _wait(lambda: lobby.vm is not None and lobby.vm.can_start, "a ready guest")
            yield
            host["lobby_players"] = len(lobby.vm.players)
            host["start_enabled"] = not lobby.ids.start.disabled
            lobby.ids.start.dispatch("on_release")
            yield from _wait(lambda: self.sm.current == "oczko_table", "the table screen")
            host["reached_table"] = True
            table = self.screen("oczko_table")
            turns = 0
            guard = Stall("the hosted match to finish", WAIT)
            while not net.over:
                guard.check()
                if table.vm is not None and table.vm.my_turn and not table.ids.hold.disabled:
                    table.ids.hold.dispatch("on_release")
                    turns += 1
                    yield from _wait(lambda: not table.vm.my_turn or net.over, "the hold")
                yield
            host["my_turns"] = turns
            host["over"] = True
            m = net.match
            host["result"] = {"winner": m.winner, "points": list(m.points), "gone": sorted(m.gone)}
            # "How was this deck shuffled?" under the result: the round's fairness record
            from app.history.live import RECORDER

            def audited() -> bool:
                rid = RECORDER.latest_round_id(net)
                record = rid and RECORDER.store.round(rid)
                return bool(record and record.detail.get("audits"))

            yield from _wait(lambda: table.fair_round and audited(), "the audited round")
            yield
            fair = host["fair"] = {"fingerprint": net.fingerprint, "names": list(net.names)}
            from layout_geometry import check_window

            fair["problems"] = []
            for lang in ("de", "pl", "en"):  # the button's label in every language
                self.update_prefs(language=lang)
                yield
                yield
                fair["problems"] += check_window(self, f"result with the fairness button:{lang}")
            tap(table.ids.fair)
            yield
            yield
            fair["problems"] += check_window(self, "the round's fairness record")
            fair["screen"] = self.sm.current
            page = self.screen("history_round").page
            fair["texts"] = [getattr(w, "text", "") for w in page.children[::-1]]
            self.back()
            yield
            fair["back_to"] = self.sm.current
            table.leave()  # closes the table: the guest hears the end and exits
            out_text, _err = guest.communicate(timeout=WAIT)
            line = next((x for x in out_text.splitlines() if x.startswith("RESULT ")), "RESULT {}")
            host["guest_result"] = json.loads(line[7:])
            self.go("oczko_menu")
            yield

            # -- join a terminal host by address; the host quits in the lobby ------------
            join = result["join"] = {}
            hostp = subprocess.Popen(
                [
                    *(sys.executable, "-m", "app", "table", "--host", "--name", "Term"),
                    *("--dealer", dealer, "--quiet"),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            procs.append(hostp)
            first = hostp.stdout.readline()  # "listening on ADDR"
            address = first.strip().rsplit(" ", 1)[-1]
            # from home by touches; the address typed and sent with Enter, not the button
            screen = yield from self.from_home("join")
            field = screen.ids.address
            from kivy.tests.common import UnitTestTouch

            touch = UnitTestTouch(*field.to_window(*field.center))  # a finger on the field
            touch.touch_down()
            touch.touch_up()
            yield
            join["focused"] = bool(field.focus)
            Window.dispatch("on_textinput", address)
            yield
            join["typed"] = field.text == address
            Window.dispatch("on_key_down", 13, 40, None, [])  # Enter
            Window.dispatch("on_key_up", 13, 40)
            yield
            join["enter_joined"] = "oczko_net" in self.controllers
            lobby = self.screen("oczko_lobby")
            net = self.controllers["oczko_net"]
            yield from _wait(
                lambda: lobby.vm is not None and len(lobby.vm.players) == 2 and net.seat == 1,
                "the guest's lobby",
            )
            join["lobby_players"] = len(lobby.vm.players)
            join["seat"] = net.seat
            hostp.stdin.write("quit\n")
            hostp.stdin.flush()
            expected = message_for("host_left")
            join["expected_host_left"] = expected
            yield from _wait(lambda: lobby.message == expected, "the host-left message")
            join["host_left_message"] = lobby.message
            # 'Leave the table', then the back gesture: never into the dead lobby
            leave = result["leave"] = {}
            yield
            press(lobby.ids.leave_table)
            yield
            leave["guest"] = [self.sm.current, "oczko_net" in self.controllers]
            Window.dispatch("on_keyboard", 27, 41, None, [])  # Escape / Android back
            yield
            leave["guest"].append(self.sm.current)
            hostp.wait(timeout=WAIT)

            # -- the back arrow in the lobby leaves the table too ------------------------
            screen = self.go("oczko_host")
            yield
            screen.ids.open.dispatch("on_release")
            net = self.controllers["oczko_net"]
            yield from _wait(lambda: net.address and net.lobby, "the second host's lobby")
            self.back()
            yield from _wait(lambda: "oczko_net" not in self.controllers, "leaving by back")
            result["back"] = {"left": True}

            # -- no secure dealer on this phone: no table opens, the player reads why -----
            from app.table.errors import TableError
            from app.table.service import tcp_service

            def no_dealer() -> str:
                raise TableError("no_secure_dealer", "the native module is missing")

            service, self.service = self.service, tcp_service(dealer=no_dealer)
            for purpose in ("host", "join"):
                screen = self.go(f"oczko_{purpose}")
                yield
                if purpose == "join":
                    screen.ids.address.text = "127.0.0.1:9"
                press(screen.ids.open if purpose == "host" else screen.ids.search)
                yield
                result.setdefault("no_dealer", []).append(
                    [self.sm.current, "oczko_net" in self.controllers, self._toast.text]
                )
            result["no_dealer_message"] = message_for("no_secure_dealer")
            self.service = service

            # -- the host leaves his own open table, then goes back ----------------------
            screen = yield from self.from_home("host")
            tap(screen.ids.open)
            net = self.controllers["oczko_net"]
            yield from _wait(lambda: net.address and net.lobby, "the third host's lobby")
            yield
            press(self.sm.get_screen("oczko_lobby").ids.leave_table)
            yield
            leave["host"] = [self.sm.current, "oczko_net" in self.controllers]
            yield from _wait(lambda: net.closed, "the left table closing")
            Window.dispatch("on_keyboard", 27, 41, None, [])
            yield
            leave["host"].append(self.sm.current)

    TestApp(data_dir=data_dir).run()


if __name__ == "__main__":  # pragma: no cover
    drive(Path(sys.argv[1]))


def test_table_messages_name_the_player_and_the_violation() -> None:
    """The table's notices become the screen's translated message (player left,
    cheating detected with the table's named violation)."""
    from app.i18n import set_language
    from app.i18n.codes import message_for
    from app.table.lobby import Notice
    from app.views.oczko.network import NetworkTable

    set_language("en")
    net = NetworkTable(
        post=direct, later=never, service=_tcp(), hosting=True, name="Host", dealer="open"
    )
    try:
        assert net.wait_open(10.0), net.error
        assert net.message == ""
        net.tick(0.0)
        net._on_notice(Notice("violation", {"seat": 1, "code": "bad_shuffle"}))
        _pushed(net, lambda: net.message != "")  # the worker pushes it after its step
        net.names = ("Host", "Eve")  # (a second player, named by his seat)
        assert net.message == message_for("bad_shuffle", name="Eve")
        assert "Eve" in net.message
        net._on_notice(Notice("player_left", {"seat": 1, "name": "Eve", "reason": "left"}))
        _pushed(net, lambda: net.message == message_for("player_left", name="Eve"))
        assert net.tick(0.0) is True and net.tick(0.0) is False  # once per pushed change
    finally:
        net.leave()
        net.join_thread()
    assert net.closed


def test_joining_nowhere_reports_the_failure() -> None:
    from app.bluetooth.tcp import TcpTransport
    from app.views.oczko.network import NetworkTable

    listener = TcpTransport().listen()
    address = listener.address
    listener.close()  # nobody listens there any more
    net = NetworkTable(
        post=direct,
        later=never,
        service=_tcp(),
        hosting=False,
        name="Guest",
        address=address,
        dealer="open",
    )
    assert net.wait_open(20.0) is False
    assert net.error == "connect_failed"
    assert net.closed


def test_the_screen_stays_on_exactly_while_a_table_is_open() -> None:
    import threading

    from app.bluetooth.tcp import TcpTransport
    from app.views.oczko.network import NetworkTable

    calls: list[bool] = []
    threads: list[threading.Thread] = []

    def on_main(fn) -> None:  # the app's Kivy clock runs it on the main thread
        threads.append(threading.current_thread())
        fn()

    net = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        service=_tcp(),
        hosting=True,
        name="Host",
        dealer="open",
        awake=calls.append,
        on_main=on_main,
    )
    assert net.wait_open(10.0), net.error
    net.leave()
    net.join_thread()
    assert calls == [True, False]
    assert len(threads) == 2  # both went through the main thread's queue
    # A table that never opened never asked for it.
    listener = TcpTransport().listen()
    address = listener.address
    listener.close()
    calls.clear()
    net = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        service=_tcp(),
        hosting=False,
        name="Guest",
        address=address,
        dealer="open",
        awake=calls.append,
        on_main=lambda fn: fn(),
    )
    assert net.wait_open(20.0) is False
    assert calls == []


def test_a_cheating_guest_is_named_on_the_hosts_screen() -> None:
    """A real cheating peer (a forged dealer frame), not an injected notice: the host
    drops him and the screen says why, by name, in the player's language."""

    from app.bluetooth.ids import new_player_id
    from app.bluetooth.tcp import TcpTransport
    from app.i18n import set_language
    from app.i18n.codes import message_for
    from app.protocol.group import DEFAULT_GROUP
    from app.protocol.messages import Kind, Message
    from app.table.clock import SystemClock
    from app.table.messages import ProtocolFrame
    from app.table.oczko.guest import GuestTable
    from app.table.oczko.sra_deck import sra_dealer_factory
    from app.views.oczko.network import NetworkTable

    set_language("de")
    net = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        service=_tcp(),
        hosting=True,
        name="Host",
        dealer="sra",
        transport=TcpTransport(),
    )
    try:
        assert net.wait_open(10.0), net.error
        eve = GuestTable.join(
            TcpTransport(),
            net.address,
            player_id=new_player_id(),
            name="Eve",
            lang="pl",
            clock=SystemClock(),
            dealer_factory=sra_dealer_factory(),
        )

        def until(what, predicate, timeout: float = WAIT) -> None:
            deadline = time.monotonic() + timeout
            while not predicate():
                assert time.monotonic() < deadline, what
                eve.step(0.01)

        until("seated", lambda: eve.seat is not None)
        eve.set_ready()
        until("ready", lambda: net.lobby is not None and all(r for _, r in net.lobby["players"]))
        net.begin()
        until("the match", lambda: eve.phone is not None and eve.phone.dealer.ready)
        forged = Message(Kind.KEYS, round_id=1, sender=eve.seat, seq=99, sig=bytes(32))
        eve.send(eve.link, ProtocolFrame(forged.encode(DEFAULT_GROUP)))
        until("the verdict", lambda: net.message == message_for("player_cheated", name="Eve"))
        assert "Eve" in net.message and "ungültige Daten" in net.message
    finally:
        net.leave()
        net.join_thread()
        set_language("en")


def start_when_both_ready(host, deadline: float) -> None:
    """Host's screen: wait until the guest sits and is ready, then "Start the match"."""

    while not (
        host.lobby and all(r for _n, r in host.lobby["players"]) and len(host.lobby["players"]) == 2
    ):
        assert time.monotonic() < deadline, "lobby"
        host.tick(0.0)
        time.sleep(0.02)
    host.begin()


def test_every_phone_shows_every_rounds_result(monkeypatch) -> None:
    """Host and guest over loopback: after each round both phones show its result
    (awaiting_next, a banner naming the winner) while the host waits ROUND_PAUSE before
    the next deal; a player's own next turn takes the table back."""

    from app.i18n import set_language
    from app.views.oczko import network as oczko_network
    from app.views.oczko.network import NetworkTable
    from app.views.oczko.vm import present

    set_language("en")
    monkeypatch.setattr(oczko_network, "ROUND_PAUSE", 0.6)
    host = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        service=_tcp(),
        hosting=True,
        name="Ala",
        dealer="open",
        rounds=3,
        turn_time=10,
    )
    guest = None
    try:
        assert host.wait_open(10.0), host.error
        guest = NetworkTable(  # (headless: pushed on the worker thread)
            post=direct,
            later=never,
            service=_tcp(),
            hosting=False,
            name="Bartek",
            address=host.address,
            dealer="open",
        )
        phones = (host, guest)
        deadline = time.monotonic() + WAIT  # (a hang guard, not a speed target)
        start_when_both_ready(host, deadline)
        seen: dict[int, set[int]] = {0: set(), 1: set()}
        while not (host.over and guest.over):
            assert time.monotonic() < deadline, "the match did not end"
            for i, phone in enumerate(phones):
                phone.tick(0.0)
                m = phone.match
                if m is None:
                    continue
                if phone.awaiting_next:
                    vm = present(phone.view(), phone.names, awaiting_next=True)
                    head = vm.banner.split("\n")[0]  # who won the round, or nobody
                    assert ("round" in head or "point" in head) and vm.next_text == "Next round"
                    seen[i].add(len(m.history))
                elif m.to_act == phone.seat and not m.over:
                    phone.hold(0.0)
            time.sleep(0.02)
        played = len(host.match.history)
        # every round but the last (whose result comes with the match's) was on both
        # screens
        assert seen[0] >= set(range(1, played)) and seen[1] >= set(range(1, played))
    finally:
        host.leave()
        if guest is not None:
            guest.leave()
            guest.join_thread()
        host.join_thread()


def test_the_next_round_is_dealt_once_every_phone_tapped_next_round() -> None:
    """Host and guest over loopback, a turn of 600 s (the pause's limit): each phone
    taps "Next round" on a round's result, and the host deals the next round on the
    taps alone (its notice ``all_read`` for every later round), not on the timer."""

    from app.i18n import set_language
    from app.views.oczko.network import NetworkTable

    set_language("en")
    host = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        service=_tcp(),
        hosting=True,
        name="Ala",
        dealer="open",
        rounds=3,
        turn_time=600,
    )
    guest = None
    try:
        assert host.wait_open(10.0), host.error
        guest = NetworkTable(  # (headless: pushed on the worker thread)
            post=direct,
            later=never,
            service=_tcp(),
            hosting=False,
            name="Bartek",
            address=host.address,
            dealer="open",
        )
        phones = (host, guest)
        deadline = time.monotonic() + WAIT  # (less than one pause: only taps deal)
        start_when_both_ready(host, deadline)
        tapped: set[tuple[int, int]] = set()
        waited = 0
        while not (host.over and guest.over):
            assert time.monotonic() < deadline, "the next round never came"
            for i, phone in enumerate(phones):
                phone.tick(0.0)
                m = phone.match
                if m is None:
                    continue
                if phone.awaiting_next:
                    if i == 1 and (0, len(m.history)) not in tapped:
                        continue  # the guest reads after the host: the host waits for him
                    phone.next_round(0.0)  # the "Next round" button
                    tapped.add((i, len(m.history)))
                    assert not phone.awaiting_next
                    if i == 0:
                        # the guest has not read it yet: no deal, and the host says who
                        # reads (issue 37, item 7: not as a red message)
                        reading = phone.still_reading(time.monotonic())
                        assert reading is not None and reading[0] == ("Bartek",)
                        assert phone.message == ""
                        waited += 1
                elif m.to_act == phone.seat and not m.over:
                    phone.hold(0.0)
            time.sleep(0.02)
        played = len(host.match.history)
        assert played >= 2
        read = [n.details["round"] for n in host.table.notices if n.code == "all_read"]
        assert read == list(range(2, played + 1))
        assert {(0, n) for n in range(1, played)} <= tapped
        assert waited == played - 1
    finally:
        host.leave()
        if guest is not None:
            guest.leave()
            guest.join_thread()
        host.join_thread()


def test_start_names_the_guest_who_is_not_ready() -> None:
    """A guest seated but not ready: "Start the match" says who holds it up."""

    from app.bluetooth.ids import new_player_id
    from app.bluetooth.tcp import TcpTransport
    from app.i18n import set_language
    from app.i18n.codes import message_for
    from app.table.clock import SystemClock
    from app.table.lobby import GuestLobby
    from app.views.oczko.network import NetworkTable

    set_language("pl")
    net = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        service=_tcp(),
        hosting=True,
        name="Ala",
        dealer="open",
        transport=TcpTransport(),
    )
    slow = None
    try:
        assert net.wait_open(10.0), net.error
        slow = GuestLobby.connect(
            TcpTransport(),
            net.address,
            player_id=new_player_id(),
            name="Celina",
            lang="pl",
            clock=SystemClock(),
        )
        deadline = time.monotonic() + WAIT
        while not (net.lobby and len(net.lobby["players"]) == 2):
            assert time.monotonic() < deadline, "seated"
            slow.step(0.01)
            net.tick(0.0)
        net.begin()
        expected = message_for("player_not_ready", name="Celina")
        while net.message != expected:
            assert time.monotonic() < deadline, net.message
            slow.step(0.01)
            net.tick(0.0)
        assert "Celina" in net.message and not net.started
    finally:
        if slow is not None:
            slow.leave()
        net.leave()
        net.join_thread()
        set_language("en")


def test_a_void_round_says_whose_it_was_in_every_language() -> None:
    """A void's notice names whom it is charged to (issue 30)."""
    from app.i18n import set_language
    from app.i18n.codes import message_for
    from app.table.lobby import Notice
    from app.views.oczko.network import NetworkTable

    net = NetworkTable(
        post=direct, later=never, service=_tcp(), hosting=True, name="Host", dealer="open"
    )
    try:
        assert net.wait_open(10.0), net.error
        texts = set()
        for lang in ("de", "en", "pl"):
            set_language(lang)
            before = net.state
            net._on_notice(
                Notice("round_void", {"round": 1, "reason": "cheat", "seat": 1, "name": "Eve"})
            )
            _pushed(net, lambda b=before: net.state is not b)
            assert net.message == message_for("void_cheat", name="Eve") and "Eve" in net.message
            texts.add(net.message)
            before = net.state
            net._on_notice(
                Notice("round_void", {"round": 2, "reason": "stalled", "seat": 1, "name": "Eve"})
            )
            _pushed(net, lambda b=before: net.state is not b)
            assert "Eve" in net.message and net.message not in texts
            before = net.state
            net._on_notice(Notice("round_void", {"round": 3, "reason": "dispute", "seat": None}))
            _pushed(net, lambda b=before: net.state is not b)
            assert net.message == message_for("void_dispute")
            assert message_for("unjustified_void") != "That is not possible now (unjustified_void)."
        assert len(texts) == 3
    finally:
        set_language("en")
        net.leave()
        net.join_thread()
