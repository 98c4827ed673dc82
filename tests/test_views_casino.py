"""The casino table's presenter (app/views/casino/vm.py) and its controller
(app/views/casino/network.py), without Kivy: snapshots from a fake table over a real
multi-player Round (tests/casino_fakes.py)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from casino_fakes import FakeCasinoService, FakeCasinoTable

from app.i18n import set_language
from app.rules.blackjack import Action
from app.rules.engine import kinds_of
from app.rules.table_rules import EUROPEAN, TableRules
from app.table.casino.snapshot import CasinoSnapshot, Notice
from app.table.clock import FakeClock
from app.views.casino.network import CasinoNet, TakeBox
from app.views.casino.vm import action_for, present_casino
from app.views.table.bridge import ACCEPTED, Outcome, direct

NAMES = {"me": "Zosia", "b0": "Ola", "b1": "Jürgen", "b2": "Ann"}


@pytest.fixture(autouse=True)
def english() -> None:
    set_language("en")


def table(**kwargs: object) -> FakeCasinoTable:
    options = {"prefix": "8s Td 9c 7h 6d 8h 7c 9d 8c", "clock": FakeClock(1000.0)}
    options.update(kwargs)
    return FakeCasinoTable("me", NAMES, EUROPEAN, {2: "b0", 4: "b1", 5: "b2"}, **options)


def betting(t: FakeCasinoTable) -> FakeCasinoTable:
    t.take_box(1)
    t.start()
    return t


def test_lobby_boxes_free_taken_and_the_host_starts() -> None:
    t = table()
    vm = present_casino(t.snapshot(), 0.0, hosting=True)
    assert [b.number for b in vm.boxes if b.can_take] == [1, 3, 6, 7]
    assert [b.owner for b in vm.boxes if not b.can_take] == ["Ola", "Jürgen", "Ann"]
    assert vm.can_start  # the bots' boxes are taken
    assert not present_casino(t.snapshot(), 0.0, hosting=False).can_start
    t.take_box(1)
    vm = present_casino(t.snapshot(), 0.0)
    assert vm.boxes[0].owner == "You" and vm.boxes[0].mine and vm.boxes[0].can_leave
    assert vm.chips_line == "You 1000 · Ola 1000 · Jürgen 1000 · Ann 1000"
    assert vm.seconds_left is None  # no timer in the lobby


def test_bets_own_box_and_behind_within_the_limit_never_on_a_free_box() -> None:
    t = betting(table())
    vm = present_casino(t.snapshot(), 1000.0)
    ranges = {b.number: b.bet_range for b in vm.boxes}
    lo, hi = Fraction(EUROPEAN.min_bet), Fraction(EUROPEAN.max_bet)
    assert ranges[1] == (lo, hi)  # his own box, empty
    assert ranges[2] == (lo, hi - lo)  # behind Ola: the box holds her bet already
    assert ranges[3] is None and vm.boxes[2].can_take  # free: taken first, not bet on
    assert vm.boxes[1].bet_behind and not vm.boxes[0].bet_behind
    # another player's box he has not bet on yet: nobody may bet there (the first bet
    # would make the bettor its owner in the engine)
    snap = t.snapshot()
    snap = dataclasses.replace(snap, boxes={**snap.boxes, 3: "b2"})
    assert snap.round is not None and snap.round.box_owner(3) is None
    assert any(a.box == 3 for a in snap.round.legal_actions("me"))  # the engine would
    assert present_casino(snap, 0.0).boxes[2].bet_range is None


def test_actions_are_the_engines_legal_actions_and_intents_are_recorded() -> None:
    t = betting(table())
    s = t.snapshot()
    t.act(action_for(s, "bet", 1, 10))
    s = t.snapshot()
    vm = present_casino(s, 1000.0)
    # a bot bet behind his box: shown on the box with its owner's name
    assert t.round.box_hands(1)[0].stakes[1].player != "me"
    t.act(action_for(s, "bet", 2, 25))
    t.act(action_for(t.snapshot(), "side_bet", None, 10))
    t.close_bets()
    s = t.snapshot()
    vm = present_casino(s, 1000.0)
    legal = set(kinds_of(s.round.legal_actions("me")))
    assert {k for k, on in vm.actions.items() if on} == legal & set(vm.actions)
    assert "split" in legal  # 8-8 on box 1
    assert vm.my_turn and vm.turn.startswith("Your hand on box 1")
    assert vm.boxes[0].behind.startswith("Ola ") or vm.boxes[0].behind.startswith("Jürgen ")
    assert "You 25" in vm.boxes[1].hands[0].stakes  # his bet behind Ola's box
    assert vm.side_bet_text.startswith("Your bet on the dealer busting: 10")
    t.act(action_for(s, "split"))
    assert [i for i in t.intents if i[0] == "act"] == [
        ("act", Action.bet("me", 1, 10)),
        ("act", Action.bet("me", 2, 25)),
        ("act", Action.side_bet("me", 10)),
        ("act", Action.make("split", "me", 1)),
    ]
    assert present_casino(t.snapshot(), 1000.0).hand_rows >= 5
    # a stale button (the round moved on) builds no action
    assert action_for(s, "surrender") is None


def test_a_player_who_sat_out_has_no_result_and_bettors_see_theirs() -> None:
    t = betting(table())
    t.close_bets()  # he bet nothing: his box sits out
    while t.round is not None and not t.round.settled:
        t.time_out()
    vm = present_casino(t.snapshot(), 0.0)
    assert vm.stage == "settled" and vm.result == ""
    t.next_round()
    t.act(action_for(t.snapshot(), "bet", 1, 10))
    t.close_bets()
    while not t.round.settled:
        s = t.snapshot()
        t.act(action_for(s, "stand") or action_for(s, "decline_insurance", 1))
    assert present_casino(t.snapshot(), 0.0).result.startswith(("You won", "You lost", "Even"))


def test_countdown_follows_the_injected_clock() -> None:
    t = betting(table())
    s = t.snapshot()
    t.act(action_for(s, "bet", 1, 10))
    t.close_bets()
    s = t.snapshot()
    assert s.deadline == 1020.0
    assert present_casino(s, 1000.0).seconds_left == 20
    assert present_casino(s, 1007.5).seconds_left == 13
    assert present_casino(s, 1007.5).turn.endswith(" 13 s")
    assert present_casino(s, 1030.0).seconds_left == 0


def test_shuffle_progress_and_the_next_shoe() -> None:
    t = table()
    t.take_box(1)
    t.shuffling(0.4)
    vm = present_casino(t.snapshot(), 0.0)
    assert vm.status == "Shuffling the shoe together: 40 %"
    assert not any(b.can_take for b in vm.boxes)  # not while the shoe is shuffled
    t.start()
    vm = present_casino(t.snapshot(), 0.0)
    assert "cards to the cut card" in vm.status and "next shoe 50 % shuffled" in vm.status


@pytest.mark.parametrize(
    ("lang", "cheat", "left"),
    [
        ("en", "Cheating detected: Jürgen", "The host left"),
        ("de", "Betrug erkannt: Jürgen", "Der Gastgeber"),
        ("pl", "Wykryto oszustwo: Jürgen", "Gospodarz"),
    ],
)
def test_cheater_named_and_host_leaving_in_every_language(lang: str, cheat: str, left: str) -> None:
    set_language(lang)
    t = betting(table())
    t.name_cheater("b1")
    vm = present_casino(t.snapshot(), 0.0)
    assert vm.cheater.startswith(cheat), vm.cheater
    t.host_leaves()
    vm = present_casino(t.snapshot(), 0.0)
    assert vm.message.startswith(left), vm.message
    assert vm.over and not any(vm.actions.values()) and vm.seconds_left is None
    assert "1000" in vm.result
    assert not any(b.bet_range or b.can_take for b in vm.boxes)


def test_notices_name_players_and_timeouts() -> None:
    s = CasinoSnapshot(
        me="me",
        rules=TableRules(),
        players=("me", "b0"),
        names=NAMES,
        chips={"me": Fraction(990), "b0": Fraction(1010)},
        notices=(Notice("decision_timeout", {"player": "b0"}),),
        house=Fraction(-20),
    )
    vm = present_casino(s, 0.0)
    assert vm.message == "Time is up: Ola stands."
    assert vm.chips_line == "You 990 · Ola 1010 · House -20"
    unknown = CasinoSnapshot(
        me="me", rules=TableRules(), players=(), names={}, chips={}, notices=(Notice("x"),)
    )
    assert "(x)" in present_casino(unknown, 0.0).message  # shown, never raised


def test_casino_net_opens_through_the_service_and_follows_changes() -> None:
    made: list[FakeCasinoTable] = []

    def make(hosting: bool, on_change, options: dict) -> FakeCasinoTable:
        t = FakeCasinoTable(
            "me", NAMES, options["rules"], {2: "b0"}, on_change=on_change, threaded=True
        )
        made.append(t)
        return t

    service = FakeCasinoService(make)
    awake: list[bool] = []
    net = CasinoNet(
        hosting=True, service=service, awake=awake.append, name="Zosia", lang="en",
        rules=EUROPEAN, post=direct, later=lambda _d, _f: None,
    )  # fmt: skip
    pushed: list[object] = []
    net.listen(lambda: pushed.append(net.state))
    assert net.wait_open(5)
    assert service.calls[0][0] == "host_casino" and service.calls[0][1]["rules"] == EUROPEAN
    net.sync()  # (a table on this phone: its first state, if not pushed yet)
    assert net.snapshot() is not None and net.snapshot().boxes == {2: "b0"}
    answers: list[Outcome] = []
    net.submit(TakeBox(1), answers.append)  # a table on this phone answers at once
    assert answers == [ACCEPTED] and net.snapshot().boxes == {1: "me", 2: "b0"}
    assert pushed[-1] is net.state  # the change was pushed to the listener
    net.submit(TakeBox(1), answers.append)
    assert answers[-1].code == "box_taken" and answers[-1].message == "This box is taken."
    assert made[0].intents == [("take_box", 1)]
    net.leave()
    assert net.closed and awake == [True, False]


def test_casino_net_says_why_a_join_failed() -> None:
    from app.table.errors import TableError

    def make(hosting: bool, on_change, options: dict) -> FakeCasinoTable:
        raise TableError("table_full", "seven players sit already")

    net = CasinoNet(hosting=False, service=FakeCasinoService(make), address="x:1", name="Z")
    assert not net.wait_open(5)
    assert net.error == "table_full" and net.closed and net.snapshot() is None


def test_a_casino_table_offers_bets_in_whole_chips_only() -> None:
    """A casino table takes bets in whole chips (app.rules.money.STAKE_UNITS, issue 30):
    with 24.2 chips left the all-in chip is 24, not 24.2, which every phone would
    refuse; with less than a whole minimum bet nothing is offered."""
    from app.rules.blackjack import Round

    t = betting(table())
    snap = t.snapshot()
    assert snap.round is not None
    rolls = {p: Fraction(1000) for p in snap.round.players()}

    def with_chips(mine: Fraction) -> CasinoSnapshot:
        rnd = Round.new(snap.round.rules, {**rolls, "me": mine})
        return dataclasses.replace(snap, round=rnd)

    vm = present_casino(with_chips(Fraction(121, 5)), 1000.0)
    assert vm.boxes[0].bet_range == (Fraction(EUROPEAN.min_bet), Fraction(24))
    vm = present_casino(with_chips(Fraction(21, 2)), 1000.0)
    assert vm.boxes[0].bet_range == (Fraction(10), Fraction(10))


def test_the_casino_table_shows_the_shoes_fingerprint_and_audit() -> None:
    """As Oczko's table shows its deck's fingerprint and audit, the casino table shows
    its shoe's (read from the casino phone's dealer and log by the one adapter,
    app/views/table/fairness.py); the lines are the shared ones, in the player's
    language."""
    from app.views.table.fairness import Audit, CasinoFairness, Fairness

    class Dealer:
        fingerprint = "pending"

    class Phone:
        def __init__(self) -> None:
            self.dealer = Dealer()
            self.log: list[dict] = [{"event": "bets_open"}]

    phone = Phone()

    class Table:
        def __init__(self) -> None:
            self.phone = phone

    snap = CasinoSnapshot(
        me="p0", rules=EUROPEAN, players=("p0", "p1"), names={"p0": "Zosia", "p1": "Ola"},
        chips={"p0": Fraction(1000), "p1": Fraction(1000)},
    )  # fmt: skip
    reader = CasinoFairness()
    assert reader.read(Table(), snap) == Fairness()  # not set up yet: nothing to show
    Dealer.fingerprint = "123456"
    phone.log.append({"event": "audit", "shoe": 1, "ok": True, "cheaters": []})
    fair = reader.read(Table(), snap)
    assert fair == Fairness("123456", Audit(True, (), 1))
    set_language("en")
    lines = present_casino(snap, 0.0, fairness=fair).fairness.split("\n")
    assert lines == [
        "Table fingerprint: 123 456 (the same on every phone)",
        "Shoe 1 audited: every card was dealt once.",
    ]
    phone.log.append({"event": "audit", "shoe": 2, "ok": False, "cheaters": [1]})
    fair = reader.read(Table(), snap)  # (read on from where it stopped)
    assert fair.audit == Audit(False, ("Ola",), 2)
    try:
        set_language("de")
        text = present_casino(snap, 0.0, fairness=fair).fairness
        assert "123 456" in text and "Ola" in text and "Audit failed" not in text
    finally:
        set_language("en")
    assert present_casino(snap, 0.0).fairness == ""  # a table on this phone has none


def test_the_casino_lobby_lists_names_and_readiness_as_oczkos_does() -> None:
    """Each player by name with whether he is ready (he has a box, named), the same
    words as the Oczko lobby's lines (lobby_vm.player_line)."""
    from app.views.casino.vm import lobby_players
    from app.views.table.lobby_lines import present_lobby

    snap = CasinoSnapshot(
        me="p0", rules=EUROPEAN, players=("p0", "p1", "p2"),
        names={"p0": "Zosia", "p1": "Ola", "p2": "Jürgen"}, chips={}, boxes={2: "p1", 5: "p1"},
    )  # fmt: skip
    try:
        for lang in ("en", "de", "pl"):
            set_language(lang)
            oczko = present_lobby({"players": [("Zosia", False), ("Ola", True)]}, False)
            lines = lobby_players(snap)
            assert lines[0] == oczko.players[0]  # not ready: the same line as Oczko's
            assert lines[1].startswith("Ola") and lines[1].endswith(oczko.players[1][5:])
            assert "2" in lines[1] and "5" in lines[1] and lines[2].startswith("Jürgen")
    finally:
        set_language("en")


def test_the_turn_watcher_looks_when_a_table_pushes_an_update() -> None:
    """Issue 37, item 1, without the 0.2 s poll: the app's turn watcher is called on
    every update a table pushes to the UI thread (app/views/table/turn_watch.py), and only
    then."""
    from app.views.table.turn_watch import on_table_update

    looked: list[str] = []
    stop = on_table_update(lambda: looked.append("looked"))
    net = None
    try:
        net = CasinoNet(
            hosting=True, service=FakeCasinoService(lambda *_a: None), post=direct,
            later=lambda _d, _f: None,
            make=lambda on_change: FakeCasinoTable(
                "me", NAMES, EUROPEAN, {2: "b0"}, on_change=on_change
            ),
        )  # fmt: skip
        seen = len(looked)  # (its first state was delivered while it was made)
        net.sync()
        assert len(looked) == seen  # nothing changed: nothing pushed, nobody looks
        net.submit(TakeBox(1))
        assert len(looked) == seen + 1  # pushed: the watcher looked
    finally:
        stop()
        if net is not None:
            net.leave()
