"""One phone's copy of the casino table: engine, chips, boxes, shoes, fed the table's log.

Every phone (the host's too) keeps a :class:`CasinoPhone`. The host announces the
table's log (:mod:`app.table.casino.messages`: shoes, the betting, the deal, time-outs,
departures, and every player's signed intent, relayed unchanged); each phone applies it
in order to its own blackjack engine (:class:`app.rules.blackjack.Round`, driven only
through ``apply(Action)``), its chips ledger and its boxes, so every phone checks every
change: an announcement the rules refuse, a bad signature, a replayed intent is the
host's fault (an honest host refuses them before relaying) and is named as such.

**Two layers.** An announcement is taken in at once (:meth:`receive`): it is hashed
into the log chain, a signed intent is checked, and the shoe events (a new shoe, the
shoes a leaver can no longer open) update the shoe table. The engine events then wait
in a queue, applied in order by :meth:`pump` as far as the cards allow.

**Cards.** All cards at a casino table are dealt face up; the engine holds no shoe:
after an action it waits for a card (its table action ``card``). Every phone then opens
the next position of the table's card stream through its
:class:`~app.table.casino.shoe_dealer.ShoeDealer` and applies the card-carrying action once the
card is open. The stream is a pure function of the log: the shoes in the order they were
started, each up to its end (or, for a shoe a leaver shuffled, up to the positions that
opened before he left: ``CLeft.dead``), and at the first round after a shoe's cut card
came out the next shoe. So every phone opens the same positions and deals the same
cards.

**Money.** Each player's free chips are known to every phone. Bets are held by the
engine while a round runs; at its end every phone adds each player's net result and the
house's, and checks that the table's chips are conserved (``sum(chips) + house`` is the
chips the players brought). It then signs a digest of the round (log chain, the cards'
positions, chips, house) for the others (``CAgree``).

The values it keeps (players, shoes, faults) and the rules conversion are in
:mod:`app.table.casino.state`.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from app.cards import Card
from app.protocol.group import Group
from app.protocol.keys import Identity, verify
from app.rules.blackjack import Round
from app.rules.blackjack.actions import Action, ActionKind
from app.rules.blackjack.events import EVENTS
from app.rules.blackjack.state import Phase
from app.rules.errors import IllegalAction
from app.rules.money import ZERO, Money, stake_ok, table_money
from app.rules.table_rules import networked_rules
from app.table.casino.digests import (
    AGREE_CONTEXT,
    KEEP_ROUNDS,
    Digests,
    check_proof,
    digest_of,
)
from app.table.casino.generations import ShoeGenerations
from app.table.casino.messages import (
    Announcement,
    CAgree,
    CBack,
    CBegin,
    CDeal,
    CIntent,
    CLeft,
    COpenBets,
    CShoe,
    CTimeout,
    money_wire,
)
from app.table.casino.shoe_dealer import ShoeDealer
from app.table.casino.snapshot import CasinoStage
from app.table.casino.state import (
    Fault,
    OwedStep,
    Player,
    RoundRecord,
    ShoeRec,
    Waiting,
    cut_range,
    player_id,
)
from app.table.dealer import DealerViolation
from app.table.messages import encode
from app.table.phone_copy import PhoneCopy, RoundEnd, RoundEndHook, frozen
from app.table.progress import Note, chain_step

#: The host is always seat 0, so its player id is this.
HOST = "p0"
#: What a time-out (or a player gone) chooses for each kind of pending decision.
DEFAULTS = (ActionKind.STAND, ActionKind.DECLINE_INSURANCE, ActionKind.DECLINE_DOUBLE)


class CasinoPhone(PhoneCopy[ShoeDealer]):
    """The table as one phone sees it (``me``: its player id). The dealer's frames and
    work, the log, the fairness record (:attr:`fairness`: the shoe dealer's fingerprint
    and each shoe's audit) and the round-end hook (``on_round_end``: a
    :class:`~app.table.phone_copy.RoundEnd` when a round is settled, again when the
    audit of its shoes is in) are :class:`~app.table.phone_copy.PhoneCopy`'s."""

    game = "blackjack"
    unit = "shoe"
    #: settled rounds whose shoes' audit is still to come, kept for the round-end hook
    #: (at most this many: a shoe holds far fewer rounds)
    keep_unaudited = 500

    def __init__(
        self,
        me: str,
        begin: CBegin,
        dealer: ShoeDealer,
        group: Group,
        identity: Identity | None = None,
        on_round_end: RoundEndHook | None = None,
        on_log: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self._init_copy(on_log, on_round_end)
        self.me = me
        self.table = begin.table
        self.rules = networked_rules(begin.rules)
        self.bet_time = begin.bet_time
        self.turn_time = begin.turn_time
        self.secret = begin.secret
        self.dealer = dealer
        self.group = group
        self.identity = identity
        self.players: dict[str, Player] = {}
        for p in begin.players:
            try:
                key = int(p.key, 16)
            except ValueError:
                key = 0
            if not group.is_element(key):
                raise ValueError(f"the key of {p.pid} is not in the group")
            self.players[p.pid] = Player(p.pid, p.seat, p.name, key, p.chips, p.present)
        self.boxes: dict[int, str] = dict(begin.boxes)
        self.house: Money = ZERO
        #: the chips the table holds in all (players' and the house's result): conserved
        self.total: Money = sum((p.chips for p in self.players.values()), ZERO)
        self.round_no = 0
        self.round: Round | None = None
        self.done: set[str] = set()
        #: players this phone itself named as cheaters: never back at this table (a
        #: ``CBack`` of one names the host)
        self.named: set[str] = set()
        self.chain = hashlib.sha256(encode(begin)).digest()
        self._queue: deque[tuple[Announcement, bytes]] = deque()
        self._applied_chain = self.chain
        self.shoes: list[ShoeRec] = []
        self._cursor = (0, 0)  # (index in shoes, position): the next card of the stream
        self._cards: list[Card] = []  # this round's open cards, in the order drawn
        self.sources: list[tuple[int, int]] = []  # (shoe, position) of each
        self._need = 0  # cards the head still waits for
        self.outbox: list[Any] = []  # dealer frames (bytes) and my CAgree / CIntent
        self.fault: Fault | None = None
        self.records: dict[int, RoundRecord] = {}
        self.digests = Digests()  # the others' signed digests of the rounds
        #: players whose signed digest differs from the host's on the very log the host
        #: signed for them (the evidence every phone holds): only they may be removed
        #: as ``disagree`` (issue 30)
        self.liars: set[str] = set()
        self._owe_agree: set[int] = set()  # my rounds whose CAgree waits for the host's
        self._sent_n = 0
        self.log: list[dict[str, Any]] = []  # what the screen may show (engine events, notes)
        self._round_from = 0  # where the round in play begins in the log
        self._unaudited: dict[int, RoundEnd] = {}  # settled rounds waiting for audits

    # -- queries --------------------------------------------------------------------------

    @property
    def stage(self) -> CasinoStage:
        r = self.round
        if r is None:
            return CasinoStage.LOBBY if not self.shoes else CasinoStage.SHUFFLING
        if r.phase is Phase.BETTING:
            return CasinoStage.BETTING
        if r.phase is Phase.SETTLED:
            return CasinoStage.SETTLED
        return CasinoStage.PLAYING

    @property
    def present(self) -> tuple[str, ...]:
        return tuple(p.pid for p in self.players.values() if p.present)

    def leaving(self) -> set[str]:
        """Players whose departure (``CLeft``) the host announced and this copy has not
        applied yet: it waits in the queue behind the cards of a fresh shoe. For the
        table they are gone already (a key of theirs is a return, not a cheat)."""
        out: set[str] = set()
        for ann, _ in self._queue:
            if isinstance(ann, CLeft):
                out.add(ann.player)
            elif isinstance(ann, CBack):
                out.discard(ann.player)
        return out

    def chips(self) -> dict[str, Money]:
        """Each player's chips, less what he has on the table in the round in play."""
        r = self.round
        out = {}
        for pid, p in self.players.items():
            held = ZERO
            if r is not None and not r.settled:
                held = r.wagered(pid) - r.paid_back(pid)
            out[pid] = p.chips - held
        return out

    def players_chips(self) -> dict[str, Money]:
        """Each player's chips between rounds (the ledger)."""
        return {pid: p.chips for pid, p in self.players.items()}

    def live_shoe(self) -> ShoeRec | None:
        i, _ = self._cursor
        return self.shoes[i] if i < len(self.shoes) else None

    def cards_left(self) -> int | None:
        """Cards before the cut card of the shoe in play (None: no shoe yet)."""
        s = self.live_shoe()
        if s is None:
            return None
        return max(0, min(s.cut or s.size, s.limit) - self._cursor[1])

    def newest_shoe(self) -> int:
        """The newest shoe the host announced (0: none yet); a frame for a later one is
        sent ahead of the table (:class:`~app.table.frame_budget.FrameBudget`)."""
        return self.shoes[-1].shoe if self.shoes else 0

    def next_shoe_wanted(self) -> bool:
        """The table should start another shoe now: none is waiting after the one in
        play (shuffled in the background, taken after the cut card), or the shoe in
        play can no longer be dealt from (a shuffler left)."""
        i, _ = self._cursor
        return len([s for s in self.shoes[i:] if s.dead is None]) < 2

    def holding_up(self) -> set[int]:
        """Seats whose part of a shoe this phone lacks while the table waits for it (the
        seats of :meth:`owed_steps`)."""
        return set(self.owed_steps())

    def owed_steps(self) -> dict[int, OwedStep]:
        """Seats whose part of a shoe this phone lacks while the table waits for it, each
        with the protocol step he owes it for: the set-up of the shoe dealer
        (``("setup", generation, 0)``), the card the round needs (``("card", shoe,
        position)``), or the shuffle of the shoe the next round deals from
        (``("shuffle", shoe, 0)``). A watchdog gives each step its own time: a phone
        that moves from one step to the next is not late for the first."""
        if not self.dealer.ready:
            step = ("setup", getattr(self.dealer, "generation", 1), 0)
            return dict.fromkeys(sorted(self.dealer.waiting_for(0)), step)
        i, pos = self._cursor
        r = self.round
        if self._need and i < len(self.shoes):
            shoe = self.shoes[i].shoe
            return dict.fromkeys(sorted(self.dealer.waiting_for(shoe)), ("card", shoe, pos))
        if (r is None or r.settled) and not self._queue and not self.shoe_ready():
            for rec in self.shoes[i:]:
                if rec.started and rec.dead is None:
                    step = ("shuffle", rec.shoe, 0)
                    return dict.fromkeys(sorted(self.dealer.waiting_for(rec.shoe)), step)
        return {}

    def progress_note(self) -> tuple[Note, tuple[int, int] | None] | None:
        """The progress line (:mod:`app.table.progress`) while this phone waits for the
        shoe: what runs (``setup``, ``shoe``: the shuffle the next round deals from,
        ``card``: a card's keys), the other seats whose part it lacks, and where the
        first of them is in the shoe's chain of phones (step k of n; None at the
        set-up). None while it waits for nothing of the shoe."""
        if self.fault is not None:
            return None
        mine = self.players[self.me].seat if self.me in self.players else -1
        owed = {s: st for s, st in self.owed_steps().items() if s != mine}
        if not owed:
            return None
        seats = tuple(sorted(owed))
        kind, shoe, _ = owed[seats[0]]
        stage = {"setup": "setup", "card": "card"}.get(kind, "shoe")
        rec = None if kind == "setup" else next((r for r in self.shoes if r.shoe == shoe), None)
        return (stage, seats), None if rec is None else chain_step(rec.order, seats)

    def _collect_verdicts(self) -> None:
        """The audits of finished shoes: a cheater they name is a fault of his."""
        for rec in self.shoes:
            if rec.finished and not rec.audited:
                verdict = self.dealer.verdict(rec.shoe)
                if verdict is None:
                    continue
                rec.audited = True
                self._audited(rec.shoe, verdict)
                self._audits_in()
                if not verdict.ok and verdict.cheaters:
                    self._fault(player_id(verdict.cheaters[0]), "audit_failed", f"shoe {rec.shoe}")

    def auditing(self) -> list[int]:
        """The shoes whose audit runs here and has no verdict yet."""
        return [rec.shoe for rec in self.shoes if rec.finished and not rec.audited]

    def dead_points(self, seat: int) -> tuple[tuple[int, int], ...]:
        """Host: the shoes ``seat`` shuffled that die with him, each with the positions
        that may have opened on some phone before (they stand; nothing after them is
        dealt): those whose part of his came here. Every part of his reached the
        others through this phone, so no phone opened a later one; a guest may have
        opened an earlier one before this phone did (his own key still on its way),
        and a guest names a host that voids a card it opened (``voided_open_card``)."""
        out = []
        for rec in self.shoes:
            if rec.dead is not None or rec.finished or seat not in rec.order:
                continue
            upto = next(
                (
                    p
                    for p in range(rec.requested)
                    if not self.dealer.key_in(rec.shoe, p, seat)
                ),
                rec.requested,
            )
            out.append((rec.shoe, upto))
        return tuple(out)

    def turn(self) -> str | None:
        """Whose decision the table waits for (the first, when several decide at once)."""
        r = self.round
        if r is None or r.phase in (Phase.BETTING, Phase.SETTLED) or self._queue:
            return None
        waiting = r.waiting_for()
        return waiting[0] if waiting else None

    def deciders(self) -> tuple[str, ...]:
        """Everybody whose decision the round waits for now (after the queue is applied)."""
        r = self.round
        if r is None or r.phase in (Phase.BETTING, Phase.SETTLED) or self._queue:
            return ()
        return r.waiting_for()

    @property
    def sent(self) -> int:
        """The counter of my last intent sent."""
        return self._sent_n

    # -- my intents -----------------------------------------------------------------------

    def intent(self, act: str, box: int = 0, amount: Money = ZERO) -> CIntent:
        """My signed intent, checked against my own copy first (IllegalAction: refused,
        nothing to send)."""
        assert self.identity is not None
        n = max(self._sent_n, self.players[self.me].n) + 1
        unsigned = CIntent(self.me, n, self.round_no, act, box, amount)
        self.check(unsigned)
        self._sent_n = n
        sig = self.identity.sign(b"blu21/casino-intent", unsigned.signed_bytes(self.table))
        return replace(unsigned, sig=sig.hex())

    def check(self, intent: CIntent) -> None:
        """IllegalAction unless ``intent`` could be applied now (the engine untouched)."""
        if self._queue:
            raise IllegalAction("not_now", "the table is still dealing")
        self._intent(intent, dry=True)

    # -- taking in the log ----------------------------------------------------------------

    def receive(self, ann: Announcement) -> None:
        """The host's next announcement (applied now or as soon as the cards allow)."""
        if self.fault is not None:
            return
        try:
            self.chain = hashlib.sha256(self.chain + encode(ann)).digest()
            if isinstance(ann, CIntent):
                self._verify_intent(ann)
            elif isinstance(ann, CShoe):
                self._start_shoe(ann)
            elif isinstance(ann, CLeft):
                self._shoes_dead(ann)
            elif isinstance(ann, CBack):
                self._back_key(ann)
            if not isinstance(ann, CShoe):
                self._queue.append((ann, self.chain))
        except DealerViolation as exc:
            self._fault(HOST, exc.code, exc.detail)
        except (IllegalAction, ValueError, KeyError) as exc:
            self._fault(HOST, getattr(exc, "code", "bad_announcement"), str(exc))
        self.pump()

    @property
    def stopped(self) -> bool:
        """True once this phone named a fault (it takes nothing more in)."""
        return self.fault is not None

    def _send_frames(self, frames: list[bytes]) -> None:
        self.outbox.extend(frames)

    def _dealer_fault(self, exc: DealerViolation) -> None:
        self._fault(player_id(exc.seat) if exc.seat >= 0 else HOST, exc.code, exc.detail)

    @property
    def agreed(self) -> dict[int, set[str]]:
        """Round -> the players whose signed digest of it matched mine."""
        return self.digests.agreed

    def signed_by(self, pid: str, agreement: CAgree, sig: str) -> bool:
        """Whether ``sig`` (hex) is ``pid``'s signature of ``agreement`` at this table."""
        p = self.players.get(pid)
        try:
            raw = bytes.fromhex(sig)
        except ValueError:
            return False
        return p is not None and verify(
            self.group,
            p.key,
            AGREE_CONTEXT,
            agreement.signed_bytes(self.table),
            raw,
            check_pub=False,
        )

    def agree(self, message: CAgree) -> None:
        """Another phone's signed digest of a round (relayed by the host); checked now or
        once this phone has settled that round itself. A guest's carries the host's
        signed digest he got, with his log: ValueError if it is not the host's."""
        if not self.signed_by(message.player, message, message.sig):
            raise ValueError(f"the agreement of {message.player} is not signed by him")
        if not self.round_no - KEEP_ROUNDS < message.round <= self.round_no + KEEP_ROUNDS:
            raise ValueError(f"a digest of round {message.round} at round {self.round_no}")
        if message.player in self.digests.received.get(message.round, {}):
            raise ValueError(f"a second digest of {message.player} for round {message.round}")
        if not message.log:
            raise ValueError(f"the agreement of {message.player} names no log")
        if message.player != HOST:
            host = self.digests.logs.get(message.round, {}).get(HOST)
            same = host is not None and host == (message.log, message.hdigest, message.hsig)
            # (a copy of the host's signature this phone checked already needs no check)
            if not same and not self.signed_by(HOST, message.host_part(), message.hsig):
                raise ValueError(f"the agreement of {message.player} lacks the host's")
        self.digests.take(message)
        self._compare(message.round)
        self._judge(message.round)
        self._agree_due()

    def _judge(self, rnd: int) -> None:
        """The others' digests of round ``rnd`` against the host's own
        (:meth:`Digests.judge`): a second host-signed log names the host, a guest's
        signed lie names him."""
        mine = self.records.get(rnd)
        verdict = self.digests.judge(rnd, None if mine is None else mine.digest, self.liars)
        if verdict is not None:
            code, pid = verdict
            if code == "disagree":
                self.liars.add(pid)
            self._fault(HOST if code == "two_logs" else pid, code, f"round {rnd}: {pid}'s")

    def _agree_due(self) -> None:
        """My signed digests of the rounds settled whose host's digest is in: on the log
        the host signed for me only (carrying the host's signature, so every phone can
        check it); when the host signed another log for me, none (the host's digest
        differs from mine: my phone names the host)."""
        if self.identity is None:
            return
        for rnd in sorted(self._owe_agree):
            rec = self.records.get(rnd)
            host = self.digests.logs.get(rnd, {}).get(HOST)
            if rec is None or host is None:
                continue
            self._owe_agree.discard(rnd)
            log, hdigest, hsig = host
            if log != rec.body["log"]:
                continue
            unsigned = CAgree(self.me, rnd, rec.digest, log=log, hdigest=hdigest, hsig=hsig)
            self._sign_agree(unsigned)

    def _sign_agree(self, unsigned: CAgree) -> CAgree:
        assert self.identity is not None
        sig = self.identity.sign(AGREE_CONTEXT, unsigned.signed_bytes(self.table))
        signed = replace(unsigned, sig=sig.hex())
        self.outbox.append(signed)
        return signed

    def disagreeing(self, rnd: int) -> list[str]:
        """Players whose signed digest of round ``rnd`` differs from mine."""
        mine = self.records.get(rnd)
        return [] if mine is None else self.digests.disagreeing(rnd, mine.digest)

    def missing_agreements(self, lag: int = 2) -> dict[int, set[str]]:
        """Players still at the table whose digest of a round settled ``lag`` or more
        rounds ago has not come (an honest phone sends it as it settles the round)."""
        return self.digests.missing(self.present, self.round_no, lag)

    def unvouched(self) -> tuple[set[str], set[str]]:
        """Whose signed digest of the last settled round a returning phone would still
        miss (every other player present must have signed it: :meth:`snapshot`'s
        ``proof``, so that it need not take the host's word), and which of them played
        that round (his digest is on its way; one back since cannot sign it)."""
        rnd = self.round_no
        if rnd not in self.records:
            return set(), set()
        missing = set(self.present) - self.agreed.get(rnd, set()) - {HOST, self.me}
        return missing, missing & self.digests.expected.get(rnd, set())

    def _compare(self, rnd: int) -> None:
        mine = self.records.get(rnd)
        if mine is not None:
            self.digests.compare(rnd, mine.digest)

    # -- layer 1: checks and the shoe table -------------------------------------------------

    def _verify_intent(self, ann: CIntent) -> None:
        p = self.players.get(ann.player)
        if p is None:
            raise IllegalAction("unknown_player", f"no player {ann.player}")
        try:
            sig = bytes.fromhex(ann.sig)
        except ValueError:
            sig = b""
        if not verify(
            self.group,
            p.key,
            b"blu21/casino-intent",
            ann.signed_bytes(self.table),
            sig,
            check_pub=False,
        ):
            raise IllegalAction("forged_intent", f"an intent of {ann.player} he did not sign")
        if ann.n <= p.n:
            raise IllegalAction("replayed_intent", f"intent {ann.n} of {ann.player} again")
        p.n = ann.n

    def _start_shoe(self, ann: CShoe) -> None:
        if self.shoes and ann.shoe <= self.shoes[-1].shoe:
            raise IllegalAction("bad_shoe", f"shoe {ann.shoe} is not new")
        if ann.decks != self.rules.decks:
            raise IllegalAction("bad_shoe", f"{ann.decks} decks at a {self.rules.decks}-deck table")
        seats = {p.seat for p in self.players.values()}
        if not set(ann.order) <= seats or 0 not in ann.order:
            raise IllegalAction("bad_shoe", "a shuffle among seats not at the table")
        self.shoes.append(ShoeRec(ann.shoe, ann.order, 52 * ann.decks))
        self._start_shoes()

    def _start_shoes(self) -> None:
        """Hand the announced shoes to the dealer once it is set up (the cut card comes
        from the table's joint seed)."""
        if not self.dealer.ready:
            return
        for rec in self.shoes:
            if not rec.started and rec.dead != 0:
                # (a shoe that died before any of it opened is never started: a shuffler
                # left during it, so it is void and a fresh one is shuffled without him)
                rec.started = True
                low, high = cut_range(rec.size, self.rules.penetration)
                try:
                    rec.cut = self.dealer.cut(rec.shoe, low, high)
                    self.outbox.extend(self.dealer.start_shoe(rec.shoe, rec.order, rec.size // 52))
                except Exception as exc:  # the dealer refuses the shoe the host announced
                    self._fault(HOST, "bad_shoe", f"shoe {rec.shoe}: {exc}")
                    return

    def _shoes_dead(self, ann: CLeft) -> None:
        seat = self._player(ann.player).seat
        for shoe, upto in ann.dead:
            rec = next((s for s in self.shoes if s.shoe == shoe), None)
            if rec is None or rec.dead is not None or seat not in rec.order:
                raise IllegalAction("bad_left", f"shoe {shoe} cannot die with {ann.player}")
            if self.dealer.card(shoe, upto) is not None:
                # The card after the last one said to stand is open here: the host
                # voided a card that did open, to deal another in its place.
                raise IllegalAction("voided_open_card", f"shoe {shoe} position {upto} is open")
            rec.dead = upto
        self.dealer.dropped(seat)
        if not self.dealer.ready:  # (he left while the dealers were set up anew)
            self.outbox.extend(self.dealer.leave_out(seat))

    def _back_key(self, ann: CBack) -> None:
        p = self._player(ann.player)
        key = int(ann.key, 16)
        if (p.present and ann.player not in self.leaving()) or not self.group.is_element(key):
            raise IllegalAction("bad_back", f"{ann.player} cannot come back")
        if self.shoes and ann.shoe <= self.shoes[-1].shoe:
            raise IllegalAction("bad_back", f"shoe {ann.shoe} is not new")
        p.key, p.n = key, 0  # his new phone signs with a new key, counting from 1

    def _player(self, pid: str) -> Player:
        p = self.players.get(pid)
        if p is None:
            raise IllegalAction("unknown_player", f"no player {pid}")
        return p

    # -- layer 2: the engine ------------------------------------------------------------------

    def pump(self) -> None:
        """Apply queued announcements in order as far as the cards allow."""
        if self.fault is None:
            self._start_shoes()
        while self._queue and self.fault is None:
            ann, chain = self._queue[0]
            try:
                self._apply(ann)
            except Waiting:
                return
            except DealerViolation as exc:
                self._fault(HOST, exc.code, exc.detail)
                return
            except (IllegalAction, ValueError, KeyError) as exc:
                self._fault(HOST, getattr(exc, "code", "bad_announcement"), str(exc))
                return
            self._queue.popleft()
            self._applied_chain = chain
            self._after_head()

    def _apply(self, ann: Announcement) -> None:
        if isinstance(ann, COpenBets):
            self._open_bets(ann.round)
        elif isinstance(ann, CDeal):
            self._need_round(ann.round)
            self._engine(Action.deal())
        elif isinstance(ann, CTimeout):
            self._need_round(ann.round)
            self._timeout(ann.player)
        elif isinstance(ann, CLeft):
            if ann.reason == "disagree" and ann.player not in self.liars:
                # (the host relays a liar's signed digest before removing him: without
                # it here, the removal is the host's word, and the host's word is no
                # evidence; issue 30)
                raise IllegalAction("bad_left", f"{ann.player} signed no differing digest")
            self._player(ann.player).present = False
            self.done.add(ann.player)
            self.digests.forget(ann.player)
            self._tell("player_left", player=ann.player, reason=ann.reason)
        elif isinstance(ann, CBack):
            r = self.round
            if r is not None and not r.settled:
                raise IllegalAction("wrong_phase", "a player comes back between rounds")
            if ann.player in self.named:
                raise IllegalAction("barred_rejoin", f"{ann.player} was named for cheating")
            self._player(ann.player).present = True
            # The shoes so far cannot be dealt to his new phone: they end where they are.
            for rec in self.shoes:
                if rec.shoe < ann.shoe and rec.dead is None:
                    rec.dead = rec.requested
            self._tell("player_back", player=ann.player)
        elif isinstance(ann, CIntent):
            self._intent(ann, dry=False)
        else:
            raise IllegalAction("bad_announcement", f"{type(ann).__name__} in the log")

    def _need_round(self, number: int) -> Round:
        if self.round is None or number != self.round_no:
            raise IllegalAction("wrong_round", f"round {number}; the table is at {self.round_no}")
        return self.round

    def _open_bets(self, number: int) -> None:
        if number != self.round_no + 1 or (self.round is not None and not self.round.settled):
            raise IllegalAction("wrong_round", f"round {number} cannot open now")
        if not self.shoes:
            raise IllegalAction("no_shoe", "bets open before any shoe was started")
        i, pos = self._cursor
        live = self.shoes[i] if i < len(self.shoes) else None
        if live is not None and live.cut is None and pos < live.limit:
            self._start_shoes()
            if live.cut is None:
                raise Waiting  # (my dealer is still being set up)
        if live is not None and pos >= min(live.cut or live.size, live.limit):
            self._finish(live)  # the cut card came out: the next shoe from this round
            self._cursor = (i + 1, 0)
        self.round_no = number
        # Boxes of players who left are free again.
        self.boxes = {b: p for b, p in self.boxes.items() if self.players[p].present}
        rolls = {p.pid: p.chips for p in self.players.values() if p.present}
        self._cards, self.sources = [], []
        self.round = Round.new(self.rules, rolls)
        self.done = {p for p, rec in self.players.items() if not rec.present}
        self._round_from = len(self.log)
        self._tell("bets_open", round=number)

    def shoe_ready(self) -> bool:
        """The shoe the next round deals from is shuffled (the host opens bets then)."""
        i, pos = self._cursor
        for rec in self.shoes[i:]:
            at = pos if rec is self.shoes[i] else 0
            if rec.cut is not None and at >= min(rec.cut, rec.limit):
                continue  # its cut card is out: the round takes the next shoe
            if rec.dead is not None and at >= rec.limit:
                continue
            return rec.started and self.dealer.shuffled(rec.shoe)
        return False

    def _finish(self, rec: ShoeRec) -> None:
        if not rec.finished:
            rec.finished = True
            self.outbox.extend(self.dealer.finish_shoe(rec.shoe))

    def _timeout(self, pid: str) -> None:
        r = self.round
        assert r is not None
        if pid not in r.waiting_for():
            raise IllegalAction("not_waiting", f"no decision of {pid} is awaited")
        for legal in r.legal_actions(pid):
            if legal.kind in DEFAULTS:
                self._engine(legal.kind.action_for(legal))
                return
        raise IllegalAction("no_default", f"no default decision for {pid}")

    def _intent(self, ann: CIntent, dry: bool) -> None:
        p = self._player(ann.player)
        if ann.round != self.round_no:
            raise IllegalAction("wrong_round", f"an intent for round {ann.round}")
        if not p.present:
            raise IllegalAction("unknown_player", f"{ann.player} has left")
        if not stake_ok(ann.act, ann.amount):  # (the same grid on every phone)
            raise IllegalAction("bad_amount", f"{ann.act} of {money_wire(ann.amount)} chips")
        r = self.round
        between = r is None or r.phase is Phase.SETTLED
        if ann.act in ("take_box", "leave_box"):
            box = ann.box
            if not 1 <= box <= self.rules.boxes:
                raise IllegalAction("bad_box", f"no box {box}")
            bets = r is not None and r.phase is Phase.BETTING and bool(r.box_hands(box))
            if not (between or (r is not None and r.phase is Phase.BETTING)) or bets:
                raise IllegalAction("wrong_phase", "boxes change between rounds")
            if ann.act == "take_box" and box in self.boxes:
                raise IllegalAction("box_taken", f"box {box} is taken")
            if ann.act == "leave_box" and self.boxes.get(box) != ann.player:
                raise IllegalAction("not_your_box", f"box {box} is not {ann.player}'s")
            if not dry:
                if ann.act == "take_box":
                    self.boxes[box] = ann.player
                else:
                    del self.boxes[box]
            return
        if r is None:
            raise IllegalAction("wrong_phase", "no round is open")
        if ann.act == "done":
            if r.phase is not Phase.BETTING:
                raise IllegalAction("wrong_phase", "betting is over")
            if not dry:
                self.done.add(ann.player)
            return
        kind = ActionKind(ann.act)
        action = Action(
            kind,
            ann.player,
            ann.box or None,
            ann.amount if ann.amount else None,
        )
        if kind is ActionKind.BET:
            owner = self.boxes.get(ann.box)
            if owner is None:
                raise IllegalAction("box_free", f"nobody sits at box {ann.box}")
            placed = r.box_owner(ann.box)
            if owner == ann.player and placed is not None:
                raise IllegalAction("already_bet", f"box {ann.box} has its bet")
            if owner != ann.player and placed != owner:
                raise IllegalAction("owner_first", f"the owner of box {ann.box} bets first")
        if dry:
            r.verify(action)
            return
        self._engine(action)

    def _engine(self, action: Action) -> None:
        """Apply ``action`` to the engine, then the card-carrying actions it waits for,
        each with the next open card of the stream; Waiting while a card is not open
        (nothing applied: the head is applied again from the same round)."""
        r = self.round
        assert r is not None
        used = len(r.table_cards())  # (this round's open cards the engine holds)
        if action.kind is ActionKind.DEAL and self._need == 0:
            extra = 1 if r.rules.hole_card == "enhc" else 2
            self._need = max(0, 2 * len(r.hands) + extra - (len(self._cards) - used))
        while True:
            if self._need:
                self._fill()
            after, events = r.apply(action)
            for card in self._cards[used:]:
                if after.need is None:
                    break
                after, dealt = after.apply(Action.deal_card(card))
                events += dealt
            if after.need is not None:  # open the next card of the stream, then again
                self._need += 1
                continue
            self.round = after
            for e in events:
                self.log.append(e.to_json())
            return

    def _fill(self) -> None:
        """Open the next cards of the stream until ``_need`` are in (Waiting if not)."""
        while self._need:
            src = self._next_source()
            if src is None:
                raise Waiting
            shoe, pos = src
            rec = next(s for s in self.shoes if s.shoe == shoe)
            self._start_shoes()
            if rec.requested <= pos and rec.started and self.dealer.shuffled(shoe):
                positions = list(range(rec.requested, pos + 1))
                rec.requested = pos + 1
                self.outbox.extend(self.dealer.open(shoe, positions))
            code = self.dealer.card(shoe, pos)
            if code is None:
                raise Waiting
            if not 0 <= code < 52:
                raise DealerViolation(0, "bad_card", f"shoe {shoe} position {pos}")
            self._cards.append(Card.from_code(code))
            self.sources.append(src)
            i, _ = self._cursor
            self._cursor = (i, pos + 1)
            self._need -= 1

    def _next_source(self) -> tuple[int, int] | None:
        i, pos = self._cursor
        while i < len(self.shoes):
            rec = self.shoes[i]
            if pos < rec.limit:
                self._cursor = (i, pos)
                return rec.shoe, pos
            self._finish(rec)  # dealt out (or dead): its audit can run
            i, pos = i + 1, 0
        self._cursor = (i, pos)
        return None

    def _after_head(self) -> None:
        r = self.round
        if r is None or not r.settled or self.round_no in self.records:
            return
        net = r.results()
        house = r.house_result()
        for pid, amount in net.items():
            self.players[pid].chips += amount
            if self.players[pid].chips < 0:
                self._fault(HOST, "negative_chips", pid)
        self.house += house
        staked = sum((r.wagered(p) for p in net), ZERO)
        back = sum((r.paid_back(p) for p in net), ZERO)
        if staked - back != house or self.conservation() != self.total:
            self._fault(self.me, "chips_not_conserved", f"round {self.round_no}")
        body = self.digest_body()
        digest = digest_of(body)
        self.records[self.round_no] = RoundRecord(self.round_no, digest, dict(net), house, body)
        nets = {k: money_wire(v) for k, v in net.items()}
        self._tell("round_settled", round=self.round_no, net=nets)
        self._settled(nets, money_wire(house))
        if self.identity is not None and self.me == HOST:
            mine = self._sign_agree(CAgree(self.me, self.round_no, digest, log=body["log"]))
            self.digests.logs.setdefault(self.round_no, {})[HOST] = (mine.log, digest, mine.sig)
        self.digests.settled(self.round_no, digest, set(self.present) - {self.me})
        if self.me != HOST:  # (mine carries the host's signed digest: it waits for it)
            # (one whose host's digest never came is the host's fault within two rounds:
            # ``missing_agreements``; older ones are forgotten)
            self._owe_agree = {r for r in self._owe_agree if r > self.round_no - KEEP_ROUNDS}
            self._owe_agree.add(self.round_no)
            self._agree_due()
        self._judge(self.round_no)

    def _settled(self, nets: dict[str, int | str], house: int | str) -> None:
        """The round-end hook: the record now, and again once its shoes' audits are in."""
        if self.on_round_end is None:
            return
        seats = {p.pid: p.seat for p in self.players.values()}
        players = tuple(
            sorted((seats[pid], self.players[pid].name) for pid in nets if pid in seats)
        )
        events = tuple(
            frozen(e) for e in self.log[self._round_from :] if e.get("event") in EVENTS
        )
        units = tuple(sorted({shoe for shoe, _ in self.sources}))
        result = frozen({"net": nets, "house": house})
        fingerprint = self.dealer.fingerprint
        record = RoundEnd(self.game, self.round_no, players, events, result, fingerprint, units)
        verdict = self._round_verdict(units) if units else None
        if verdict is not None:
            record = record.with_audit(*verdict)
        elif units:
            self._unaudited[self.round_no] = record
            while len(self._unaudited) > self.keep_unaudited:
                del self._unaudited[min(self._unaudited)]
        self._round_end(record)

    def _audits_in(self) -> None:
        """The settled rounds whose shoes are all audited now: their records again."""
        for number, record in sorted(self._unaudited.items()):
            verdict = self._round_verdict(record.units)
            if verdict is not None:
                del self._unaudited[number]
                self._round_end(record.with_audit(*verdict))

    def conservation(self) -> Money:
        """``sum(chips) + bets in play + house``: equal to :attr:`total` at every moment."""
        chips = self.chips()
        in_play = ZERO
        r = self.round
        if r is not None and not r.settled:
            in_play = sum((r.wagered(p) - r.paid_back(p) for p in r.players()), ZERO)
        return sum(chips.values(), ZERO) + in_play + self.house

    def digest(self) -> str:
        """The round's digest every phone signs: log chain, cards, chips, boxes, house."""
        return digest_of(self.digest_body())

    def digest_body(self) -> dict[str, Any]:
        """What :meth:`digest` hashes, as JSON sends it."""
        r = self.round
        body = {
            "round": self.round_no,
            "log": self._applied_chain.hex(),
            "cards": [[s, p, c.code] for (s, p), c in zip(self.sources, self._cards, strict=True)],
            "chips": {pid: money_wire(p.chips) for pid, p in sorted(self.players.items())},
            "house": money_wire(self.house),
            "boxes": sorted(self.boxes.items()),
            "result": None if r is None else r.to_json(reveal=True),
        }
        loaded: dict[str, Any] = json.loads(json.dumps(body, default=str))
        return loaded

    @property
    def generations(self) -> ShoeGenerations:
        """The phone's shoe dealers (set up anew when a player comes back)."""
        if not isinstance(self.dealer, ShoeGenerations):
            raise TypeError("this phone's dealer cannot be set up anew")
        return self.dealer

    # -- a returning player -----------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The table between two rounds, for a returning player's phone (``CResume``)."""
        if self._queue or (self.round is not None and not self.round.settled):
            raise ValueError("a snapshot is taken between rounds")
        return {
            "boxes": [[b, p] for b, p in sorted(self.boxes.items())],
            "house": money_wire(self.house),
            "total": money_wire(self.total),
            "round": self.round_no,
            "chain": self.chain.hex(),
            "applied": self._applied_chain.hex(),
            "shoes": [
                [r.shoe, list(r.order), r.size, r.cut, r.dead, r.requested, r.finished]
                for r in self.shoes
            ],
            "cursor": list(self._cursor),
            "n": {pid: p.n for pid, p in self.players.items()},
            "proof": self._proof(),
        }

    def _proof(self) -> dict[str, Any] | None:
        """The last settled round's digest body and the others' signatures of it."""
        rec = self.records.get(self.round_no)
        return None if rec is None else self.digests.proof(self.round_no, rec.body)

    def _check_proof(self, state: dict[str, Any]) -> None:
        """A returning phone does not take the host's word for the chips: they must be
        those of the last settled round's digest, signed by every other player present
        (IllegalAction ``forged_snapshot``: the host lied; the guest names it)."""
        if self.round_no == 0:
            return
        check_proof(
            state.get("proof"),
            round_no=self.round_no,
            chips={pid: money_wire(p.chips) for pid, p in sorted(self.players.items())},
            house=state["house"],
            applied=state["applied"],
            signers={p.pid for p in self.players.values() if p.present} - {HOST, self.me},
            signed_by=self.signed_by,
        )

    def resume(self, state: dict[str, Any]) -> None:
        """Take the table's state from the host's snapshot (a returning phone; the
        players, their chips and keys came in the ``CResume``'s ``CBegin``).
        ValueError/KeyError/TypeError when it is not a table's snapshot."""
        self.boxes = {int(b): str(p) for b, p in state["boxes"]}
        if not set(self.boxes.values()) <= set(self.players):
            raise ValueError("a box of nobody at the table")
        self.house = table_money(state["house"], "house", signed=True)
        self.total = table_money(state["total"], "total")
        if self.conservation() != self.total:
            raise ValueError("the snapshot's chips do not add up")
        self.round_no = int(state["round"])
        self.chain = bytes.fromhex(state["chain"])
        self._applied_chain = bytes.fromhex(state["applied"])
        self.shoes = []
        for shoe, order, size, cut, dead, requested, finished in state["shoes"]:
            rec = ShoeRec(int(shoe), tuple(int(x) for x in order), int(size), cut)
            rec.dead, rec.requested, rec.finished = dead, int(requested), bool(finished)
            rec.started = True  # (by the dealers of the phone he had: none of them here)
            self.shoes.append(rec)
        i, pos = state["cursor"]
        self._cursor = (int(i), int(pos))
        for pid, n in state["n"].items():
            self._player(pid).n = int(n)
        self._check_proof(state)

    # -- faults and notes -----------------------------------------------------------------

    def _fault(self, player: str, code: str, detail: str = "") -> None:
        if player not in (HOST, self.me):
            self.named.add(player)  # (named here: he stays out for the rest of the table)
        if self.fault is None:
            self.fault = Fault(player, code, detail)
            self._tell("fault", player=player, code=code)

    def _tell(self, event: str, **details: Any) -> None:
        self._note({"event": event, **details})

    def table_cards(self) -> Iterable[Card]:
        """The cards this round has used, in the order drawn."""
        return tuple(self._cards)


__all__ = [
    "DEFAULTS",
    "HOST",
    "CasinoPhone",
    "Fault",
    "OwedStep",
    "Player",
    "RoundRecord",
    "ShoeRec",
    "cut_range",
    "networked_rules",
    "player_id",
]
