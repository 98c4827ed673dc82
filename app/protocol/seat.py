"""One seat of the SRA protocol: messages in, messages out, no sockets, no threads.

One :class:`Seat` object runs on each phone. It holds the seat's rounds (one
:class:`~app.protocol.transcript.Round` per deck) and routes every incoming frame and
every step of background work to the module of its concern (set-up, shuffle, deal,
escrow, reveal/audit). The table layer feeds it every frame it receives and sends out
every message it returns (to the host; the host sends its own to every guest). Every
seat calls the same methods on the same *public* events, always naming the round::

    seat = Seat(my_seat, TableConfig(n_seats=4, host=0))   # rng=secrets by default
    out = seat.hello()                      # table set-up: keys + seed commitment
    out += seat.handle(Message.decode(frame, seat.group))  # for every frame received
    seat.ready, seat.fingerprint            # show the 6-digit fingerprint on every screen
    out = seat.start_round(RoundSpec(round_id=1, order=(1, 2, 3, 0)))
    while seat.has_work():
        out += seat.work()                  # exponentiations happen here; send as you go
    out = seat.reveal(1, [(0, 1), (1, 2), ...])  # deal / draw events: (position, drawer)
    seat.hand(1)                            # {position: card code} of my own cards
    out = seat.claim(1, ClaimKind.PERSIAN)  # right after the deal, if I hold two aces
    out = seat.escrow(1, finished_seats)    # when I hold (see "Dropouts" in the docs)
    out = seat.claim(1, ClaimKind.SHOWDOWN) # prove my held hand
    out = seat.finish_round(1)              # reveal my round seed: the audit follows
    seat.verdict(1)                         # Verdict(ok, cheaters, deck) once audited

Several rounds can be open at once: start round r+1 while round r is played to
pre-shuffle its deck. After a dropout: ``suspend_round(r)``, ``start_round`` of a fresh
round among the rest, ``release(r, owner)`` at the showdown, ``close_round(r)``.

``handle`` = :meth:`Seat.authenticate` (signature, round, sequence number) +
:meth:`Seat.process` (content checks, state update); neither exponentiates except the
signature check. All other exponentiation runs in ``work``, one bounded step per call
(priority: my shuffle pass, keys, opening my cards, locking, claims, background
subgroup tests, the audit), so a driver that sends each step's output at once makes
the locking pass stream around the table and runs the audit in the background.
:class:`app.protocol.harness.LocalTable` is a complete in-process driver.

Errors: ``handle`` raises :class:`~app.protocol.errors.ProtocolViolation` naming the
seat to blame with a stable code; the frame is not applied and the seat stays usable.
Cheats found in the background or by the audit go to ``accusations`` and the round's
``verdict(r).cheaters``.

Relaying: in the Bluetooth star only the host talks to everybody. The host calls
``authenticate(msg, link=guest)`` on each guest frame (``link``: the guest whose
connection it came in on), relays it unchanged and in arrival order to the other
guests only if that passed, then calls ``process``. Hence a guest that receives a
frame with a bad signature, a replayed or a skipped sequence number blames the host:
an honest host would never have relayed it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.protocol import deal, escrow, reveal, setup, shuffle
from app.protocol import errors as E
from app.protocol.core import HELLO_CONTEXT, SeatCore, TableSetup
from app.protocol.encoding import CardEncoding, round_sizes
from app.protocol.errors import ProtocolUsageError, ProtocolViolation
from app.protocol.group import Group
from app.protocol.keys import Identity, Rng, RoundSecret, default_rng, verify
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.transcript import MAX_SEATS, PUBLIC, Round, RoundSpec, TableConfig, Verdict

__all__ = ["MAX_SEATS", "PUBLIC", "Round", "RoundSpec", "Seat", "TableConfig", "Verdict"]

_MAX_BUFFERED = 256

Step = Callable[[], list[Message]]
_Handler = Callable[[SeatCore, Round, Message], None]
_HANDLERS: dict[Kind, _Handler] = {
    Kind.COMMIT: shuffle.on_commit,
    Kind.SHUFFLE: shuffle.on_shuffle,
    Kind.LOCK: shuffle.on_lock,
    Kind.KEYS: deal.on_keys,
    Kind.CLAIM: deal.on_claim,
    Kind.COMPLAIN: deal.on_complain,
    Kind.ESCROW: escrow.on_escrow,
    Kind.AUDIT: reveal.on_audit,
    Kind.EVIDENCE: reveal.on_evidence,
}


class Seat:
    """One seat's protocol state (see the module docstring for the life cycle)."""

    def __init__(
        self,
        seat: int,
        config: TableConfig,
        rng: Rng | None = None,
        identity: Identity | None = None,
    ) -> None:
        if not 0 <= seat < config.n_seats:
            raise ValueError("seat out of range")
        rng = rng or default_rng()
        identity = identity or Identity.generate(config.group, rng)
        self.core = SeatCore(seat, config, rng, identity, TableSetup(rng.token_bytes(32)))
        self._rounds: dict[int, Round] = {}
        self._buffer: list[Message] = []  # frames of rounds not started here yet
        self._future_seq: dict[tuple[int, int], int] = {}  # (round, sender) -> next seq
        #: (round, sender, seq) of stubs of a round this seat skipped (voided before it
        #: started it): their bodies, when they come, are moot
        self._moot: set[tuple[int, int, int]] = set()

    # ------------------------------------------------------------------ who I am

    @property
    def seat(self) -> int:
        """My seat number."""
        return self.core.seat

    @property
    def config(self) -> TableConfig:
        """The table's configuration."""
        return self.core.config

    @property
    def group(self) -> Group:
        """The table's group."""
        return self.core.group

    @property
    def identity(self) -> Identity:
        """My long-term keys."""
        return self.core.identity

    @property
    def accusations(self) -> list[ProtocolViolation]:
        """Cheats found in the background or by an audit (in the order found)."""
        return self.core.accusations

    @property
    def cost(self) -> float:
        """My exponentiations so far in units of one full-size modexp (the audit's are
        charged to the group only: see :func:`app.protocol.audit.audit`)."""
        return self.core.cost

    @property
    def checks(self) -> int:
        """Subgroup membership tests (Jacobi symbols) done so far."""
        return self.core.checks

    @property
    def table_id(self) -> bytes:
        """The digest of every seat's keys (empty until they are all in)."""
        return self.core.setup.table_id

    @property
    def ready(self) -> bool:
        """True once table set-up finished (all keys and seeds exchanged)."""
        return self.core.setup.ready

    @property
    def fingerprint(self) -> int:
        """A 6-digit code of everyone's keys and seeds (:func:`app.protocol.setup.fingerprint`)."""
        return setup.fingerprint(self.core.setup)

    def cut_card(self, round_id: int, low: int, high: int) -> int:
        """A shoe's cut card, uniform in ``low..high`` (:func:`app.protocol.setup.cut_card`)."""
        return setup.cut_card(self.core.setup, round_id, low, high)

    # ------------------------------------------------------------------ set-up

    def hello(self) -> list[Message]:
        """The set-up message: public keys and a commitment to this seat's table seed."""
        return setup.hello(self.core)

    def leave_out(self, seat: int) -> list[Message]:
        """``seat`` left before the set-up finished (:func:`app.protocol.setup.leave_out`)."""
        return setup.leave_out(self.core, seat)

    # ------------------------------------------------------------------ rounds

    def start_round(self, spec: RoundSpec) -> list[Message]:
        """Begin a round (or a fresh shuffle after a dropout) among ``spec.order``.

        Round ids must strictly increase over the table's life; every message is bound
        to its round id, so frames of an earlier round are rejected as replays.
        """
        core = self.core
        if not self.ready:
            raise ProtocolUsageError("set-up not finished")
        if spec.round_id <= core.current:
            raise ProtocolUsageError("round ids must increase")
        order = spec.order
        if len(order) < 2 or len(set(order)) != len(order):
            raise ProtocolUsageError("a round needs >= 2 distinct seats")
        if not all(0 <= s < self.config.n_seats and s not in core.setup.absent for s in order):
            raise ProtocolUsageError("unknown seat in order")
        if spec.lock_chunk < 0 or spec.lock_ahead < 0 or spec.shuffle_parts < 1:
            raise ProtocolUsageError("bad lock_chunk, lock_ahead or shuffle_parts")
        if spec.size not in round_sizes():
            raise ProtocolUsageError("a round holds 1-8 decks")
        bits = self.config.shuffle_bits
        secret = (
            RoundSecret.fresh(self.group, spec.round_id, core.rng, bits)
            if self.seat in order
            else None
        )
        enc = CardEncoding.derive(self.group, core.setup.joint_seed, spec.round_id, spec.size)
        rnd = Round.begin(spec, secret, enc, bits)
        for key in [k for k in self._future_seq if k[0] <= spec.round_id]:
            seq = self._future_seq.pop(key)
            if key[0] == spec.round_id:
                rnd.recv_seq[key[1]] = seq  # the buffered frames were authenticated
        self._rounds[spec.round_id] = rnd
        core.current = spec.round_id
        out = shuffle.commit(core, rnd)
        buffered, self._buffer = self._buffer, []
        later = []
        for msg in buffered:
            if msg.round_id > spec.round_id:
                later.append(msg)  # for a round after this one
                continue
            if msg.round_id < spec.round_id:
                # A round this seat skipped (the table voided it before this phone
                # started it): its frames, authenticated on arrival, are moot; so are
                # the bodies of its stubs still to come.
                if msg.withheld is not None:
                    self._moot.add((msg.round_id, msg.sender, msg.seq))
                else:  # (its body came too)
                    self._moot.discard((msg.round_id, msg.sender, msg.seq))
                continue
            try:
                out += self.process(msg)  # (authenticated on arrival)
            except ProtocolViolation as exc:  # arrived early, judged now: record, go on
                core.accusations.append(exc)
        self._buffer = later
        return out

    def round(self, round_id: int) -> Round:
        """The transcript of ``round_id`` as this seat has it (read it; the methods of
        this class are the only ones that change it)."""
        rnd = self._rounds.get(round_id)
        if rnd is None:
            raise ProtocolUsageError("no such round")
        return rnd

    def rounds(self) -> list[int]:
        """The ids of the rounds started here, in order."""
        return sorted(self._rounds)

    def hand(self, round_id: int) -> dict[int, int]:
        """My opened cards in ``round_id``: ``{position: card code}`` (-1: did not open)."""
        return dict(self.round(round_id).hand)

    def verdict(self, round_id: int) -> Verdict | None:
        """The audit verdict of ``round_id`` (None while pending)."""
        return self.round(round_id).verdict

    def claimed_cards(self, round_id: int, seat: int) -> dict[int, int] | None:
        """The cards ``seat`` has proven in ``round_id`` (position -> card code): None
        until this seat has opened the claimed cards itself and found them as claimed.
        A claim that does not open never counts (it voids the round: a complaint)."""
        proven = self.round(round_id).proven.get(seat)
        return None if proven is None else dict(proven)

    def held_hand(self, round_id: int, owner: int) -> dict[int, int] | None:
        """A dropped seat's opened escrowed hand as position -> card code (None until opened)."""
        return escrow.held_hand(self.round(round_id), owner)

    def disputed(self, round_id: int) -> bool:
        """True once somebody complained in ``round_id`` (or, on a follower, a public
        card did not open): the round is void, and only its audit (every seat's seed)
        can say who cheated."""
        rnd = self.round(round_id)
        return bool(rnd.complaints) or -1 in rnd.public.values()

    def public(self, round_id: int) -> dict[int, int]:
        """The opened public positions of ``round_id``: ``{position: code}`` (the card is
        ``code % 52``; -1: it did not open, a complaint)."""
        return dict(self.round(round_id).public)

    def gave_key(self, round_id: int, position: int, seat: int) -> bool:
        """True once ``seat``'s key for a dealt ``position`` is in (the drawer needs every
        other seat's to open his card)."""
        return seat in self.round(round_id).keys.get(position, {})

    def waiting_for(self, round_id: int, upto: int = 0) -> set[int]:
        """The seats whose part this seat still lacks to open the dealt cards of
        ``round_id`` (first in the shuffle and locking chain, then keys): whom to blame
        when the table waits too long. Empty when nothing is missing. ``upto``: also
        the whole shuffle and the locking of the first ``upto`` positions (a shoe
        waits for that before its first card). ``round_id`` 0: the set-up (keys, then
        seeds)."""
        if round_id == 0:
            return setup.missing(self.core)
        rnd = self.round(round_id)
        if rnd.verdict is None and not rnd.suspended and (rnd.complaints or rnd.audit_wanted):
            # (every seed in, the audit waits for the bodies the relay owes)
            return reveal.audit_owed(rnd) or ({self.config.host} if rnd.withheld else set())
        return shuffle.lacking(rnd, upto) or deal.lacking_keys(rnd)

    def keys_owed(self, round_id: int) -> set[int]:
        """The seat whose key alone is missing for a card dealt to me (or opened to all)
        in ``round_id``, every other seat's key of it being in (empty otherwise): those
        show that the card's turn has come on their phones too, and a key goes out at
        once at that turn, so the table waits for that one seat less than for a pass.
        (With no third seat nothing shows it: empty.)"""
        rnd = self.round(round_id)
        if rnd.verdict is not None or rnd.secret is None or rnd.n < 3:
            return set()
        owed: set[int] = set()
        for pos, drawer in rnd.owner.items():
            if drawer not in (self.seat, PUBLIC):
                continue
            have = rnd.keys.get(pos, {})
            missing = [s for s in rnd.order if s != self.seat and s not in have]
            if len(missing) == 1:
                owed.update(missing)
        return owed

    def progress(self, round_id: int = 0) -> float:
        """How far the set-up (``round_id`` 0: keys, then seeds) or a round's shuffle and
        locking of the positions due now has come, 0..1, as this seat sees it (for a
        progress bar on a slow phone)."""
        if round_id == 0:
            return setup.progress(self.core)
        return shuffle.progress(self.core, self.round(round_id))

    # ------------------------------------------------------------------ public events

    def extend(self, round_id: int, upto: int) -> None:
        """Lock positions up to ``upto`` (exclusive) in the background (public event)."""
        rnd = self.round(round_id)
        rnd.lock_target = max(rnd.lock_target, min(rnd.size, upto))

    def reveal(self, round_id: int, assignments: Sequence[tuple[int, int]]) -> list[Message]:
        """Deal ``(position, drawer)`` pairs of ``round_id`` (a public event, on every seat).

        Every seat but the drawer broadcasts its key for the position (one KEYS message
        per call, once the positions are locked); the drawer then opens its card with
        one exponentiation. Positions beyond the locked region are locked on demand.
        A drawer :data:`PUBLIC` opens the position to everybody (:meth:`open_public`).
        """
        return deal.reveal(self.core, self.round(round_id), assignments)

    def open_public(self, round_id: int, positions: Sequence[int]) -> list[Message]:
        """Open ``positions`` of ``round_id`` to everybody (a public event, on every seat).

        Every seat of the order broadcasts its key for them (one KEYS message); every
        seat, followers included, then opens each with one exponentiation
        (:meth:`public`). A key that does not open the card is a complaint by every
        seat that sees it; the audit names the seat whose key it was; a seat that
        never gives its key is named by :meth:`waiting_for`.
        """
        return self.reveal(round_id, [(p, PUBLIC) for p in positions])

    def claim(self, round_id: int, kind: ClaimKind) -> list[Message]:
        """Prove my hand in ``round_id``: PERSIAN (my first two cards are aces) or
        SHOWDOWN (all my cards). After a dropout the cards dealt before the fresh
        shuffle are claimed in their own round."""
        return deal.claim(self.core, self.round(round_id), kind)

    def escrow(self, round_id: int, holders: Sequence[int]) -> list[Message]:
        """After I hold: give seats that have *finished their turn* the keys to my cards.

        Each holder gets my card keys encrypted under our pairwise key, so if I drop out
        my held result can still be opened at showdown (see :meth:`release`), while no
        seat still to act can read it. Call again when more seats finish.
        """
        return escrow.escrow(self.core, self.round(round_id), holders)

    def release(self, round_id: int, owner: int) -> list[Message]:
        """At showdown, open a dropped seat's escrowed hand: publish the record key.

        The record key decrypts only that one escrow record; everybody then opens the
        owner's cards from the signed escrow and the keys broadcast at the deal.
        """
        return escrow.release(self.core, self.round(round_id), owner)

    def finish_round(self, round_id: int) -> list[Message]:
        """End the round: reveal my round seed; the audit then runs as background work."""
        self.round(round_id).audit_wanted = True
        return []

    def close_round(self, round_id: int) -> None:
        """Give up auditing a round that a dropout voided (its seed will never come).

        The verdict becomes ``ok=False`` with no cheater named: the round was replaced
        by a fresh shuffle; held results in it stay openable through the escrow. Its
        frames still in flight are accepted and ignored.
        """
        rnd = self.round(round_id)
        if rnd.verdict is None:
            rnd.verdict = Verdict(round_id, False, (), None)
            rnd.closed = True

    def suspend_round(self, round_id: int, voided: Sequence[int] = ()) -> None:
        """Freeze a round a dropout interrupted: no more shuffling, locking or dealing in it.

        Claims, escrow releases and opening of cards already dealt still work; the table
        then starts a fresh round among the remaining seats (:meth:`start_round`).
        ``voided``: dealt positions the table takes back (a card on its way when the
        dropout came, which can never open now): they are nobody's any more, so the
        drawer's claim and escrow cover only the cards he kept. A public event: every
        seat must void the same positions.
        """
        rnd = self.round(round_id)
        rnd.frozen = rnd.suspended = True
        escrow.open_early_releases(self.core, rnd, None)
        deal.void_positions(rnd, voided)

    def dropped(self, seat: int) -> None:
        """``seat`` left the table (a public event, on every seat): escrow releases of
        his held hands are opened from now on, also those that came before (at the
        showdown nobody is left to act, and no round is suspended then)."""
        self.core.dropped.add(seat)
        for rnd in self._rounds.values():
            escrow.open_early_releases(self.core, rnd, seat)

    # ------------------------------------------------------------------ receiving

    def authenticate(self, msg: Message, link: int | None = None) -> None:
        """The link checks a relaying host runs before forwarding a frame.

        ``link`` (host only) is the seat whose connection the frame arrived on: a frame
        claiming another sender, and any failure of it, then names that seat, so that a
        guest cannot get another seat named by sending garbage in its name.
        """
        self.core.link = link if self.core.is_host else None
        try:
            self._authenticate(msg)
        finally:
            self.core.link = None

    def _authenticate(self, msg: Message) -> None:
        """Sender id, round (replays of closed rounds), signature and sequence number; on
        success the sequence number is consumed. Failures blame the link (the host, as
        seen from a guest). A host relays every frame that passes, whatever its content,
        so that every seat sees - and names - a sender's signed misbehaviour."""
        core = self.core
        blame = core.blame_link
        if not 0 <= msg.sender < self.config.n_seats or msg.sender == self.seat:
            raise ProtocolViolation(blame(msg.sender), E.WRONG_SENDER, "sender id")
        if core.link is not None and msg.sender != core.link:
            raise ProtocolViolation(core.link, E.WRONG_SENDER, "another seat's frame")
        if msg.withheld is not None and core.is_host:
            raise ProtocolViolation(
                blame(msg.sender), E.BAD_FRAME, "stub"
            )  # (only hosts make them)
        rnd: Round | None = None
        if msg.round_id == 0:
            seqs = core.setup.seq
        else:
            if not self.ready:
                raise ProtocolViolation(blame(msg.sender), E.OUT_OF_ORDER, "before set-up")
            if msg.round_id > core.current:
                self._authenticate_future(msg)
                return
            rnd = self._rounds.get(msg.round_id)
            if rnd is None:
                place = (msg.round_id, msg.sender, msg.seq)
                if msg.withheld is None and place in self._moot:
                    self._moot.discard(place)  # (the body of a stub of a round skipped here)
                    return
                raise ProtocolViolation(blame(msg.sender), E.REPLAY, "closed round")
            seqs = rnd.recv_seq
        if rnd is not None and _body_of(rnd, msg):
            # The body of a stub, whose sequence number the stub took: the same header,
            # or the relay sent something else; its signature is checked as a deferred
            # one (:func:`shuffle.may_defer_signature` held for the stub).
            self._check_body(rnd.withheld[0], msg)
            rnd.deferred_sigs.append(msg)
            return
        expected = seqs.get(msg.sender, 0)
        if msg.seq < expected:
            raise ProtocolViolation(blame(msg.sender), E.REPLAY, "sequence")
        if msg.seq > expected:
            raise ProtocolViolation(blame(msg.sender), E.SEQ_GAP, "sequence")
        if rnd is not None and rnd.verdict is not None and msg.kind != Kind.EVIDENCE:
            # A new signed frame (next sequence number) for a round already audited here:
            # the sender's doing, not a replay by the relay. Naming the relay let a seat
            # get the host named by a guest whose audit happened to finish first.
            if msg.withheld is None:
                core.check_signature(msg)
            seqs[msg.sender] = expected + 1
            if rnd.closed:
                return  # given up here (a void round): its frames still in flight are moot
            who = msg.sender if msg.withheld is None else blame(msg.sender)  # (a stub: the relay)
            raise ProtocolViolation(who, E.OUT_OF_ORDER, "round already audited")
        if msg.kind == Kind.HELLO:
            if len(msg.values) != 2 or not self.group.is_element(msg.values[0]):
                raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "hello")
            core.count([self.group.q, 1 << 128])
            if not verify(self.group, msg.values[0], HELLO_CONTEXT, msg.body(self.group), msg.sig):
                raise ProtocolViolation(blame(msg.sender), E.BAD_SIGNATURE, "hello")
        elif msg.withheld is not None:
            pass  # a stub: signed by nobody (its body, later, is)
        elif rnd is not None and shuffle.may_defer_signature(core, rnd, msg):
            rnd.deferred_sigs.append(msg)
        else:
            core.check_signature(msg)
        if rnd is not None and core.is_host and shuffle.input_missing(rnd, msg):
            # Guests blame the relay for a pass or lock whose input they lack (an in-order
            # relay lost it), so the host must not relay one it has no input for itself:
            # else a guest sending early gets the honest host named everywhere.
            raise ProtocolViolation(blame(msg.sender), E.OUT_OF_ORDER, "before input")
        seqs[msg.sender] = expected + 1

    def _check_body(self, stub: Message, body: Message) -> None:
        """A body must have its stub's header: else the relay sent something else."""
        if not stub.matches(body):
            raise ProtocolViolation(
                self.core.blame_link(body.sender), E.BAD_FRAME, "body and stub differ"
            )

    def _authenticate_future(self, msg: Message) -> None:
        """A frame for a round not started here yet: buffered. Sequence numbers start at
        0 in every round, so the host checks them now: else it would relay a guest's
        duplicate, and the other guests would blame the host for it."""
        key = (msg.round_id, msg.sender)
        if msg.withheld is None:
            place = (msg.round_id, msg.sender, msg.seq)
            held = [m for m in self._buffer if (m.round_id, m.sender, m.seq) == place]
            if len(held) == 1 and held[0].withheld is not None:
                # the body of a buffered stub (processed after it when the round starts)
                self._check_body(held[0], msg)
                self.core.check_signature(msg)
                return
        expected = self._future_seq.get(key, 0)
        if msg.seq != expected:
            code = E.REPLAY if msg.seq < expected else E.SEQ_GAP
            raise ProtocolViolation(self.core.blame_link(msg.sender), code, "sequence")
        if msg.withheld is None:
            self.core.check_signature(msg)  # (a stub is signed by nobody: its body is)
        self._future_seq[key] = expected + 1

    def precheck(self, msgs: Sequence[Message]) -> None:
        """Check the signatures of frames about to be handled in one batch (spread over
        the cores): authenticating them then costs no check each. Judges nothing: a
        signature that fails is checked again, alone, where its frame is authenticated.
        Frames whose check :meth:`authenticate` defers are left to the background."""
        core = self.core
        now = [
            m
            for m in msgs
            if m.withheld is None
            and not shuffle.may_defer_signature(core, self._rounds.get(m.round_id), m)
        ]
        core.precheck(now)

    def handle(self, msg: Message, link: int | None = None) -> list[Message]:
        """Authenticate, validate and record one incoming message; return messages to send.

        Raises ProtocolViolation naming the seat to blame; the message is not applied.
        ``link``: see :meth:`authenticate`.
        """
        self.authenticate(msg, link)
        return self.process(msg)

    def process(self, msg: Message) -> list[Message]:
        """The content checks and state update for an authenticated message."""
        core = self.core
        if msg.round_id == 0:
            return setup.on_setup(core, msg)
        if msg.round_id not in self._rounds and msg.round_id <= core.current:
            return []  # (a moot body: see _authenticate)
        if msg.round_id > core.current:
            # Per sender, and blamed on it: these frames are signed and in sequence, so
            # only the sender can have made so many (not the relay).
            if sum(m.sender == msg.sender for m in self._buffer) >= _MAX_BUFFERED:
                raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "flood")
            self._buffer.append(msg)
            return []
        rnd = self._rounds[msg.round_id]
        body = _body_of(rnd, msg)
        if rnd.closed or (body and rnd.verdict is not None):
            # (authenticated, and moot: given up here, or void here already; a stub
            # still keeps its body's place)
            if msg.withheld is not None:
                rnd.withheld.append(msg)
            elif body:
                rnd.withheld.pop(0)
            return []
        if msg.sender not in rnd.order:
            who = msg.sender if msg.withheld is None else core.blame_link(msg.sender)
            raise ProtocolViolation(who, E.WRONG_SENDER, "not in this round")
        rnd.frames[(msg.sender, msg.seq)] = msg
        try:
            if msg.withheld is not None:
                shuffle.on_stub(core, rnd, msg)
            elif body:
                shuffle.on_body(core, rnd, msg)
            elif msg.kind == Kind.RELEASE:
                escrow.on_release(core, self._rounds, msg)
            elif msg.kind in _HANDLERS:
                _HANDLERS[msg.kind](core, rnd, msg)
            else:
                raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, msg.kind.name)
        except ProtocolViolation:
            # Blame the sender only for what it provably signed: check the deferred
            # signatures now (a forgery names the relay instead) - all of them, since the
            # check may have failed against a forged earlier frame (e.g. a pass compared
            # with its forged input).
            pending, rnd.deferred_sigs = rnd.deferred_sigs, []
            forged = core.check_signatures(pending)
            if forged is not None:  # a forgery is in my state: void here
                rnd.verdict = Verdict(rnd.round_id, False, ((forged.seat, forged.code),), None)
                rnd.closed = True  # (what its senders send next is moot, not their fault)
                raise forged from None
            raise
        return []

    # ------------------------------------------------------------------ work

    def has_work(self) -> bool:
        """True when :meth:`work` has something to do."""
        return any(self._next_step(rnd) is not None for rnd in self._open_rounds()) or (
            self._nonces_due()
        )

    def work(self) -> list[Message]:
        """Do one bounded step of pending computation; return the messages it produces.

        Priority: my shuffle pass, locking, keys, opening my cards, checking claims,
        then the audit (background); in idle time, signing nonces for later frames.
        """
        for rnd in self._open_rounds():
            step = self._next_step(rnd)
            if step is not None:
                return step()
        if self._nonces_due():
            # Idle: the next frames (a drawn card's key above all) are signed at once.
            # (Not in ``cost``, which never counted signing.)
            self.core.identity.nonces.refill()
        return []

    def _nonces_due(self) -> bool:
        return self.ready and self.core.identity.nonces.due

    def _open_rounds(self) -> list[Round]:
        return [
            r
            for _, r in sorted(self._rounds.items())
            if r.verdict is None or any(o not in r.held for o in r.released)
        ]

    def _next_step(self, rnd: Round) -> Step | None:
        """The most urgent step of ``rnd`` (None: nothing to do in it now)."""
        core = self.core
        # A seat outside the order (a tiebreak's onlooker) only checks: the claims it
        # must open in the engine, the signatures, the values, and the audit.
        observer = rnd.secret is None
        me = -1 if observer else rnd.order.index(self.seat)
        n = rnd.n
        # A later round freezes this one (a dropout's fresh shuffle, or the next round
        # while this one's audit runs): no more shuffling, locking or dealing here.
        void = rnd.audit_wanted or bool(rnd.complaints)
        busy = not observer and not void and not rnd.frozen and rnd.verdict is None
        # 1. my shuffle pass (non-last shufflers): encrypt input as it arrives, release whole
        if busy and 0 <= me < n - 1 and not rnd.shuffle_sent:
            inp = rnd.enc.values if me == 0 else rnd.stages[me - 1]
            if len(rnd.my_encrypted) < len(inp):
                return lambda: shuffle.encrypt_incoming(core, rnd, inp)
            if len(rnd.my_encrypted) == rnd.size and (me or len(rnd.commits) == n):
                return lambda: shuffle.release_shuffle(core, rnd)
        # 2. the last shuffler streams its per-card-keyed output up to the lock target
        last_ready = me == n - 1 and len(rnd.stages[-2]) == rnd.size
        if busy and last_ready and len(rnd.stages[-1]) < rnd.lock_target:
            return lambda: shuffle.last_shuffle_chunk(core, rnd)
        # 3. keys for dealt positions once they are locked (before locking more)
        if busy and deal.keys_due(rnd):
            return lambda: deal.send_keys(core, rnd)
        # 4. open my own cards, and the public ones (followers too)
        # (before the deferred signatures: a card that opens needs none to be right)
        signed = lambda: self._settle_deferred(rnd)  # noqa: E731
        if not void and rnd.verdict is None and not observer and deal.openable(core, rnd):
            return lambda: deal.open_mine(core, rnd, signed)
        if not void and rnd.verdict is None and deal.public_openable(rnd):
            return lambda: deal.open_public(core, rnd, signed)
        # 5. locking, streamed in chunks
        if busy and 0 <= me < n - 1:
            lock_in = rnd.stages[-1] if me == 0 else rnd.locks[me - 1]
            if len(rnd.locks[me]) < min(len(lock_in), rnd.lock_target):
                return lambda: shuffle.lock_chunk(core, rnd, lock_in)
        # 6. signatures deferred by authenticate (before anything judges others' data)
        if rnd.deferred_sigs and rnd.verdict is None:
            return lambda: self._run_deferred_sigs(rnd)
        # 7. check others' claims (once their keys are all in)
        if not rnd.complaints and rnd.verdict is None and deal.checkable_claim(rnd) is not None:
            return lambda: deal.check_claim(core, rnd)
        # 8. open a dropped seat's released hand
        owner = escrow.release_due(rnd)
        if owner is not None:
            return lambda: escrow.open_released(core, rnd, owner)
        # 9. deferred subgroup tests of values this seat does not exponentiate
        if rnd.deferred_checks:
            return lambda: shuffle.run_deferred_checks(core, rnd)
        # 10. the audit (background)
        if rnd.verdict is not None:
            return None
        if not observer and not rnd.audit_sent and reveal.reveal_due(rnd):
            return lambda: reveal.send_audit(core, rnd)
        due = rnd.audit_sent or (observer and reveal.reveal_due(rnd))
        if due and len(rnd.audits) == n and not rnd.withheld:
            return lambda: reveal.run_audit(core, rnd)
        return None

    def _run_deferred_sigs(self, rnd: Round) -> list[Message]:
        """The deferred signatures, all in one batch (spread over the cores)."""
        self._settle_deferred(rnd)
        return []

    def _settle_deferred(self, rnd: Round) -> bool:
        """Check every deferred signature of ``rnd`` now; False if one is forged.

        A forged frame got into this round's state: the round is void here and only
        the relay (the host, which checks every frame) can be named."""
        pending, rnd.deferred_sigs = rnd.deferred_sigs, []
        exc = self.core.check_signatures(pending)
        if exc is None:
            return True
        self.core.accusations.append(exc)
        rnd.verdict = Verdict(rnd.round_id, False, ((exc.seat, exc.code),), None)
        rnd.closed = True  # (what its senders send next is moot, not their fault)
        return False


def _body_of(rnd: Round, msg: Message) -> bool:
    """Is ``msg`` a full frame in the place of the oldest stub of ``rnd``?"""
    if msg.withheld is not None or not rnd.withheld:
        return False
    stub = rnd.withheld[0]
    return (msg.sender, msg.seq) == (stub.sender, stub.seq)
