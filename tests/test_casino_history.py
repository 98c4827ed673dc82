"""A networked casino round leaves a trace (issue 31): every phone of a casino table
over TCP loopback stores its rounds through the app's one recording path
(``Recorder.table``, what ``CasinoNet``'s worker and ``blu21 casino`` call), each with
the shoe audit's verdict and the player's decisions reviewed against best play; and
the collector's verdicts from plain values (a failed audit names the cheater); and at
a real Oczko table, colluders caught by the audit are named in the honest phones'
history through the same path."""

from __future__ import annotations

from fractions import Fraction

from app.history.casino_record import CasinoRounds, Settled
from app.history.live import Recorder
from app.rules.table_rules import TableRules
from app.table.clock import FakeClock
from tests.casino_net import open_table, run, settled


def test_every_phone_stores_its_casino_rounds_with_verdict_and_review(tmp_path) -> None:
    clock = FakeClock()
    # one deck cut early: each round's shoe is done (and audited) when the next opens
    rules = TableRules.preset("european").replace(decks=1, penetration=Fraction(1, 10))
    host, guests = open_table(3, rules, clock=clock, seed=5)
    sides = [host, *guests]
    recorders = []
    for i in range(3):
        rec = Recorder(clock=clock.now)
        rec.configure(tmp_path / f"phone{i}")
        recorders.append(rec)

    def record_and(until):  # the recorder reads each phone after every step
        def check() -> bool:
            for rec, side in zip(recorders, sides, strict=True):
                rec.table(side, side)
            return until()

        return check

    run(sides, record_and(settled(sides, 3)), clock)
    assert all(s.phone.fault is None for s in sides)
    per_phone = [rec.store.rounds("blackjack", newest_first=False) for rec in recorders]
    names = ["Host", "P1", "P2"]
    reviewed = 0
    for i, rounds in enumerate(per_phone):
        assert [r.number for r in rounds] == [1, 2, 3]
        for r in rounds:
            d = r.detail
            assert (r.mode, r.player, d["me"]) == ("network", names[i], f"p{i}")
            assert d["digest"] == host.phone.records[r.number].digest  # what all agreed on
            assert d["named"] == [] and d["shoes"]
            assert r.facts.decisions == len(d["decisions"])
            for decision in d["decisions"]:
                assert decision["best"] in decision["evs"] and decision["ev_lost"] >= 0
            reviewed += len(d["decisions"])
            # chips as the phone counted them
            assert r.score_after == str(sides[i].phone.records[r.number].body["chips"][f"p{i}"])
        # the first two rounds' shoes are done: their audits passed, on every phone
        for r in rounds[:2]:
            assert r.detail["audit"] == "passed", r.detail["audits"]
            assert [a["ok"] for a in r.detail["audits"]] == [True] * len(r.detail["shoes"])
        assert rounds[2].detail["audit"] in ("passed", "pending")
    assert reviewed > 0  # the bots' playing decisions were reviewed against best play
    for rec in recorders:
        rec.configure(None)


def _settled(digest: str, shoes: tuple[int, ...], net: int) -> Settled:
    result = {
        "hands": [
            {
                "box": 1,
                "from_split": False,
                "stakes": [{"player": "p1", "outcome": "win" if net > 0 else "lose",
                            "doubled": 0}],
            }
        ],
        "net": {"p1": net},
    }  # fmt: skip
    return Settled(digest, result, {"p1": 1000 + net}, shoes)


def test_a_failed_shoe_audit_fails_every_round_it_dealt_and_names_the_cheater() -> None:
    rounds = CasinoRounds(session="s", me="p1", names={"p0": "Ann", "p1": "Bob", "p2": "Cy"},
                          rules={})  # fmt: skip
    rounds.fingerprint = "123456"
    out = []
    for n, shoes in ((1, (1,)), (2, (1, 2))):
        assert rounds.feed({"event": "bets_open", "round": n}, n) == []
        (rec,) = rounds.feed(
            {"event": "round_settled", "round": n}, n + 0.5, _settled(f"d{n}", shoes, 10)
        )
        assert rec.detail["audit"] == "pending" and rec.detail["fingerprint"] == "123456"
        assert (rec.result, rec.score_before, rec.score_after) == ("won", "1000", "1010")
        rounds.stored(rec, n)
        out.append(rec)
    # shoe 1 is audited: round 1 is done, round 2 waits for shoe 2 too
    first, second = rounds.feed({"event": "audit", "shoe": 1, "ok": True, "cheaters": []}, 3)
    assert (first.id, first.detail["audit"]) == (1, "passed")
    assert (second.id, second.detail["audit"]) == (2, "pending")
    # shoe 2's audit fails and names seat 2: round 2 failed, its cheater named
    (failed,) = rounds.feed({"event": "audit", "shoe": 2, "ok": False, "cheaters": [2]}, 4)
    assert (failed.id, failed.detail["audit"], failed.detail["named"]) == (2, "failed", ["Cy"])
    assert failed.detail["audits"][-1] == {"shoe": 2, "ok": False, "cheaters": ["Cy"]}
    # a fault a phone named after the round: on the latest round
    (named,) = rounds.feed({"event": "fault", "player": "p0", "code": "bad_intent"}, 5)
    assert named.id == 2 and named.detail["named"] == ["Ann", "Cy"]
    assert named.detail["violation"] == "bad_intent"
    assert rounds.last_id == 2


def test_the_app_s_casino_table_records_its_rounds(tmp_path, monkeypatch) -> None:
    """The casino screen's worker (``CasinoNet``) records each settled round: two
    phones (bots at their seats) over TCP loopback, the app's recorder configured."""
    import app.history.live as live
    from app.table.casino.bot import casino_bot
    from app.table.service import TableService, tcp_transport
    from app.views.casino.network import CasinoNet, Start
    from tests.test_casino_net import HEADLESS, ask, until

    rec = Recorder()
    rec.configure(tmp_path)
    monkeypatch.setattr(live, "RECORDER", rec)
    clock = FakeClock()
    service = TableService(tcp_transport, dealer=lambda: "open", clock=lambda: clock)
    rules = TableRules.preset("european")
    host = CasinoNet(
        hosting=True, service=service, name="Ann", lang="en", rules=rules, bot=casino_bot,
        round_pause=0.0, **HEADLESS,
    )  # fmt: skip
    guest = None
    try:
        assert host.wait_open()
        guest = CasinoNet(
            hosting=False, service=service, address=host.address, name="Bob", lang="pl",
            bot=casino_bot, **HEADLESS,
        )  # fmt: skip
        assert guest.wait_open()
        until(
            lambda: (s := host.snapshot()) is not None and len(s.players) == 2,
            "the guest in the host's lobby",
        )
        until(lambda: ask(host, Start()) == "", "the start")
        # (each phone's record of round 1: both phones share this process's store)
        until(lambda: rec.store.count("blackjack") >= 2, "round 1 in the history")
    finally:
        if guest is not None:
            guest.leave()
        host.leave()
    until(lambda: host.closed, "the host's table closing")
    rounds = [r for r in rec.store.rounds("blackjack") if r.number == 1]
    assert sorted(r.player for r in rounds) == ["Ann", "Bob"]
    assert {r.detail["digest"] for r in rounds} == {r.detail["digest"] for r in rounds[:1]}
    assert all(r.mode == "network" and r.detail["audit"] in ("passed", "pending") for r in rounds)
    assert live.RECORDER.latest_round_id(host) is not None
    rec.configure(None)


def test_the_history_screen_tells_a_casino_round_s_shoe_audit() -> None:
    from app.views.history import vm

    rounds = CasinoRounds(session="s", me="p1", names={"p1": "Bob", "p2": "Cy"}, rules={})
    rounds.fingerprint = "654321"
    rounds.feed({"event": "bets_open", "round": 1}, 1)
    (rec,) = rounds.feed({"event": "round_settled", "round": 1}, 2, _settled("d", (3,), -10))
    pending = vm.fairness_lines(rec.detail)
    assert "654321" in pending[0] and "section 10" in pending[-1]
    assert not any("Shuffled in turn by" in line for line in pending)  # (no deck order)
    assert any("had not finished" in line for line in pending)
    (rec,) = rounds.feed({"event": "audit", "shoe": 3, "ok": False, "cheaters": [2]}, 3)
    assert any("cheating by Cy" in line for line in vm.fairness_lines(rec.detail))


def test_a_shoe_a_shuffler_left_unaudited_is_stored_and_shown_unaudited() -> None:
    """Issue 30: a shoe whose leaver's seed never came is neither passed nor failed:
    its rounds are stored ``unaudited``, nobody named, and the screen says why."""
    from app.views.history import vm

    rounds = CasinoRounds(session="s", me="p1", names={"p1": "Bob", "p2": "Cy"}, rules={})
    rounds.fingerprint = "654321"
    rounds.feed({"event": "bets_open", "round": 1}, 1)
    (rec,) = rounds.feed({"event": "round_settled", "round": 1}, 2, _settled("d", (3,), 10))
    entry = {"event": "audit", "shoe": 3, "ok": False, "cheaters": [], "unaudited": True}
    (rec,) = rounds.feed(entry, 3)
    assert (rec.detail["audit"], rec.detail["named"]) == ("unaudited", [])
    lines = vm.fairness_lines(rec.detail)
    assert any("Shoe 3 could not be audited" in line for line in lines)
    assert not any("cheating by" in line for line in lines)


def test_a_stacked_deck_is_recorded_failed_naming_both_colluders(tmp_path) -> None:
    """At a real Oczko table (SRA dealer, TCP loopback) seat 2 tags two aces and seat 1,
    the deck's last shuffler, stacks them for him: the honest phones' history keeps the
    round with the audit failed and both colluders named, nobody honest named."""
    from test_table_cheater_out import CleanStacker, _stacked_round
    from test_table_sra import finished, run

    host, players, clock = _stacked_round(CleanStacker)
    other = players[2]
    honest = [host, other]
    recorders = []
    for i in range(2):
        rec = Recorder(clock=clock.now)
        rec.configure(tmp_path / f"phone{i}")
        recorders.append(rec)

    def record_and_finished() -> bool:
        for rec, side in zip(recorders, honest, strict=True):
            rec.table(side, side)
        return finished(host, [other]) or host.closed

    run(host, players, clock, until=record_and_finished)
    for rec, side in zip(recorders, honest, strict=True):
        rec.table(side, side)
        third = next(r for r in rec.store.rounds("oczko") if r.number == 3)
        assert third.detail["audit"] == "failed", third.detail["audits"]
        assert {"P1", "P2"} <= set(third.detail["named"])
        assert not {"Host", "P3"} & set(third.detail["named"])
        rec.configure(None)
