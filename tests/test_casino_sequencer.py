"""The casino host's decisions without sockets: app.table.casino.sequencer.step."""

from __future__ import annotations

from dataclasses import replace

from app.table.casino.book import (
    Announce,
    Back,
    CancelTimer,
    CasinoBook,
    CasinoFacts,
    Drive,
    Drop,
    End,
    Expired,
    Gone,
    Readmit,
    Say,
    SetTimer,
    Stage,
    Started,
)
from app.table.casino.messages import CBack, CDeal, CLeft, COpenBets, CShoe, CTimeout
from app.table.casino.sequencer import step

BOTH = frozenset({"p0", "p1"})
IDLE = CasinoFacts(
    round=0,
    betting=False,
    settled=True,
    bets=False,
    all_done=False,
    busy=False,
    deciders=(),
    decision=0,
    connected=BOTH,
    present=BOTH,
    want_shoe=False,
    has_shoe=True,
    order=(0, 1),
    decks=1,
    bet_time=20,
    turn_time=15,
)
PLAY = CasinoBook(stage=Stage.PLAY)


def announced(effects: list[object]) -> list[object]:
    return [e.message for e in effects if isinstance(e, Announce)]


def test_the_first_shoe_comes_at_the_start_and_one_waits_behind_it() -> None:
    book, effects = step(CasinoBook(), Started(), replace(IDLE, want_shoe=True, has_shoe=False))
    assert book.stage is Stage.PLAY and book.next_shoe == 2
    assert announced(effects) == [CShoe(1, (0, 1), 1)]
    book, effects = step(book, Drive(), replace(IDLE, want_shoe=True, has_shoe=False))
    assert announced(effects) == [CShoe(2, (0, 1), 1)]
    # nothing more until the shoe the next round deals from is shuffled
    assert step(book, Drive(), replace(IDLE, has_shoe=False)) == (book, [])


def test_bets_open_with_their_timer_and_close_when_everybody_is_done() -> None:
    book, effects = step(PLAY, Drive(), IDLE)
    assert book.round == 1
    assert announced(effects) == [COpenBets(1)] and SetTimer("bet", 20) in effects
    betting = replace(IDLE, round=1, betting=True, settled=False)
    assert step(book, Drive(), replace(betting, bets=True)) == (book, [])  # still betting
    _, effects = step(book, Drive(), replace(betting, bets=True, all_done=True))
    assert effects == [CancelTimer("bet"), Announce(CDeal(1))]


def test_the_bet_timer_deals_or_waits_again_when_nobody_bet() -> None:
    book = replace(PLAY, round=1)
    betting = replace(IDLE, round=1, betting=True, settled=False)
    _, effects = step(book, Expired("bet"), replace(betting, bets=True))
    assert announced(effects) == [CDeal(1)]
    _, effects = step(book, Expired("bet"), betting)
    assert effects == [Say("no_bets"), SetTimer("bet", 20)]


def test_a_decision_has_a_time_limit_and_times_out_to_the_default() -> None:
    book = replace(PLAY, round=1)
    playing = replace(IDLE, round=1, settled=False, deciders=("p1",), decision=7, phase="play")
    book, effects = step(book, Drive(), playing)
    assert effects == [SetTimer("turn", 15)] and book.deciding == (1, 7)
    assert step(book, Drive(), playing) == (book, [])  # the same decision: no new timer
    _, effects = step(book, Expired("turn"), playing)
    assert announced(effects) == [CTimeout(1, "p1")]
    # a late timer of an earlier decision does nothing
    assert step(book, Expired("turn"), replace(playing, decision=8))[1] == []
    # several players decide at once (insurance): the others time out one after another
    ins = replace(playing, deciders=("p0", "p1"), phase="insurance")
    book2, effects = step(replace(book, deciding=(1, 7)), Expired("turn"), ins)
    assert announced(effects) == [CTimeout(1, "p0")]
    _, effects = step(book2, Drive(), replace(ins, deciders=("p1",), decision=8))
    assert announced(effects) == [CTimeout(1, "p1")]
    # ... but not on their next decision (another phase)
    _, effects = step(book2, Drive(), replace(ins, deciders=("p1",), decision=9, phase="play"))
    assert effects == [SetTimer("turn", 15)]


def test_a_player_whose_phone_is_gone_decides_nothing() -> None:
    book = replace(PLAY, round=3)
    facts = replace(
        IDLE, round=3, settled=False, deciders=("p1",), connected=frozenset({"p0"}), phase="play"
    )
    assert announced(step(book, Drive(), facts)[1]) == [CTimeout(3, "p1")]


def test_a_departure_is_announced_with_the_shoes_that_die() -> None:
    facts = replace(IDLE, dead={"p1": ((4, 17),)})
    _, effects = step(PLAY, Gone("p1", "lost"), facts)
    assert announced(effects) == [CLeft("p1", "lost", ((4, 17),))]
    # twice gone, or gone while not present: nothing
    gone = replace(facts, present=frozenset({"p0"}))
    assert step(PLAY, Gone("p1", "lost"), gone) == (PLAY, [])
    assert step(PLAY, Back("p1", "ab"), facts) == (PLAY, [])  # (he never left)


def test_a_returning_player_is_readmitted_between_rounds() -> None:
    alone = frozenset({"p0"})
    playing = replace(
        IDLE, round=4, settled=False, present=alone, deciders=("p0",), decision=3, phase="play"
    )
    book = replace(PLAY, round=4, next_shoe=6)
    book, effects = step(book, Back("p1", "ab"), playing)
    assert book.returning == (("p1", "ab"),) and effects == []
    # the round goes on without him; once it is settled he is readmitted
    settled = replace(IDLE, round=4, present=alone)
    book, effects = step(book, Drive(), settled)
    assert effects == [Readmit("p1", 6), Announce(CBack("p1", "ab", 6))]
    assert book.returning == ()
    # gone again before the round ended: not readmitted
    book, _ = step(replace(PLAY, round=4), Back("p1", "ab"), playing)
    book, _ = step(book, Gone("p1", "lost"), playing)
    assert book.returning == ()


def test_a_returner_waits_for_the_signed_digests_his_phone_checks_his_chips_by() -> None:
    """His phone takes the chips only as every other player present signed them: the
    host waits for digests on their way; a player who cannot sign the round (back
    since) puts the readmission off to a later break, and the table plays on."""
    book = replace(PLAY, round=4, paused=4, next_shoe=6, returning=(("p1", "ab"),))
    settled = replace(IDLE, round=4, present=frozenset({"p0"}))
    waiting = replace(settled, vouched=False, vouching=True)
    assert step(book, Drive(), waiting) == (book, [])
    later = replace(settled, vouched=False, vouching=False)
    after, effects = step(book, Drive(), later)
    assert announced(effects) == [COpenBets(5)] and after.returning == book.returning
    _, effects = step(book, Drive(), settled)
    assert effects == [Readmit("p1", 6), Announce(CBack("p1", "ab", 6))]


def test_the_result_is_shown_for_the_pause_before_the_next_bets() -> None:
    book = replace(PLAY, round=1)
    settled = replace(IDLE, round=1, pause=3.0)
    book, effects = step(book, Drive(), settled)
    assert effects == [SetTimer("pause", 3.0)] and book.pausing == 1
    assert step(book, Drive(), settled) == (book, [])
    book, _ = step(book, Expired("pause"), settled)
    _, effects = step(book, Drive(), settled)
    assert announced(effects) == [COpenBets(2)]


def test_nothing_happens_while_cards_are_on_their_way_or_after_the_end() -> None:
    busy = replace(IDLE, busy=True)
    assert step(PLAY, Drive(), busy) == (PLAY, [])
    over = CasinoBook(stage=Stage.OVER)
    assert step(over, Drive(), IDLE) == (over, [])
    assert step(PLAY, Drive(), replace(IDLE, closed=True)) == (PLAY, [])


def test_a_phone_holding_the_cards_up_has_a_decisions_time() -> None:
    book = replace(PLAY, round=2)
    card = ("card", 3, 7)
    waiting = replace(IDLE, round=2, settled=False, busy=True, owing={"p1": card})
    book, effects = step(book, Drive(), waiting)
    assert effects == [SetTimer("stall:p1", 15)] and book.stalling == (("p1", card),)
    assert step(book, Drive(), waiting) == (book, [])
    _, effects = step(book, Expired("stall:p1"), waiting)
    assert effects == [Drop("p1", "stalled")]
    # his part came in time: the timer is off, and a late expiry drops nobody
    book2, effects = step(book, Drive(), replace(waiting, owing={}))
    assert effects == [CancelTimer("stall:p1")]
    assert step(book2, Expired("stall:p1"), waiting)[1] == []


def test_each_step_a_phone_owes_has_its_own_time() -> None:
    """A phone that moves on from one step of the shoe protocol to the next is not late
    for the first: its timer starts again, with the time of the step it is in (a shoe
    dealer's set-up, new keys and proofs on every phone, takes longer)."""
    three = frozenset({"p0", "p1", "p2"})
    book = replace(PLAY, round=4)
    base = replace(IDLE, round=4, connected=three, present=three, busy=True)
    setup = ("setup", 2, 0)
    book, effects = step(book, Drive(), replace(base, owing={"p2": setup}))
    assert effects == [SetTimer("stall:p2", 30)]  # two decisions' time for a set-up
    shuffle = ("shuffle", 6, 0)
    moved = replace(base, owing={"p1": shuffle, "p2": shuffle})
    book, effects = step(book, Drive(), moved)
    assert effects == [SetTimer("stall:p1", 15), SetTimer("stall:p2", 15)]
    # the set-up's timer, had it not been re-armed, finds him at another step: no drop
    assert step(replace(book, stalling=(("p2", setup),)), Expired("stall:p2"), moved)[1] == []
    # p1's part came: only his timer is off; p2 still owes the same step
    book, effects = step(book, Drive(), replace(base, owing={"p2": shuffle}))
    assert effects == [CancelTimer("stall:p1")]
    book, effects = step(book, Expired("stall:p2"), replace(base, owing={"p2": shuffle}))
    assert effects == [Drop("p2", "stalled")] and book.stalling == ()
    # the host's own part is never timed here (the guests watch the host)
    assert step(PLAY, Drive(), replace(base, owing={"p0": shuffle})) == (PLAY, [])


def test_the_table_ends_when_nobody_is_left_to_shuffle_with() -> None:
    alone = replace(IDLE, want_shoe=True, order=(0,), connected=frozenset({"p0"}))
    book, effects = step(PLAY, Drive(), alone)
    assert effects == [End("too_few_players")] and book.stage is Stage.OVER
