"""Whole matches over real TCP links (127.0.0.1), host and guests in one process, with
the open test dealer and bots: every phone ends with the same result."""

from __future__ import annotations

import random
import time

import pytest
import table_net
from table_net import open_table

from app.table.clock import FakeClock
from app.table.dealer import OpenDealer
from app.table.messages import Options
from app.table.oczko.book import Stage
from app.table.oczko.guest import simple_bot

HANG = table_net.HANG  # a guard against a hung test, not a speed target


def pump(*sides, until, timeout: float = HANG) -> None:
    table_net.pump(*sides, until=until, timeout=timeout)


def make_table(guests: int, *, seed: int = 0, rounds: int = 3, clock=None, bots=True):
    clock = clock or FakeClock()
    rng = random.Random(seed)  # (only the host's open dealer shuffles)
    host, players = open_table(
        guests,
        factory=lambda seat, n: OpenDealer(seat, rng=rng),
        options=Options(rounds=rounds, turn_time=30),
        clock=clock,
        settle=lambda sides, until: pump(*sides, until=until),
        bot=simple_bot if bots else None,
    )
    return host, players, clock


def finished(host, guests) -> bool:
    phones = [host.phone] + [g.phone for g in guests if not g.closed]
    return all(p is not None and p.match.over for p in phones)


@pytest.mark.parametrize("guests", [1, 2, 4, 6])
def test_bots_play_a_full_match_and_agree(guests: int) -> None:
    host, players, _ = make_table(guests, seed=guests)
    pump(host, *players, until=lambda: finished(host, players))
    results = {(p.phone.match.winner, p.phone.match.points) for p in [host, *players]}
    assert len(results) == 1, results
    assert host.phone.violation is None and all(p.phone.violation is None for p in players)
    assert "match_over" in [n.code for n in host.notices]
    assert host.phone.match.rounds_played >= 1
    # Each finished round's audit verdict is shown (the open dealer's is always clean).
    audits = [e for e in host.phone.log if e["event"] == "audit"]
    assert audits and all(e["ok"] for e in audits)
    host.close()


def mine(side, seat: int) -> bool:
    """``side``'s own phone knows it is ``seat``'s turn."""
    return side.phone is not None and side.phone.match.to_act == seat


def codes(side) -> list[str]:
    return [n.code for n in side.notices]


def advance(clock, seconds: float, *sides) -> None:
    """Let ``seconds`` of fake time pass in 1 s ticks, heartbeats flowing in between
    (each tick's pings and pongs are all in before the next tick)."""
    while seconds > 0:
        tick = min(1.0, seconds)
        clock.advance(tick)
        seconds -= tick
        for side in sides:
            side.step(0.0)  # (the timers due now, e.g. the pings)
        pump(*sides, until=lambda: table_net.quiet(sides))


def test_the_turn_timer_holds_for_a_player_who_does_not_decide() -> None:
    host, players, clock = make_table(2, seed=11, rounds=1, bots=False)
    pump(host, *players, until=lambda: "turn" in codes(host))
    first = host.notices[-1].details
    assert first["ms"] == 30_000
    pump(host, *players, until=lambda: all("turn" in codes(p) for p in players))
    assert all(p.turn is not None and p.turn.ms == 30_000 for p in players)  # every phone shows it
    timeouts = 0
    while not finished(host, players):
        before = sum(1 for e in host.phone.log if e.get("reason") == "timeout")
        advance(clock, 29, host, *players)
        assert sum(1 for e in host.phone.log if e.get("reason") == "timeout") == before
        advance(clock, 1, host, *players)  # the 30th second: the clock runs out
        pump(
            host,
            *players,
            until=lambda b=before: (
                finished(host, players)
                or sum(1 for e in host.phone.log if e.get("reason") == "timeout") > b
            ),
        )
        timeouts += 1
        assert timeouts < 20
    held = [e for e in host.phone.log if e["event"] == "held"]
    assert held and all(e["reason"] in ("timeout", "21") for e in held)
    assert len({(p.phone.match.winner, p.phone.match.points) for p in [host, *players]}) == 1


def test_a_seat_that_drops_mid_round_is_bust_and_the_rest_finish_alike() -> None:
    host, players, _ = make_table(3, seed=5, rounds=3)
    pump(host, *players, until=lambda: host.phone.match.round.number == 1 and host.stage == "play")
    pump(host, *players, until=lambda: any(e["event"] == "turn_started" for e in host.phone.log))
    victim = players[1]
    victim.link.close(linger=0)  # the phone dies
    rest = [p for p in players if p is not victim]
    pump(host, *rest, until=lambda: finished(host, rest))
    assert "player_left" in codes(host)
    for phone in [host.phone, *(p.phone for p in rest)]:
        assert 2 in phone.match.gone
    results = {(p.phone.match.winner, p.phone.match.points) for p in [host, *rest]}
    assert len(results) == 1
    assert host.phone.match.winner != 2  # a player who left cannot win


def test_a_guest_silent_after_drawing_is_dropped() -> None:
    host, players, clock = make_table(2, seed=3, rounds=1, bots=False)
    pump(host, *players, until=lambda: host.phone.match.to_act == 0 and host.book.turn_key)
    host.act("hold")  # round 1 starts with the host; then seat 1
    # (the drawer's own phone must know it is his turn: it checks its decision first)
    pump(host, *players, until=lambda: host.book.turn_key and mine(players[0], 1))
    drawer, other = players
    drawer.act("draw")
    pump(host, until=lambda: host.book.drawing == 1)
    # The drawer never reports his card (his phone froze, its link stays up, it answers
    # nothing): after turn_time he is out, and the round goes on without him.
    drawer.step = lambda wait=0.0: None
    advance(clock, 30, host, other)
    pump(host, other, until=lambda: "player_left" in codes(host))
    left = [n.details for n in host.notices if n.code == "player_left"]
    assert left[0]["seat"] == 1 and left[0]["reason"] in ("silent_draw", "silent")
    pump(host, other, until=lambda: 1 in other.phone.match.gone)


def test_the_host_leaving_mid_match_ends_the_table_on_every_phone() -> None:
    host, players, _ = make_table(2, seed=8, rounds=5, bots=False)
    pump(host, *players, until=lambda: all(p.turn is not None for p in players))
    host.close()
    pump(*players, until=lambda: all(p.closed for p in players))
    for p in players:
        assert p.notices[-1].code == "table_closed"
        assert p.notices[-1].details == {"reason": "host_left"}


def test_out_of_turn_and_stale_clicks_are_ignored() -> None:
    host, players, _ = make_table(2, seed=9, rounds=1, bots=False)
    pump(host, *players, until=lambda: host.phone.match.to_act is not None and host.book.turn_key)
    seat = host.phone.match.to_act
    idle = next(p for p in players if p.seat != seat)
    log_before = len(host.phone.log)
    from app.rules.errors import IllegalAction
    from app.table.messages import Act

    with pytest.raises(IllegalAction):
        idle.act("draw")  # not his turn: his own phone refuses it, nothing is sent
    r = host.phone.match.round.number
    idle.send(idle.link, Act(round=r, action="draw"))  # a modified phone sends it anyway
    idle.send(idle.link, Act(round=99, action="hold"))  # a round that is not played
    for _ in range(20):
        for side in (host, *players):
            side.step(0.002)
    assert len(host.phone.log) == log_before
    assert not idle.closed and host.phone.violation is None


def test_a_guest_names_a_host_that_announces_an_illegal_step() -> None:
    from app.table.messages import Applied

    host, players, _ = make_table(2, seed=10, rounds=1, bots=False)
    pump(host, *players, until=lambda: host.phone.match.to_act is not None and host.book.turn_key)
    r = host.phone.match.round
    wrong = next(s for s in r.order if s != r.to_act)
    host.broadcast(Applied(r.number, wrong, "hold"))  # bypassing the host's own rules
    pump(host, *players, until=lambda: all(p.closed for p in players))
    for p in players:
        violation = next(n for n in p.notices if n.code == "violation")
        assert violation.details["seat"] is None  # the host, who announced it
        assert violation.details["code"] == "not_your_turn"


@pytest.mark.parametrize("seed", range(8))
def test_soak_matches_with_a_random_dropout(seed: int) -> None:
    rng = random.Random(seed)
    guests = rng.randint(2, 6)
    host, players, _ = make_table(guests, seed=seed, rounds=rng.randint(1, 4))
    victim = rng.choice(players)
    steps_before_drop = rng.randint(0, 200)
    alive = list(players)
    deadline = time.monotonic() + HANG
    steps = 0
    while not finished(host, alive):
        assert time.monotonic() < deadline, "hung: a table stalled"
        for side in (host, *alive):
            side.step(0.001)
        steps += 1
        if steps == steps_before_drop and victim in alive:
            victim.link.close(linger=0)
            alive.remove(victim)
    phones = [host.phone, *(p.phone for p in alive)]
    assert all(p.violation is None for p in phones)
    assert len({(p.match.winner, p.match.points, p.match.gone) for p in phones}) == 1
    if victim not in alive and victim.seat in host.phone.match.gone:
        assert host.phone.match.winner != victim.seat


def test_a_lost_report_does_not_stall_the_table() -> None:
    from app.table.messages import Dealt

    host, players, clock = make_table(2, seed=4, rounds=1, bots=False)
    mute = players[1]
    real_send = mute.send
    mute.send = lambda link, message: (
        True if isinstance(message, Dealt) else real_send(link, message)
    )  # his "I have looked at my cards" never arrives
    # The host's watchdog is armed on him alone (and only him).
    pump(host, *players, until=lambda: host.book.stall_key == ("play", 1, frozenset({mute.seat})))
    advance(clock, 30, host, *players)
    pump(host, players[0], until=lambda: "player_left" in codes(host))
    left = next(n.details for n in host.notices if n.code == "player_left")
    assert left["seat"] == mute.seat and left["reason"] == "stalled"
    pump(host, players[0], until=lambda: host.phone.match.to_act is not None)


def test_a_dropout_during_the_deal_voids_it_and_the_rest_are_dealt_again() -> None:
    from app.table.messages import Dealt

    host, players, _ = make_table(3, seed=12, rounds=1)
    victim = players[2]
    real_send = victim.send
    victim.send = lambda link, message: (
        True if isinstance(message, Dealt) else real_send(link, message)
    )  # he never confirms his cards...
    # (the deal of round 1 is under way: during the set-up the same blockers, {victim}
    # when his SetUp came last, let him vanish before any deal, which failed under load)
    dealing = lambda: host.book.stage is Stage.PLAY and 1 in host.book.went  # noqa: E731
    pump(host, *players, until=lambda: dealing() and host.blockers() == {victim.seat})
    victim.link.close(linger=0)  # ...and vanishes before the deal went into any engine
    rest = [p for p in players if p is not victim]
    pump(host, *rest, until=lambda: finished(host, rest))
    for phone in [host.phone, *(p.phone for p in rest)]:
        first_round = [e["event"] for e in phone.log if e.get("round") == 1]
        # The void deal never reached an engine: a fresh deck first, then the cards.
        assert first_round.index("deck_replaced") < first_round.index("card_dealt")
        assert victim.seat in phone.match.gone
    results = {(p.phone.match.winner, p.phone.match.points) for p in [host, *rest]}
    assert len(results) == 1


def test_a_card_on_its_way_the_leaver_could_not_stop_stands() -> None:
    """The open test dealer showed the card when it was dealt (``shared`` is true): a
    dropout does not void it; the fresh deck comes once it is in. (A card the leaver
    still had to open is voided and dealt again: tests/test_table_sra.py.)"""
    host, players, _ = make_table(3, seed=13, rounds=1, bots=False)
    pump(host, *players, until=lambda: host.phone.match.to_act == 0 and host.book.turn_key)
    host.act("hold")
    # (the drawer's own phone must know it is his turn: it checks its decision first)
    pump(host, *players, until=lambda: host.book.turn_key and mine(players[0], 1))
    drawer, victim = players[0], players[1]
    frozen = drawer.step
    drawer.step = lambda wait=0.0: None  # his card is on its way, not yet open
    drawer.act("draw")
    pump(host, victim, until=lambda: host.book.drawing == 1)
    victim.link.close(linger=0)  # another player vanishes meanwhile
    pump(host, until=lambda: 2 in host.phone.match.gone)
    drawer.step = frozen

    def drawn(phone) -> list:
        return [e for e in phone.log if e["event"] == "card_drawn" and e["seat"] == 1]

    pump(host, drawer, until=lambda: drawn(host.phone) and drawn(drawer.phone))
    pump(host, drawer, until=lambda: host.book.deck == 2)
    # One card, the one on its way, reached both engines; then the fresh deck.
    assert len(drawn(host.phone)) == len(drawn(drawer.phone)) == 1
    events = [e["event"] for e in host.phone.log]
    assert "card_voided" not in events
    assert events.index("card_drawn", events.index("disconnected")) < events.index("deck_replaced")
    assert drawn(host.phone)[0]["card"] is None  # hidden from the host
    assert drawn(drawer.phone)[0]["card"] is not None  # open on the drawer's phone


def test_a_guest_names_a_host_that_voids_a_card_that_can_still_open() -> None:
    from app.table.messages import NewDeck

    host, players, _ = make_table(3, seed=13, rounds=1, bots=False)
    pump(host, *players, until=lambda: host.phone.match.to_act == 0 and host.book.turn_key)
    host.act("hold")
    # (the drawer's own phone must know it is his turn: it checks its decision first)
    pump(host, *players, until=lambda: host.book.turn_key and mine(players[0], 1))
    drawer, others = players[0], players[1:]
    drawer.step = lambda wait=0.0: None  # his card is on its way
    drawer.act("draw")
    pump(host, *others, until=lambda: host.book.drawing == 1)
    # A host that would give the drawer another card without any dropout.
    host.broadcast(NewDeck(host.phone.match.round.number, host.book.deck + 1))
    pump(host, *others, until=lambda: all(p.closed for p in others))
    for p in others:
        violation = next(n for n in p.notices if n.code == "violation")
        assert violation.details["seat"] is None  # the host, who announced it
        assert violation.details["code"] == "wrong_phase"


def test_a_failed_audit_names_the_cheater_who_is_removed_and_play_goes_on() -> None:
    from app.table.dealer import DeckVerdict

    class CaughtDealer(OpenDealer):
        """Its audit finds seat 1 cheated in the first deck."""

        def verdict(self, deck: int) -> DeckVerdict | None:
            return DeckVerdict(False, (1,)) if deck == 1 else DeckVerdict(True)

    rng = random.Random(2)
    host, guests = open_table(
        2,
        factory=lambda seat, n: CaughtDealer(seat, rng=rng),
        options=Options(rounds=2),
        clock=FakeClock(),
        settle=lambda sides, until: pump(*sides, until=until),
    )
    honest = guests[1]
    pump(host, *guests, until=lambda: finished(host, [honest]))
    assert not host.closed and not honest.closed
    assert [n.details["seat"] for n in host.notices if n.code == "player_left"] == [1]
    assert {"seat": 1, "code": "audit_failed"} in [
        n.details for n in (*host.notices, *honest.notices) if n.code == "cheat_named"
    ]
    m = host.phone.match
    assert m.history[0].reason == "void" and m.points[1] == 0  # his round did not count
    assert (m.points, m.winner) == (honest.phone.match.points, honest.phone.match.winner)
    assert any(e["event"] == "audit" and not e["ok"] for e in host.phone.log)


def test_a_guest_dropped_mid_round_rejoins_a_later_round_keeping_his_points() -> None:
    host, players, _ = make_table(2, seed=5, rounds=5)  # (not decided before he is back)
    victim = players[1]
    # He plays the first round, then his phone dies in the middle of the second.
    pump(host, *players, until=lambda: host.phone.match.rounds_played >= 1)
    pump(host, *players, until=lambda: host.phone.match.round.phase.name == "PLAY")
    victim.link.close(linger=0)
    pump(host, players[0], until=lambda: 2 in host.phone.match.gone)
    kept = host.phone.match.points[2]
    assert host.phone.match.rounds_played >= 1
    # A new phone (a new process: nothing kept) with the same player id comes back.
    back = table_net.guest(host, 2, victim.clock, lambda seat, n: OpenDealer(seat))
    guests = [players[0], back]
    pump(host, *guests, until=lambda: back.phone is not None)
    assert back.seat == 2 and "match_resumed" in codes(back)
    assert back.phone.match.points[2] == kept  # his points kept
    resumed_at = back.phone.match.round.number
    pump(host, *guests, until=lambda: finished(host, guests))
    results = {(p.phone.match.winner, p.phone.match.points) for p in [host, *guests]}
    assert len(results) == 1, results
    assert host.phone.match.points[2] >= kept
    # He was dealt in (never mid-round): he played the round he came back to.
    played = [e for e in host.phone.log if e.get("event") == "rejoined"]
    assert played and played[0]["seat"] == 2 and played[0]["round"] == resumed_at
    assert 2 not in host.phone.match.gone
    assert all(p.phone.violation is None for p in [host, *guests])
    host.close()
