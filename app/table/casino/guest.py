"""A guest's phone at a casino table: the lobby, then its own copy of the table.

:class:`CasinoGuest` joins through the shared :class:`~app.table.lobby.GuestLobby`,
announces the public key its intents are signed with (``CKey``, with a proof that it
holds it) and says it is ready. Once the host begins it applies every announcement
of the host to its own :class:`~app.table.casino.phone.CasinoPhone` and checks it: a
forged or replayed intent, an event the rules refuse, a key of its own player that is
not its key, a round digest relayed by the host that differs from its own: each is the
host's fault (an honest host refuses them before relaying), so the phone names the
host and leaves the table. A cheat of another guest caught on this phone (a bad shoe
frame) is named on its screen; the host must remove him within a decision's time,
or the phone names the host for shielding him.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Any

from app.protocol.group import DEFAULT_GROUP, Group
from app.rules.errors import IllegalAction
from app.rules.table_rules import TableRules
from app.table.casino.generations import ShoeGenerations, shoe_of
from app.table.casino.host import ShoeFactory
from app.table.casino.messages import (
    CAgree,
    CBack,
    CBegin,
    CDeal,
    CIntent,
    CKey,
    CLeft,
    CNo,
    COpenBets,
    CResume,
    CShoe,
    CTimeout,
    signed_bytes_of_key,
)
from app.table.casino.phone import HOST, CasinoPhone, player_id
from app.table.casino.sequencer import step_time
from app.table.casino.side import CasinoBot, CasinoSide
from app.table.casino.state import OwedStep
from app.table.clock import Clock
from app.table.errors import TableError
from app.table.frame_budget import FrameBudget, protocol_header
from app.table.guest_copy import GuestCopy
from app.table.lobby import Notice
from app.table.messages import Message, ProtocolFrame, Welcome
from app.table.phone_copy import RoundEndHook


class CasinoGuest(GuestCopy[CasinoPhone], CasinoSide):
    """A guest's phone at a casino table (what both games' guests share:
    :class:`~app.table.guest_copy.GuestCopy`)."""

    #: (``host_patience``: decisions' time a guest waits for the host's own part)
    #: ... for the host's own key of a card in play (less than the host's watchdog)
    host_patience_for_keys = 0.5

    def __init__(
        self,
        link: Any,
        inbox: queue.Queue[Any],
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        shoe_factory: ShoeFactory,
        bot: CasinoBot | None = None,
        on_change: Callable[[], None] | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        group: Group = DEFAULT_GROUP,
        on_round_end: RoundEndHook | None = None,
    ) -> None:
        self._init_side(clock, group, bot, on_change)
        self.on_round_end = on_round_end
        self.me = ""
        self.rules = TableRules()
        self._shoe_factory = shoe_factory
        self._keyed = False
        self._returning = False  # back at a running table: waiting for its state
        #: ((step, only its key missing), since) the host owes
        self._host_owes: tuple[tuple[OwedStep, bool], float] | None = None
        self._accused: dict[str, float] = {}  # guests my phone caught -> by when to go
        #: what each sender's shoe frames may cost (set for the table's decks at its begin)
        self._budget = FrameBudget.for_shoe(self.rules.decks, group.byte_len)
        super().__init__(
            link, inbox, player_id=player_id, name=name, lang=lang, clock=clock, on_notice=on_notice
        )

    # -- CasinoTable ------------------------------------------------------------------------

    def start(self) -> None:
        """Only the host starts the table."""
        raise TableError("not_host", "only the host starts the table")

    def leave(self) -> None:
        """Leave the table (the others play on; this phone keeps what it saw)."""
        if not self.over:
            self.over = True
            self.note("left_table")
        super().leave()
        self._changed()

    def _send_intent(self, intent: CIntent) -> None:
        self.send(self.link, intent)
        self._changed()

    # -- the host's messages ------------------------------------------------------------------

    def _message(self, message: Message | ProtocolFrame) -> None:
        super()._message(message)
        if isinstance(message, Welcome):
            self.me = player_id(message.seat)
            self._returning = message.rejoin
            if not self._keyed:
                self._keyed = True
                key = format(self.identity.sign_pub, "x")
                sig = self.identity.sign(b"blu21/casino-key", signed_bytes_of_key("", key))
                self.send(self.link, CKey(key, sig.hex()))
                self.set_ready(True)

    def lobby_names(self) -> dict[str, str]:
        """The players seated in the lobby as the host's last lobby message says."""
        lobby = self.lobby
        if lobby is None:
            return super().lobby_names()
        return {player_id(p.seat): p.name for p in lobby.players}

    def on_game_message(self, message: Message | ProtocolFrame) -> None:
        if self.closed:
            return  # (I named the host and left: what was still in my inbox is moot)
        if isinstance(message, CBegin) and not self._returning:
            self._begin(message)
            return
        if isinstance(message, CResume):
            self._resume(message)
            return
        phone = self.phone
        if phone is None and self._returning:
            return  # the table goes on without me until the next round (CResume)
        if phone is None:
            raise TableError("bad_message", "the table has not begun")
        if isinstance(message, ProtocolFrame):
            header = protocol_header(message.data)
            sender = None if header is None else header[1]
            self._charge(message.data, sender, shoe_of(message.data), phone.newest_shoe())
        elif isinstance(message, CBack):
            if message.player == self.me:
                if int(message.key, 16) != self.identity.sign_pub:
                    raise TableError("forged_key", "the host announced another key for me")
            else:  # set my shoe dealer up anew with the returning phone
                gone = phone.leaving()  # (a departure still queued here is one too)
                absent = [
                    p.seat
                    for p in phone.players.values()
                    if (not p.present or p.pid in gone) and p.pid != message.player
                ]
                dealer = self._shoe_factory(phone.players[self.me].seat, len(phone.players))
                self._budget.new_setup()  # (the set-up frames count afresh)
                for frame in phone.generations.rekey(message.shoe, dealer, absent):
                    self.send(self.link, ProtocolFrame(frame))
            phone.receive(message)
        elif isinstance(message, CIntent | CShoe | COpenBets | CDeal | CTimeout):
            phone.receive(message)
        elif isinstance(message, CLeft):
            unseen = message.reason == "cheat" and message.player not in self._accused
            if not self._removal(phone, message.player == self.me, unseen):
                return
            self._accused.pop(message.player, None)
            if message.reason != "disagree" or message.player in phone.liars:
                # (a removal for ``disagree`` without his differing signed digest here is
                # the host's word: the phone refuses it, ``bad_left``, issue 30)
                self.note("player_left", player=message.player, reason=message.reason)
            phone.receive(message)
        elif isinstance(message, CAgree):
            try:
                phone.agree(message)
            except ValueError as exc:
                raise TableError("forged_agreement", str(exc)) from exc
        elif isinstance(message, CNo):
            # Only my intents still on their way are kept: the set stays as small as
            # my own sending, whatever the host sends.
            relayed = phone.players[self.me].n
            self._refused = {n for n in self._refused if n > relayed}
            if relayed < message.n <= phone.sent:
                self._refused.add(message.n)
            if not self._again(message.n, message.code):
                self.note("intent_refused", code=message.code)
        else:
            raise TableError("bad_message", f"{type(message).__name__} is not for a guest")
        self._after()

    def _begin(self, begin: CBegin) -> None:
        if self.phone is not None or self.seat is None:
            raise TableError("bad_message", "the table has already begun")
        me = player_id(self.seat)
        mine = next((p for p in begin.players if p.pid == me), None)
        if mine is None or int(mine.key, 16) != self.identity.sign_pub:
            raise TableError("forged_key", "the host announced another key for my player")
        self.me = me
        self.rules = begin.rules
        self._budget = FrameBudget.for_shoe(begin.rules.decks, self.group.byte_len)
        try:
            dealer = ShoeGenerations(self._shoe_factory(self.seat, len(begin.players)))
            self.phone = CasinoPhone(
                me, begin, dealer, self.group, self.identity, on_round_end=self.on_round_end
            )
        except ValueError as exc:
            raise TableError("bad_message", str(exc)) from exc
        self._names = {p.pid: p.name for p in begin.players}
        if not begin.secret:
            self.note("open_dealer")
        for frame in self.phone.dealer.hello():
            self.send(self.link, ProtocolFrame(frame))
        self.note("table_started", players=len(begin.players))
        self._after()

    def _resume(self, message: CResume) -> None:
        """Back at a running table: my copy from the host's snapshot, a new shoe dealer
        for the shoes from the snapshot's ``first_shoe`` on (set up with everybody)."""
        if self.phone is not None or self.seat is None or not self._returning:
            raise TableError("bad_message", "not a table to resume")
        begin = message.begin
        me = player_id(self.seat)
        mine = next((p for p in begin.players if p.pid == me), None)
        first = message.state.get("first_shoe")
        if mine is None or mine.present or type(first) is not int or first < 1:
            raise TableError("bad_message", "not a table to resume")
        absent = [p.seat for p in begin.players if not p.present and p.pid != me]
        dealer = ShoeGenerations(self._shoe_factory(self.seat, len(begin.players)), first)
        try:
            phone = CasinoPhone(
                me, begin, dealer, self.group, self.identity, on_round_end=self.on_round_end
            )
            phone.resume(message.state)
        except IllegalAction as exc:  # chips none of the others signed: the host lies
            self._name_host(exc.code, str(exc))
            return
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise TableError("bad_message", f"bad snapshot: {exc}") from exc
        self.me, self.rules, self.phone = me, begin.rules, phone
        self._budget = FrameBudget.for_shoe(begin.rules.decks, self.group.byte_len)
        self._names = {p.pid: p.name for p in begin.players}
        for frame in dealer.hello() + [f for s in absent for f in dealer.leave_out(s)]:
            self.send(self.link, ProtocolFrame(frame))
        self.note("table_resumed", round=phone.round_no)
        self._after()

    def _after(self) -> None:
        phone = self.phone
        if phone is None or self.closed:
            return
        self._flush()
        withheld = phone.missing_agreements()
        if withheld:  # an honest host relays every player's digest at once
            rnd = min(withheld)
            self._name_host("withheld_agreement", f"round {rnd}: {sorted(withheld[rnd])}")
            return
        for rnd in list(phone.records)[-2:]:
            # the host's own signed digest differs from mine (another guest's differing
            # one is judged by the phone: his lie, or the host's second log)
            if HOST in phone.disagreeing(rnd):
                self._name_host("disagree", f"round {rnd}: the host's digest differs")
                return
        f = phone.fault
        if f is not None:
            if f.player not in (HOST, self.me) and f.player in phone.players:
                # Another guest cheated: the host, which saw his frame, must remove him.
                phone.fault = None
                self.note("cheat_named", player=f.player, code=f.code)
                self._accused.setdefault(f.player, self.clock.now() + phone.turn_time)
                phone.pump()
            else:
                self._name_host(f.code, f.detail)
                return

    def _watch_host(self, phone: CasinoPhone) -> None:
        """The host counts like any phone: when the table waits for the host's own part
        of one step of the shoe protocol longer than :attr:`host_patience` times that
        step's time (the host's watchdog judges everybody else, and acts first), it is
        named."""
        step = phone.owed_steps().get(0)
        if step is None:
            self._host_owes = None
            return
        now = self.clock.now()
        # the host's own key of a card in play, the only one missing, is due at once: a
        # host keeping it must be named before its watchdog could drop me as stalled
        # (issue 30); timed from when it became the only one missing
        keys = step[0] == "card" and 0 in phone.dealer.keys_owed(step[1])
        patience = self.host_patience_for_keys if keys else self.host_patience
        if self._host_owes is None or self._host_owes[0] != (step, keys):
            self._host_owes = ((step, keys), now)
        elif now - self._host_owes[1] >= patience * step_time(step, phone.turn_time):
            self._name_host("stalled", "the host's own part of the shoe never came")

    def _name_host(self, code: str, detail: str = "") -> None:
        """My phone caught the host: say so and leave the table."""
        self.note("cheat_named", player=HOST, code=code)
        self._leave_named(0, code, detail)
        self.over = True

    # -- the loop ---------------------------------------------------------------------------

    def step(self, wait: float = 0.0) -> None:
        """The host's messages (up to ``wait`` s for the first), the timers, the dealer's
        background work, the bot."""
        super().step(wait)
        phone = self.phone
        if self.closed and not self.over:
            self.over = True
            reason = next(
                (
                    n.details.get("reason") or n.details.get("code")
                    for n in reversed(self.notices)
                    if n.code in ("table_closed", "host_lost", "host_violation", "refused")
                ),
                "host_lost",
            )
            self.note("table_closed", reason=reason)
            if phone is not None and phone.fault is None:
                # Dropped (an equivocating host drops the seat it framed before his
                # audit names it): the audits whose frames are in hand still run, so
                # this phone names a cheater itself.
                self._audit_first(phone)
                f = phone.fault
                if f is not None and f.player in (HOST, *phone.players):
                    self.note("cheat_named", player=f.player, code=f.code)
                    self.notice("violation", seat=phone.players[f.player].seat, code=f.code)
        if phone is not None and not self.closed:
            phone.work()
            self._after()
            for pid, by in list(self._accused.items()):
                if self.clock.now() >= by and phone.players[pid].present and not self.closed:
                    self._name_host("shielded_cheater", pid)
            if not self.closed:
                self._watch_host(phone)
            if not self.closed:
                self._taps_due()
                self._play_bot()
                self._track_deadline()
        self._changed()


__all__ = ["CasinoGuest"]
