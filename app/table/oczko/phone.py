"""One phone's copy of the match: the rules engine and the dealer, fed public events.

Every phone (the host's too) runs a :class:`PhoneMatch`: the rules engine in phone
mode (``Match.new(n, me=seat)``: its own cards known, the others' hidden, nothing
happening by itself) and its dealer. The host announces the public events of the match
in order (:mod:`app.table.messages`: ``Go``, ``Deal``, ``CloseDeal``, ``Applied``,
``Left``, ``NewDeck``); every phone applies them to its own engine and dealer, so all
phones stay in the same public state and each checks every state change against its
own copy of the rules. An event the rules refuse is a violation by the host (who
announced it), named as such in :attr:`PhoneMatch.violation`.

What only this phone can see it must announce (``Match.claim_due``): a Persian 21 after
the deal (``Dealt``), and after each of its draws whether the hand is open, at 21 or
bust (``Drew``; also at the start of its turn for a dealt 21). At the showdown every
hand that counts is opened from the dealer's proofs, this phone's own included.

Some events must wait for cards: a phone applies the deal only once its own cards
are open, a draw of its own once the card is open, a showdown once the others have
proven their hands. Events queue up and :meth:`PhoneMatch.pump` applies as many as
it can, in order; the driver calls it after every frame it feeds to the dealer.

What the phone must tell the host (``Dealt``, ``Drew``) and the dealer's frames go to
:attr:`PhoneMatch.outbox`; what the UI may show goes to :attr:`PhoneMatch.log`
(the engine's events, as JSON, and table notices).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from app.cards import Card
from app.rules.errors import IllegalAction
from app.rules.oczko import Match, OczkoOptions, Phase, Status, total_of
from app.rules.oczko.actions import Action, ActionKind
from app.rules.oczko.events import Event, MatchEnded, RoundEnded, RoundStarted
from app.rules.oczko.match import VOID
from app.table.dealer import CLAIM_PERSIAN, CLAIM_SHOWDOWN, Dealer, DealerViolation, Rekeyed
from app.table.messages import (
    Ahead,
    Applied,
    CloseDeal,
    Deal,
    Dealt,
    Drew,
    Go,
    Left,
    Message,
    NewDeck,
    Options,
    ProtocolFrame,
    Rejoin,
    Void,
)
from app.table.phone_copy import PhoneCopy, RoundEnd, RoundEndHook, Waiting, frozen

PublicEvent = Go | Deal | CloseDeal | Applied | Left | NewDeck | Ahead | Rejoin | Void


@dataclass(frozen=True)
class Violation:
    """Somebody broke the rules or the protocol: ``seat`` (None: the host as relay)."""

    seat: int | None
    code: str
    detail: str = ""


@dataclass
class _Deck:
    deck: int
    round: int
    order: tuple[int, ...]
    next_position: int = 0
    holdings: dict[int, list[int]] = field(default_factory=dict)  # seat -> positions


def _is_card(code: int | None) -> TypeGuard[int]:
    """A card code the dealer opened (None: not yet; outside 0-51: never, it was void)."""
    return isinstance(code, int) and 0 <= code < 52


class PhoneMatch(PhoneCopy[Rekeyed]):
    """The match as one phone sees it (``seat`` is this phone's seat). The queue, the
    dealer's frames and work, the log, the fairness record and the round-end hook
    (``on_round_end``: a :class:`~app.table.phone_copy.RoundEnd` per scored round, its
    decks' audits passed) are :class:`~app.table.phone_copy.PhoneCopy`'s."""

    game = "oczko"
    unit = "deck"

    def __init__(
        self,
        seat: int,
        players: int,
        options: Options,
        dealer: Dealer,
        on_log: Callable[[dict[str, Any]], None] | None = None,
        snapshot: dict[str, Any] | None = None,
        first_deck: int = 0,
        on_round_end: RoundEndHook | None = None,
    ) -> None:
        self._init_copy(on_log, on_round_end)
        self.seat = seat
        self.dealer = Rekeyed(dealer, first_deck)
        self.options = options
        if snapshot is None:
            self.match, events = Match.new(players, OczkoOptions(rounds=options.rounds), me=seat)
        else:  # a returning phone: the match as every other phone has it between rounds
            self.match, events = Match.resume(snapshot, me=seat), ()
        self.outbox: list[Message | ProtocolFrame] = []
        self.log: list[dict[str, Any]] = []
        self.violation: Violation | None = None
        self._named: set[int] = set()  # other players named here, for the host to remove
        #: players this phone itself named as cheaters (its own evidence: a frame he
        #: signed, his proven cards, an audit): none of them may be readmitted in this
        #: match (a ``Rejoin`` of one names the host), and a host's ``Void`` for a cheat
        #: must name one of them (issue 30)
        self.cheaters: dict[int, str] = {}  # seat -> the code he was named for
        #: leaver -> the round played in place of one his leaving left unaudited (void):
        #: he may not be readmitted before the round after it (docs/protocol.md 5.1)
        self.unaudited: dict[int, int] = {}
        #: seat -> name, where the table knows them (for :class:`RoundEnd` records)
        self.names: dict[int, str] = {}
        self._round_log: list[dict[str, Any]] = []  # the engine's events of the round
        self._queue: deque[PublicEvent] = deque()
        self._decks: dict[int, _Deck] = {}
        self._deck: _Deck | None = None
        self._ahead: _Deck | None = None  # shuffled in the background for the next round
        self._newest = 0  # the newest deck started here
        self._from_ahead: set[int] = set()  # decks dealt from after a background shuffle
        self._round_decks: dict[int, list[int]] = {}
        self._claimed_showdown: set[int] = set()
        self._claimed_persian: set[int] = set()
        self._released: set[tuple[int, int]] = set()
        self._told_dealt: set[tuple[int, int]] = set()
        self._audits: list[int] = []  # decks whose audit verdict is still to come
        self._finished: set[int] = set()  # decks whose audit this phone has started
        self._dealing: _Deck | None = None  # a deal announced, not yet in the engine
        self._pending_draw: tuple[_Deck, int, int] | None = None  # (deck, seat, position)
        self.cut_off = False  # the card on its way lacks a leaver's part: it never opens
        self.redraw: int | None = None  # a seat whose voided draw the host deals again
        self._announced: set[tuple[int, int]] = set()  # (round, cards) of my Drew reports
        #: a ``Void`` at the head of the queue whose reason this phone cannot check yet
        #: (its evidence may still be on its way): the table bounds the wait
        self.void_waiting: Void | None = None
        self.voided: list[Void] = []  # the voids applied here, each checked (for the screen)
        self._owed_left: int | None = None  # a ``stalled`` void's seat: his Left is next
        self._deck_lefts: set[int] = set()  # seats of the deck in play that left since it began
        self._events(events)

    # -- feeding ----------------------------------------------------------------------------

    def rekey(self, first_deck: int, dealer: Dealer, seats: tuple[int, ...]) -> None:
        """Set the dealer up anew among ``seats`` (a player is back) for the decks from
        ``first_deck`` on."""
        self._drop_ahead()  # (shuffled without the returning players)
        self._send_frames(self.dealer.rekey(first_deck, dealer))
        self.set_up_among(seats)

    def set_up_among(self, seats: tuple[int, ...]) -> None:
        """The dealer's set-up leaves out the seats not in ``seats`` (gone for good)."""
        for seat in range(self.match.players):
            if seat not in seats and seat != self.seat:
                self._send_frames(self.dealer.leave_out(seat))

    def announce(self, event: PublicEvent) -> None:
        """A public event from the host (applied now or as soon as possible)."""
        if self.violation is not None:
            return
        if isinstance(event, Void):
            # What was still to come in the void round (a deal closing on a proof that
            # never opens, a draw, ...) is moot: the round is played again.
            self._queue = deque(e for e in self._queue if getattr(e, "round", 0) != event.round)
        self._queue.append(event)
        self.pump()

    def leave_to_host(self) -> Violation | None:
        """The violation names another player, whom the host removes (voiding the round
        he cheated in): clear it and play on. Until the host has removed him, what he
        still raises here (his hand at the showdown, his next frame) waits for the
        host's ``Void`` and ``Left`` instead of being named again: a phone that stopped
        at each of them dropped those very events, never moved on, and the host dropped
        it as stalled (issue 17). Returns the violation cleared."""
        v = self.violation
        if v is not None and v.seat is not None and v.seat != self.seat:
            self._named.add(v.seat)
            self.violation = None
        return v

    def leaving(self, seat: int) -> bool:
        """True if the host's ``Left`` for ``seat`` waits in my queue (behind a ``Void``
        whose evidence my phone is still working out, say): he is removed already."""
        return any(isinstance(e, Left) and e.seat == seat for e in self._queue)

    @property
    def stopped(self) -> bool:
        """True once this phone named a violation (it takes nothing more in)."""
        return self.violation is not None

    def _dealer_fault(self, exc: DealerViolation) -> None:
        self._violate(exc.seat, exc.code, exc.detail)

    def _work_steps(self, steps: int) -> int:
        # While a deck is shuffled ahead, one step per call: the table reads its links
        # between two steps, so the round in play waits for one bounded step at most.
        return 1 if self._ahead is not None else steps

    def _send_now(self, sent: int) -> bool:
        # Send as you go: a drawn card's key, or my report of the card I drew (``Drew``,
        # made by the pump), goes out before any more background work (issue 17).
        return len(self.outbox) > sent or self._report_due()

    def _collect_verdicts(self) -> None:
        """Each finished deck's audit, once in: shown to the players; a cheat is named."""
        r = self.match.round
        for deck in self._round_decks.get(r.number, []) if r is not None else []:
            # A deck voided in play (a card that did not open: a complaint) is audited
            # before its round ends: its cheater is named at once (then nothing goes on).
            verdict = self.dealer.verdict(deck)
            if verdict is not None and not verdict.ok and deck not in self._audits:
                self._audits.append(deck)
        for deck in list(self._audits):
            verdict = self.dealer.verdict(deck)
            if verdict is None:
                continue
            self._audits.remove(deck)
            self._audited(deck, verdict)
            if not verdict.ok and verdict.cheaters and self.violation is None:
                self._violate(verdict.cheaters[0], "audit_failed", f"deck {deck}")
            for seat in verdict.cheaters if not verdict.ok else ():
                # every seat the audit names is named, the absent too (a leaver whose
                # pass fails): none of them comes back
                if seat != self.seat and seat not in self.cheaters:
                    self.cheaters[seat] = "audit_failed"
                    self._note({"event": "cheat_named", "seat": seat, "code": "audit_failed"})

    def pump(self) -> None:
        """Apply queued public events in order, as far as the cards allow, and do what is
        due meanwhile (reports, proofs, the showdown: the event at the head may be
        waiting for exactly that, e.g. the next round's deck for this round's end)."""
        while self.violation is None:
            applied = self._guarded(self._apply_head)
            before = (len(self.log), len(self.outbox))
            self._guarded(self._run_due)
            if not applied and (len(self.log), len(self.outbox)) == before:
                return

    def _guarded(self, step: Callable[[], bool | None]) -> bool:
        """Run a step; False if it has to wait or it named a violation."""
        try:
            return bool(step())
        except Waiting:
            return False
        except IllegalAction as exc:
            self._violate(None, exc.code, f"the host announced an illegal step: {exc}")
        except DealerViolation as exc:
            self._violate(exc.seat, exc.code, exc.detail)
        return False

    def _apply_head(self) -> bool:
        if not self._queue:
            return False
        event = self._queue[0]
        self._apply(event)
        if self._queue and self._queue[0] is event:  # (a match end clears it)
            self._queue.popleft()
        return True

    def _run_due(self) -> None:
        self._report_deal()
        self._report_draw()
        self._showdown()
        self._due()

    @property
    def shuffle_progress(self) -> float | None:
        """0..1 while the dealer is set up or the deal's deck is shuffled and my cards
        are not open yet (for a progress bar); None otherwise."""
        if self.violation is not None or self.match.over:
            return None
        if not self.dealer.ready:
            return 0.5 * self.dealer.progress(0)  # the set-up: the first half of the bar
        deck = self._dealing
        if deck is None or (deck.round, deck.deck) in self._told_dealt:
            return None
        return min(0.99, 0.5 + 0.5 * self.dealer.progress(deck.deck))

    @property
    def shuffle_note(self) -> tuple[str, tuple[int, ...]] | None:
        """While :attr:`shuffle_progress` shows: what runs (``setup``, ``shuffle``, or
        ``ahead``: the deal from a deck shuffled during the last round) and the other
        players whose part this phone still lacks, so a slow phone is named on screen."""
        if self.shuffle_progress is None:
            return None
        stage, deck = "setup", 0
        if self.dealer.ready and self._dealing is not None:
            deck = self._dealing.deck
            stage = "ahead" if deck in self._from_ahead else "shuffle"
        lacking = self.dealer.waiting_for(deck) - {self.seat}
        return stage, tuple(sorted(lacking))

    def dealt_ahead(self, number: int) -> bool:
        """True if round ``number`` is dealt from a deck shuffled during the last round."""
        decks = self._round_decks.get(number, [])
        return bool(decks) and decks[-1] in self._from_ahead

    # -- helpers ----------------------------------------------------------------------------

    def barred(self, number: int) -> set[int]:
        """The players who may not be readmitted before round ``number``: every cheater
        this phone named, and a leaver whose leaving voided a round not yet replayed."""
        late = {s for s, replay in self.unaudited.items() if replay >= number}
        return set(self.cheaters) | late

    def _violate(self, seat: int | None, code: str, detail: str) -> None:
        if seat is not None and seat != self.seat:
            self.cheaters.setdefault(seat, code)  # (named here: out for the rest of the match)
        if seat is not None and seat in self._named:
            return  # (named already: the host's Void and Left settle it)
        self.violation = Violation(seat, code, detail)
        self._note({"event": "violation", "seat": seat, "code": code, "detail": detail})

    def _events(self, events: tuple[Event, ...]) -> None:
        for event in events:
            entry = event.to_json()
            self._note(entry)
            if isinstance(event, RoundStarted):
                self._round_log = []
            self._round_log.append(entry)
            if isinstance(event, RoundEnded):
                for deck in self._round_decks.get(event.round, []):
                    self._finish(deck)
                if event.reason != VOID:
                    self._round_ended(event)
            if isinstance(event, MatchEnded):
                self._queue.clear()
                self.void_waiting = None
                self._drop_ahead()

    def _round_ended(self, event: RoundEnded) -> None:
        """Round ``event.round`` is scored (its decks' audits passed: ``_settle``)."""
        if self.on_round_end is None:
            return
        started = next((e for e in self._round_log if e.get("event") == "round_started"), {})
        seats = tuple(started.get("order", ()))
        decks = self._round_decks.get(event.round, [])
        verdicts = {d: v for d in decks if (v := self.dealer.verdict(d)) is not None}
        cheaters = sorted({c for v in verdicts.values() for c in v.cheaters})
        self._round_end(
            RoundEnd(
                self.game,
                event.round,
                tuple((s, self.names.get(s, "")) for s in seats),
                tuple(frozen(e) for e in self._round_log),
                frozen(event.to_json()),
                self.dealer.fingerprint,
                tuple(verdicts),
                all(v.ok for v in verdicts.values()),
                tuple(cheaters),
            )
        )

    def _finish(self, deck: int) -> None:
        """Start the audit of ``deck`` (once).

        A deck nothing was dealt from (a fresh deck the round ended before using) is
        closed unaudited instead: no card of it was in play, so its audit could change
        no result, and every phone closes it at the same public event. Its shuffle may
        still be under way on a slow phone, whose frames of it, sent before that phone
        heard of the round's end, are then moot on every phone rather than a protocol
        offence (or a seed revealed before the rest of the deck arrived: issue 17).
        Decks that were dealt from are audited as before, the round scored only after.
        """
        if deck in self._finished:
            return
        self._finished.add(deck)
        if not self._decks[deck].next_position and not self.dealer.disputed(deck):
            self.dealer.suspend_deck(deck)
            if deck in self._audits:
                self._audits.remove(deck)  # (nothing audited: nothing to show)
        self._send_frames(self.dealer.finish_deck(deck))

    def _send_frames(self, frames: list[bytes]) -> None:
        self.outbox.extend(ProtocolFrame(f) for f in frames)

    def _act(
        self, kind: ActionKind, seat: int | None = None, cards: tuple[Card | None, ...] = ()
    ) -> None:
        """Apply one action to this phone's copy of the match (the engine contract)."""
        self._step(self.match.apply(Action(kind, seat, cards)))

    def _step(self, result: tuple[Match, tuple[Event, ...]]) -> None:
        m, events = result
        for event in events:
            if isinstance(event, RoundEnded) and event.reason != VOID:
                absent = self._settle(event.round, m)
                if absent:
                    # A deck of the round lacks a leaver's seed: it can never be audited,
                    # so the round is void, not scored (the ending step is dropped: the
                    # round ends as void instead, from the state before it).
                    self._void_unaudited(event.round, absent)
                    return
        self.match = m
        self._events(events)

    def _settle(self, number: int, after: Match) -> set[int]:
        """A round's result stands only once its decks' audits have passed on this phone:
        Waiting until then (the audit is started here). A deck that fails names its
        cheater (:meth:`work`); the host then voids the round on every phone.

        A deck a player left is audited with the seed he revealed before he left (his
        frames all came through the host before his ``Left``, so every phone holds the
        same): a failing pass names him even in his absence. A deck cards were dealt
        from whose leaver had not revealed his seed can never be audited: the seats
        whose seeds it lacks are returned, and the round is void, not scored (a stacked
        hand must not stand because its stacker left before the verdict, issue 30). So
        can a deck whose player's ``Left`` waits in the queue behind this round's end:
        his seed is gone as surely, and the round's end must not wait for it (issue 17).
        Every phone gets the same events in the same order, so each ends the round
        alike: audited, or void."""
        pending = False
        gone = set(after.gone) | {e.seat for e in self._queue if isinstance(e, Left)}
        absent: set[int] = set()
        for deck_id in self._round_decks.get(number, []):
            missing = self._unrevealed(deck_id, gone)
            if missing:
                if self._played(deck_id):
                    absent |= missing
                continue
            self._finish(deck_id)
            verdict = self.dealer.verdict(deck_id)
            pending = pending or verdict is None or bool(verdict.cheaters)
        if absent:
            return absent
        if pending:
            raise Waiting
        return set()

    def _unrevealed(self, deck_id: int, gone: set[int]) -> set[int]:
        """The players of ``deck_id`` among ``gone`` whose seed its audit lacks."""
        order = self._decks[deck_id].order
        return {s for s in order if s in gone and not self.dealer.revealed(deck_id, s)}

    def _played(self, deck_id: int) -> bool:
        """True if a card of ``deck_id`` is in a hand that counts (a deal still being
        checked, voided by a dropout before any engine saw it, does not)."""
        deck = self._decks[deck_id]
        return deck is not self._dealing and any(deck.holdings.values())

    def _void_unaudited(self, number: int, absent: set[int]) -> None:
        """Round ``number`` cannot be audited (``absent`` left without revealing the seed
        a deck dealt from needs): it is void on every phone, alike, at the same public
        event; each leaver sits out the round played in its place (a free void for
        leaving a losing hand would be a reroll; per the rules, leaving mid-round counts
        as bust for that round, and the void's replay stands in for it)."""
        seats = sorted(absent)
        self._void_round(number, {"event": "round_void", "round": number, "unaudited": seats})
        r = self.match.round
        replay = r.number if r is not None else number
        for seat in seats:
            self.unaudited[seat] = replay

    def decks_of(self, number: int) -> list[int]:
        """The decks round ``number`` was dealt from (more than one after a dropout)."""
        return list(self._round_decks.get(number, []))

    def settling(self, number: int) -> list[int]:
        """The decks of round ``number`` whose audit this phone has started and which have
        no verdict yet (the table's watchdog names whoever keeps his seed)."""
        return [
            d
            for d in self._round_decks.get(number, [])
            if d in self._finished and self.dealer.verdict(d) is None
        ]

    def auditing(self) -> list[int]:
        """The decks whose audit this phone has started and which have no verdict yet."""
        return [d for d in self._finished if self.dealer.verdict(d) is None]

    def _card(self, deck: int, position: int) -> Card:
        code = self.dealer.card(deck, position)
        if not _is_card(code):
            raise Waiting  # not open yet, or never (a wrong key: the audit names him)
        return Card.from_code(code)

    def _check_round(self, number: int) -> None:
        r = self.match.round
        if (
            not self.match.over
            and r is not None
            and r.number < number
            and r.phase in (Phase.DEAL_CHECK, Phase.SHOWDOWN)
        ):
            raise Waiting  # the host is ahead: the proofs that end my round are on their way
        if self.match.over or r is None or r.number != number:
            raise IllegalAction("wrong_phase", f"round {number} is not being played")

    # -- public events ----------------------------------------------------------------------

    def _apply(self, event: PublicEvent) -> None:
        owed = self._owed_left
        if owed is not None:
            # A round void because a player held its audit up goes with his removal,
            # announced right after: a host that voids and keeps him voided for nothing.
            if not (isinstance(event, Left) and event.seat == owed):
                raise IllegalAction("unjustified_void", f"seat {owed} stalled, yet stays")
            self._owed_left = None
        if isinstance(event, Left) and self._deck is not None and event.seat in self._deck.order:
            self._deck_lefts.add(event.seat)
        if isinstance(event, Left) and self._ahead is not None and event.seat in self._ahead.order:
            self._drop_ahead()  # his keys are in it: the host has a fresh one shuffled
        if isinstance(event, Go | NewDeck):
            self._start_deck(event)
        elif isinstance(event, Ahead):
            self._shuffle_ahead(event)
        elif isinstance(event, Deal):
            self._deal(event)
        elif isinstance(event, CloseDeal):
            self._close_deal(event)
        elif isinstance(event, Applied):
            self._applied(event)
        elif isinstance(event, Left) and event.seat in self.match.active and not self.match.over:
            self._judge_leaver(event.seat)
            pending = self._pending_draw
            if pending is not None and pending[1] == event.seat:
                self._pending_draw = None  # his card will never open: he is bust anyway
            elif (
                pending is not None
                and event.seat in pending[0].order
                and not self.dealer.shared(pending[0].deck, pending[2], event.seat)
            ):
                # Another player's card on its way still needed the leaver's key: it can
                # never open. Had the key come, the card stands (the host then waits for
                # it before the fresh deck): a drawer who saw a bad card must not get a
                # new one by a friend's leaving. The leaver's frames all came through
                # the host before his Left, so every phone agrees. A watcher (a seat
                # outside a tiebreak) has no key in the deck: his leaving cuts nothing
                # off (issue 17, soak seed 270039).
                self.cut_off = True
            if self.redraw == event.seat:
                self.redraw = None
            self.dealer.left(event.seat)
            if not self.dealer.ready:
                # Gone before the dealer was set up: set up without him (every phone
                # saw the same frames of his, all relayed before his Left).
                self._send_frames(self.dealer.leave_out(event.seat))
            self._act(ActionKind.DISCONNECT, event.seat)
            if event.seat in self.match.active and not self.match.over:
                # His leaving ended the round, which a deck of his seed it lacks left
                # void (``_settle``): he leaves the round played in its place.
                self._act(ActionKind.DISCONNECT, event.seat)
        elif isinstance(event, Rejoin):
            self._check_round(event.round)  # (Waiting while my previous round still ends)
            if event.seat in self.barred(event.round):
                # My own evidence keeps him out: a host that lets him back is named.
                raise IllegalAction(
                    "barred_rejoin", f"seat {event.seat} may not come back now", seat=event.seat
                )
            self._act(ActionKind.REJOIN, event.seat)
        elif isinstance(event, Void):
            self._void(event)

    def _judge_leaver(self, seat: int) -> None:
        """``seat`` leaves during a round. Having complained about a deck without
        revealing the seed the complaint's audit needs, he is named (every phone holds
        his signed complaint and saw no seed of his before his ``Left``): a complaint he
        would not stand behind, only to void the round. (A deck of a round the host
        voided just before his ``Left`` counts too.)"""
        dealer = self.dealer
        open_decks = [d for d in self._decks if dealer.verdict(d) is None]
        if seat in self.cheaters:
            return  # (named already; a Left retried after waiting comes here again)
        if any(dealer.complained(d, seat) and not dealer.revealed(d, seat) for d in open_decks):
            self.cheaters[seat] = "kept_seed"
            self._note({"event": "cheat_named", "seat": seat, "code": "kept_seed"})

    def _void(self, event: Void) -> None:
        """The round does not count: it is played again. Its decks deal no more; one
        under audit (a complaint, or the round's end) is audited on, the others are
        closed unaudited. Only for a reason this phone can check itself (issue 30):
        until it can, the void waits (:attr:`void_waiting`, the table bounds the wait
        and then names the host, ``unjustified_void``). A round that has counted here
        (its audit passed on this phone while the void waited) had no cheat to void."""
        if any(h.number == event.round for h in self.match.history):
            raise IllegalAction("unjustified_void", f"round {event.round} counted here")
        self._check_round(event.round)
        if not self._void_justified(event):
            self.void_waiting = event
            raise Waiting
        self.void_waiting = None
        self.voided.append(event)
        if event.reason == "stalled":
            self._owed_left = event.seat
        self._void_round(event.round, {"event": "round_void", "round": event.round})

    def _void_round(self, number: int, note: dict[str, Any]) -> None:
        """Round ``number`` does not count here: its decks deal no more (one under audit,
        a complaint's or the round's end, is audited on: it still names the cheaters on
        this phone; the others are closed unaudited), and the engine voids it."""
        for deck_id in self._round_decks.get(number, []):
            if deck_id in self._finished or self.dealer.disputed(deck_id):
                continue
            self.dealer.suspend_deck(deck_id)
            self._finish(deck_id)
        self._dealing = None
        self._pending_draw = None
        self.cut_off = False
        self.redraw = None
        self._note(note)
        self._step(self.match.void_round())

    def _void_justified(self, event: Void) -> bool:
        """What this phone holds backs ``event``'s reason: it named the seat itself
        (``cheat``), it holds a complaint about a deck of the round (``dispute``, also
        enough for ``stalled``), or its own audit of a deck of the round waits for the
        seat's part (``stalled``)."""
        decks = self._round_decks.get(event.round, [])
        if any(self.dealer.disputed(d) for d in decks):
            return event.reason != "cheat" or event.seat in self.cheaters
        if event.reason == "cheat":
            return event.seat in self.cheaters
        if event.reason == "stalled" and event.seat is not None:
            return any(
                d in self._finished
                and event.seat in self._decks[d].order
                and self.dealer.verdict(d) is None
                and event.seat in self.dealer.waiting_for(d)
                for d in decks
            )
        return False

    def _start_deck(self, event: Go | NewDeck) -> None:
        self._check_round(event.round)
        if event.deck <= self._newest:
            raise IllegalAction("wrong_phase", f"deck {event.deck} is not new")
        pending = self._pending_draw is not None and not self.cut_off  # (wrong_phase below)
        if isinstance(event, NewDeck) and not self._deck_lefts and not pending:
            # A fresh deck mid-round (the deal dealt again, or the cards still to draw
            # replaced) only after a player of the deck in play left: else a host could
            # deal again any deal it did not like (issue 30).
            raise IllegalAction("unjustified_void", f"deck {event.deck}: nobody left")
        self._deck_lefts = set()
        if isinstance(event, Go):
            self._drop_ahead()  # the host chose a fresh deck (the players changed)
        r = self.match.round
        assert r is not None
        order = tuple(s for s in r.order if s in self.match.active)
        if isinstance(event, NewDeck):
            if self._deck is not None:
                voided: list[int] = []
                if self._dealing is self._deck:
                    # A dropout voided the deal before any engine saw it: forget it (the
                    # dealer keeps the positions: a Persian claim may still be on its
                    # way, and nobody proves anything else from this deck).
                    self._deck.holdings.clear()
                    self._dealing = None
                if self._pending_draw is not None and not self.cut_off:
                    raise IllegalAction("wrong_phase", "the card on its way can still open")
                if self._pending_draw is not None:
                    # Likewise a card on its way that can never open: the host deals it
                    # again from the new deck. Every phone voids it in the dealer too, so
                    # the drawer's proof of the cards he kept checks out everywhere.
                    old, drawer, position = self._pending_draw
                    old.holdings[drawer].remove(position)
                    voided.append(position)
                    self._pending_draw = None
                    self.redraw = drawer
                    self._note({"event": "card_voided", "round": event.round, "seat": drawer})
                self.cut_off = False
                self.dealer.suspend_deck(self._deck.deck, voided)
            self._act(ActionKind.NEW_DECK)
        deck = _Deck(event.deck, event.round, order)
        self._decks[event.deck] = deck
        self._deck = deck
        self._newest = event.deck
        self._round_decks.setdefault(event.round, []).append(event.deck)
        self._audits.append(event.deck)  # (a complaint may bring its verdict early)
        # Every phone is told (a seat outside ``order``, e.g. in a tiebreak, only follows).
        self._send_frames(self.dealer.start_deck(event.deck, order))

    def _shuffle_ahead(self, event: Ahead) -> None:
        """Start the next round's deck among the players of the round in play; its
        shuffle runs in the dealer's background work, after the round in play's."""
        self._check_round(event.round)
        r = self.match.round
        assert r is not None
        if r.phase is not Phase.PLAY or self._ahead is not None or event.deck <= self._newest:
            raise IllegalAction("wrong_phase", f"deck {event.deck} is not to be shuffled ahead")
        order = self.match.next_round_order
        deck = _Deck(event.deck, 0, order)
        self._decks[event.deck] = deck
        self._ahead = deck
        self._newest = event.deck
        self._send_frames(self.dealer.start_deck(event.deck, order))

    def _adopt_ahead(self, event: Deal) -> _Deck:
        """The round deals from the deck shuffled ahead: it must be among its players."""
        self._check_round(event.round)
        deck, r = self._ahead, self.match.round
        assert deck is not None and r is not None
        players = {s for s in r.order if s in self.match.active}
        if deck.round or set(deck.order) != players:
            raise IllegalAction("wrong_phase", f"deck {deck.deck} was shuffled among others")
        deck.round = event.round
        self._deck_lefts = set()
        self._from_ahead.add(deck.deck)
        self._ahead = None
        self._deck = deck
        self._round_decks.setdefault(event.round, []).append(deck.deck)
        self._audits.append(deck.deck)
        return deck

    def _drop_ahead(self) -> None:
        """The deck shuffled ahead will not be dealt from: suspended, never audited (no
        card of it was ever in play), the same on every phone. Not closed: as the newest
        deck of this phone's dealer it carries the escrow releases of the round in play
        (a player who held and left at the showdown), which a closed deck ignores."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            self.dealer.suspend_deck(ahead.deck)

    def _current(self, number: int, deck_id: int | None = None) -> _Deck:
        self._check_round(number)
        deck = self._deck
        if deck is None or deck.round != number or (deck_id is not None and deck.deck != deck_id):
            raise IllegalAction("wrong_phase", "no such deck in play")
        return deck

    def _deal(self, event: Deal) -> None:
        """Assign the deal's positions; the engine gets the deal only with ``CloseDeal``,
        once every phone has opened its cards (a dropout before that voids the deal:
        the host starts a fresh deck and deals again, and no engine has seen a card)."""
        ahead = self._ahead is not None and self._ahead.deck == event.deck
        deck = self._adopt_ahead(event) if ahead else self._current(event.round, event.deck)
        r = self.match.round
        assert r is not None
        if r.phase is not Phase.DEAL or deck.next_position != 0:
            raise IllegalAction("wrong_phase", "nothing to deal")
        players = [s for s in r.order if not r.hand(s).dropped]
        assignments = [(k, players[k % len(players)]) for k in range(2 * len(players))]
        for position, seat in assignments:
            deck.holdings.setdefault(seat, []).append(position)
        deck.next_position = len(assignments)
        self._dealing = deck
        self._send_frames(self.dealer.deal(deck.deck, assignments))

    def _lock_ahead(self, deck: _Deck) -> None:
        """Keep a card per player locked beyond the next one to draw, in the background:
        a draw from a position not yet locked waits for a locking pass around the whole
        table (about 2 s at 7 phones, issue 17). A public point of the match, the same
        on every phone."""
        self.dealer.extend(deck.deck, deck.next_position + len(deck.order))

    def _report_due(self) -> bool:
        """True once a card I must report on is open: the one I draw, or my dealt
        cards (the pump then makes the report: ``Drew``, ``Dealt``)."""
        pending = self._pending_draw
        if pending is not None and pending[1] == self.seat:
            return _is_card(self.dealer.card(pending[0].deck, pending[2]))
        deck = self._dealing
        if deck is None or (deck.round, deck.deck) in self._told_dealt:
            return False
        mine = deck.holdings.get(self.seat) or []
        return bool(mine) and all(_is_card(self.dealer.card(deck.deck, p)) for p in mine)

    def _report_draw(self) -> None:
        """Once the card I draw is open: tell the host what my hand is now."""
        pending = self._pending_draw
        if pending is None or pending[1] != self.seat or self.match.round is None:
            return
        deck, _, position = pending
        key = (self.match.round.number, position + 1000 * deck.deck)
        code = self.dealer.card(deck.deck, position)
        if not _is_card(code) or key in self._announced:
            return
        self._announced.add(key)
        hand = self.match.round.hand(self.seat)
        total = total_of((*hand.cards, Card.from_code(code)))
        status = "open" if total is None or total < 21 else "21" if total == 21 else "bust"
        self.outbox.append(Drew(self.match.round.number, deck.deck, status))

    def _report_deal(self) -> None:
        """Once my dealt cards are open: tell the host (and prove a Persian 21)."""
        deck = self._dealing
        if deck is None or (deck.round, deck.deck) in self._told_dealt:
            return
        mine = deck.holdings.get(self.seat)
        if not mine:
            return
        codes = [self.dealer.card(deck.deck, p) for p in mine]
        if not all(_is_card(c) for c in codes):
            return  # (a card that did not open: my complaint voids the deck)
        self._told_dealt.add((deck.round, deck.deck))
        persian = all(Card.from_code(c).rank == 1 for c in codes if c is not None)
        if persian:
            self._send_frames(self.dealer.claim(deck.deck, CLAIM_PERSIAN))
        self.outbox.append(Dealt(deck.round, deck.deck, persian))

    def _proven(self, seat: int, number: int) -> list[Card]:
        """``seat``'s cards of round ``number`` as proven through the dealer (or Waiting)."""
        cards: list[tuple[int, int, Card]] = []
        for deck_id in self._round_decks.get(number, []):
            deck = self._decks[deck_id]
            positions = deck.holdings.get(seat, [])
            if not positions:
                continue
            claimed = self.dealer.claimed(deck_id, seat)
            if claimed is None or any(p not in claimed for p in positions):
                raise Waiting
            cards += [(deck_id, p, Card.from_code(claimed[p])) for p in positions]
        return [c for _, _, c in sorted(cards, key=lambda t: (t[0], t[1]))]

    def _close_deal(self, event: CloseDeal) -> None:
        deck = self._current(event.round)
        r = self.match.round
        assert r is not None
        if r.phase is Phase.DEAL_CHECK and self._dealing is None:
            pass  # dealt already: this close waited for a proof or the deck's audit
        elif r.phase is not Phase.DEAL or self._dealing is not deck:
            raise IllegalAction("wrong_phase", "the deal is not being checked")
        else:
            # Every phone has opened its cards: the deal goes into the engine (mine
            # known, the others hidden), in the engine's own dealing order.
            cards = [self._card(deck.deck, p) for p in deck.holdings.get(self.seat, [])]
            given = 0
            while self.match.to_deal is not None:
                seat = self.match.to_deal
                card = None
                if seat == self.seat:
                    card, given = cards[given], given + 1
                self._act(ActionKind.DEAL, None, (card,))
            self._dealing = None
        r = self.match.round
        if r is None or r.number != event.round or r.phase is not Phase.DEAL_CHECK:
            return  # the deal decided the round (everybody else left meanwhile)
        self._lock_ahead(deck)
        for seat in event.persian:  # proven by the dealer, the owner's own phone included
            if not r.hand(seat).shown:  # (not opened by an earlier try)
                self._step(self._reveal(seat, self._proven(seat, event.round)[:2]))
                r = self.match.round
                assert r is not None
                if r.number != event.round:
                    return  # (void meanwhile: a deck of it can never be audited)
        self._act(ActionKind.CLOSE_DEAL)

    def _applied(self, event: Applied) -> None:
        deck = self._current(event.round)
        seat, action = event.seat, event.action
        if action == "draw":
            # The card is dealt (a public event); the engine gets the draw with "drawn",
            # once the drawer's card is open. A dropout before that voids the draw.
            if self.match.to_act != seat or self._pending_draw is not None:
                raise IllegalAction("not_your_turn", f"seat {seat} is not to draw")
            self.redraw = None
            position = deck.next_position
            deck.next_position += 1
            deck.holdings.setdefault(seat, []).append(position)
            self._pending_draw = (deck, seat, position)
            self._send_frames(self.dealer.deal(deck.deck, [(position, seat)]))
        elif action == "drawn":
            pending = self._pending_draw
            if pending is None or pending[1] != seat:
                raise IllegalAction("not_your_turn", f"seat {seat} has no card coming")
            if self.cut_off:
                raise IllegalAction("wrong_phase", f"seat {seat}'s card can never open")
            card = self._card(pending[0].deck, pending[2]) if seat == self.seat else None
            self._act(ActionKind.DRAW, seat, (card,))
            self._pending_draw = None
            self._lock_ahead(deck)  # (after the card: the last shuffler's work goes first)
        elif action == "bust":
            self._act(ActionKind.BUST, seat)
        elif action in ("hold", "21"):
            self._act(ActionKind.HOLD, seat)
        elif action == "forfeit":
            self._act(ActionKind.FORFEIT, seat)
        elif action == "timeout":
            self._act(ActionKind.TIMEOUT, seat)

    def _reveal(self, seat: int, cards: list[Card]) -> tuple[Match, tuple[Event, ...]]:
        """Open ``seat``'s proven cards in the engine. Cards the dealer proved but the
        rules refuse (a bust hand he said was open and then held, ...) contradict what
        he announced about his own hand: he is named, not the host who relayed it. A
        card proven twice means the deck is bad: its audit (started here) names who."""
        try:
            return self.match.apply(Action(ActionKind.REVEAL, seat, tuple(cards)))
        except IllegalAction as exc:
            if seat == self.seat:
                raise
            if exc.code == "duplicate_card":
                r = self.match.round
                for deck_id in self._round_decks.get(r.number if r else 0, []):
                    self._finish(deck_id)
                raise Waiting from exc
            raise DealerViolation(seat, exc.code, f"his cards contradict his moves: {exc}") from exc

    def _claim_showdown(self, number: int) -> None:
        if number in self._claimed_showdown:
            return
        self._claimed_showdown.add(number)
        for deck_id in self._round_decks.get(number, []):
            if self._decks[deck_id].holdings.get(self.seat):
                self._send_frames(self.dealer.claim(deck_id, CLAIM_SHOWDOWN))

    def _showdown(self) -> None:
        """At the showdown: prove my hand once, open every hand as its proof arrives."""
        m = self.match
        if m.over or m.round is None or m.round.phase is not Phase.SHOWDOWN:
            return
        number = m.round.number
        if self.seat in m.to_reveal:
            self._claim_showdown(number)
        for seat in m.to_reveal:
            if seat in m.gone and (number, seat) not in self._released:
                # A held result of a player who left: those who can, open it for him.
                self._released.add((number, seat))
                for deck_id in self._round_decks.get(number, []):
                    if self._decks[deck_id].holdings.get(seat):
                        self._send_frames(self.dealer.release(deck_id, seat))
        for seat in m.to_reveal:
            try:
                cards = self._proven(seat, number)
            except Waiting:
                continue  # another hand may open meanwhile
            self._step(self._reveal(seat, cards))
            if self.match.round is None or self.match.round.phase is not Phase.SHOWDOWN:
                return
        if self.match.to_reveal:
            raise Waiting

    def _due(self) -> None:
        """What only I can do: say I was dealt 21 when my turn starts; once I hold, make
        my hand openable by those who have finished their turn (should I drop out)."""
        m = self.match
        r = m.round
        if (
            not m.over
            and r is not None
            and r.phase is Phase.PLAY
            and self._deck is not None
            and self.seat in r.order
            and r.hand(self.seat).status is Status.HELD
        ):
            finished = [
                s for s in r.order if s != self.seat and r.hand(s).status is not Status.PLAYING
            ]
            self._send_frames(self.dealer.held(self._deck.deck, finished))
        if (
            m.over
            or r is None
            or m.to_act != self.seat
            or self._pending_draw is not None
            or self._deck is None
        ):
            return
        key = (r.number, len(r.hand(self.seat).cards))
        due = m.claim_due(self.seat)
        if due in ("hold", "bust") and key not in self._announced:
            self._announced.add(key)
            self.outbox.append(Drew(r.number, self._deck.deck, "21" if due == "hold" else "bust"))
