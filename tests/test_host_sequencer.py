"""The host's sequencer without sockets: ``step(book, event, facts) -> (book, effects)``.

Each test builds the facts of the host's phone by hand (a real :class:`Match` from the
rules engine, what the dealer waits for) and checks the decision: every stage
transition, every timer's expiry, a player leaving in every stage, and the pause in
which every phone shows the last round's result (``NextRound``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from app.cards import Card
from app.rules.oczko import OczkoOptions, Phase
from app.rules.oczko.match import Match
from app.table.errors import TableError
from app.table.messages import (
    Ahead,
    Applied,
    CloseDeal,
    Deal,
    Dealt,
    Drew,
    Go,
    Left,
    NewDeck,
    Ping,
    Rejoin,
    SetUp,
    Turn,
    Void,
)
from app.table.oczko.book import (
    AfterLeft,
    Announce,
    Back,
    Broadcast,
    CancelTimer,
    Close,
    Decide,
    Drive,
    Drop,
    Effect,
    Expired,
    Facts,
    Forgive,
    Gone,
    HostBook,
    LeaveSeat,
    Readmit,
    ReadNext,
    Remove,
    Report,
    Say,
    SetTimer,
    Stage,
    Started,
    Then,
)
from app.table.oczko.sequencer import blockers, everyone_read, step

PLAYING = HostBook(stage=Stage.PLAY, deck=1, went=frozenset({1}))


def new_match(players: int = 3) -> Match:
    return Match.new(players, OczkoOptions(rounds=3))[0]


def dealt(players: int = 3, cards: str = "Ts 9h 7c 8d 5s 6h") -> Match:
    """Round 1 dealt (every card known to the test): play is on, seat 0 to act."""
    m = new_match(players)
    for text in cards.split()[: 2 * players]:
        m = m.deal(Card.parse(text))[0]
    assert m.round is not None and m.round.phase is Phase.PLAY
    return m


def round_two(players: int = 3) -> Match:
    """Round 1 over (everybody held): round 2 waits for its deal."""
    m = dealt(players)
    while m.round is not None and m.round.number == 1:
        seat = m.to_act
        assert seat is not None
        m = m.hold(seat)[0]
    assert m.between_rounds and m.round is not None and m.round.number == 2
    return m


def facts(m: Match, **changes: object) -> Facts:
    base = Facts(
        match=m,
        guests=frozenset(range(1, m.players)),
        linked=frozenset(range(1, m.players)),
        dealer_ready=True,
        fingerprint="0123",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def announced(effects: Sequence[Effect]) -> list[object]:
    return [e.event for e in effects if isinstance(e, Announce)]


def settle(book: HostBook, f: Facts, limit: int = 50) -> tuple[HostBook, list[Effect]]:
    """Drive until the sequencer decides nothing more on the same facts."""
    done: list[Effect] = []
    for _ in range(limit):
        after, effects = step(book, Drive(), f)
        if not effects and after == book:
            return book, done
        book = after
        done += effects
    raise AssertionError("the sequencer never came to rest")


# -- stage transitions --------------------------------------------------------------------


def test_the_lobby_decides_nothing_and_a_leaver_there_is_the_lobbys_business() -> None:
    f = facts(new_match())
    assert step(HostBook(), Drive(), f) == (HostBook(), ())
    assert step(HostBook(), Gone(1, "left"), f) == (HostBook(), ())
    assert step(HostBook(), Back(1), f) == (HostBook(), ())


def test_begin_goes_to_setup_and_waits_for_every_dealer() -> None:
    book, effects = step(HostBook(), Started(), facts(new_match()))
    assert book.stage is Stage.SETUP and effects == (Then(Drive()),)
    # the dealers are not set up: nothing is dealt, the guests not yet set up are timed
    f = facts(new_match(), dealer_ready=False)
    book, effects = step(book, Drive(), f)
    assert book.stage is Stage.SETUP and not announced(effects)
    assert effects == (SetTimer("stall", 30.0),)
    assert book.stall_key == ("setup", 1, frozenset({1, 2}))
    # one guest's dealer misses a part: only he keeps the table waiting
    waits = {0: frozenset({2})}
    assert blockers(book, replace(f, waiting_for=waits)) == {2}


def test_setup_reports_then_play_starts_with_the_first_deal() -> None:
    book = HostBook(stage=Stage.SETUP)
    f = facts(new_match())
    for seat in (1, 2):
        book, effects = step(book, Report(seat, SetUp("0123")), f)
        assert effects == ()
    assert book.set_up == {1, 2}
    book, effects = step(book, Drive(), f)
    assert book.stage is Stage.PLAY and book.deck == 1 and book.went == {1}
    assert effects[0] == Say("fingerprint", {"code": "0123"})
    assert announced(effects) == [Go(1, 1), Deal(1, 1)]


def test_the_deal_closes_once_every_phone_opened_its_cards() -> None:
    m = new_match(3)
    book = PLAYING
    f = facts(m)
    assert blockers(book, f) == {1, 2}  # their reports are missing
    for seat in (0, 1):
        book, _ = step(book, Report(seat, Dealt(1, 1, False)), f)
    book, done = settle(book, f)
    assert not announced(done) and SetTimer("stall", 30.0) in done
    book, _ = step(book, Report(2, Dealt(1, 0, False)), f)  # a voided deck's report
    assert book.dealt == {(1, 0), (1, 1)}
    book, _ = step(book, Report(2, Dealt(1, 1, True)), f)
    # a Persian 21 reported but not proven holds the deal up
    assert step(book, Drive(), replace(f, unproven=frozenset({2})))[1] == ()
    book, effects = step(book, Drive(), f)
    assert announced(effects) == [CloseDeal(1, (2,))]


def test_a_turn_starts_the_clock_once_and_a_decision_moves_on() -> None:
    f = facts(dealt())
    book, effects = step(PLAYING, Drive(), f)
    assert effects == (
        SetTimer("turn", 30.0),
        Broadcast(Turn(1, 0, 30_000)),
        Say("turn", {"seat": 0, "ms": 30_000}),
    )
    assert book.turn_key == (1, 0, 2)
    assert settle(book, f) == (book, [])  # at rest: the clock is not restarted
    # a late or out-of-turn click changes nothing
    assert step(book, Decide(1, "draw", 1), f) == (book, ())
    assert step(book, Decide(0, "draw", 7), f) == (book, ())
    book, effects = step(book, Decide(0, "draw", 1), f)
    assert book.drawing == 0 and book.drawing_deck == 1
    assert effects == (
        CancelTimer("turn"),
        SetTimer("drew", 30.0),
        Announce(Applied(1, 0, "draw")),
        Then(Drive()),
    )
    # while his card is on its way nobody else decides
    assert step(book, Decide(0, "hold"), f) == (book, ())


def test_the_drawers_report_is_announced_and_a_bust_ends_his_turn() -> None:
    f = facts(dealt())
    book = replace(PLAYING, drawing=0, drawing_deck=1, turn_key=(1, 0, 2))
    assert step(book, Report(0, Drew(1, 2, "open")), f) == (book, ())  # a voided card
    after, effects = step(book, Report(0, Drew(1, 1, "open")), f)
    assert after.drawing is None and after.turn_key is None  # a new decision, a new clock
    assert announced(effects) == [Applied(1, 0, "drawn")]
    after, effects = step(book, Report(0, Drew(1, 1, "bust")), f)
    assert announced(effects) == [Applied(1, 0, "drawn"), Applied(1, 0, "bust")]
    # a player dealt 21 reports it himself: he holds without a turn
    after, _ = step(PLAYING, Report(1, Drew(1, 1, "21")), f)
    assert after.auto21 == {(1, 1)}


def test_a_bot_host_decides_in_the_same_drive() -> None:
    f = facts(dealt(), bot_action="hold")
    _book, effects = step(PLAYING, Drive(), f)
    assert Announce(Applied(1, 0, "hold")) in effects


def test_a_message_that_is_not_for_the_host_is_refused() -> None:
    with pytest.raises(TableError) as err:
        step(PLAYING, Report(1, Ping(1)), facts(dealt()))
    assert err.value.code == "bad_message"


def test_the_match_over_ends_the_sequence() -> None:
    m = round_two(2).disconnect(1)[0]  # only one player is left: he wins
    assert m.over
    book, effects = step(replace(PLAYING, went=frozenset({1, 2, 3})), Drive(), facts(m))
    assert book.stage is Stage.OVER and effects[0].code == "match_over"  # type: ignore[union-attr]
    assert settle(book, facts(m)) == (book, [])


# -- timers -------------------------------------------------------------------------------


def test_the_turn_timer_holds_for_the_player() -> None:
    f = facts(dealt())
    _book, effects = step(PLAYING, Expired("turn"), f)
    assert effects == (Announce(Applied(1, 0, "timeout")), Then(Drive()))
    # not while his card is on its way, nor outside play
    assert step(replace(PLAYING, drawing=0), Expired("turn"), f) == (
        replace(PLAYING, drawing=0),
        (),
    )
    assert step(HostBook(stage=Stage.SETUP), Expired("turn"), f)[1] == ()


def test_a_card_that_never_comes_drops_whoever_holds_it_up() -> None:
    f = facts(dealt())
    book = replace(PLAYING, drawing=0, drawing_deck=1)
    # another player's key is missing: he is removed, not the drawer
    stuck = replace(f, waiting_for={1: frozenset({2})})
    after, effects = step(book, Expired("drew"), stuck)
    assert effects == (SetTimer("drew", 30.0), Then(Remove(2, "stalled")), Then(Drive()))
    # the host's own part is missing: the table cannot go on fairly
    after, effects = step(book, Expired("drew"), replace(f, waiting_for={1: frozenset({0})}))
    assert Close("stalled") in effects
    # nothing missing: the drawer kept his report to himself
    guest = replace(PLAYING, drawing=1, drawing_deck=1)
    after, effects = step(guest, Expired("drew"), f)
    assert after.drawing is None and effects == (Drop(1, "silent_draw"),)


def test_a_card_asked_for_in_a_round_that_has_ended_is_not_waited_for() -> None:
    """Soak seeds 270213 and 270233 (issue 17): the host drew, and before his card
    was in his only opponent's phone died; the round (and the match) ended with him the
    last player. The host still waited for the card, and when its timer ran out the
    dealer still waited for the host's own part of it: the table closed, ``stalled``."""
    drawing = replace(PLAYING, drawing=0, drawing_deck=1)
    m = dealt(2).disconnect(1)[0]
    assert m.over
    f = facts(m, guests=frozenset(), waiting_for={1: frozenset({0})})
    book, effects = step(drawing, Drive(), f)
    assert book.drawing is None and effects == (CancelTimer("drew"),)
    book, effects = settle(book, f)
    assert book.stage is Stage.OVER and [e.code for e in effects] == ["match_over"]  # type: ignore[attr-defined]
    assert step(book, Expired("drew"), f) == (book, ())
    # (while the round is played, his card is waited for as before)
    f = facts(dealt(2), waiting_for={1: frozenset({0})})
    assert step(drawing, Drive(), f) == (drawing, ())


def test_the_stall_timer_drops_only_who_still_blocks() -> None:
    f = facts(new_match())
    book, _ = settle(replace(PLAYING, dealt=frozenset({(1, 0), (1, 1)})), f)
    assert book.stall_key == ("play", 1, frozenset({2}))
    after, effects = step(book, Expired("stall"), f)
    assert Then(Remove(2, "stalled")) in effects and after.stall_key is None
    # he reported meanwhile: a fresh wait, nobody is dropped
    later = replace(book, dealt=book.dealt | {(1, 2)})
    after, effects = step(later, Expired("stall"), f)
    assert not any(isinstance(e, Then) and isinstance(e.event, Remove) for e in effects)


def test_a_leaver_whose_hand_is_needed_at_the_showdown_forfeits_it() -> None:
    m = Match.new(2, OczkoOptions(rounds=3), me=0)[0]
    for text in ("Ts", None, "7c", None):
        m = m.deal(Card.parse(text) if text else None)[0]
    m = m.close_deal()[0]
    m = m.hold(0)[0]
    m = m.hold(1)[0]
    assert m.round is not None and m.round.phase is Phase.SHOWDOWN
    m = m.reveal(0, [Card.parse("Ts"), Card.parse("7c")])[0]
    f = facts(m, guests=frozenset({1}))
    book, _ = settle(PLAYING, f)
    assert book.stall_key == ("play", 1, frozenset({1}))  # his hand is still to be shown
    m = m.disconnect(1)[0]
    f = facts(m, guests=frozenset())
    book, _ = settle(PLAYING, f)
    assert book.stall_key == ("play", 1, frozenset({1}))  # gone: still to be opened
    _after, effects = step(book, Expired("stall"), f)
    assert Announce(Applied(1, 1, "forfeit")) in effects


# -- players leaving, in every stage ------------------------------------------------------


def test_a_guest_leaving_during_setup_is_announced() -> None:
    book = HostBook(stage=Stage.SETUP)
    f = facts(new_match())
    after, effects = step(book, Gone(2, "lost"), f)
    assert effects == (Then(LeaveSeat(2, "lost")), Then(Drive()))
    after, effects = step(after, LeaveSeat(2, "lost"), f)
    assert effects == (Announce(Left(2, "lost")), Then(AfterLeft(2, True)))
    # no round has started: no fresh deck
    assert step(after, AfterLeft(2, True), f) == (after, ())


def test_a_guest_leaving_during_the_deal_brings_a_fresh_deal() -> None:
    book = replace(PLAYING, dealt=frozenset({(1, 0), (1, 2)}), persian=frozenset({(1, 2)}))
    after, effects = step(book, AfterLeft(1, True), facts(new_match()))
    assert announced(effects) == [NewDeck(1, 2), Deal(1, 2)]
    assert after.deck == 2 and after.dealt == frozenset() and after.persian == frozenset()


def test_a_guest_leaving_during_play_brings_a_fresh_deck_now_or_after_the_card() -> None:
    f = facts(dealt())
    after, effects = step(PLAYING, AfterLeft(2, True), f)
    assert announced(effects) == [NewDeck(1, 2)]
    # a card on its way had his key: it stands, the fresh deck comes once it is in
    drawing = replace(PLAYING, drawing=0)
    after, effects = step(drawing, AfterLeft(2, True), f)
    assert after.deck_due and effects == ()
    after, effects = step(replace(after, drawing=None), Drive(), f)
    assert announced(effects) == [NewDeck(1, 2)] and not after.deck_due
    # ... unless that card can never open: it is dealt again from the fresh deck
    after, effects = step(drawing, AfterLeft(2, True), replace(f, cut_off=True))
    assert announced(effects) == [NewDeck(1, 2)]
    book, effects = step(replace(after, drawing=0), Drive(), replace(f, redraw=0))
    assert announced(effects) == [Applied(1, 0, "draw")] and book.drawing_deck == 2


def test_the_drawer_leaving_stops_waiting_for_his_card() -> None:
    book = replace(PLAYING, drawing=1, turn_key=(1, 1, 2))
    after, effects = step(book, LeaveSeat(1, "left"), facts(dealt()))
    assert after.drawing is None and after.turn_key is None
    assert CancelTimer("drew") in effects


def test_leaving_a_disputed_round_voids_it() -> None:
    f = facts(dealt(), complained=True, disputed=(1,))
    _after, effects = step(PLAYING, Gone(2, "left"), f)
    assert announced(effects) == [Void(1, "dispute", None)]
    assert Say("round_void", {"round": 1, "reason": "dispute", "seat": None}) in effects
    assert effects[-2:] == (Then(LeaveSeat(2, "left")), Then(Drive()))


def test_a_guest_dropped_for_a_forged_frame_on_his_link_is_only_a_dropout() -> None:
    # (the lobby refused his frame's signature: no other phone saw that frame, so a
    # void for it would be the host's word alone; issue 30)
    _after, effects = step(PLAYING, Gone(2, "cheat"), facts(dealt()))
    assert announced(effects) == []
    assert effects[-2:] == (Then(LeaveSeat(2, "cheat")), Then(Drive()))
    _after, effects = step(PLAYING, Gone(2, "lost"), facts(dealt()))
    assert announced(effects) == []  # a plain dropout: the round goes on
    # ... unless the round's audit waits for his seed: then every phone can check that
    settling = facts(dealt(), disputed=(1,), waiting_for={1: frozenset({2})})
    _after, effects = step(PLAYING, Gone(2, "cheat"), settling)
    assert announced(effects) == [Void(1, "stalled", 2)]
    assert effects[-2:] == (Then(LeaveSeat(2, "cheat")), Then(Drive()))


def test_every_void_says_its_checkable_reason_and_whom_it_is_charged_to() -> None:
    # a stalled seat removed while the round's own audit waits for him
    f = facts(dealt(), disputed=(1,), waiting_for={1: frozenset({2})})
    _after, effects = step(PLAYING, Remove(2, "stalled"), f)
    assert announced(effects) == [Void(1, "stalled", 2)]
    # ... not for another seat: that void no phone could check (a plain removal)
    _after, effects = step(PLAYING, Remove(1, "stalled"), f)
    assert announced(effects) == [] and effects[-1] == Drop(1, "stalled", "")
    # ... while a deck of the round is complained about
    f = facts(dealt(), disputed=(1,), complained=True)
    _after, effects = step(PLAYING, Remove(2, "stalled"), f)
    assert announced(effects) == [Void(1, "dispute", 2)]
    # a complaint whose audit names a player gone already, or nobody
    gone = frozenset({1})  # (seat 2 is gone)
    f = facts(dealt(), guests=gone, disputed=(1,), complained=True, verdicts={1: frozenset({2})})
    _after, effects = step(PLAYING, Drive(), f)
    assert announced(effects) == [Void(1, "dispute", 2)]
    f = facts(dealt(), disputed=(1,), complained=True, verdicts={1: frozenset()})
    _after, effects = step(PLAYING, Drive(), f)
    assert announced(effects) == [Void(1, "dispute", None)]


def test_a_leaver_after_the_match_changes_nothing() -> None:
    book = HostBook(stage=Stage.OVER)
    assert step(book, Gone(1, "left"), facts(new_match())) == (book, ())


def test_a_cheater_is_named_removed_and_his_round_void() -> None:
    f = facts(dealt(), violation=(2, "bad_sig"))
    book, effects = step(PLAYING, Drive(), f)
    assert book == PLAYING
    assert effects == (
        Forgive(),
        Say("cheat_named", {"seat": 2, "code": "bad_sig"}),
        Then(Remove(2, "cheat", "bad_sig")),
    )
    book, effects = step(PLAYING, Remove(2, "cheat", "bad_sig"), facts(dealt()))
    assert announced(effects) == [Void(1, "cheat", 2)]
    assert effects[-1] == Drop(2, "cheat", "bad_sig")
    assert book.turn_key is None and book.drawing is None
    # the host's own phone caught the host: the table ends
    _book, effects = step(PLAYING, Drive(), facts(dealt(), violation=(None, "bad_deck")))
    assert effects[-1] == Close("violation")


def test_a_returning_player_is_readmitted_before_the_next_deal() -> None:
    m = round_two(3).disconnect(2)[0]
    book, effects = step(replace(PLAYING, deck=3), Back(2), facts(m))
    assert book.returning == {2} and effects == (Then(Drive()),)
    book, effects = step(book, Drive(), facts(m, guests=frozenset({1, 2})))
    assert effects[0] == Readmit(2, (2,), (0, 1, 2), 4)
    assert Announce(Rejoin(2, 2)) in effects and book.stage is Stage.SETUP
    # back before his old link was seen to drop: he leaves, then is readmitted
    playing = dealt()
    book, effects = step(PLAYING, Back(1), facts(playing))
    assert effects == (Then(LeaveSeat(1, "lost", back=True)), Then(Drive()))
    book, _ = step(book, LeaveSeat(1, "lost", back=True), facts(playing))
    assert book.returning == {1}


def test_a_barred_player_waits_linked_and_the_round_is_dealt_without_him() -> None:
    """Issue 30: a player the host's phone will not readmit now (a cheater it named; a
    leaver whose round is still being replayed) is not readmitted: the round is dealt
    without him, and he stays among the returning until he may come back."""
    m = round_two(3).disconnect(2)[0]
    book, _ = step(replace(PLAYING, deck=3), Back(2), facts(m))
    barred = facts(m, guests=frozenset({1, 2}), barred=frozenset({2}))
    book, effects = step(book, Drive(), barred)
    assert not any(isinstance(e, Readmit) for e in effects)
    assert Announce(Rejoin(2, 2)) not in effects
    assert book.returning == {2} and 2 in book.went  # (round 2 dealt without him)
    # (once he may come back: readmitted before the round that waits)
    waiting = replace(book, went=frozenset())
    book, effects = step(waiting, Drive(), facts(m, guests=frozenset({1, 2})))
    assert effects[0] == Readmit(2, (2,), (0, 1, 2), waiting.fresh_deck)


# -- the result on every phone until everybody has read it ---------------------------------


def test_the_next_deal_waits_until_every_player_read_the_result() -> None:
    m = round_two(3)
    f = facts(m, round_pause=30.0)
    book, effects = step(PLAYING, Drive(), f)
    assert effects == (SetTimer("pause", 30.0),) and book.pausing == 2
    assert settle(book, f) == (book, [])  # nothing is dealt meanwhile
    # a NextRound for another round is refused and changes nothing
    after, effects = step(book, ReadNext(1, 1), f)
    assert after == book and effects[0].code == "next_round_refused"  # type: ignore[union-attr]
    for seat in (1, 0):
        book, effects = step(book, ReadNext(seat, 2), f)
        assert effects == (Then(Drive()),)
        assert step(book, Drive(), f)[1] == ()  # (not everybody yet)
    assert not everyone_read(book, f)
    book, effects = step(book, ReadNext(2, 2), f)
    assert everyone_read(book, f)
    book, effects = step(book, Drive(), f)
    assert CancelTimer("pause") in effects
    book, effects = step(book, Drive(), f)
    assert announced(effects) == [Go(2, 2), Deal(2, 2)]


def test_the_pause_ends_with_its_timer_and_a_gone_player_is_not_waited_for() -> None:
    m = round_two(3)
    f = facts(m, round_pause=30.0)
    book, _ = step(PLAYING, Drive(), f)
    book, effects = step(book, Expired("pause"), f)
    assert book.pausing is None and effects == (Then(Drive()),)
    book, effects = step(book, Drive(), f)
    assert announced(effects) == [Go(2, 2), Deal(2, 2)]
    # a late tap after the deal began changes nothing
    assert step(book, ReadNext(1, 2), f) == (book, ())
    # a disconnected guest and a bot host need not read
    book, _ = step(PLAYING, Drive(), f)
    quiet = facts(m, round_pause=30.0, guests=frozenset({1}), auto_read=frozenset({0}))
    book, _ = step(book, ReadNext(1, 2), quiet)
    assert everyone_read(book, quiet)


# -- the next round's deck, shuffled in the background (issue 17) ------------------------


def test_the_next_deck_is_shuffled_ahead_once_the_deck_in_play_is_ready() -> None:
    f = facts(dealt(), deck_ready=True)
    book, effects = step(PLAYING, Drive(), f)
    assert announced(effects) == [Ahead(1, 2)]
    assert book.ahead == 2 and book.ahead_seats == {0, 1, 2} and book.deck == 1
    # not again while it runs; a fresh deck of the round in play comes after it
    book, more = step(book, Drive(), f)
    assert Ahead not in {type(e) for e in announced(more)}
    assert announced(step(book, AfterLeft(2, True), f)[1]) == [NewDeck(1, 3)]
    # not while the deck in play still locks what the next draw needs
    assert announced(step(PLAYING, Drive(), facts(dealt()))[1]) == []


def test_the_next_round_deals_from_the_deck_shuffled_ahead_at_once() -> None:
    book = replace(PLAYING, ahead=2, ahead_seats=frozenset({0, 1, 2}), newest=2)
    after, effects = step(book, Drive(), facts(round_two(3)))
    assert announced(effects) == [Deal(2, 2)]  # no Go: it is shuffled already
    assert after.deck == 2 and after.ahead == 0 and after.went == {1, 2}


def test_a_dropout_voids_the_deck_shuffled_ahead_and_a_fresh_one_follows() -> None:
    book = replace(PLAYING, ahead=2, ahead_seats=frozenset({0, 1, 2}), newest=2)
    after, effects = step(book, LeaveSeat(2, "lost"), facts(dealt()))
    assert after.ahead == 0 and Left(2, "lost") in announced(effects)
    # every phone dropped it at the Left; the next deck number is still new
    assert after.fresh_deck == 3
    # a deck shuffled ahead among other players is never dealt from: a fresh Go
    m = round_two(3).disconnect(2)[0]
    after, effects = step(book, Drive(), facts(m, guests=frozenset({1})))
    assert announced(effects) == [Go(2, 3), Deal(2, 3)] and after.ahead == 0
