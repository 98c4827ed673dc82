"""The casino host's phone: the lobby, then the table's I/O around the pure sequencer.

:class:`CasinoHost` seats guests through a :class:`~app.table.lobby.HostLobby` it holds
by composition (the lobby hands it the guests' casino messages, arrivals and
departures through :class:`~app.table.lobby.MatchHooks`). Once started it:

* checks every guest's signed intent (his own player id on his own link, his key, a new
  counter, and what the host's engine copy says of it) and relays it unchanged to
  every phone, itself included; an intent in another player's name or with a bad
  signature is a cheat (the link is dropped, the player named); an intent the engine
  refuses is answered ``CNo`` (it may be an honest race with the table);
* relays the shoe frames after its own dealer authenticated them;
* signs its own round digest with its log (``CAgree``), and relays each player's,
  which carries the host's signed digest he got; a guest whose digest differs from
  the host's on that log is relayed, then removed (``disagree``): every phone holds
  the evidence (issue 30);
* feeds :func:`app.table.casino.sequencer.step` and carries out its effects: the
  shoes, the betting, the deal, time-outs and departures, with the timers on the
  injected clock.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from app.bluetooth.link import Listener
from app.protocol.group import DEFAULT_GROUP, Group
from app.protocol.keys import verify
from app.rules.errors import IllegalAction
from app.rules.table_rules import TableRules
from app.table.casino.book import (
    Announce,
    Back,
    CasinoBook,
    CasinoEffect,
    CasinoEvent,
    CasinoFacts,
    Drop,
    Expired,
    Gone,
    Readmit,
    Stage,
    Started,
)
from app.table.casino.generations import ShoeGenerations, shoe_of
from app.table.casino.messages import (
    LEFT_REASONS,
    Announcement,
    CAgree,
    CBack,
    CBegin,
    CIntent,
    CKey,
    CNo,
    CPlayer,
    CResume,
    signed_bytes_of_key,
)
from app.table.casino.phone import HOST, CasinoPhone, player_id
from app.table.casino.sequencer import step
from app.table.casino.shoe_dealer import ShoeDealer
from app.table.casino.side import CasinoBot, CasinoSide
from app.table.clock import Clock
from app.table.errors import TableError
from app.table.frame_budget import FrameBudget
from app.table.host_shell import LobbyShell
from app.table.lobby import Notice
from app.table.messages import Message, Options, ProtocolFrame, check_fields

ShoeFactory = Callable[[int, int], ShoeDealer]  # (my seat, players) -> shoe dealer
#: intents the host's engine refused that a guest may send in one round (honest races
#: are a few); past it he floods the table and is removed
MAX_REFUSED = 32
#: intents of one guest the host holds while its copy is still dealing (a tap or two
#: that came while the cards open; past it he floods the table and is removed)
MAX_LATER = 8


class CasinoHost(LobbyShell[CasinoBook, CasinoEvent, CasinoFacts, CasinoEffect], CasinoSide):
    """The host's phone at a casino table (seat 0, player ``p0``)."""

    def __init__(
        self,
        listener: Listener,
        *,
        player_id: str,
        name: str,
        lang: str,
        clock: Clock,
        shoe_factory: ShoeFactory,
        rules: TableRules,
        bet_time: int = 30,
        turn_time: int = 30,
        secret: bool = True,
        bot: CasinoBot | None = None,
        on_change: Callable[[], None] | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        group: Group = DEFAULT_GROUP,
        round_pause: float = 0.0,
    ) -> None:
        # what every guest would refuse in c_begin is refused here, before anybody joins
        check_fields(CBegin, bet_time=bet_time, turn_time=turn_time)
        self._init_side(clock, group, bot, on_change)
        self.me = HOST
        self.rules = rules
        self.bet_time, self.turn_time, self.secret = bet_time, turn_time, secret
        self.round_pause = round_pause
        self._open(
            listener,
            player_id=player_id,
            name=name,
            lang=lang,
            clock=clock,
            options=Options(rounds=1, turn_time=turn_time, secret=secret),
            on_notice=on_notice,
            # what each seat's shoe frames may cost (issue 30: the Oczko table's limits)
            budget=FrameBudget.for_shoe(rules.decks, group.byte_len),
            hooks=self,
        )
        self._shoe_factory = shoe_factory
        self.book = CasinoBook()
        self._keys: dict[int, str] = {}  # seat -> public key (hex) a guest announced
        #: player -> (round, intents of his refused in it): the budget is per round
        self._refusals: dict[str, tuple[int, int]] = {}
        self._held: list[tuple[int, CAgree]] = []  # digests of rounds I have not settled
        #: guests' intents that came while my copy was still dealing (seat, intent):
        #: relayed or refused, in order, once it can take them (never lost)
        self._later: list[tuple[int, CIntent]] = []
        self._names = {HOST: self.lobby.seating.sitters[0].name}

    def lobby_names(self) -> dict[str, str]:
        """The players seated in the lobby, host first."""
        return {player_id(i): s.name for i, s in enumerate(self.lobby.seating.sitters)}

    # -- the host player's intents ----------------------------------------------------------

    def start(self) -> None:
        """Close the lobby and begin: every phone gets the players, their keys and the
        rules, and the first shoe is shuffled (TableError ``too_few_players``,
        ``player_not_ready`` naming a guest whose key has not come)."""
        if self.phone is not None:
            return
        sitters = self.lobby.seating.sitters
        missing = [s.name for i, s in enumerate(sitters) if i and i not in self._keys]
        if missing:
            raise TableError("player_not_ready", f"no key from {missing[0]}", name=missing[0])
        seating = self.lobby.start()
        chips = Fraction(self.rules.starting_chips)
        players = tuple(
            CPlayer(
                player_id(i),
                i,
                s.name,
                format(self.identity.sign_pub, "x") if i == 0 else self._keys[i],
                chips,
            )
            for i, s in enumerate(seating.sitters)
        )
        begin = CBegin(
            secrets.token_hex(16),
            self.rules,
            players,
            (),
            self.bet_time,
            self.turn_time,
            self.secret,
        )
        self.lobby.broadcast(begin)
        self._names = {p.pid: p.name for p in players}
        dealer = ShoeGenerations(self._shoe_factory(0, len(players)))
        self.phone = CasinoPhone(HOST, begin, dealer, self.group, self.identity)
        for frame in self.phone.dealer.hello():
            self.lobby.broadcast(ProtocolFrame(frame))
        self.note("table_started", players=len(players))
        self._feed(Started())
        self._drive()
        self._changed()

    def leave(self, reason: str = "host_left") -> None:
        """The host leaves: the table ends on every phone (``Bye(reason)``)."""
        if not self.over:
            self.over = True
            self.book = CasinoBook(stage=Stage.OVER)
            self.lobby.close(reason)
            self.note("table_closed", reason=reason)
            self._changed()

    def close(self, reason: str = "host_left") -> None:
        """Alias of :meth:`leave` for the shells that close tables."""
        self.leave(reason)

    def _send_intent(self, intent: CIntent) -> None:
        self._announce(intent)
        self._drive()
        self._changed()

    # -- the loop ---------------------------------------------------------------------------

    def step(self, wait: float = 0.0) -> None:
        """The links' events (up to ``wait`` s for the first), the due timers, and what
        the host's phone computed meanwhile."""
        for name in self._expired(wait):
            self._feed(Expired(name))
        phone = self.phone
        if phone is not None and not self.over:
            phone.work()
            self._flush()
            self._relay_later()
            self._drive()
            self._taps_due()
            self._play_bot()
            self._track_deadline()
        self._changed()

    # -- the lobby's hooks --------------------------------------------------------------------

    def on_game_message(self, seat: int, message: Message | ProtocolFrame) -> None:
        """A guest's casino message (TableError: the lobby drops him)."""
        if isinstance(message, CKey):
            self._key(seat, message)
            return
        phone = self.phone
        if phone is None or self.over:
            raise TableError("bad_message", "the table has not begun")
        pid = player_id(seat)
        if isinstance(message, ProtocolFrame):
            shoe, newest = shoe_of(message.data), phone.newest_shoe()
            if not self._take_frame(
                seat, message.data, phone.dealer.authenticate, deck=shoe, newest=newest
            ):
                return  # (a copy of a frame relayed before: a no-op)
            self.lobby.broadcast(message, skip=seat)
            phone.frame(message.data)
            self._flush()
        elif isinstance(message, CIntent):
            self._relay_intent(seat, pid, message)
        elif isinstance(message, CAgree):
            self._relay_agree(seat, pid, message)
        else:
            raise TableError("bad_message", f"{type(message).__name__} is not for the host")
        self._drive()
        self._changed()

    def _key(self, seat: int, message: CKey) -> None:
        try:
            key = int(message.key, 16)
            ok = self.group.is_element(key) and verify(
                self.group,
                key,
                b"blu21/casino-key",
                signed_bytes_of_key("", message.key),
                bytes.fromhex(message.sig),
            )
        except ValueError:
            ok = False
        if not ok:
            raise TableError("cheat", "a key without its proof")
        phone = self.phone
        if phone is not None:
            pid = player_id(seat)
            # (a departure still queued behind a fresh shoe's cards is a departure: his
            # key is a return; only a key for a seat still at the table is refused)
            if pid not in phone.players or pid in self._here(phone):
                raise TableError("bad_message", "a new key during the table")
            self._feed(Back(pid, message.key))  # back on a new phone: from the next round
            self._drive()
        self._keys[seat] = message.key

    def _relay_intent(self, seat: int, pid: str, intent: CIntent, held: bool = False) -> None:
        phone = self.phone
        assert phone is not None
        p = phone.players.get(pid)
        if intent.player != pid or p is None:
            raise TableError("cheat", f"seat {seat} sent an intent in the name of {intent.player}")
        sig_ok = verify(
            self.group,
            p.key,
            b"blu21/casino-intent",
            intent.signed_bytes(phone.table),
            bytes.fromhex(intent.sig),
            check_pub=False,
        )
        if not sig_ok or intent.n <= p.n:
            raise TableError("cheat", f"an intent of {pid} with a bad signature or counter")
        if phone.waiting or (not held and any(s == seat for s, _ in self._later)):
            # My copy is still dealing (his phone was quicker): it waits its turn, it is
            # not refused (he would send it again and again while the cards open).
            if sum(s == seat for s, _ in self._later) >= MAX_LATER:
                raise TableError("flood", f"{MAX_LATER} intents while the cards open")
            self._later.append((seat, intent))
            return
        try:
            phone.check(intent)
        except IllegalAction as exc:
            rnd, refused = self._refusals.get(pid, (phone.round_no, 0))
            refused = refused + 1 if rnd == phone.round_no else 1
            self._refusals[pid] = (phone.round_no, refused)
            if refused > MAX_REFUSED:
                raise TableError("flood", f"{refused} refused intents in a round") from None
            link = self.link_of(seat)
            if link is not None:
                self.lobby.send(link, CNo(intent.n, exc.code))
            self.note("intent_refused", player=pid, code=exc.code)
            return
        self._announce(intent)

    def _relay_later(self) -> None:
        """The guests' intents held while my copy was dealing, once it can take them."""
        phone = self.phone
        while self._later and phone is not None and not phone.waiting and not self.over:
            seat, intent = self._later.pop(0)
            if self.link_of(seat) is None:
                continue
            try:
                self._relay_intent(seat, player_id(seat), intent, held=True)
            except TableError as exc:
                self.lobby.drop_seat(seat, exc.code, str(exc))

    def _relay_agree(self, seat: int, pid: str, message: CAgree) -> None:
        phone = self.phone
        assert phone is not None
        if message.player != pid:
            raise TableError("cheat", f"seat {seat} agreed in the name of {message.player}")
        if message.round not in phone.records:  # (his phone was quicker than mine)
            if message.round > phone.round_no or len(self._held) > 64:
                raise TableError("cheat", f"a result of round {message.round}, not played")
            self._held.append((seat, message))
            return
        self._flush_outbox()  # (my own digest of the round goes out before his)
        try:
            phone.agree(message)
        except ValueError as exc:
            raise TableError("cheat", str(exc)) from exc
        self.lobby.broadcast(message, skip=seat)
        if pid in phone.liars:
            # His signed digest differs from mine on the log I signed for him: relayed
            # first (above), so that every phone holds the evidence of his removal.
            if phone.fault is not None and phone.fault.player == pid:
                phone.fault = None
            raise TableError("disagree", f"{pid}'s round {message.round} differs from the host's")

    def on_joined(self, seat: int) -> None:
        """A guest sat down (lobby) or came back (a running table: he plays again from
        the next round once his new key is in)."""
        self._new_link(seat)  # (a new phone: new frames)
        if self.phone is None:
            self._names = {player_id(i): s.name for i, s in enumerate(self.lobby.seating.sitters)}

    def on_gone(self, seat: int, reason: str) -> None:
        """A guest's link is gone (``reason``: the lobby's code)."""
        if self.phone is None:
            self._keys.pop(seat, None)
            # (before the table the seats behind move up: so do their keys)
            self._keys = {(s - 1 if s > seat else s): k for s, k in self._keys.items()}
            return
        self._later = [(s, i) for s, i in self._later if s != seat]  # (died with his phone)
        if reason in ("cheat", "disagree"):
            self.note("cheat_named", player=player_id(seat), code=reason)
            self._ban(seat)
        code = reason if reason in LEFT_REASONS else "lost"
        self._feed(Gone(player_id(seat), code))
        self._drive()

    # -- the shell around the sequencer -----------------------------------------------------

    def _observe(self) -> CasinoFacts:
        phone = self.phone
        assert phone is not None
        r = phone.round
        present = self._here(phone)
        # (a returner's new phone is not at the table before his CBack: it decides nothing)
        connected = frozenset(
            p.pid
            for p in phone.players.values()
            if p.seat == 0 or (self.link_of(p.seat) and p.pid in present)
        )
        here = connected & present
        order = tuple(sorted(p.seat for p in phone.players.values() if p.pid in here))
        phase = "" if r is None else r.phase.value
        owing = {player_id(s): st for s, st in phone.owed_steps().items() if s}
        unvouched, unsigned = phone.unvouched() if self.book.returning else (set(), set())
        for pid in unsigned:  # a returner waits for their signed digests of the round
            owing.setdefault(pid, ("agree", phone.round_no, 0))
        return CasinoFacts(
            round=phone.round_no,
            betting=phase == "betting",
            settled=r is None or r.settled,
            bets=r is not None and bool(r.hands),
            all_done=present <= phone.done | (present - connected),
            busy=phone.waiting,
            deciders=phone.deciders(),
            decision=0 if r is None else len(r.events),
            phase=phase,
            connected=connected,
            present=present,
            want_shoe=phone.next_shoe_wanted(),
            has_shoe=phone.shoe_ready(),
            order=order,
            decks=phone.rules.decks,
            dead={p.pid: phone.dead_points(p.seat) for p in phone.players.values() if p.seat},
            bet_time=float(self.bet_time),
            turn_time=float(self.turn_time),
            pause=self.round_pause,
            owing=owing,
            closed=self.closed or self.over,
            vouched=not unvouched,
            vouching=bool(unsigned),
        )

    @staticmethod
    def _here(phone: CasinoPhone) -> frozenset[str]:
        """The players at the table: present on my copy, and no departure announced."""
        return frozenset(phone.present) - phone.leaving()

    # -- the game's part of the shell (app.table.host_shell) ------------------------------

    def _sequence(
        self, book: CasinoBook, event: CasinoEvent, facts: CasinoFacts
    ) -> tuple[CasinoBook, list[CasinoEffect]]:
        return step(book, event, facts)

    def _in_play(self) -> bool:
        return self.phone is not None

    def _ended(self) -> bool:
        return self.over or self.closed

    def _say(self, code: str, details: Mapping[str, Any]) -> None:
        self.note(code, **details)

    def _drop(self, effect: Drop[Any]) -> None:
        self.note(
            "cheat_named" if effect.reason == "cheat" else "player_stalled",
            player=effect.who,
        )
        self.lobby.drop_seat(int(effect.who[1:]), effect.reason)  # (p<seat>)

    def _end(self, reason: str) -> None:
        self.note("table_over", reason=reason)
        self.leave(reason)

    def _perform_own(self, effect: CasinoEffect) -> None:
        if isinstance(effect, Announce):
            self._announce(effect.message)
        elif isinstance(effect, Readmit):
            self._readmit(effect)

    def _begin_now(self) -> CBegin:
        """The table's players as they stand (chips, presence, keys) for a returner."""
        phone = self.phone
        assert phone is not None
        players = tuple(
            CPlayer(p.pid, p.seat, p.name, format(p.key, "x"), p.chips, p.present)
            for p in phone.players.values()
        )
        return CBegin(
            phone.table, self.rules, players, (), self.bet_time, self.turn_time, self.secret
        )

    def _ban(self, seat: int) -> None:
        """A player named for cheating stays out for the rest of the table: his id is
        refused at the door (every guest that named him refuses his ``CBack`` too)."""
        phone = self.phone
        p = None if phone is None else phone.players.get(player_id(seat))
        if phone is not None:
            phone.named.add(player_id(seat))
        self._bar(
            seat, absent=p is not None and phone is not None and p.pid not in self._here(phone)
        )

    def _readmit(self, effect: Readmit) -> None:
        phone = self.phone
        assert phone is not None
        link = self.link_of(phone.players[effect.player].seat)
        if link is not None:
            state = {**phone.snapshot(), "first_shoe": effect.first_shoe}
            self.lobby.send(link, CResume(self._begin_now(), state))
        self.note("player_back", player=effect.player)

    def _announce(self, message: Announcement) -> None:
        phone = self.phone
        assert phone is not None
        if isinstance(message, CBack):  # every phone sets its shoe dealer up anew
            here = self._here(phone)
            absent = [
                p.seat
                for p in phone.players.values()
                if p.pid not in here and p.pid != message.player
            ]
            dealer = self._shoe_factory(0, len(phone.players))
            self._new_setup()  # (the set-up frames count afresh)
            hello = phone.generations.rekey(message.shoe, dealer, absent)
            self.lobby.broadcast(message)  # (first: the guests set up anew on it)
            for frame in hello:
                self.lobby.broadcast(ProtocolFrame(frame))
        else:
            self.lobby.broadcast(message)
        phone.receive(message)
        self._flush()

    def _flush_outbox(self) -> None:
        phone = self.phone
        while phone is not None and phone.outbox:
            item = phone.outbox.pop(0)
            if isinstance(item, bytes):
                self.lobby.broadcast(ProtocolFrame(item))
            elif isinstance(item, CAgree):
                self.lobby.broadcast(item)

    def _flush(self) -> None:
        phone = self.phone
        self._flush_outbox()
        if phone is not None and not self.over:
            held, self._held = self._held, []
            for seat, message in held:
                if self.link_of(seat) is None:
                    continue
                try:
                    self._relay_agree(seat, player_id(seat), message)
                except TableError as exc:
                    self.lobby.drop_seat(seat, exc.code, str(exc))
            for rnd, late in phone.missing_agreements().items():
                for pid in sorted(late):  # a phone that does not sign its round's result
                    self.note("player_stalled", player=pid, round=rnd)
                    self.lobby.drop_seat(phone.players[pid].seat, "stalled", "no agreement")
        if phone is not None and phone.fault is not None and not self.over:
            f = phone.fault
            seat = phone.players[f.player].seat if f.player in phone.players else 0
            if seat:
                phone.fault = None  # a guest's fault: he is removed, the table goes on
                self.note("cheat_named", player=f.player, code=f.code)
                self._ban(seat)  # (also when he is gone already: named in his absence)
                self.lobby.drop_seat(seat, "cheat", f.code)
            else:
                self.note("table_fault", code=f.code, detail=f.detail)
                self.leave()


__all__ = ["CasinoHost", "ShoeFactory"]
