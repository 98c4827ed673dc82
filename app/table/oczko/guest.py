"""The networked Oczko table: the lobby plus the match, for the host and for a guest.

:class:`HostTable` (:mod:`app.table.oczko.host`) is the host's phone: it seats guests,
then sequences the match (the decisions: :mod:`app.table.oczko.sequencer`, a pure
function of the host's book and each event). It announces every public event to every
guest, relays the dealer frames, and enforces the turn timer (``turn_time`` seconds per
decision, expiry = hold) with the injected clock, announcing the time left with every
``Turn``.

:class:`GuestTable` is a guest's phone: it applies the host's events to its own copy
and refuses any the rules refuse (a violation by the host, named; the guest leaves).

Disconnects: a guest whose link drops mid-match is out for the match (``Left``: bust
in the round in play unless his result was decided); the round goes on with a fresh
deck (``NewDeck``). A guest that does not report a drawn card in time is treated as
disconnected (nobody else can know whether he went bust). The host leaving ends the
table on every phone (``Bye("host_left")``).

After each round every phone shows its result; the host deals the next round when
every player has read it (``NextRound``) or after the pause (at most a turn's time).

Bots: pass ``bot=simple_bot`` to let a seat play itself (``blu21 demo``).
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from app.rules.errors import IllegalAction
from app.rules.oczko import Phase
from app.rules.oczko.actions import ActionKind
from app.table.clock import Clock
from app.table.dealer import Dealer, OpenDealer
from app.table.errors import TableError
from app.table.frame_budget import FrameBudget, frame_deck
from app.table.guest_copy import GuestCopy
from app.table.lobby import Notice
from app.table.messages import (
    ACTIONS,
    Act,
    Ahead,
    Applied,
    Begin,
    CloseDeal,
    Deal,
    Go,
    Left,
    Message,
    NewDeck,
    NextRound,
    Options,
    ProtocolFrame,
    Rejoin,
    Rekey,
    Resume,
    SetUp,
    Turn,
    Void,
)
from app.table.oczko.host import Bot, DealerFactory, HostTable
from app.table.oczko.phone import PhoneMatch
from app.table.phone_copy import RoundEndHook
from app.table.prechecks import precheck

__all__ = ["Bot", "DealerFactory", "GuestTable", "HostTable", "simple_bot"]


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


class GuestTable(GuestCopy[PhoneMatch]):
    """A guest's phone: lobby, then its own copy of the match (what both games' guests
    share: :class:`~app.table.guest_copy.GuestCopy`)."""

    #: (``host_patience``: turns a guest waits for the host's own part before naming it)
    #: ... once the round is over on my phone: all the host still owes then (its seed,
    #: the bodies of the round's passes, docs/protocol.md "Bodies later") goes out at
    #: once at the showdown; and for the host's key of a card dealt to me, due at once
    #: at the deal or draw: shorter than the host's watchdog, which would otherwise
    #: drop me as stalled while I wait for a host that keeps them (issue 30)
    host_patience_after_play = 0.5
    #: turns a host's ``Void`` may wait for the evidence that backs it once my dealer
    #: has nothing left to work out: an honest host sends that evidence before its
    #: ``Void`` (relayed frames keep their order; the bodies of a void round's deck go
    #: at once), so it is in hand or in my own work; shorter than the host's watchdog,
    #: which would otherwise drop me as stalled while its void blocks my match (issue 30)
    void_patience = 0.5

    def __init__(
        self,
        link: Any,
        inbox: queue.Queue[Any],
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        dealer_factory: DealerFactory,
        bot: Bot | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        on_log: Callable[[dict[str, Any]], None] | None = None,
        on_round_end: RoundEndHook | None = None,
    ) -> None:
        super().__init__(
            link, inbox, player_id=player_id, name=name, lang=lang, clock=clock, on_notice=on_notice
        )
        self._dealer_factory = dealer_factory
        self.bot = bot
        self._on_log = on_log
        self.on_round_end = on_round_end
        self.phone: PhoneMatch | None = None
        self._told_setup = False
        self.turn: Turn | None = None
        self._last_deck = 0  # the newest deck the host announced (a Rekey must be after it)
        self._budget = FrameBudget()  # what each sender's relayed dealer frames may cost
        self._accused: set[int] = set()  # players my phone caught, for the host to remove
        self._told_cheaters: set[int] = set()  # players my screen said were named
        self._host_owes: object = None  # what my dealer waits for from the host, and since when
        self._asked = 0  # the last round whose deal I asked for (NextRound)
        self._told_over = False  # the screen was told the match is over
        self._void_key: Void | None = None  # the host's Void whose evidence I wait for
        self._voids_told = 0  # the voids my phone applied that the screen was told of

    def act(self, action: str) -> None:
        """My decision (the host applies it and tells everyone), checked against my own
        copy of the match first, as a casino phone checks its intents: one the rules
        refuse raises :class:`~app.rules.errors.IllegalAction` with the engine's code
        and nothing is sent."""
        self.send(self.link, self.check_act(action))

    def check_act(self, action: str) -> Act:
        """The ``Act`` for ``action`` if my copy of the match allows it now
        (IllegalAction otherwise: ``bad_action``, or the engine's own code)."""
        phone = self.phone
        r = phone.match.round if phone is not None else None
        if phone is None or r is None or self.seat is None:
            raise IllegalAction("wrong_phase", "no round is being played")
        if action not in ACTIONS:
            raise IllegalAction("bad_action", f"no action {action!r}")
        phone.match.verify(ActionKind(action), self.seat)
        return Act(r.number, action)

    def read_result(self) -> bool:
        """I have read the last round's result: ask the host for the next deal (it deals
        when every player asked, or when its pause runs out). False if no round waits
        for its deal on my phone (nothing is sent)."""
        m = self.phone.match if self.phone is not None else None
        if m is None or self.closed or not m.history or not m.between_rounds:
            return False
        assert m.round is not None
        if m.round.number == self._asked:
            return True  # (asked already: a second tap sends nothing)
        self._asked = m.round.number
        return self.send(self.link, NextRound(m.round.number))

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
                on_round_end=self.on_round_end,
            )
            self.phone.names = self._names()
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
            sender, deck = frame_deck(message.data, phone.dealer)
            self._charge(message.data, sender, deck, self._last_deck)
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
            unseen = message.reason == "cheat" and message.seat not in self._accused
            if not self._removal(phone, message.seat == self.seat, unseen):
                return
            self._accused.discard(message.seat)  # the host removed whom my phone caught
            self.notice(
                "player_left",
                seat=message.seat,
                name=self._name_of(message.seat),
                reason=message.reason,
            )
            phone.announce(message)
        elif isinstance(message, Go | Deal | CloseDeal | Applied | NewDeck | Ahead | Rejoin | Void):
            if isinstance(message, Go | NewDeck | Deal | Ahead):
                self._last_deck = max(self._last_deck, message.deck)
            phone.announce(message)
        else:
            raise TableError("bad_message", f"{type(message).__name__} is not for a guest")
        self._after()

    def _dealer_for(self, options: Options, players: int) -> Dealer:
        """My dealer: the host's explicit choice of open dealing is followed and shown."""
        assert self.seat is not None
        if options.secret:
            return self._dealer_factory(self.seat, players)
        self.notice("open_dealer")
        return OpenDealer(self.seat)

    def _rejoining(self) -> bool:
        return self.rejoined

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
                on_round_end=self.on_round_end,
            )
            self.phone.names = self._names()
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
        self._flush()
        v = phone.violation
        while v is not None and v.seat is not None and v.seat not in (0, self.seat):
            # Another guest cheated: the host, which sees every frame he signed,
            # removes him and voids the round. A host that does not, in time,
            # shields him: then it is named. My phone plays on meanwhile (the
            # host's Void and Left must reach it), not naming him again.
            phone.leave_to_host()  # (once per seat: the loop ends)
            self.notice("cheat_named", seat=v.seat, code=v.code)
            self._told_cheaters.add(v.seat)
            removed = phone.leaving(v.seat)  # (his Left came before my phone caught him)
            if v.seat in phone.match.active and v.seat not in self._accused and not removed:
                self._accused.add(v.seat)
                self.timers.set(f"accused:{v.seat}", float(phone.options.turn_time))
            phone.pump()
            self._flush()
            v = phone.violation
        if v is not None:
            self._leave_named(v.seat, v.code, v.detail)
            return
        for seat in phone.cheaters.keys() - self._told_cheaters - {0, self.seat}:
            # named by my phone without a violation of its own to show (a second seat
            # a failed audit names, a leaver named in his absence)
            self._told_cheaters.add(seat)
            self.notice("cheat_named", seat=seat, code=phone.cheaters[seat])
        while len(phone.voided) > self._voids_told:
            # Whose the void was, as my own phone checked it (issue 30).
            void = phone.voided[self._voids_told]
            self._voids_told += 1
            charged = void.seat
            name = self._name_of(charged) if charged is not None else ""
            self.notice(
                "round_void", round=void.round, reason=void.reason, seat=charged, name=name
            )
        if phone.dealer.ready and not self._told_setup:
            self._told_setup = True
            self.send(self.link, SetUp(phone.dealer.fingerprint))
            self.notice("fingerprint", code=phone.dealer.fingerprint)
        m = phone.match
        if m.over and not self._told_over:
            self._told_over = True
            self.notice("match_over", winner=m.winner, points=list(m.points), reason=m.end_reason)
        if self.bot is not None:
            self.read_result()  # a bot reads a result at once
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
                with suppress(IllegalAction):  # (refused by my copy: not sent, it times out)
                    self.act(action)

    def wind_down(self, steps: int = 100_000) -> None:
        """The host ended the table: finish what this phone has in hand (the last
        round's audit, on which its result waits), sending nothing."""
        phone = self.phone
        while phone is not None and not phone.match.over and phone.violation is None and steps:
            steps -= 1
            if not phone.work():
                break

    def _names(self) -> dict[int, str]:
        """Seat -> name as the host's last lobby message says (for round records)."""
        players = self.lobby.players if self.lobby is not None else ()
        return {seat: p.name for seat, p in enumerate(players)}

    def _name_of(self, seat: int) -> str:
        players = self.lobby.players if self.lobby is not None else ()
        return players[seat].name if 0 <= seat < len(players) else ""

    def _timer(self, name: str) -> None:
        if name == "host_owes" and self._host_owes is not None and not self.closed:
            self._leave_named(0, "stalled", "the host's own part never came")
            return
        if name == "void_evidence" and self.phone is not None and not self.closed:
            void = self.phone.void_waiting
            if void is not None:
                # The host voided a round for a reason my phone cannot back with
                # anything it holds, in all the time the evidence needed to come.
                detail = f"round {void.round}: {void.reason}, seat {void.seat}"
                self._leave_named(0, "unjustified_void", detail)
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
        part (a commitment, pass, lock, key or seed, a body) longer than
        ``host_patience`` turns (``host_patience_after_play`` once the round's play is
        over), the host is named and I leave. (Its watchdog judges everybody else.)"""
        phone = self.phone
        r = phone.match.round if phone is not None else None
        owes = None
        if phone is not None and r is not None and not phone.match.over:
            decks = phone.decks_of(r.number)
            waiting = set().union(*(phone.dealer.waiting_for(d) for d in decks))
            # (the host's own key of a card dealt to me is due at once: a host keeping it
            # must be named before its watchdog could drop me as stalled for my report)
            keys = 0 in set().union(*(phone.dealer.keys_owed(d) for d in decks))
            after = r.phase in (Phase.SHOWDOWN, Phase.OVER) or keys
            owes = (r.number, after, frozenset(waiting)) if 0 in waiting else None
        if owes is None:
            self.timers.cancel("host_owes")
        elif owes != self._host_owes:
            assert phone is not None
            patience = self.host_patience_after_play if owes[1] else self.host_patience
            self.timers.set("host_owes", patience * phone.options.turn_time)
        self._host_owes = owes

    def _watch_void(self) -> None:
        """A host's ``Void`` my phone cannot yet back with what it holds (the complaint,
        my own verdict on the cheater, my audit waiting for the staller) waits for that
        evidence: relayed in order it is on its way, or my own dealer is still working
        it out. The wait starts when my dealer has nothing left to do and lasts
        ``void_patience`` turns; then the host is named."""
        phone = self.phone
        void = phone.void_waiting if phone is not None else None
        if phone is None or void is None or phone.dealer.has_work():
            self.timers.cancel("void_evidence")
            self._void_key = None
        elif void != self._void_key:
            self._void_key = void
            self.timers.set("void_evidence", self.void_patience * phone.options.turn_time)

    def step(self, wait: float = 0.0) -> None:
        if self.phone is not None and not self.closed:
            precheck(self.inbox, self.phone.dealer)  # (the waiting frames' signatures at once)
        super().step(wait)
        phone = self.phone
        if phone is not None and not self.closed:
            phone.work()
            self._after()
            if not self.closed:
                self._watch_host()
                self._watch_void()
        elif phone is not None and phone.violation is None and phone.dealer.has_work():
            # The table closed (e.g. the host found a cheat): finish the checks whose
            # frames are in hand, so that this phone names a cheater itself.
            phone.work()
            if phone.violation is not None:
                v = phone.violation
                self.notice("violation", seat=v.seat, code=v.code, detail=v.detail)
