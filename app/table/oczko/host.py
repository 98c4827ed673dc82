"""The host's phone: the lobby, then the match's I/O around the pure sequencer.

:class:`HostTable` seats guests through a :class:`~app.table.lobby.HostLobby` it holds
(by composition: the lobby hands it the guests' match messages, arrivals and
departures through :class:`~app.table.lobby.MatchHooks`), then runs the match. Every
decision (the next public event, the turn timer, who stalls the table, when a round is
void) is :func:`app.table.oczko.sequencer.step`, a pure function of the host's
:class:`~app.table.oczko.book.HostBook`, the event and what the host's phone knows
(:class:`~app.table.oczko.book.Facts`). This class only observes the phone, feeds the
sequencer and carries its effects out: it announces every public event (``Go``,
``Deal``, ``CloseDeal``, ``Applied``, ``Left``, ``NewDeck``, ``Void``, ``Rejoin``) to
every guest and applies it to its own :class:`~app.table.oczko.phone.PhoneMatch`, relays every
dealer frame a guest sends (after its own dealer authenticated it), sends ``Turn``
with the time left, runs the match's timers on the injected clock and drops links.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from typing import Any

from app.bluetooth.link import Link, Listener
from app.rules.oczko import Phase
from app.table.clock import Clock
from app.table.dealer import Dealer
from app.table.errors import TableError
from app.table.frame_budget import FrameBudget, frame_deck
from app.table.host_shell import LobbyShell
from app.table.lobby import Notice
from app.table.messages import (
    Act,
    Begin,
    Message,
    NextRound,
    Options,
    ProtocolFrame,
    Rekey,
    Resume,
)
from app.table.oczko.book import (
    Announce,
    Back,
    Broadcast,
    Decide,
    Drop,
    Effect,
    Expired,
    Facts,
    Forgive,
    Gone,
    HostBook,
    HostEvent,
    Readmit,
    ReadNext,
    Report,
    Stage,
    Started,
    Then,
    seats_in,
)
from app.table.oczko.phone import PhoneMatch
from app.table.oczko.sequencer import blockers, step
from app.table.prechecks import precheck
from app.table.seating import Seating

DealerFactory = Callable[[int, int], Dealer]  # (my seat, players) -> dealer
#: Bytes per second of frames the host relays for a deck shuffled ahead (the next
#: round's): the rest of its radio stays free for the round in play, whose drawn card
#: must not queue behind a shuffle pass (docs/transport.md, "The next round's deck in the
#: background").
BACKGROUND_BYTES_PER_S = 30_000.0
#: Bytes per second of the bodies owed to the guests that got a stub of a pass or lock
#: of the deck in play (docs/protocol.md, "Bodies later"): their audit needs them, the
#: round in play's cards do not.
BODY_BYTES_PER_S = 30_000.0
#: How many frames the host's dealer took without fault it remembers, with their
#: stubs (only such a frame goes to an onlooker as a stub; its copies go out within
#: the step that read it, which reads at most ``lobby.EVENTS_PER_STEP`` frames)
VETTED_FRAMES = 64
Bot = Callable[[PhoneMatch], str | None]


class HostTable(LobbyShell[HostBook, HostEvent, Facts, Effect]):
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
        self._open(
            listener,
            player_id=player_id,
            name=name,
            lang=lang,
            clock=clock,
            options=options,
            on_notice=on_notice,
            budget=FrameBudget(),
            hooks=self,
        )
        self.clock = clock
        self._dealer_factory = dealer_factory
        self.bot = bot
        self._on_log = on_log
        self.phone: PhoneMatch | None = None
        self.book = HostBook()
        #: the longest pause between a round's end and the next deal, so that every phone
        #: shows the result long enough to read it; it ends sooner once every player has
        #: read it (``NextRound``). The app's tables: a turn's time; 0 for bots and tests.
        self.round_pause = round_pause
        #: the pace of relaying a deck shuffled ahead (frames queue, in order, meanwhile)
        self.background_bytes_per_s = BACKGROUND_BYTES_PER_S
        self._later: deque[tuple[int, int | None, ProtocolFrame]] = deque()
        self._later_free_at = 0.0
        #: copies of relayed frames for the guests that only check them (not the one that
        #: computes on them next), in order: sent after the frames in hand went to their
        #: first readers, and held while a card is on its way (``_send_copies``)
        self._copies: list[tuple[Link, ProtocolFrame, int]] = []  # (link, frame, first)
        #: frames of the match the host's dealer took without fault (its own, and the
        #: guests' it read), each with its stub if it has one: only these go to an
        #: onlooker as a stub
        self._vetted: OrderedDict[bytes, bytes | None] = OrderedDict()
        #: the bodies owed for stubs sent, in the order they went (link, frame, deck)
        self._bodies: deque[tuple[Link, ProtocolFrame, int]] = deque()
        self._bodies_free_at = 0.0
        self.body_bytes_per_s = BODY_BYTES_PER_S

    # -- the lobby's side (by composition) ------------------------------------------------

    @property
    def stage(self) -> Stage:
        """Where the table is: lobby, setup, play, over."""
        return self.book.stage

    def notice(self, what: str, /, **details: Any) -> None:
        """Tell the host's screen (a stable code and its details)."""
        self.lobby.notice(what, **details)

    def send(self, link: Link, message: Message | ProtocolFrame) -> bool:
        """Send to one link (False if it could not be queued), after every copy still
        owed to any guest (each link keeps the order the host sent in)."""
        self._send_copies()
        return self.lobby.send(link, message)

    def broadcast(
        self,
        message: Message | ProtocolFrame,
        *,
        skip: int | None = None,
        first: int | None = None,
    ) -> None:
        """Send ``message`` to every seated guest (but ``skip``); ``first`` gets it
        before the copies still owed to the others go out (see :meth:`_send_first`)."""
        link = self.link_of(first) if first is not None and first != skip else None
        if link is None:
            self._send_copies()
            self.lobby.broadcast(message, skip=skip)
            return
        self._send_first(link, message)
        self._send_copies()
        for seat in range(1, len(self.seating.sitters)):
            other = self.link_of(seat)
            if seat not in (skip, first) and other is not None:
                self.lobby.send(other, message)

    def _send_first(self, link: Link, message: Message | ProtocolFrame) -> None:
        """Send to ``link`` now, before the copies owed to the other links (but after
        those owed to this one: a link's frames keep their order)."""
        mine = [c for c in self._copies if c[0] is link]
        self._copies = [c for c in self._copies if c[0] is not link]
        for _, frame, _ in mine:
            self._send_copy(link, frame)
        self.lobby.send(link, message)

    def _send_copies(self) -> None:
        """Send the copies of relayed frames still owed to the guests that only check
        them, in order."""
        copies, self._copies = self._copies, []
        for link, frame, _ in copies:
            self._send_copy(link, frame)

    def _send_copy(self, link: Link, frame: ProtocolFrame) -> None:
        """A copy for a guest that only checks ``frame``: a pass or lock of the deck in
        play that this phone's dealer took without fault goes as a stub now, its body
        later (:meth:`_send_bodies`); the first deal waited for five copies of every
        pass on the host's radio (issue 17)."""
        stub = self._vetted.get(frame.data)
        _, deck = frame_deck(frame.data, self.phone.dealer if self.phone else None)
        if stub is None or deck != self.book.deck:
            self.lobby.send(link, frame)
            return
        self.lobby.send(link, ProtocolFrame(stub))
        self._bodies.append((link, frame, deck))

    def _vet(self, data: bytes) -> None:
        """``data`` was read without fault here: its copies may go as stubs."""
        assert self.phone is not None
        self._vetted[data] = self.phone.dealer.withhold(data)
        if len(self._vetted) > VETTED_FRAMES:
            self._vetted.popitem(last=False)

    def _held(self, free_at: float, timer: str) -> bool:
        """Must a paced frame wait (a card on its way has the radio, or its pace's time
        has not come: ``timer`` then wakes the loop when it has)?"""
        if self.book.drawing is not None:
            return True  # (sent after the card is open)
        now = self.clock.now()
        if now < free_at:
            self.timers.set(timer, free_at - now)
            return True
        return False

    def _send_bodies(self) -> None:
        """The bodies owed for stubs, in order: none until the deal is open, then at
        their pace while the round in play goes on and no card is on its way; all at
        once when the hands are shown or somebody complained (the audit waits for them)
        or their deck is no longer in play."""
        phone = self.phone
        r = phone.match.round if phone is not None else None
        phase = None if r is None else r.phase
        while self._bodies:
            link, frame, deck = self._bodies[0]
            over = phase in (Phase.SHOWDOWN, Phase.OVER) or self.body_bytes_per_s <= 0
            over = over or (phone is not None and phone.dealer.disputed(deck))
            # (a deck no longer of the round in play, e.g. voided: a guest's check of
            # the void may need its bodies now, issue 30)
            over = over or (
                phone is not None and r is not None and deck not in phone.decks_of(r.number)
            )
            if deck == self.book.deck and not over:
                if phase in (None, Phase.DEAL, Phase.DEAL_CHECK):
                    return  # (the radio is the deal's)
                if self._held(self._bodies_free_at, "bodies"):
                    return
                gap = len(frame.data) / self.body_bytes_per_s
                now = self.clock.now()
                self._bodies_free_at = max(self._bodies_free_at, now) + gap
            self._bodies.popleft()
            self.lobby.send(link, frame)

    def _relay(self, frame: ProtocolFrame, *, skip: int | None = None) -> None:
        """Relay a dealer frame; one of a deck shuffled ahead goes at its pace, after
        those before it (the protocol orders frames per deck, so the round in play's
        overtake it safely; the ``Ahead`` that starts the deck went before it)."""
        self._pace()  # (a deck come into play: its queued frames go first)
        _, deck = frame_deck(frame.data, self.phone.dealer if self.phone else None)
        if deck > self.book.deck:
            self._later.append((deck, skip, frame))
            self._pace()
        else:
            self._send_now(frame, skip=skip)

    def _pace(self) -> None:
        """Send the queued frames of a deck shuffled ahead as the pace allows (all at
        once when the deck is in play: the deal waits for them now)."""
        now = self.clock.now()
        while self._later:
            deck, skip, frame = self._later[0]
            copies = max(1, len(self.seating.sitters) - 1 - (skip is not None))
            if deck > self.book.deck and self.background_bytes_per_s > 0:
                if self._held(self._later_free_at, "pace"):
                    return
                gap = len(frame.data) * copies / self.background_bytes_per_s
                self._later_free_at = max(self._later_free_at, now) + gap
            self._later.popleft()
            self._send_now(frame, skip=skip)

    def _send_now(self, frame: ProtocolFrame, *, skip: int | None = None) -> None:
        """Send a dealer frame to every guest (but ``skip``), the one that computes next
        on it first: the host's radio carries one frame at a time, and a shuffle pass
        queued behind five copies for onlookers came half a second later (issue 17)."""
        assert self.phone is not None
        first = self.phone.dealer.first_reader(frame.data)
        link = self.link_of(first) if first is not None and first != skip else None
        if first is None or link is None:
            self.broadcast(frame, skip=skip)
            return
        # The first reader's copy now; the others' once the frames in hand have gone to
        # their first readers (a drawn card's keys from every seat reach the drawer
        # before any onlooker's copy), and those of a card on its way once it is open:
        # the radio is the drawer's until then (issue 17). Every guest still gets every
        # frame, in order.
        self._send_first(link, frame)
        for seat in range(1, len(self.seating.sitters)):
            other = self.link_of(seat)
            if seat not in (skip, first) and other is not None:
                self._copies.append((other, frame, first))

    def set_options(self, options: Options) -> None:
        """Change the options (before the match) and tell everyone."""
        self.lobby.set_options(options)

    def start(self) -> Seating:
        """Seat the players for the match (see :meth:`HostLobby.start`)."""
        return self.lobby.start()

    def close(self, reason: str = "host_left") -> None:
        """Leave: tell every guest why, then close every link."""
        self._send_copies()
        self.lobby.close(reason)

    # -- the host player's intents --------------------------------------------------------

    def begin(self) -> None:
        """Start the match with the players present: set the dealers up, then play
        (TableError ``not_ready`` / ``too_few_players`` if it cannot start)."""
        seating = self.lobby.start()
        players = len(seating.sitters)
        self.broadcast(Begin(players, seating.options))
        self.phone = PhoneMatch(
            0, players, seating.options, self._dealer_factory(0, players), on_log=self._on_log
        )
        if not seating.options.secret:
            self.notice("open_dealer")  # every phone says the cards are not secret
        for frame in self.phone.dealer.hello():
            self.broadcast(ProtocolFrame(frame))
        self._feed(Started())
        self._drive()

    def act(self, action: str) -> None:
        """The host player's own decision."""
        if self.phone is not None and self.phone.match.round is not None:
            self._feed(Decide(0, action))

    def read_result(self) -> None:
        """The host player has read the last round's result (``NextRound``)."""
        if self.book.pausing is not None:
            self._feed(ReadNext(0, self.book.pausing))
            self._drive()

    def still_reading(self) -> set[int]:
        """The players whose reading of the last result the next deal waits for (empty
        when no deal waits): the screens say who they are."""
        if self.phone is None or self.book.pausing is None:
            return set()
        facts = self._observe()
        present = {s for s in facts.match.active if s == 0 or s in facts.guests}
        return present - self.book.read - facts.auto_read

    def blockers(self) -> set[int]:
        """The players the match waits for now (see :func:`host_sequencer.blockers`)."""
        return blockers(self.book, self._observe()) if self.phone is not None else set()

    def step(self, wait: float = 0.0) -> None:
        """Handle the links' events (up to ``wait`` s for the first), the due timers, and
        what the host's phone has computed meanwhile."""
        self.step_links(wait)
        if self.phone is not None and not self.closed:
            self.phone.work()
            self._flush()
            self._drive()
            self._pace()
            self._send_bodies()
        # The copies of what the drawer of a card on its way computes on next (his
        # card's keys) wait until the card is open; any other copy goes out now.
        drawer = self.book.drawing
        if drawer is None or self.closed or any(c[2] != drawer for c in self._copies):
            self._send_copies()

    def step_links(self, wait: float = 0.0) -> None:
        """Only the links' events and the due timers: the dealer's own work waits (a
        phone busy elsewhere, in tests)."""
        if self.phone is not None:
            # The frames waiting (a drawn card's keys from every seat) are checked in one
            # batch over the cores, then relayed one by one as before (issue 17).
            precheck(self.inbox, self.phone.dealer)
        for name in self._expired(wait):
            if name not in ("pace", "bodies"):  # (they wake the loop: ``step`` sends)
                self._feed(Expired(name))

    # -- the lobby's hooks ----------------------------------------------------------------

    def on_game_message(self, seat: int, message: Message | ProtocolFrame) -> None:
        """A guest's message of the match (TableError: the lobby drops him)."""
        phone = self.phone
        if phone is None:
            raise TableError("bad_message", "the match has not begun")
        if isinstance(message, ProtocolFrame):
            _, deck = frame_deck(message.data, phone.dealer)
            newest = self.book.fresh_deck - 1
            if not self._take_frame(
                seat, message.data, phone.dealer.authenticate, deck=deck, newest=newest
            ):
                return  # (a copy of a frame relayed before: a no-op)
            self._relay(message, skip=seat)  # unchanged, in arrival order
            phone.frame(message.data)
            if phone.violation is None:  # (read, and without fault: see _send_copy)
                self._vet(message.data)
            self._flush()
        elif isinstance(message, Act):
            self._feed(Decide(seat, message.action, message.round))
        elif isinstance(message, NextRound):
            self._feed(ReadNext(seat, message.round))
        else:
            self._feed(Report(seat, message))
        self._drive()

    def on_joined(self, seat: int) -> None:
        """A guest sat down (before the match) or came back (during it)."""
        self._new_link(seat)
        self._feed(Back(seat))

    def on_gone(self, seat: int, reason: str) -> None:
        """A guest's link is gone (``cheat``: a frame failed authentication on his own
        link; he stays out for the rest of the match, like a player the phone named)."""
        if reason == "cheat" and self.phone is not None:
            self.phone.cheaters.setdefault(seat, "cheat")
        self._feed(Gone(seat, reason))
        self._ban_cheaters()

    # -- the shell around the sequencer ---------------------------------------------------

    def _observe(self) -> Facts:
        """What the host's phone knows now, for the sequencer."""
        phone = self.phone
        assert phone is not None
        book, dealer, m = self.book, phone.dealer, phone.match
        r = m.round
        decks = {0}  # the set-up, and below the decks this phone has started
        disputed: tuple[int, ...] = ()
        complained = False
        verdicts: dict[int, frozenset[int]] = {}
        unproven: frozenset[int] = frozenset()
        deck_ready = False
        if r is not None:
            mine = phone.decks_of(r.number)
            decks.update(mine)
            settling = phone.settling(r.number)
            disputed = tuple(d for d in mine if dealer.disputed(d) or d in settling)
            complained = any(dealer.disputed(d) for d in mine)
            for d in disputed:
                verdict = dealer.verdict(d)
                if verdict is not None:
                    verdicts[d] = frozenset(verdict.cheaters)
            # (no card of the round in play on its way, none missing a part, the cards
            # the next draws need locked: then the next round's deck may start)
            deck_ready = (
                book.drawing is None
                and not dealer.waiting_for(book.deck)
                and book.deck in mine
                and dealer.progress(book.deck) >= 1.0
            )
            unproven = frozenset(
                s for s in seats_in(book.persian, r.number) if dealer.claimed(book.deck, s) is None
            )
        sitters = self.seating.sitters
        bot_turn = (
            self.bot is not None
            and r is not None
            and r.phase is Phase.PLAY
            and r.to_act == 0
            and book.drawing is None
        )
        v = phone.violation
        return Facts(
            match=m,
            guests=frozenset(i for i, s in enumerate(sitters) if i and s.connected),
            linked=frozenset(i for i in range(1, len(sitters)) if self.link_of(i) is not None),
            closed=self.closed,
            dealer_ready=bool(dealer.ready),
            fingerprint=str(dealer.fingerprint) if dealer.ready else "",
            waiting=phone.waiting,
            deck_ready=deck_ready,
            redraw=phone.redraw,
            cut_off=phone.cut_off,
            violation=None if v is None else (v.seat, v.code),
            waiting_for={d: frozenset(dealer.waiting_for(d)) for d in decks},
            disputed=disputed,
            complained=complained,
            verdicts=verdicts,
            unproven=unproven,
            turn_time=self.seating.options.turn_time,
            round_pause=self.round_pause,
            bot_action=self.bot(phone) if bot_turn and self.bot is not None else None,
            auto_read=frozenset({0}) if self.bot is not None else frozenset(),
            barred=frozenset(phone.barred(r.number if r is not None else 0)),
        )

    # -- the game's part of the shell (app.table.host_shell) ------------------------------

    def _sequence(
        self, book: HostBook, event: HostEvent, facts: Facts
    ) -> tuple[HostBook, tuple[Effect, ...]]:
        return step(book, event, facts)

    def _in_play(self) -> bool:
        return self.phone is not None

    def _after_drive(self) -> None:
        self._ban_cheaters()

    def _say(self, code: str, details: Mapping[str, Any]) -> None:
        self.notice(code, **details)

    def _drop(self, effect: Drop[Any]) -> None:
        self.lobby.drop_seat(effect.who, effect.reason, effect.detail)

    def _end(self, reason: str) -> None:
        self.close(reason)

    def _ban_cheaters(self) -> None:
        """Every player the host's phone named stays out for the rest of the match: his
        id is refused at the door, and a link he came back on is closed (named in his
        absence, after he was back)."""
        phone = self.phone
        if phone is None or self.closed:
            return
        seating = self.lobby.seating
        for seat in sorted(phone.cheaters):
            if not 0 < seat < len(seating.sitters):
                continue
            if seating.sitters[seat].player_id in seating.banned:
                continue
            told = {n.details.get("seat") for n in self.notices if n.code == "cheat_named"}
            if seat not in told:  # (named in his absence: no removal said it)
                self.notice("cheat_named", seat=seat, code=phone.cheaters[seat])
            self._bar(seat, absent=seat in phone.match.gone)

    def _perform_own(self, effect: Effect) -> None:
        phone = self.phone
        assert phone is not None
        if isinstance(effect, Announce):
            # (a player's own step reaches his phone first: a drawn card is shown there)
            self.broadcast(effect.event, first=getattr(effect.event, "seat", None))
            phone.announce(effect.event)
            self._flush()
        elif isinstance(effect, Broadcast):
            self.broadcast(effect.message)
        elif isinstance(effect, Forgive):
            phone.violation = None
        elif isinstance(effect, Readmit):
            self._readmit(effect)
        elif isinstance(effect, Then):
            self._feed(effect.event)

    def _readmit(self, effect: Readmit) -> None:
        """Players are back: every phone sets the dealer up anew for the decks to come,
        each returning phone gets the match as it stands."""
        phone = self.phone
        assert phone is not None
        self.broadcast(Rekey(effect.first, effect.seats))
        snapshot = phone.match.snapshot()
        for seat in effect.back:
            link = self.link_of(seat)
            if link is not None:
                self.send(link, Resume(self.seating.options, snapshot, effect.first, effect.seats))
        self._new_setup()
        phone.rekey(effect.first, self._dealer_factory(0, phone.match.players), effect.seats)
        self._flush()

    def _flush(self) -> None:
        """Send what the host's own phone produced (frames to all; reports to itself)."""
        phone = self.phone
        while phone is not None and phone.outbox:
            item = phone.outbox.pop(0)
            if isinstance(item, ProtocolFrame):
                self._vet(item.data)
                self._relay(item)
            else:
                self._feed(Report(0, item))
