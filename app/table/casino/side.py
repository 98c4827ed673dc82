"""What the casino host's and a guest's phone share: the snapshot, the bot, the intents.

Both shells (:mod:`app.table.casino.host`, :mod:`app.table.casino.guest`) hold a
:class:`~app.table.casino.phone.CasinoPhone` once the table began; this mixin turns it
into the :class:`~app.table.casino.snapshot.CasinoSnapshot` a screen renders, turns
the screen's intents into signed ones (checked by the phone's own engine copy first),
and lets a bot play the seat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.protocol.group import Group
from app.protocol.keys import Identity
from app.rules.blackjack.actions import Action
from app.rules.errors import IllegalAction
from app.rules.money import ZERO, Money
from app.rules.table_rules import TableRules, networked_rules
from app.table.casino.bot import Intent
from app.table.casino.messages import CIntent
from app.table.casino.phone import CasinoPhone
from app.table.casino.snapshot import CasinoSnapshot, CasinoStage, Notice
from app.table.clock import Clock
from app.table.errors import TableError

CasinoBot = Callable[[CasinoPhone], Intent | None]
#: A player's tap as he made it: (round, act, box, amount).
Tap = tuple[int, str, int, Money]
#: The taps no round owns: one the round ended before it came goes in the next round.
BOX_ACTS = frozenset({"take_box", "leave_box"})
#: The notices a screen keeps (newest last).
KEEP_NOTICES = 20


class CasinoSide:
    """The shared half of a casino table shell (``_send_intent`` is the shell's)."""

    me: str
    phone: CasinoPhone | None
    clock: Clock
    group: Group
    identity: Identity
    bot: CasinoBot | None
    rules: TableRules
    over: bool
    _notes: list[Notice]
    _cheater: str | None
    notes_total: int
    _on_change: Callable[[], None] | None
    _deadline: tuple[object, float] | None
    _wishes: list[int]
    _refused: set[int]
    _names: dict[str, str]
    _taps: list[Tap]
    _tapped: dict[int, Tap]

    def _init_side(
        self,
        clock: Clock,
        group: Group,
        bot: CasinoBot | None,
        on_change: Callable[[], None] | None,
    ) -> None:
        self.clock = clock
        self.group = group
        self.identity = Identity.generate(group)
        self.bot = bot
        self.phone = None
        self.over = False
        self._notes = []
        self._cheater = None  # the first player named a cheater at this table
        self.notes_total = 0  # notices ever given (the screen keeps the newest only)
        self._on_change = on_change
        self._deadline = None
        self._wishes = []  # boxes asked for before the table began
        self._refused: set[int] = set()  # my intents the host did not relay (CNo)
        self._names = {}
        #: the player's taps that came while the table could not take them ("not now":
        #: its cards still opening), sent in order once it can; never silently lost
        self._taps = []
        self._tapped = {}  # my intent's counter -> the tap it was sent for

    def _send_intent(self, intent: CIntent) -> None:
        raise NotImplementedError

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    def note(self, what: str, /, **params: Any) -> None:
        """A notice for the screen (a stable code the screen translates)."""
        self._notes = [*self._notes[-(KEEP_NOTICES - 1) :], Notice(what, params)]
        self.notes_total += 1
        if what == "cheat_named" and self._cheater is None:
            # (kept as state: the notice itself is trimmed away by later ones)
            self._cheater = str(params.get("player"))

    # -- intents ----------------------------------------------------------------------------

    def _intend(self, act: str, box: int = 0, amount: Money = ZERO) -> None:
        """The player's tap: sent now, or queued while the table cannot take it (its
        cards still opening, or taps before it still queued). IllegalAction when the
        table refuses it now."""
        phone = self.phone
        if phone is None or self.over:
            raise TableError("not_now", "the table has not begun")
        tap = (phone.round_no, act, box, amount)
        if self._taps or phone.waiting:
            self._taps.append(tap)
            return
        self._send_tap(phone, tap)

    def _send_tap(self, phone: CasinoPhone, tap: Tap) -> None:
        _, act, box, amount = tap
        intent = phone.intent(act, box, amount)
        relayed = phone.players[self.me].n
        self._tapped = {n: t for n, t in self._tapped.items() if n > relayed}
        self._tapped[intent.n] = tap
        self._send_intent(intent)

    def _taps_due(self) -> None:
        """Send the queued taps, in order, once the table can take them; one it refuses
        then (the round moved on, the decision was taken by a time-out) is told to the
        player (``intent_refused``), never dropped silently. A box tap goes in the round
        that is on by then."""
        phone = self.phone
        while self._taps and phone is not None and not self.over and not phone.waiting:
            tap = self._taps.pop(0)
            try:
                if tap[0] != phone.round_no:
                    if tap[1] not in BOX_ACTS:
                        raise IllegalAction("wrong_round", f"a tap of round {tap[0]}")
                    tap = (phone.round_no, *tap[1:])
                self._send_tap(phone, tap)
            except IllegalAction as exc:
                self.note("intent_refused", code=exc.code)
            phone = self.phone

    def _again(self, n: int, code: str) -> bool:
        """Whether my intent ``n``, which the host refused with ``code``, goes again (it
        is queued, to go once my copy can take it). Two refusals are only for now: the
        host's own copy was still dealing (``not_now``), and a box tap came after the
        round it was made in had ended (``wrong_round``; a box is not a round's, so it
        goes in the new one). One of my taps only, never a bot's intent."""
        tap = self._tapped.get(n)
        phone = self.phone
        if tap is None or phone is None or code not in ("not_now", "wrong_round"):
            return False
        if code == "wrong_round":
            if tap[1] not in BOX_ACTS:
                return False
            if tap[0] >= phone.round_no and not phone.waiting:
                return False  # (my copy knows no later round: it cannot go again)
        del self._tapped[n]
        self._taps.insert(0, tap)
        return True

    def take_box(self, box: int) -> None:
        """Sit down at a free box (before the table begins: as soon as it does)."""
        if self.phone is None:
            if not 1 <= box <= self.rules.boxes:
                raise IllegalAction("bad_box", f"no box {box}")
            if box not in self._wishes:
                self._wishes.append(box)
            return
        self._intend("take_box", box)

    def leave_box(self, box: int) -> None:
        """Give up an own box (between rounds, or while bets are open and it has none)."""
        if self.phone is None:
            self._wishes = [b for b in self._wishes if b != box]
            return
        self._intend("leave_box", box)

    def act(self, action: Action) -> None:
        """A bet, side bet or decision of this phone's player (checked here first)."""
        if action.player not in (None, self.me):
            raise IllegalAction("not_your_turn", "a phone acts only for its own player")
        self._intend(action.kind.value, action.box or 0, action.amount or ZERO)

    def bets_done(self) -> None:
        """This player's bets are in (the deal comes once everybody said so)."""
        self._intend("done")

    def _play_bot(self) -> None:
        phone = self.phone
        if phone is None or self.over:
            return
        while self._wishes and not phone.waiting:
            box = self._wishes.pop(0)
            try:
                self._intend("take_box", box)
            except IllegalAction:
                self.note("box_taken", box=box)
        if self.bot is None or phone.waiting or self._taps:
            return
        if phone.players[self.me].n < phone.sent and phone.sent not in self._refused:
            return  # my last intent is on its way: the host relays or refuses it first
        choice = self.bot(phone)
        if choice is None:
            return
        act, box, amount = choice
        try:
            self._send_intent(phone.intent(act, box, amount))
        except IllegalAction as exc:
            self.note("bot_refused", code=exc.code)

    # -- the snapshot ---------------------------------------------------------------------

    def lobby_names(self) -> dict[str, str]:
        """Who sits at the table before it begins (player id -> name; the shells know)."""
        return dict(self._names)

    def _track_deadline(self) -> None:
        """The local time limit of the decision or the betting the table waits for."""
        phone = self.phone
        if phone is None:
            return
        stage = phone.stage
        if stage is CasinoStage.BETTING:
            key: object = ("bet", phone.round_no)
            limit = phone.bet_time
        elif phone.deciders():
            key = ("turn", phone.round_no, phone.deciders(), len(phone.log))
            limit = phone.turn_time
        else:
            self._deadline = None
            return
        if self._deadline is None or self._deadline[0] != key:
            self._deadline = (key, self.clock.now() + limit)

    def snapshot(self) -> CasinoSnapshot:
        """The table as this phone sees it now."""
        phone = self.phone
        if phone is None:
            names = self.lobby_names() or {self.me: self._names.get(self.me, "")}
            return CasinoSnapshot(
                me=self.me,
                rules=networked_rules(self.rules),
                players=tuple(names),
                names=names,
                chips={},
                # the boxes asked for: taken as soon as the table begins
                boxes={box: self.me for box in self._wishes},
                stage=CasinoStage.OVER if self.over else CasinoStage.LOBBY,
                notices=tuple(self._notes),
            )
        live = phone.live_shoe()
        progress = 1.0 if live is None else phone.dealer.progress(live.shoe)
        later = [s for s in phone.shoes if live is None or s.shoe > live.shoe]
        waits = None if self.over else phone.progress_note()
        return CasinoSnapshot(
            me=self.me,
            rules=phone.rules,
            players=tuple(phone.players),
            names={p.pid: p.name for p in phone.players.values()},
            # (an abandoned round is not resumed: its bets are back with their players)
            chips=phone.players_chips() if self.over else phone.chips(),
            boxes=dict(phone.boxes),
            round=phone.round,
            stage=CasinoStage.OVER if self.over else phone.stage,
            turn=phone.turn(),
            deadline=None if self._deadline is None else self._deadline[1],
            shuffle_progress=progress if live is not None else 0.0,
            next_shoe_progress=phone.dealer.progress(later[0].shoe) if later else 0.0,
            progress_note=None if waits is None else waits[0],
            progress_step=None if waits is None else waits[1],
            cards_left=phone.cards_left(),
            house=phone.house,
            notices=tuple(self._notes),
            cheater=self._cheater,
            bets_in=frozenset(phone.done),
            fairness=phone.fairness,
        )


__all__ = ["BOX_ACTS", "KEEP_NOTICES", "CasinoBot", "CasinoSide", "Tap"]
