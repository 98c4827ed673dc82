"""The host's decisions as a pure function: ``step(book, event, facts) -> (book, effects)``.

The host's phone sequences the match: it decides when the next round is dealt, when a
deal is closed, whose turn it is and for how long, when a deck is replaced, who is
dropped for stalling the table and when a round is void. Those decisions live here,
apart from the sockets and the clock: :class:`~app.table.oczko.host.HostTable` observes
its phone (:class:`~app.table.oczko.book.Facts`), calls :func:`step` with each event and
carries the effects out (frames, timers, dropped links). An effect :class:`Then` feeds a
further event back once the effects before it are done, so each decision sees the
match as it is after the events announced before it. The shell repeats :class:`Drive`
until it decides nothing more (a fixpoint, no pass limit): every step that decides
something changes the match or the book, so the repetition ends.

Nothing here raises on a guest's input except a message that is not for the host
(:class:`~app.table.errors.TableError` ``bad_message``, the guest is dropped); a late
or out-of-turn decision changes nothing.
"""

from __future__ import annotations

from dataclasses import replace

from app.rules.oczko import Phase
from app.table.book import rearm
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
    HostEvent,
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
    seats_in,
)

Step = tuple[HostBook, tuple[Effect, ...]]

#: the timers of the match (the lobby keeps its own: heartbeats, join deadlines)
MATCH_TIMERS = ("turn", "drew", "stall", "pause")


def step(book: HostBook, event: HostEvent, facts: Facts) -> Step:
    """The host's next book and what it must do, for ``event`` given ``facts``."""
    if isinstance(event, Drive):
        return _drive(book, facts)
    if isinstance(event, Started):
        return replace(book, stage=Stage.SETUP), (Then(Drive()),)
    if isinstance(event, Report):
        return _report(book, event, facts)
    if isinstance(event, Decide):
        if event.round is not None and event.round != _round(facts):
            return book, ()  # a late click from an earlier round
        book, effects = _decide(book, event.seat, event.action, facts)
        return book, (*effects, Then(Drive())) if effects else ()
    if isinstance(event, ReadNext):
        return _read_next(book, event, facts)
    if isinstance(event, Expired):
        return _expired(book, event.name, facts)
    if isinstance(event, Gone):
        return _gone(book, event, facts)
    if isinstance(event, Back):
        return _back(book, event.who, facts)
    if isinstance(event, Remove):
        return _remove(book, event, facts)
    if isinstance(event, LeaveSeat):
        return _leave_seat(book, event, facts)
    return _after_left(book, event, facts)


# -- queries ------------------------------------------------------------------------------


def _round(facts: Facts) -> int | None:
    r = facts.match.round
    return None if r is None else r.number


def _in_play(book: HostBook, facts: Facts) -> bool:
    """A round is being dealt or played (its first deck was started)."""
    m = facts.match
    return m.round is not None and not m.over and m.round.number in book.went


def _playing(facts: Facts) -> set[int]:
    """The seats still playing the round in play."""
    m = facts.match
    r = m.round
    assert r is not None
    return {s for s in r.order if s in m.active and not r.hand(s).dropped}


def _culprits(facts: Facts, deck: int) -> set[int] | None:
    """The players the dealer waits for in ``deck`` (0: the set-up): whom to drop when
    the table waits too long, rather than the players waiting with them; None when the
    dealer misses nothing. The host's own work is never a stall."""
    waiting = facts.waits(deck)
    return set(waiting & (facts.guests | {0})) if waiting else None


def blockers(book: HostBook, facts: Facts) -> set[int]:
    """Players the match is waiting for (a report or a proof), besides a drawer; at the
    showdown also players gone with a hand that is still to be opened."""
    guests = facts.guests
    if book.stage is Stage.SETUP:
        culprits = _culprits(facts, 0)
        return set(guests - book.set_up) if culprits is None else culprits
    m = facts.match
    r = m.round
    if book.stage is not Stage.PLAY or m.over or r is None:
        return set()
    if facts.disputed:
        # Whose round seed the audit lacks (the host's own counts like anybody's); an
        # empty set: the audit is running, nobody is late.
        owed: set[int] = set()
        for deck in facts.disputed:
            owed |= facts.waits(deck)
        return owed & (guests | {0})
    if r.phase is Phase.DEAL and r.number in book.went:
        # A player who cannot open his cards because another one holds the deck up is
        # not to blame; with nothing missing, a report is, or a Persian 21 reported and
        # not proven.
        culprits = _culprits(facts, book.deck)
        if culprits is not None:
            return culprits
        late = (_playing(facts) - seats_in(book.dealt, r.number)) & guests
        return late or set(facts.unproven)
    if r.phase is Phase.SHOWDOWN:
        return set(r.to_reveal) & (guests | set(m.gone) | {0})
    return set()


def everyone_read(book: HostBook, facts: Facts) -> bool:
    """Every player still in the match (the host included) has read the last result."""
    m = facts.match
    present = {s for s in m.active if s == 0 or s in facts.guests}
    return present <= book.read | facts.auto_read


# -- the match's course -------------------------------------------------------------------


def _drive(book: HostBook, facts: Facts) -> Step:
    if facts.closed or book.stage is Stage.LOBBY:
        return book, ()
    effects: list[Effect] = []
    if facts.violation is not None:
        seat, code = facts.violation
        if seat is not None and seat != 0:
            # A guest cheated (his own signed frame, his own claim, his audit): he is
            # named and removed, the round he cheated in is void, play goes on.
            effects += [Forgive(), Say("cheat_named", {"seat": seat, "code": code})]
            if seat in facts.guests:
                effects.append(Then(Remove(seat, "cheat", code)))
            return book, tuple(effects)
        return book, (Say("violation", {"seat": seat, "code": code}), Close("violation"))
    if book.stage is Stage.SETUP:
        if not (facts.dealer_ready and facts.guests <= book.set_up):
            return _watch_stalls(book, facts)
        book = replace(book, stage=Stage.PLAY)
        effects.append(Say("fingerprint", {"code": facts.fingerprint}))
    if book.stage is Stage.PLAY:
        book, more = _next_event(book, facts)
        effects += more
    if effects:
        return book, tuple(effects)
    return _watch_stalls(book, facts)


def _next_event(book: HostBook, facts: Facts) -> Step:
    """The next public event of the match in play, if one is due."""
    m = facts.match
    r = m.round
    if _in_play(book, facts):
        assert r is not None
        for deck in facts.disputed:
            cheaters = facts.verdicts.get(deck)
            if cheaters is not None and not cheaters & facts.guests:
                # Nobody left to remove (none named, or he is gone already): the
                # disputed round is played again all the same (every phone holds the
                # complaint; charged to whom the audit named, if anybody).
                return _void(book, r.number, "dispute", min(cheaters, default=None))
    if book.drawing is not None and (
        m.over or r is None or r.phase is not Phase.PLAY or m.to_act != book.drawing
    ):
        # The card was asked for in a round that has ended meanwhile (its last opponent
        # left): nobody will open it and nobody needs it. Waiting for it timed out and
        # named whoever the dealer still waited for, the host included (issue 17).
        book = replace(book, drawing=None, deck_due=False)
        return book, (CancelTimer("drew"),)
    if facts.waiting:
        return book, ()
    if book.deck_due and book.drawing is None:
        book = replace(book, deck_due=False)
        if not m.over and r is not None and r.phase is Phase.PLAY:
            return _new_deck(book, r.number)
    redraw = facts.redraw
    if redraw is not None and redraw == book.drawing and r is not None:
        # A dropout voided the card on its way: deal it again from the fresh deck.
        book = replace(book, drawing_deck=book.deck)
        timer = SetTimer("drew", float(facts.turn_time))
        return book, (timer, Announce(Applied(r.number, redraw, "draw")))
    if m.over:
        over = {"winner": m.winner, "points": list(m.points), "reason": m.end_reason}
        return replace(book, stage=Stage.OVER), (Say("match_over", over),)
    assert r is not None
    if r.number not in book.went:
        return _next_round(book, r.number, facts)
    if r.phase is Phase.DEAL:
        # Every phone has opened its cards: the deal goes into every engine at once.
        playing = _playing(facts)
        if not playing <= seats_in(book.dealt, r.number) or facts.unproven & playing:
            return book, ()
        persian = tuple(sorted(seats_in(book.persian, r.number) & playing))
        book = replace(book, closed_deal=book.closed_deal | {r.number})
        return book, (Announce(CloseDeal(r.number, persian)),)
    ahead_due = facts.deck_ready and not book.ahead and r.number < m.options.rounds
    if r.phase is Phase.PLAY and ahead_due:
        # The next round's deck is shuffled in the background while this one is
        # played (every phone gives it only the time the round in play leaves).
        seats = frozenset(m.next_round_order)
        ahead = book.fresh_deck
        book = replace(book, ahead=ahead, ahead_seats=seats, newest=ahead)
        return book, (Announce(Ahead(r.number, book.ahead)),)
    if r.phase is Phase.PLAY and book.drawing is None:
        return _turn(book, facts)
    return book, ()


def _round_seats(facts: Facts) -> frozenset[int]:
    """The players a deck of the round in play is shuffled among."""
    m = facts.match
    assert m.round is not None
    return frozenset(s for s in m.round.order if s in m.active)


def _next_round(book: HostBook, number: int, facts: Facts) -> Step:
    """Round ``number`` waits for its deck: readmit returning players, let everybody read
    the last result, then start the deck and deal."""
    if book.returning - facts.barred:
        return _admit(book, number, facts)
    if number > 1 and facts.round_pause > 0:
        if number not in book.paused:
            # The last round's result is on every screen: the deal waits until every
            # player has read it, or the pause (at most a turn's time) runs out.
            book = replace(book, paused=book.paused | {number}, pausing=number, read=frozenset())
            return book, (SetTimer("pause", facts.round_pause),)
        if book.pausing == number:
            if not everyone_read(book, facts):
                return book, ()
            book = replace(book, pausing=None)
            return book, (CancelTimer("pause"), Say("all_read", {"round": number}))
    book = replace(book, went=book.went | {number}, pausing=None)
    if book.ahead and book.ahead_seats == _round_seats(facts):
        # Shuffled in the background during the last round: dealt from at once.
        book = replace(book, deck=book.ahead, ahead=0, ahead_seats=frozenset())
        return book, (Announce(Deal(number, book.deck)),)
    # (a deck shuffled ahead among other players is dropped by every phone at the Go)
    deck = book.fresh_deck
    book = replace(book, deck=deck, newest=deck, ahead=0, ahead_seats=frozenset())
    return book, (Announce(Go(number, deck)), Announce(Deal(number, deck)))


def _turn(book: HostBook, facts: Facts) -> Step:
    """Whose decision it is: start his clock (and tell every phone), or let a seat dealt
    21 hold, or let the host's bot decide."""
    r = facts.match.round
    assert r is not None
    seat = r.to_act
    assert seat is not None
    if (r.number, seat) in book.auto21 and len(r.hand(seat).cards) == 2:
        return book, (CancelTimer("turn"), Announce(Applied(r.number, seat, "21")))
    effects: list[Effect] = []
    key = (r.number, seat, len(r.hand(seat).cards))
    if key != book.turn_key:
        book = replace(book, turn_key=key)
        ms = facts.turn_time * 1000
        effects += [
            SetTimer("turn", float(facts.turn_time)),
            Broadcast(Turn(r.number, seat, ms)),
            Say("turn", {"seat": seat, "ms": ms}),
        ]
    if seat == 0 and facts.bot_action is not None:
        book, more = _decide(book, 0, facts.bot_action, facts)
        effects += more
    return book, tuple(effects)


def _decide(book: HostBook, seat: int, action: str, facts: Facts) -> Step:
    """A player's decision, if it is his turn and the host waits for nothing."""
    m = facts.match
    if book.stage is not Stage.PLAY or facts.waiting or book.drawing is not None:
        return book, ()
    if m.round is None or m.round.phase is not Phase.PLAY or m.to_act != seat:
        return book, ()  # not his turn (a late click): ignored
    effects: list[Effect] = [CancelTimer("turn")]
    if action == "draw":
        book = replace(book, drawing=seat, drawing_deck=book.deck)
        effects.append(SetTimer("drew", float(facts.turn_time)))
    effects.append(Announce(Applied(m.round.number, seat, action)))
    return book, tuple(effects)


def _report(book: HostBook, event: Report, facts: Facts) -> Step:
    """A phone's report: its dealer is set up, it opened its deal, it drew a card."""
    seat, message = event.seat, event.message
    if isinstance(message, SetUp):
        return replace(book, set_up=book.set_up | {seat}), ()
    if isinstance(message, Dealt):
        if message.deck != book.deck:
            return book, ()  # a report on a deal a dropout has voided
        book = replace(book, dealt=book.dealt | {(message.round, seat)})
        if message.persian:
            book = replace(book, persian=book.persian | {(message.round, seat)})
        return book, ()
    if isinstance(message, Drew):
        if book.drawing != seat and message.status == "21":
            return replace(book, auto21=book.auto21 | {(message.round, seat)}), ()  # dealt 21
        if (
            book.drawing == seat
            and message.round == _round(facts)
            and message.deck == book.drawing_deck  # not on a card a dropout voided
        ):
            effects: list[Effect] = [
                CancelTimer("drew"),
                Announce(Applied(message.round, seat, "drawn")),
            ]
            if message.status in ("bust", "21"):
                effects.append(Announce(Applied(message.round, seat, message.status)))
                return replace(book, drawing=None), tuple(effects)
            return replace(book, drawing=None, turn_key=None), tuple(effects)  # a new clock
        return book, ()
    raise TableError("bad_message", f"{type(message).__name__} is not for the host")


def _read_next(book: HostBook, event: ReadNext, facts: Facts) -> Step:
    """A player has read the last round's result and asks for round ``event.round``.
    It counts only during the pause before that round's deal (a tap that comes after
    the deal began is ignored); for another round it is refused by a notice. Either
    way nothing else changes."""
    if event.round != _round(facts):
        detail = f"round {event.round} is not waiting for its deal"
        return book, (Say("next_round_refused", {"seat": event.seat, "detail": detail}),)
    if book.pausing != event.round:
        return book, ()  # (the pause is over already: the deal is on its way)
    return replace(book, read=book.read | {event.seat}), (Then(Drive()),)


# -- timers -------------------------------------------------------------------------------


def _expired(book: HostBook, name: str, facts: Facts) -> Step:
    m = facts.match
    if name == "pause":
        return replace(book, pausing=None), (Then(Drive()),)
    if name == "turn":
        r = m.round
        if book.stage is not Stage.PLAY or r is None or r.phase is not Phase.PLAY:
            return book, ()
        if book.drawing is not None or m.to_act is None:
            return book, ()
        return book, (Announce(Applied(r.number, m.to_act, "timeout")), Then(Drive()))
    if name == "stall":
        return _stalled(book, facts)
    if name == "drew" and book.drawing is not None:
        culprits = _culprits(facts, book.drawing_deck)
        if culprits:
            # His card waits for another player's key: that player is dropped (the card,
            # cut off, is dealt again), not the drawer.
            effects: list[Effect] = [SetTimer("drew", float(facts.turn_time))]
            for seat in sorted(culprits):
                if seat == 0:
                    effects += [Say("violation", {"seat": 0, "code": "stalled"}), Close("stalled")]
                    return book, tuple(effects)
                effects.append(Then(Remove(seat, "stalled")))
            return book, (*effects, Then(Drive()))
        seat = book.drawing
        return replace(book, drawing=None), (Drop(seat, "silent_draw"),)
    return book, ()


def _stalled(book: HostBook, facts: Facts) -> Step:
    """Whoever kept the table waiting a whole turn is out."""
    armed = book.stall_key
    book = replace(book, stall_key=None)
    now = blockers(book, facts)
    if (book.stage.value, _round(facts), frozenset(now)) != armed:
        return _watch_stalls(book, facts)  # the table moved on meanwhile: a fresh wait
    m = facts.match
    r = m.round
    effects: list[Effect] = []
    for seat in sorted(now):
        if r is not None and not m.over and seat in m.gone:
            # A leaver's hand that cannot be opened any more counts as bust.
            effects.append(Announce(Applied(r.number, seat, "forfeit")))
        elif seat == 0:
            # The host's own proof is missing: the table cannot go on fairly.
            effects += [Say("violation", {"seat": 0, "code": "stalled"}), Close("stalled")]
            return book, tuple(effects)
        else:
            # A player whose report, proof or seed does not come is out (then his hand,
            # if still needed, is forfeited like any leaver's; a round whose audit he
            # held up is void).
            effects.append(Then(Remove(seat, "stalled")))
    return book, (*effects, Then(Drive()))


def _watch_stalls(book: HostBook, facts: Facts) -> Step:
    """Whoever keeps the table waiting longer than a turn is dropped (``stalled``): a
    lost report or proof must never stall the table."""
    if facts.closed:
        return book, ()
    now = blockers(book, facts)
    key = (book.stage.value, _round(facts), frozenset(now)) if now else None
    if key == book.stall_key:
        return book, ()
    armed = {} if book.stall_key is None else {"stall": book.stall_key}
    timers = rearm(armed, {} if key is None else {"stall": key}, lambda _: float(facts.turn_time))
    return replace(book, stall_key=key), tuple(timers)


# -- players leaving and coming back ------------------------------------------------------


def _void(book: HostBook, number: int, reason: str, seat: int | None) -> Step:
    """Every phone voids round ``number`` for ``reason``, charged to ``seat``; the replay
    is a new round (new number). Each guest checks the reason against what its own
    phone holds (``PhoneMatch._void``): a void without one names the host."""
    book = replace(book, stall_key=None, drawing=None, deck_due=False, turn_key=None)
    cancel = tuple(CancelTimer(name) for name in ("turn", "drew", "stall"))
    said = Say("round_void", {"round": number, "reason": reason, "seat": seat})
    return book, (*cancel, Announce(Void(number, reason, seat)), said)


def _new_deck(book: HostBook, number: int) -> Step:
    deck = book.fresh_deck
    book = replace(book, deck=deck, newest=deck, deck_due=False)
    return book, (Announce(NewDeck(number, book.deck)),)


def _remove(book: HostBook, event: Remove, facts: Facts) -> Step:
    """Take a player out. If the round in play has a deck under dispute or audit, or he
    was named as a cheater, the round does not count: every phone voids it (it is
    played again without him), for the reason it can check itself: my phone named him
    (``cheat``), a complaint about a deck of the round (``dispute``), or the round's
    audit waits for his seed (``stalled``)."""
    effects: tuple[Effect, ...] = ()
    r = facts.match.round
    if _in_play(book, facts) and r is not None:
        reason = None
        if event.reason == "cheat":
            reason = "cheat"
        elif facts.complained:
            reason = "dispute"
        elif any(event.seat in facts.waits(d) for d in facts.disputed):
            reason = "stalled"  # (no complaint: the round's own audit waits for him)
        if reason is not None:
            book, effects = _void(book, r.number, reason, event.seat)
    return book, (*effects, Drop(event.seat, event.reason, event.code))


def _gone(book: HostBook, event: Gone[int], facts: Facts) -> Step:
    """A guest's link is gone during the match."""
    if book.stage not in (Stage.SETUP, Stage.PLAY):
        return book, ()
    effects: tuple[Effect, ...] = ()
    r = facts.match.round
    if _in_play(book, facts) and r is not None and facts.complained:
        # Somebody complained and seeds may be out: the round's hands are no longer
        # secret, and whoever leaves now escapes its audit. It is played again (every
        # phone holds the complaint; charged to nobody yet: his going is not the cheat,
        # the audit names whoever it was).
        book, effects = _void(book, r.number, "dispute", None)
    elif (
        _in_play(book, facts)
        and r is not None
        and event.reason == "cheat"
        and any(event.who in facts.waits(d) for d in facts.disputed)
    ):
        # The lobby dropped him for a frame that failed authentication on his own link
        # (``cheat``) while the round's audit still waits for his seed: his leaving must
        # not let his round count unaudited. No other phone saw that frame, so the
        # reason every phone can check is the audit waiting for him (``stalled``);
        # otherwise his going is a plain dropout (docs/protocol.md 5.1, issue 30).
        book, effects = _void(book, r.number, "stalled", event.who)
    return book, (*effects, Then(LeaveSeat(event.who, event.reason)), Then(Drive()))


def _leave_seat(book: HostBook, event: LeaveSeat, facts: Facts) -> Step:
    seat = event.seat
    effects: list[Effect] = []
    if book.drawing == seat:
        book = replace(book, drawing=None)
        effects.append(CancelTimer("drew"))
    returning = book.returning | {seat} if event.back else book.returning - {seat}
    book = replace(book, returning=returning, turn_key=None)
    if seat in book.ahead_seats:
        # The deck shuffled ahead has his keys in it: every phone drops it at his Left
        # and a fresh one is shuffled among the rest.
        book = replace(book, ahead=0, ahead_seats=frozenset())
    m = facts.match
    in_round = m.round is not None and seat in m.round.order and not m.over
    effects += [Announce(Left(seat, event.reason)), Then(AfterLeft(seat, in_round))]
    return book, tuple(effects)


def _after_left(book: HostBook, event: AfterLeft, facts: Facts) -> Step:
    """The leaver's keys are gone with him: a round that still deals cards goes on with a
    fresh deck (the cards already dealt stay valid). During the deal nobody's engine has
    a card yet: the deal is voided and dealt again."""
    r = facts.match.round
    if not event.in_round or not _in_play(book, facts) or r is None:
        return book, ()
    if r.phase is Phase.PLAY:
        if book.drawing is not None and not facts.cut_off:
            # The card on its way had the leaver's key: it stands, and the fresh deck
            # comes once it is in.
            return replace(book, deck_due=True), ()
        return _new_deck(book, r.number)  # else every phone voids it; dealt again
    if r.phase is Phase.DEAL:
        number = r.number
        book = replace(
            book,
            dealt=frozenset(p for p in book.dealt if p[0] != number),
            persian=frozenset(p for p in book.persian if p[0] != number),
        )
        book, effects = _new_deck(book, number)
        return book, (*effects, Announce(Deal(number, book.deck)))
    return book, ()


def _back(book: HostBook, seat: int, facts: Facts) -> Step:
    """A player joined again on a new link: he plays again from the next round."""
    if seat == 0 or book.stage is not Stage.PLAY:
        return book, ()
    m = facts.match
    if seat in m.active and not m.over:
        # Back before his old link was seen to drop: that link is gone all the same.
        return book, (Then(LeaveSeat(seat, "lost", back=True)), Then(Drive()))
    return replace(book, returning=book.returning | {seat}), (Then(Drive()),)


def _admit(book: HostBook, number: int, facts: Facts) -> Step:
    """Returning players join the waiting round (before its deck, never mid-round): each
    gets the match as it stands, then every phone applies the same rejoin."""
    m = facts.match
    back = tuple(
        sorted(
            s for s in book.returning if s in facts.linked and s in m.gone and s not in facts.barred
        )
    )
    # (a leaver who left a round unaudited waits, linked, until its replay is over)
    book = replace(book, returning=book.returning & facts.barred)
    if not back or not m.between_rounds:
        return book, ()
    # His keys died with his old phone: everybody sets the dealer up anew for the decks
    # to come (the earlier decks keep their dealers until audited).
    seats = tuple(sorted(set(m.active) | set(back)))
    # (a deck shuffled ahead lacks the returning players: every phone drops it)
    effects: list[Effect] = [Readmit(number, back, seats, book.fresh_deck)]
    book = replace(book, ahead=0, ahead_seats=frozenset())
    for seat in back:
        effects += [Announce(Rejoin(number, seat)), Say("player_back", {"seat": seat})]
    return replace(book, set_up=frozenset(), stage=Stage.SETUP), tuple(effects)
