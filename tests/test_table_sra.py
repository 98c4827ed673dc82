"""Whole matches with the real dealer: the SRA mental-poker seat (app/table/oczko/sra_deck.py
over app.protocol), host and guests over TCP links (127.0.0.1) in one process, with the
small test group for speed (one run on the real ffdhe2048 group)."""

from __future__ import annotations

import random
import time

import pytest
import table_net
from table_net import open_table

from app.protocol.group import DEFAULT_GROUP, unsafe_test_group
from app.protocol.keys import DeterministicRng
from app.protocol.messages import Kind, Message
from app.table.clock import FakeClock
from app.table.messages import Applied, NewDeck, Options, ProtocolFrame
from app.table.oczko.book import Announce
from app.table.oczko.guest import GuestTable, HostTable, simple_bot
from app.table.oczko.sra_deck import SraDealer

HANG = table_net.HANG  # a guard against a hung test, not a speed target


def make_table(
    guests: int,
    seed: int,
    rounds: int,
    group=None,
    turn_time: int = 30,
    dealers=None,
    clock=None,
    bot=simple_bot,
):
    """``dealers``: seat -> dealer class for a modified (cheating) phone; ``bot``: every
    phone's player (on ``clock``)."""
    group = group or unsafe_test_group()
    clock = clock or FakeClock()

    def factory(seat: int, players: int) -> SraDealer:
        kind = (dealers or {}).get(seat, SraDealer)
        return kind(seat, players, group=group, rng=DeterministicRng(seed * 100 + seat))

    host, players = open_table(
        guests,
        factory=factory,
        options=Options(rounds=rounds, turn_time=turn_time),
        clock=clock,
        settle=lambda sides, until: run(sides[0], sides[1:], clock, until),
        bot=bot,
    )
    return host, players, clock


def run(host, players, clock, until, drop=None, watch=(), halt=False) -> None:
    """Step everyone until ``until()``; the fake clock moves on (1 s at a time, so
    heartbeats flow and watchdogs can fire) only while the table is quiet, so a slow
    machine never sees the table's time pass in the middle of a protocol step.
    ``watch``: phones not stepped whose frames in flight still hold the clock.
    ``halt``: stop right after the step that made ``until()`` true, so no phone has
    acted on it yet (else whether the next ones did depends on the link's speed)."""
    deadline = time.monotonic() + HANG
    ticks = 0
    while not until():
        assert time.monotonic() < deadline, "hung: the table stalled"
        for side in (host, *players):
            side.step(0.001)
            if halt and until():
                return
        ticks += 1
        if table_net.quiet((host, *players), watch):
            clock.advance(1.0)
        if drop is not None:
            drop(ticks)


def finished(host, players) -> bool:
    return all(p.phone is not None and p.phone.match.over for p in (host, *players))


def test_a_match_on_the_real_group_agrees_everywhere() -> None:
    host, players, clock = make_table(2, seed=1, rounds=2, group=DEFAULT_GROUP)
    run(host, players, clock, until=lambda: finished(host, players))
    fingerprints = {p.phone.dealer.fingerprint for p in (host, *players)}
    assert len(fingerprints) == 1 and fingerprints != {"pending"}  # same on every screen
    results = {(p.phone.match.winner, p.phone.match.points) for p in (host, *players)}
    assert len(results) == 1
    run(
        host,
        players,
        clock,
        until=lambda: all(
            any(e["event"] == "audit" for e in p.phone.log) for p in (host, *players)
        ),
    )
    for p in (host, *players):
        assert p.phone.violation is None
        audits = [e for e in p.phone.log if e["event"] == "audit"]
        assert all(e["ok"] and not e["cheaters"] for e in audits)  # the deck was honest


@pytest.mark.parametrize("seed", range(10))
def test_matches_with_a_random_dropout_agree(seed: int) -> None:
    rng = random.Random(seed)
    host, players, clock = make_table(rng.randint(2, 5), seed, rounds=rng.randint(1, 3))
    victim = rng.choice(players)
    at = rng.randint(0, 400)
    alive = list(players)

    def drop(ticks: int) -> None:
        if ticks == at and victim in alive:
            victim.link.close(linger=0)
            alive.remove(victim)

    run(host, alive, clock, until=lambda: finished(host, alive) or host.closed, drop=drop)
    assert not host.closed and all(n.code != "violation" for n in host.notices)
    # Only the victim left: a card a dropout cut off is dealt again, nobody stalls.
    assert {n.details["seat"] for n in host.notices if n.code == "player_left"} <= {victim.seat}
    agreed(host, alive)
    if victim not in alive and victim.seat in host.phone.match.gone:
        assert host.phone.match.winner != victim.seat


def test_nobody_sees_another_players_cards_before_the_showdown() -> None:
    host, players, clock = make_table(2, seed=7, rounds=1)
    # (every phone has the deal in its engine: the guests may be a step behind the host)
    run(
        host,
        players,
        clock,
        until=lambda: all(p.phone.match.to_act is not None for p in (host, *players)),
    )
    for me in (host, *players):
        r = me.phone.match.round
        for seat in r.order:
            cards = r.hand(seat).cards
            assert all(c is not None for c in cards) == (seat == me.phone.seat)


def test_a_guest_sending_a_forged_frame_is_named_and_dropped(monkeypatch) -> None:
    host, players, clock = make_table(2, seed=9, rounds=1)
    run(host, players, clock, until=lambda: host.stage == "play")
    cheat = players[0]
    # His radio is slow (as a loaded machine's writer thread can be): the frame reaches
    # the host late. It counts as in flight meanwhile, so the table's clock waits for it
    # and the host judges the frame, not the silence of a phone the test does not step.
    stream, write = cheat.link._stream, cheat.link._stream.write
    monkeypatch.setattr(stream, "write", lambda data: (time.sleep(0.2), write(data))[1])
    # A well-formed frame whose signature does not verify: the host refuses to relay it.
    bogus = Message(Kind.KEYS, round_id=host.book.deck, sender=cheat.seat, seq=99, sig=bytes(32))
    cheat.send(cheat.link, ProtocolFrame(bogus.encode(unsafe_test_group())))
    run(
        host,
        [players[1]],
        clock,
        until=lambda: "player_left" in [n.code for n in host.notices],
        watch=[cheat],
    )
    left = next(n.details for n in host.notices if n.code == "player_left")
    assert left["seat"] == cheat.seat and left["reason"] == "cheat"
    assert cheat.seat in host.phone.match.gone
    # No other phone saw that frame: a void for it would be the host's word alone, so
    # his going mid-play is a dropout like any other (issue 30). (A forged AUDIT after a
    # showdown he had won, harness seed 443325274, voids the round as ``stalled`` while
    # the audit waits for his seed: every phone can check that.)
    assert not [n for n in host.notices if n.code == "round_void"]


def test_a_guest_whose_phone_died_rejoins_a_later_round_with_fresh_keys() -> None:
    host, players, clock = make_table(2, seed=4, rounds=4)
    victim, stays = players[1], players[0]
    run(host, players, clock, until=lambda: host.phone.match.rounds_played >= 1)
    # His phone dies mid-round as his turn comes (no card of his on its way): his keys
    # are gone with it.
    run(host, players, clock, until=lambda: host.phone.match.to_act == 2)
    victim.link.close(linger=0)
    run(host, [stays], clock, until=lambda: 2 in host.phone.match.gone)
    kept = host.phone.match.points[2]
    back = come_back(host, clock, seat=2)
    guests = [stays, back]
    run(host, guests, clock, until=lambda: back.phone is not None)
    assert back.phone.match.points[2] == kept
    run(host, guests, clock, until=lambda: finished(host, guests))
    agreed(host, guests)
    assert 2 not in host.phone.match.gone and host.phone.match.points[2] >= kept
    back_in = [e["round"] for e in host.phone.log if e["event"] == "rejoined"]
    assert back_in  # he was dealt in from the start of that round, on every phone
    assert any(
        e["event"] == "round_started" and e["round"] == back_in[0] and 2 in e["order"]
        for e in back.phone.log
    )
    # Every phone set the dealer up anew and shows the same new code.
    fingerprints = {p.phone.dealer.fingerprint for p in (host, *guests)}
    assert len(fingerprints) == 1 and fingerprints != {"pending"}


@pytest.mark.parametrize("drawer", [0, 1])
def test_a_dropout_while_another_players_card_is_on_its_way(drawer: int) -> None:
    """The leaver's key for the card never comes: every phone voids that card, the drawer
    gets one from the fresh deck, and at the showdown he proves the cards he kept from
    the old deck (formerly he was dropped as "stalled", or the host closed the table)."""
    host, players, clock = make_table(3, seed=11 + drawer, rounds=3)
    # (halt: the host has just announced the draw; no other phone has acted on it)
    drawing = lambda: host.book.drawing == drawer or host.phone.match.over  # noqa: E731
    run(host, players, clock, until=drawing, halt=True)
    assert host.book.drawing == drawer, "the bot never drew: pick another seed"
    number = host.phone.match.round.number
    victim = players[-1]  # seat 3, not the drawer
    victim.link.close(linger=0)  # before his phone could send his key for the card
    alive = players[:-1]
    # The host hears of it before the table's clock moves on (else, on a loaded machine,
    # its watchdog could drop him as "stalled" first).
    table_net.pump(host, *alive, until=lambda: 3 in host.phone.match.gone)
    run(host, alive, clock, until=lambda: finished(host, alive) or host.closed)
    assert not host.closed
    assert all(n.code != "violation" for p in (host, *alive) for n in p.notices)
    left = [n.details["seat"] for n in host.notices if n.code == "player_left"]
    assert left == [3]  # nobody else was dropped (no "stalled")
    phones = agreed(host, alive)
    assert set(host.phone.match.gone) == {3}
    for phone in phones:
        events = [e for e in phone.log if e.get("round") == number]
        assert any(e["event"] == "deck_replaced" for e in events)
        # The drawer's card came from the fresh deck, and his hand ended the round in
        # the open: proven at the showdown (or bust, which he says himself).
        assert {"event": "card_voided", "round": number, "seat": drawer} in events
        drawn = [e for e in events if e["event"] == "card_drawn" and e["seat"] == drawer]
        assert drawn
        # (his proof of the cards he kept checked out everywhere: ``agreed`` found no
        # violation; the round then ended void, the old deck lacking the leaver's seed)
        assert {"event": "round_void", "round": number, "unaudited": [3]} in phone.log
        assert phone.match.history[number - 1].reason == "void"


@pytest.mark.parametrize("drawer", [0, 1])
def test_a_card_the_leaver_had_given_his_key_for_stands(drawer: int) -> None:
    """The colluding friend: he gives his key for the drawer's card, then leaves before
    the drawer reports it. The card could be seen, so it is not dealt again: a drawer
    must not get a better card by a friend's leaving."""
    host, players, clock = make_table(3, seed=11 + drawer, rounds=3)
    drawing = lambda: host.book.drawing == drawer or host.phone.match.over  # noqa: E731
    run(host, players, clock, until=drawing, halt=True)
    assert host.book.drawing == drawer, "the bot never drew: pick another seed"
    number = host.phone.match.round.number
    deck, _, position = host.phone._pending_draw
    victim, alive = players[-1], players[:-1]
    slow = (host, *players)[drawer]
    deadline = time.monotonic() + HANG
    while not host.phone.dealer.shared(deck.deck, position, victim.seat):
        assert time.monotonic() < deadline
        for side in (host, *players):
            if side is slow:  # a slow phone: messages in, but no dealer work yet
                slow_step(side)
            else:
                side.step(0.001)
    assert host.book.drawing == drawer  # the drawer has not reported the card yet
    victim.link.close(linger=0)
    # The host hears of it while the card is still on its way (the drawer still slow):
    # else, under load, the drawer's card came in first, his bot drew again at once, and
    # that next card, which lacked the leaver's key, was voided.
    while 3 not in host.phone.match.gone:
        assert time.monotonic() < deadline
        for side in (host, *alive):
            slow_step(side) if side is slow else side.step(0.001)
    run(host, alive, clock, until=lambda: finished(host, alive) or host.closed)
    assert not host.closed
    phones = agreed(host, alive)
    assert [n.details["seat"] for n in host.notices if n.code == "player_left"] == [3]
    for phone in phones:
        events = [e for e in phone.log if e.get("round") == number]
        assert not any(e["event"] == "card_voided" for e in events)
        assert any(e["event"] == "card_drawn" and e["seat"] == drawer for e in events)


def slow_step(side: GuestTable | HostTable) -> None:
    """A slow phone: its messages in and its timers, but no dealer work yet."""
    if isinstance(side, HostTable):
        side.step_links(0.001)
    else:
        type(side).__mro__[1].step(side, 0.001)


def test_a_guest_names_a_host_that_applies_a_card_that_can_never_open() -> None:
    host, players, clock = make_table(3, seed=12, rounds=3)
    drawing = lambda: host.book.drawing == 1 or host.phone.match.over  # noqa: E731
    run(host, players, clock, until=drawing, halt=True)  # (nobody sent his key yet)
    assert host.book.drawing == 1, "the bot never drew: pick another seed"
    number = host.phone.match.round.number
    perform = host._perform

    def keep_the_card(effect) -> None:  # a host that keeps the cut-off card...
        if not (isinstance(effect, Announce) and isinstance(effect.event, NewDeck)):
            perform(effect)

    host._perform = keep_the_card
    players[-1].link.close(linger=0)
    witness = players[1]
    table_net.pump(host, witness, until=lambda: 3 in host.phone.match.gone)  # (clock held)
    host.broadcast(Applied(number, 1, "drawn"))  # ...and says it was drawn
    run(host, [witness], clock, until=lambda: witness.closed)
    violation = next(n for n in witness.notices if n.code == "violation")
    assert violation.details["seat"] is None and violation.details["code"] == "wrong_phase"


def come_back(host, clock, seat: int) -> GuestTable:
    """The player of ``seat`` joins again from a fresh phone (new keys, same player id)."""
    group = unsafe_test_group()
    fresh = iter(range(1000, 2000))
    return table_net.guest(
        host,
        seat,
        clock,
        lambda s, n: SraDealer(s, n, group=group, rng=DeterministicRng(next(fresh))),
    )


def agreed(host, guests) -> list:
    """Every phone still at the table: no violation, the same result. Their matches."""
    phones = [host.phone, *(p.phone for p in guests)]
    assert all(p.violation is None for p in phones)
    assert len({(p.match.winner, p.match.points, p.match.gone) for p in phones}) == 1
    return phones


def departures(host) -> list[tuple[int, str]]:
    notices = [n.details for n in host.notices if n.code == "player_left"]
    return [(d["seat"], d["reason"]) for d in notices]


def stop(side) -> None:
    """The phone goes quiet: still connected, it sends and computes nothing."""
    side.step = lambda wait=0.0: None


def test_a_guest_silent_in_the_set_up_is_dropped_and_the_rest_set_up_without_him() -> None:
    host, players, clock = make_table(3, seed=5, rounds=1, turn_time=5)
    host.silence_limit = 600  # the turn timer's watchdog, not the heartbeat, catches him
    # (make_table began the match: his keys may or may not have gone out already)
    quiet, alive = players[1], [players[0], players[2]]
    stop(quiet)
    run(host, alive, clock, until=lambda: finished(host, alive) or host.closed)
    left = departures(host)
    assert left == [(quiet.seat, "stalled")]
    fingerprints = {p.phone.dealer.fingerprint for p in (host, *alive)}
    assert len(fingerprints) == 1 and fingerprints != {"pending"}
    agreed(host, alive)


def test_a_guest_silent_in_the_shuffle_is_the_only_one_dropped() -> None:
    host, players, clock = make_table(3, seed=6, rounds=1, turn_time=5)
    host.silence_limit = 600
    run(host, players, clock, until=lambda: host.book.deck == 1)
    quiet, alive = players[1], [players[0], players[2]]
    stop(quiet)  # his shuffle pass never comes: the others cannot open their cards
    run(host, alive, clock, until=lambda: finished(host, alive) or host.closed)
    left = departures(host)
    assert left == [(quiet.seat, "stalled")]
    agreed(host, alive)


def test_a_guest_withholding_his_key_for_a_drawn_card_is_dropped_not_the_drawer() -> None:
    # (seed 0: a player draws after the key-withholder went quiet. With seed 11 nobody
    # did once the phones drew their signing nonces ahead (issue 17): other cards.)
    host, players, clock = make_table(3, seed=0, rounds=3, turn_time=5)
    host.silence_limit = 600
    run(host, players, clock, until=lambda: host.book.drawing == 0 or host.phone.match.over)
    assert host.book.drawing == 0, "the bot never drew: pick another seed"
    quiet, alive = players[2], players[:2]
    deck, _, position = host.phone._pending_draw
    shared = lambda: host.phone.dealer.shared(deck.deck, position, quiet.seat)  # noqa: E731
    run(host, players, clock, until=shared, halt=True)
    # He has sent his key for this card; from now on he keeps the link but sends no
    # key for anybody's next card.
    stop(quiet)
    run(host, alive, clock, until=lambda: finished(host, alive) or host.closed)
    assert not host.closed
    left = departures(host)
    assert left == [(quiet.seat, "stalled")]
    voided = [e for e in host.phone.log if e["event"] == "card_voided"]
    assert voided and all(e["seat"] != quiet.seat for e in voided)  # the drawer stays in
    agreed(host, alive)


def test_a_player_rejoins_while_another_is_gone_for_good() -> None:
    host, players, clock = make_table(3, seed=8, rounds=4)
    run(host, players, clock, until=lambda: host.phone.match.rounds_played >= 1)
    players[2].link.close(linger=0)  # seat 3: gone for good
    run(host, players[:2], clock, until=lambda: 3 in host.phone.match.gone)
    run(host, players[:2], clock, until=lambda: host.phone.match.to_act == 2)
    players[1].link.close(linger=0)  # seat 2: his phone dies; he comes back below
    run(host, players[:1], clock, until=lambda: 2 in host.phone.match.gone)
    back = come_back(host, clock, seat=2)
    guests = [players[0], back]
    run(host, guests, clock, until=lambda: finished(host, guests) or host.closed)
    assert not host.closed
    agreed(host, guests)
    assert host.phone.match.gone == (3,) or set(host.phone.match.gone) == {3}
    fingerprints = {p.phone.dealer.fingerprint for p in (host, *guests)}
    assert len(fingerprints) == 1 and fingerprints != {"pending"}


def test_every_phone_shows_the_shuffle_progress_in_steps() -> None:
    host, players, clock = make_table(2, seed=13, rounds=1, group=DEFAULT_GROUP)
    seen: list[float | None] = []

    def watch(_ticks: int) -> None:
        seen.append(players[0].phone.shuffle_progress if players[0].phone else None)

    run(host, players, clock, until=lambda: host.phone.match.to_act is not None, drop=watch)
    values = [p for p in seen if p is not None]
    assert values == sorted(values) and all(0 <= p < 1 for p in values)
    assert len({round(p, 1) for p in values}) >= 3  # it moves, not just 0 then gone
    assert players[0].phone.shuffle_progress is None  # my cards are open: no bar


def test_a_hand_released_at_the_showdown_opens_on_every_phone_even_a_slow_one() -> None:
    """A player who held dies at the showdown: the holders of his escrow release it and
    every phone opens it - also one that holds no record of his (it used to keep the
    release back for good: no fresh deck suspended the round), and also a slow phone
    still opening it when the host already began the next round (it used to wait for
    the next deck forever, never finishing its showdown). His seed is gone with him, so
    the round then ends void, not scored (issue 30): opening his hand was its last step."""
    from app.rules.oczko import Phase

    host, players, clock = make_table(3, seed=22, rounds=2)
    leaver, slow = players[0], players[2]  # seats 1 and 3
    run(host, players, clock, until=lambda: leaver.phone is not None)
    dealer = leaver.phone.dealer.current
    escrowed = []

    def held_once(deck, finished):  # his phone escrows once (to the host), then dies
        frames = [] if escrowed else dealer.__class__.held(dealer, deck, finished)
        escrowed.extend(frames)
        return frames

    dealer.held = held_once
    dealer.claim = lambda deck, kind: []  # his proof never goes out
    run(host, players, clock, until=lambda: host.phone.match.round.phase is Phase.SHOWDOWN)
    assert escrowed
    deadline = time.monotonic() + HANG
    while 2 not in host.book.went:
        assert time.monotonic() < deadline, "the host never began round 2"
        for side in (host, *players):
            if side is slow:  # messages in, no dealer work: still opening his hand
                slow_step(side)
            else:
                side.step(0.001)
        if ((1, "stalled") in departures(host)) and leaver in players:
            players.remove(leaver)
        clock.advance(0.05)
    assert slow.phone.match.round.number == 1  # the slow phone is still at the showdown
    run(host, players, clock, until=lambda: finished(host, players) or host.closed)
    assert departures(host) == [(1, "stalled")]
    assert not host.closed
    phones = agreed(host, players)
    for phone in phones:
        assert any(phone.dealer.claimed(deck, 1) for deck in phone.decks_of(1))  # opened
        assert {"event": "round_void", "round": 1, "unaudited": [1]} in phone.log
