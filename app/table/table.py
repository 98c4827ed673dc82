"""The networked Oczko table: the lobby plus the match, for the host and for a guest.

:class:`HostTable` is the host's phone: it seats guests (:class:`~app.table.lobby.HostLobby`),
then sequences the match. It announces every public event (``Go``, ``Deal``,
``CloseDeal``, ``Turn``, ``Applied``, ``Left``, ``NewDeck``) to every guest and applies
it to its own :class:`~app.table.play.PhoneMatch`; it relays every dealer frame a
guest sends (after its own dealer authenticated it) to every other guest; it enforces
the turn timer (``turn_time`` seconds per decision, expiry = hold) with the injected
clock and announces the time left with every ``Turn``, so every phone shows it.

:class:`GuestTable` is a guest's phone: it applies the host's events to its own copy
and refuses any the rules refuse (a violation by the host, named; the guest leaves).

Disconnects: a guest whose link drops mid-match is out for the match (``Left``: bust
in the round in play unless his result was decided); the round goes on with a fresh
deck (``NewDeck``). A guest that does not report a drawn card in time is treated as
disconnected (nobody else can know whether he went bust). The host leaving ends the
table on every phone (``Bye("host_left")``).

Bots: pass ``bot=simple_bot`` to let a seat play itself (``blu21 demo``).
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Any

from app.bluetooth.link import LinkInbox, Listener
from app.rules.errors import IllegalAction
from app.rules.oczko import Phase
from app.table.clock import Clock
from app.table.dealer import Dealer, DealerViolation, OpenDealer
from app.table.errors import TableError
from app.table.limits import FrameBudget, frame_deck
from app.table.lobby import GuestLobby, HostLobby, Notice
from app.table.messages import (
    Act,
    Applied,
    Begin,
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
    Rekey,
    Resume,
    SetUp,
    Turn,
    Void,
)
from app.table.play import PhoneMatch

DealerFactory = Callable[[int, int], Dealer]  # (my seat, players) -> dealer
Bot = Callable[[PhoneMatch], str | None]


def simple_bot(phone: PhoneMatch) -> str | None:
    """A sensible bot: draw below 15, hold from 15 (an ace counts 11, so 15 + anything
    above 6 busts). None if it cannot decide yet (its hand is not open)."""
    r = phone.match.round
    if r is None or r.to_act != phone.seat:
        return None
    total = r.hand(phone.seat).total
    if total is None:
        return None
    return "draw" if total < 15 else "hold"


class HostTable(HostLobby):
    """The host's phone (seat 0): lobby, then the match's sequencer and relay."""

    def __init__(
        self,
        listener: Listener,
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        dealer_factory: DealerFactory,
        options: Options | None = None,
        bot: Bot | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        on_log: Callable[[dict[str, Any]], None] | None = None,
        round_pause: float = 0.0,
    ) -> None:
        super().__init__(
            listener,
            player_id=player_id,
            name=name,
            lang=lang,
            clock=clock,
            options=options,
            on_notice=on_notice,
        )
        self._dealer_factory = dealer_factory
        self.bot = bot
        self._on_log = on_log
        self.phone: PhoneMatch | None = None
        self.stage = "lobby"  # lobby, setup, play, over
        self._set_up: set[int] = set()
        self._deck = 0
        self._went: set[int] = set()  # rounds whose deck was started
        self._dealt: dict[int, set[int]] = {}
        self._persian: dict[int, set[int]] = {}
        self._closed_deal: set[int] = set()
        self._turn_key: tuple[int, int, int] | None = None
        self._drawing: int | None = None  # seat whose drawn card we wait to hear about
        self._drawing_deck = 0  # the deck that card comes from
        self._deck_due = False  # a fresh deck, once the card on its way is in
        self._auto21: dict[int, set[int]] = {}  # round -> seats dealt 21 (held by themselves)
        self._pending_left: list[tuple[int, str]] = []
        self._stall_key: object = None
        self._returning: set[int] = set()  # seats back on a new link, to rejoin next round
        self._budget = FrameBudget()  # what each guest's dealer frames may cost
        #: seconds between a round's end and the next deal, so every phone can show the
        #: result long enough to read it (the app's tables; 0 for bots and tests)
        self.round_pause = round_pause
        self._paused: set[int] = set()  # rounds whose pause has begun

    # -- the match ------------------------------------------------------------------------

    def begin(self) -> None:
        """Start the match (everyone ready): set the dealers up, then play."""
        seating = self.start()
        players = len(seating.sitters)
        self.broadcast(Begin(players, seating.options))
        self.phone = PhoneMatch(
            0, players, seating.options, self._dealer_factory(0, players), on_log=self._on_log
        )
        if not seating.options.secret:
            self.notice("open_dealer")  # every phone says the cards are not secret
        self._relay_out(self.phone.dealer.hello())
        self.stage = "setup"
        self._drive()

    def act(self, action: str) -> None:
        """The host player's own decision."""
        if self.phone is not None and self.phone.match.round is not None:
            self._act(0, action)

    def _announce(self, event: Any) -> None:
        self.broadcast(event)
        assert self.phone is not None
        self.phone.announce(event)
        self._flush()

    def _relay_out(self, frames: list[bytes]) -> None:
        for frame in frames:
            self.broadcast(ProtocolFrame(frame))

    def _flush(self) -> None:
        """Send what the host's own phone produced (frames to all; reports to itself)."""
        phone = self.phone
        while phone is not None and phone.outbox:
            item = phone.outbox.pop(0)
            if isinstance(item, ProtocolFrame):
                self.broadcast(item)
            else:
                self._report(0, item)

    def on_game_message(self, seat: int, message: Message | ProtocolFrame) -> None:
        phone = self.phone
        if phone is None:
            raise TableError("bad_message", "the match has not begun")
        if isinstance(message, ProtocolFrame):
            # Charged to the seat of the link it came on: past a limit, he is dropped.
            _, deck = frame_deck(message.data, phone.dealer)
            self._budget.charge(seat, message.data, deck=deck, newest=self._deck)
            try:
                phone.dealer.authenticate(message.data)
            except DealerViolation as exc:
                raise TableError("cheat", f"{exc.code}: {exc.detail}") from exc
            self.broadcast(message, skip=seat)  # unchanged, in arrival order
            phone.frame(message.data)
            self._flush()
        elif isinstance(message, Act):
            if message.round != self._round():
                return  # a late click from an earlier round
            self._act(seat, message.action)
        else:
            self._report(seat, message)
        self._drive()

    def _round(self) -> int | None:
        r = self.phone.match.round if self.phone else None
        return None if r is None else r.number

    def _report(self, seat: int, message: Message) -> None:
        if isinstance(message, SetUp):
            self._set_up.add(seat)
        elif isinstance(message, Dealt):
            if message.deck != self._deck:
                return  # a report on a deal a dropout has voided
            self._dealt.setdefault(message.round, set()).add(seat)
            if message.persian:
                self._persian.setdefault(message.round, set()).add(seat)
        elif isinstance(message, Drew):
            if self._drawing != seat and message.status == "21":
                self._auto21.setdefault(message.round, set()).add(seat)  # dealt 21
            elif (
                self._drawing == seat
                and message.round == self._round()
                and message.deck == self._drawing_deck  # not on a card a dropout voided
            ):
                self._drawing = None
                self.timers.cancel("drew")
                self._announce(Applied(message.round, seat, "drawn"))
                if message.status in ("bust", "21"):
                    self._announce(Applied(message.round, seat, message.status))
                else:
                    self._turn_key = None  # a new decision, a new clock
        else:
            raise TableError("bad_message", f"{type(message).__name__} is not for the host")

    def _act(self, seat: int, action: str) -> None:
        phone = self.phone
        assert phone is not None
        m = phone.match
        if self.stage != "play" or phone.waiting or self._drawing is not None:
            return
        if m.round is None or m.round.phase is not Phase.PLAY or m.to_act != seat:
            return  # not his turn (a late click): ignored
        self.timers.cancel("turn")
        number = m.round.number
        if action == "draw":
            self._drawing, self._drawing_deck = seat, self._deck
            self.timers.set("drew", float(self.seating.options.turn_time))
        self._announce(Applied(number, seat, action))
        self._drive()

    def _drive(self) -> None:
        """Decide the next public event, if any is due."""
        phone = self.phone
        if phone is None or self.closed:
            return
        for _ in range(20):  # a few events may follow each other at once
            before = (len(phone.log), self._deck, self._turn_key, len(self._closed_deal))
            self._drive_once()
            self._flush()
            if (len(phone.log), self._deck, self._turn_key, len(self._closed_deal)) == before:
                break
        if not self.closed:
            self._watch_stalls()

    def _guests(self) -> set[int]:
        """The guests' seats still connected."""
        return {i for i, s in enumerate(self.seating.sitters) if i and s.connected}

    def _culprits(self, deck: int) -> set[int] | None:
        """The guests the dealer waits for in ``deck`` (0: the set-up): whom to drop when
        the table waits too long, rather than the players waiting with them; None when
        the dealer misses nothing. The host's own work is never a stall."""
        assert self.phone is not None
        waiting = self.phone.dealer.waiting_for(deck)
        return waiting & (self._guests() | {0}) if waiting else None

    def _blockers(self) -> set[int]:
        """Guests the match is waiting for (a report or a proof), besides a drawer; at the
        showdown also players gone with a hand that is still to be opened."""
        phone = self.phone
        assert phone is not None
        guests = self._guests()
        if self.stage == "setup":
            culprits = self._culprits(0)
            return guests - self._set_up if culprits is None else culprits
        m = phone.match
        r = m.round
        if self.stage != "play" or m.over or r is None:
            return set()
        owed = self._audit_owed(r.number)
        if owed is not None:
            return owed
        if r.phase is Phase.DEAL and r.number in self._went:
            # A player who cannot open his cards because another one holds the deck up
            # is not to blame; with nothing missing, a report is, or a Persian 21
            # reported and not proven.
            culprits = self._culprits(self._deck)
            if culprits is not None:
                return culprits
            playing = {s for s in r.order if s in m.active and not r.hand(s).dropped}
            late = (playing - self._dealt.get(r.number, set())) & guests
            return late or self._unproven_persian(r.number)
        if r.phase is Phase.SHOWDOWN:
            return set(r.to_reveal) & (guests | set(m.gone) | {0})
        return set()

    def _disputed(self, number: int) -> list[int]:
        """The decks of round ``number`` somebody complained about, or whose audit this
        phone has started and not finished: the round's result waits for them."""
        phone = self.phone
        assert phone is not None
        return [
            d
            for d in phone.decks_of(number)
            if phone.dealer.disputed(d) or d in phone.settling(number)
        ]

    def _audit_owed(self, number: int) -> set[int] | None:
        """Whose round seed the audit of a disputed or finishing deck of round ``number``
        lacks (the host's own counts like anybody's); None when no audit holds the
        round up. An empty set: the audit is running, nobody is late."""
        decks = self._disputed(number)
        if not decks:
            return None
        assert self.phone is not None
        owed: set[int] = set()
        for deck in decks:
            owed |= self.phone.dealer.waiting_for(deck)
        return owed & (self._guests() | {0})

    def _unproven_persian(self, number: int) -> set[int]:
        """Players who reported a Persian 21 whose proof has not opened on this phone."""
        assert self.phone is not None
        return {
            s
            for s in self._persian.get(number, set())
            if self.phone.dealer.claimed(self._deck, s) is None
        }

    def _remove(self, seat: int, reason: str, code: str = "") -> None:
        """Take ``seat`` out of the match. If the round in play has a deck under dispute
        or audit, or he was named as a cheater, the round does not count: every phone
        voids it (it is played again without him)."""
        phone = self.phone
        assert phone is not None
        m = phone.match
        r = m.round
        void = reason == "cheat" or (r is not None and bool(self._disputed(r.number)))
        if void and r is not None and not m.over and r.number in self._went:
            self._void(r.number)
        self._drop_seat(seat, reason, code)

    def _void(self, number: int) -> None:
        """Every phone voids round ``number``; the replay is a new round (new number)."""
        for timer in ("turn", "drew", "stall"):
            self.timers.cancel(timer)
        self._stall_key = None
        self._drawing = None
        self._deck_due = False
        self._turn_key = None
        self._announce(Void(number))
        self.notice("round_void", round=number)

    def _watch_stalls(self) -> None:
        """Whoever keeps the table waiting longer than a turn is dropped (``stalled``):
        a lost report or proof must never stall the table."""
        blockers = self._blockers()
        key = (self.stage, self._round(), frozenset(blockers))
        if not blockers:
            self._stall_key = None
            self.timers.cancel("stall")
        elif key != self._stall_key:
            self._stall_key = key
            self.timers.set("stall", float(self.seating.options.turn_time))

    def _drive_once(self) -> None:
        phone = self.phone
        assert phone is not None
        m = phone.match
        if phone.violation is not None:
            v = phone.violation
            if v.seat is not None and v.seat != 0:
                # A guest cheated (his own signed frame, his own claim, his audit): he is
                # named and removed, the round he cheated in is void, play goes on.
                phone.violation = None
                self.notice("cheat_named", seat=v.seat, code=v.code)
                if v.seat in self._guests():
                    self._remove(v.seat, "cheat", v.code)
                return
            self.notice("violation", seat=v.seat, code=v.code)
            self.close("violation")
            return
        if self.stage == "setup":
            guests = self._guests()
            if phone.dealer.ready and guests <= self._set_up:
                self.stage = "play"
                self.notice("fingerprint", code=phone.dealer.fingerprint)
            else:
                return
        if self.stage != "play":
            return
        r = m.round
        if r is not None and not m.over and r.number in self._went:
            for deck in self._disputed(r.number):
                verdict = phone.dealer.verdict(deck)
                if verdict is not None and not set(verdict.cheaters) & self._guests():
                    # Nobody left to remove (none named, or he is gone already): the
                    # disputed round is played again all the same.
                    self._void(r.number)
                    return
        if phone.waiting:
            return
        if self._pending_left:
            self._announce_left()
        if self._deck_due and self._drawing is None:
            self._deck_due = False
            if not m.over and m.round is not None and m.round.phase is Phase.PLAY:
                self._new_deck(m.round.number)
                return
        redraw = phone.redraw
        if redraw is not None and redraw == self._drawing and m.round is not None:
            # A dropout voided the card on its way: deal it again from the fresh deck.
            self._drawing_deck = self._deck
            self.timers.set("drew", float(self.seating.options.turn_time))
            self._announce(Applied(m.round.number, redraw, "draw"))
            return
        if m.over:
            self.stage = "over"
            self.notice("match_over", winner=m.winner, points=list(m.points), reason=m.end_reason)
            return
        r = m.round
        assert r is not None
        if r.number not in self._went and self._returning:
            self._admit(r.number)
            return
        if r.number not in self._went and r.number > 1 and self.round_pause > 0:
            if r.number not in self._paused:
                self._paused.add(r.number)
                self.timers.set("pause", self.round_pause)
            if self.timers.remaining("pause") is not None:
                return  # the last round's result is on every screen
        if r.number not in self._went:
            self._went.add(r.number)
            self._deck += 1
            self._announce(Go(r.number, self._deck))
            self._announce(Deal(r.number, self._deck))
            return
        if r.phase is Phase.DEAL:
            # Every phone has opened its cards: the deal goes into every engine at once.
            playing = {s for s in r.order if s in m.active and not r.hand(s).dropped}
            if playing <= self._dealt.get(r.number, set()) and not (
                self._unproven_persian(r.number) & playing
            ):
                self._closed_deal.add(r.number)
                persian = tuple(sorted(self._persian.get(r.number, set()) & playing))
                self._announce(CloseDeal(r.number, persian))
            return
        if r.phase is Phase.PLAY and self._drawing is None:
            seat = r.to_act
            assert seat is not None
            if seat in self._auto21.get(r.number, set()) and len(r.hand(seat).cards) == 2:
                self.timers.cancel("turn")
                self._announce(Applied(r.number, seat, "21"))
                return
            key = (r.number, seat, len(r.hand(seat).cards))
            if key != self._turn_key:
                self._turn_key = key
                turn_time = self.seating.options.turn_time
                self.timers.set("turn", float(turn_time))
                self.broadcast(Turn(r.number, seat, turn_time * 1000))
                self.notice("turn", seat=seat, ms=turn_time * 1000)
            if seat == 0 and self.bot is not None:
                action = self.bot(phone)
                if action is not None:
                    self._act(0, action)

    def _timer(self, name: str) -> None:
        if self.timers.remaining(name) is not None:
            return  # re-armed by a timer that fired just before it: not due any more
        phone = self.phone
        if name == "pause":
            self._drive()
        elif name == "turn" and phone is not None and self.stage == "play":
            m = phone.match
            if m.round is not None and m.round.phase is Phase.PLAY and self._drawing is None:
                self._announce(Applied(m.round.number, m.to_act, "timeout"))
                self._drive()
        elif name == "stall" and phone is not None:
            armed, self._stall_key = self._stall_key, None
            m = phone.match
            blockers = self._blockers()
            if (self.stage, self._round(), frozenset(blockers)) != armed:
                self._watch_stalls()  # the table moved on meanwhile: a fresh wait
                return
            for seat in sorted(blockers):
                r = m.round
                if r is not None and not m.over and seat in m.gone:
                    # A leaver's hand that cannot be opened any more counts as bust.
                    self._announce(Applied(r.number, seat, "forfeit"))
                elif seat == 0:
                    # The host's own proof is missing: the table cannot go on fairly.
                    self.notice("violation", seat=0, code="stalled")
                    self.close("stalled")
                    return
                else:
                    # A player whose report, proof or seed does not come is out (then his
                    # hand, if still needed, is forfeited like any leaver's; a round
                    # whose audit he held up is void).
                    self._remove(seat, "stalled")
            self._drive()
        elif name == "drew" and self._drawing is not None:
            culprits = self._culprits(self._drawing_deck)
            if culprits:
                # His card waits for another player's key: that player is dropped (the
                # card, cut off, is dealt again), not the drawer.
                self.timers.set("drew", float(self.seating.options.turn_time))
                for seat in sorted(culprits):
                    if seat == 0:
                        self.notice("violation", seat=0, code="stalled")
                        self.close("stalled")
                        return
                    self._remove(seat, "stalled")
                self._drive()
                return
            seat, self._drawing = self._drawing, None
            link = self.link_of(seat)
            if link is not None:
                self._drop_seat(seat, "silent_draw")
        else:
            super()._timer(name)

    def _join(self, peer: Any, join: Any) -> None:
        super()._join(peer, join)
        seat, phone = peer.seat, self.phone
        if seat is None or seat == 0 or phone is None or self.stage != "play":
            return
        m = phone.match
        if seat in m.active and not m.over:
            # Back before his old link was seen to drop: that link is gone all the same.
            self._left(seat, "lost")
        self._returning.add(seat)
        self._drive()

    def _admit(self, number: int) -> None:
        """Returning players join the waiting round (before its deck, never mid-round):
        each gets the match as it stands, then every phone applies the same rejoin."""
        phone = self.phone
        assert phone is not None
        m = phone.match
        back = [
            (seat, link)
            for seat in sorted(self._returning)
            if (link := self.link_of(seat)) is not None and seat in m.gone
        ]
        self._returning.clear()
        if not back or not m.between_rounds:
            return
        # His keys died with his old phone: everybody sets the dealer up anew for the
        # decks to come (the earlier decks keep their dealers until audited).
        first = self._deck + 1
        seats = tuple(sorted(set(m.active) | {seat for seat, _ in back}))
        self.broadcast(Rekey(first, seats))
        snapshot = m.snapshot()
        for _, link in back:
            self.send(link, Resume(self.seating.options, snapshot, first, seats))
        self._budget.new_setup()
        phone.rekey(first, self._dealer_factory(0, m.players), seats)
        self._flush()
        for seat, _ in back:
            self._announce(Rejoin(number, seat))
            self.notice("player_back", seat=seat)
        self._set_up = set()
        self.stage = "setup"

    def _drop_seat(self, seat: int, reason: str, detail: str = "") -> None:
        for peer in list(self._peers.values()):
            if peer.seat == seat:
                self._drop(peer, reason, detail)

    def _gone(self, peer: Any, reason: str, detail: str = "") -> None:
        seat = peer.seat
        super()._gone(peer, reason, detail)
        if seat is None or self.phone is None or self.stage not in ("setup", "play"):
            return
        m = self.phone.match
        r = m.round
        in_play = r is not None and not m.over and r.number in self._went
        if in_play and any(self.phone.dealer.disputed(d) for d in self.phone.decks_of(r.number)):
            # Somebody complained and seeds may be out: the round's hands are no longer
            # secret, and whoever leaves now escapes its audit. It is played again.
            self._void(r.number)
        self._left(seat, reason)
        self._drive()

    def _left(self, seat: int, reason: str) -> None:
        self._returning.discard(seat)
        if self._drawing == seat:
            self._drawing = None
            self.timers.cancel("drew")
        self._pending_left.append((seat, reason))
        self._announce_left()
        self._turn_key = None

    def _announce_left(self) -> None:
        """Announce the seats that left (every phone is in the same public state)."""
        phone = self.phone
        assert phone is not None
        while self._pending_left:
            seat, reason = self._pending_left.pop(0)
            m = phone.match
            r = m.round
            in_round = r is not None and seat in r.order and not m.over
            self._announce(Left(seat, reason))
            m = phone.match
            # The leaver's keys are gone with him: a round that still deals cards goes
            # on with a fresh deck (the cards already dealt stay valid). During the deal
            # nobody's engine has a card yet: the deal is voided and dealt again.
            r = m.round
            if in_round and not m.over and r is not None and r.number in self._went:
                if r.phase is Phase.PLAY:
                    if self._drawing is not None and not phone.cut_off:
                        # The card on its way had the leaver's key: it stands, and the
                        # fresh deck comes once it is in (see _drive_once).
                        self._deck_due = True
                    else:
                        # Else every phone voids it; it is dealt again from the new deck.
                        self._new_deck(r.number)
                elif r.phase is Phase.DEAL:
                    self._dealt.pop(r.number, None)
                    self._persian.pop(r.number, None)
                    self._new_deck(r.number)
                    self._announce(Deal(r.number, self._deck))

    def _new_deck(self, number: int) -> None:
        self._deck += 1
        self._deck_due = False
        self._announce(NewDeck(number, self._deck))

    def step(self, wait: float = 0.0) -> None:
        super().step(wait)
        if self.phone is not None and not self.closed:
            self.phone.work()
            self._flush()
            self._drive()


class GuestTable(GuestLobby):
    """A guest's phone: lobby, then its own copy of the match."""

    #: turns a guest waits for the host's own part before naming it (longer than the
    #: host's watchdog on the others, which acts first when a guest holds things up)
    host_patience = 2.0

    def __init__(
        self,
        link: Any,
        inbox: queue.Queue,
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        dealer_factory: DealerFactory,
        bot: Bot | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        on_log: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        super().__init__(
            link, inbox, player_id=player_id, name=name, lang=lang, clock=clock, on_notice=on_notice
        )
        self._dealer_factory = dealer_factory
        self.bot = bot
        self._on_log = on_log
        self.phone: PhoneMatch | None = None
        self._told_setup = False
        self.turn: Turn | None = None
        self._last_deck = 0  # the newest deck the host announced (a Rekey must be after it)
        self._budget = FrameBudget()  # what each sender's relayed dealer frames may cost
        self._accused: set[int] = set()  # players my phone caught, for the host to remove
        self._host_owes: object = None  # what my dealer waits for from the host, and since when

    @classmethod
    def join(
        cls,
        transport: Any,
        address: str,
        *,
        timeout: float = 15.0,
        **kwargs: Any,
    ) -> GuestTable:
        """Connect to the host at ``address`` and ask for a seat (blocking)."""
        inbox: queue.Queue = LinkInbox()
        link = transport.connect(address, timeout=timeout, inbox=inbox)
        return cls(link, inbox, **kwargs)

    def act(self, action: str) -> None:
        """My decision (the host applies it and tells everyone)."""
        if self.phone is not None and self.phone.match.round is not None:
            self.send(self.link, Act(self.phone.match.round.number, action))

    def on_game_message(self, message: Message | ProtocolFrame) -> None:
        if isinstance(message, Resume):
            self._resume(message)
            return
        if isinstance(message, Begin):
            if self.phone is not None or self.seat is None:
                raise TableError("bad_message", "the match has already begun")
            if not 0 < self.seat < message.players:
                raise TableError("bad_message", f"no seat {self.seat} at {message.players}")
            self.phone = PhoneMatch(
                self.seat,
                message.players,
                message.options,
                self._dealer_for(message.options, message.players),
                on_log=self._on_log,
            )
            for frame in self.phone.dealer.hello():
                self.send(self.link, ProtocolFrame(frame))
            self.notice("match_started", players=message.players)
            return
        phone = self.phone
        if phone is None and self._rejoining():
            return  # the match goes on without me until the next round (Resume)
        if phone is None:
            raise TableError("bad_message", "the match has not begun")
        if isinstance(message, ProtocolFrame):
            # Past a limit the host relayed what an honest host refuses: he is named.
            sender, deck = frame_deck(message.data, phone.dealer)
            sender = 0 if sender is None else sender
            self._budget.charge(sender, message.data, deck=deck, newest=self._last_deck)
            phone.frame(message.data)
        elif isinstance(message, Rekey):
            players = phone.match.players
            if self.seat not in message.seats or max(message.seats) >= players:
                raise TableError("bad_message", "a set-up without me or with a seat too many")
            if message.deck <= self._last_deck:
                raise TableError("bad_message", f"deck {message.deck} is not new")
            factory = self._dealer_factory
            self._budget.new_setup()
            phone.rekey(message.deck, factory(self.seat, phone.match.players), message.seats)
            self._told_setup = False
        elif isinstance(message, Turn):
            self.turn = message
            self.notice("turn", seat=message.seat, ms=message.ms)
        elif isinstance(message, Left):
            if message.seat == self.seat:
                raise TableError("bad_message", "the host says I left, while I am here")
            self._accused.discard(message.seat)  # the host removed whom my phone caught
            self.notice(
                "player_left",
                seat=message.seat,
                name=self._name_of(message.seat),
                reason=message.reason,
            )
            phone.announce(message)
        elif isinstance(message, Go | Deal | CloseDeal | Applied | NewDeck | Rejoin | Void):
            if isinstance(message, Go | NewDeck | Deal):
                self._last_deck = max(self._last_deck, message.deck)
            phone.announce(message)
        else:
            raise TableError("bad_message", f"{type(message).__name__} is not for a guest")
        self._after()

    def _seat_may_change(self) -> bool:
        return self.phone is None

    def _dealer_for(self, options: Options, players: int) -> Dealer:
        """My dealer: the host's explicit choice of open dealing is followed and shown."""
        assert self.seat is not None
        if options.secret:
            return self._dealer_factory(self.seat, players)
        self.notice("open_dealer")
        return OpenDealer(self.seat)

    def _rejoining(self) -> bool:
        return any(n.code == "seated" and n.details.get("rejoin") for n in self.notices)

    def _resume(self, message: Resume) -> None:
        """Back at a running match: my engine from the host's snapshot, a fresh dealer."""
        players = message.snapshot.get("players")
        if self.phone is not None or self.seat is None or type(players) is not int:
            raise TableError("bad_message", "not a match to resume")
        if self.seat not in message.seats:
            raise TableError("bad_message", "a set-up without me")
        if not 2 <= players <= 16 or not 0 < self.seat < players:
            raise TableError("bad_message", "not a match to resume")
        if max(message.seats) >= players:
            raise TableError("bad_message", "a set-up with a seat too many")
        self._last_deck = message.deck - 1
        try:
            self.phone = PhoneMatch(
                self.seat,
                players,
                message.options,
                self._dealer_for(message.options, players),
                on_log=self._on_log,
                snapshot=message.snapshot,
                first_deck=message.deck,
            )
        except IllegalAction as exc:
            raise TableError("bad_message", f"bad snapshot: {exc}") from exc
        for frame in self.phone.dealer.hello():
            self.send(self.link, ProtocolFrame(frame))
        self.phone.set_up_among(message.seats)
        self.notice("match_resumed", players=players)
        self._after()

    def _after(self) -> None:
        phone = self.phone
        if phone is None or self.closed:
            return
        while phone.outbox:
            self.send(self.link, phone.outbox.pop(0))
        if phone.violation is not None:
            v = phone.violation
            if v.seat is not None and v.seat not in (0, self.seat):
                # Another guest cheated: the host, which sees every frame he signed,
                # removes him and voids the round. A host that does not, in time,
                # shields him: then it is named.
                phone.violation = None
                self.notice("cheat_named", seat=v.seat, code=v.code)
                if v.seat in phone.match.active and v.seat not in self._accused:
                    self._accused.add(v.seat)
                    self.timers.set(f"accused:{v.seat}", float(phone.options.turn_time))
                phone.pump()
            else:
                self._leave_named(v.seat, v.code, v.detail)
                return
        if phone.dealer.ready and not self._told_setup:
            self._told_setup = True
            self.send(self.link, SetUp(phone.dealer.fingerprint))
            self.notice("fingerprint", code=phone.dealer.fingerprint)
        m = phone.match
        if m.over and "match_over" not in (n.code for n in self.notices):
            self.notice("match_over", winner=m.winner, points=list(m.points), reason=m.end_reason)
        turn = self.turn
        if (
            self.bot is not None
            and turn is not None
            and turn.seat == self.seat
            and not phone.waiting
            and m.round is not None
            and m.round.number == turn.round
        ):
            action = self.bot(phone)
            if action is not None:
                self.turn = None
                self.act(action)

    def wind_down(self, steps: int = 100_000) -> None:
        """The host ended the table: finish what this phone has in hand (the last
        round's audit, on which its result waits), sending nothing."""
        phone = self.phone
        while phone is not None and not phone.match.over and phone.violation is None and steps:
            steps -= 1
            if not phone.work():
                break

    def _leave_named(self, seat: int | None, code: str, detail: str = "") -> None:
        """My phone caught ``seat`` (None or 0: the host): say so and leave the table."""
        self.notice("violation", seat=seat, code=code, detail=detail)
        self.closed = True
        self.link.close_later(linger=0.5)

    def _name_of(self, seat: int) -> str:
        players = self.lobby.players if self.lobby is not None else ()
        return players[seat].name if 0 <= seat < len(players) else ""

    def _timer(self, name: str) -> None:
        if name == "host_owes" and self._host_owes is not None and not self.closed:
            self._leave_named(0, "stalled", "the host's own part never came")
            return
        if name.startswith("accused:"):
            seat = int(name.split(":")[1])
            if seat in self._accused and not self.closed:
                # The host kept a player my phone proved a cheater: not a fair table.
                self._leave_named(0, "shielded_cheater", f"seat {seat}")
            return
        super()._timer(name)

    def _watch_host(self) -> None:
        """The host is counted like any phone: when my dealer waits for the host's own
        part (a commitment, pass, lock, key or seed) longer than ``host_patience``
        turns, the host is named and I leave. (Its watchdog judges everybody else.)"""
        phone = self.phone
        r = phone.match.round if phone is not None else None
        owes = None
        if phone is not None and r is not None and not phone.match.over:
            waiting = set().union(*(phone.dealer.waiting_for(d) for d in phone.decks_of(r.number)))
            owes = (r.number, frozenset(waiting)) if 0 in waiting else None
        if owes is None:
            self.timers.cancel("host_owes")
        elif owes != self._host_owes:
            assert phone is not None
            self.timers.set("host_owes", self.host_patience * phone.options.turn_time)
        self._host_owes = owes

    def step(self, wait: float = 0.0) -> None:
        super().step(wait)
        phone = self.phone
        if phone is not None and not self.closed:
            phone.work()
            self._after()
            if not self.closed:
                self._watch_host()
        elif phone is not None and phone.violation is None and phone.dealer.has_work():
            # The table closed (e.g. the host found a cheat): finish the checks whose
            # frames are in hand, so that this phone names a cheater itself.
            phone.work()
            if phone.violation is not None:
                v = phone.violation
                self.notice("violation", seat=v.seat, code=v.code, detail=v.detail)
