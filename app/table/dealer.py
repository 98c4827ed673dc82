"""Where the cards come from: the dealer interface the table drives, and a test dealer.

Every phone has a :class:`Dealer` for its own seat. The table tells it the public
events (a deck is started for a round, positions are dealt to seats, a seat proves
its hand) and relays the frames it produces; the dealer tells the table which cards
its own seat holds and which cards other seats have proven.

* :class:`SraDealer` (``app/table/oczko/sra_deck.py``) is the real one: the SRA mental
  poker seat of :mod:`app.protocol`, where nobody, not even the host, learns another
  player's cards.
* :class:`OpenDealer` here is for tests of the table flow only: the host's dealer
  shuffles and tells each card to its drawer *in a frame every phone receives*. It is
  honest-host, no-secrecy, and is never used on a real table.

A deck (``deck`` id, strictly increasing over the table's life) is shuffled for one
round of the match; a dropout mid-round starts a fresh deck for the same round.
Positions of a deck are dealt in order from 0.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

CLAIM_PERSIAN = "persian"
CLAIM_SHOWDOWN = "showdown"


class DealerViolation(Exception):
    """A frame that breaks the dealing protocol; ``seat`` is who is to blame."""

    def __init__(self, seat: int, code: str, detail: str = "") -> None:
        super().__init__(f"seat {seat}: {code} {detail}".strip())
        self.seat = seat
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class DeckVerdict:
    """The end-of-round audit of a deck: ``ok``, and the seats found cheating.
    ``unaudited``: no audit could run (a seat whose seed it needs left without
    revealing it); ``ok`` is False then and nobody is named."""

    ok: bool
    cheaters: tuple[int, ...] = ()
    unaudited: bool = False


class FrameDealer(Protocol):
    """What every seat's dealer does with frames (opaque bytes to the table): the set-up,
    the host's check before relaying, and the background work. Oczko's :class:`Dealer`
    and the casino's :class:`~app.table.casino.shoe_dealer.ShoeDealer` are both one."""

    seat: int

    def hello(self) -> list[bytes]:
        """Frames that set the table up (keys; the shoe's joint seed); :attr:`ready` once
        everybody's are in."""
        ...

    @property
    def ready(self) -> bool: ...

    @property
    def fingerprint(self) -> str:
        """A short code every screen shows once set up (equal on every honest phone)."""
        ...

    def leave_out(self, seat: int) -> list[bytes]:
        """``seat`` left before the set-up finished: set up without him (a public event;
        a no-op once :attr:`ready`)."""
        ...

    def authenticate(self, frame: bytes) -> None:
        """Host: check a guest's frame before relaying it (:class:`DealerViolation`)."""
        ...

    def handle(self, frame: bytes) -> list[bytes]:
        """Take in a frame from another seat (:class:`DealerViolation` if it is bad)."""
        ...

    def has_work(self) -> bool: ...

    def work(self) -> list[bytes]:
        """One bounded step of background computation; frames to send."""
        ...


class Dealer(FrameDealer, Protocol):
    """One seat's side of the card protocol (frames are opaque bytes to the table)."""

    def start_deck(self, deck: int, order: Sequence[int]) -> list[bytes]:
        """A deck is shuffled among ``order`` (every phone is told; one whose seat is not
        in ``order``, e.g. during a tiebreak, only follows)."""
        ...

    def deal(self, deck: int, assignments: Sequence[tuple[int, int]]) -> list[bytes]:
        """Public event: ``(position, seat)`` pairs are dealt from ``deck``."""
        ...

    def card(self, deck: int, position: int) -> int | None:
        """The card code (0-51) at a position dealt to this seat, once it is open."""
        ...

    def progress(self, deck: int) -> float:
        """0..1: how far the shuffle of ``deck`` (0: the set-up) has come, for the UI."""
        ...

    def waiting_for(self, deck: int) -> set[int]:
        """Seats whose part this phone still lacks to open the dealt cards of ``deck``
        (0: to finish the set-up): whom to blame when the table waits too long (empty:
        nothing missing)."""
        ...

    def keys_owed(self, deck: int) -> set[int]:
        """Seats whose key for a card dealt to this seat is missing while everything
        before it (passes, locks) is in: a key goes out at the deal that needs it, so a
        phone waits for it far less than for a pass (issue 30)."""
        ...

    def disputed(self, deck: int) -> bool:
        """True once somebody complained about ``deck`` (a card or a claim that did not
        open): the round is void and only the deck's audit can name the cheater."""
        ...

    def shared(self, deck: int, position: int, seat: int) -> bool:
        """True once ``seat`` has given its part for opening a dealt position (SRA: its
        key). A card whose part from a leaver never came cannot open: it is voided."""
        ...

    def claim(self, deck: int, kind: str) -> list[bytes]:
        """Prove this seat's cards of ``deck`` to everybody."""
        ...

    def claimed(self, deck: int, seat: int) -> dict[int, int] | None:
        """``{position: card}`` that ``seat`` proved in ``deck``, None until proven."""
        ...

    def held(self, deck: int, finished: Sequence[int]) -> list[bytes]:
        """This seat holds: make its hand openable by ``finished`` seats should it drop
        out (SRA: an escrow only they can read); called again as more seats finish."""
        ...

    def suspend_deck(self, deck: int, voided: Sequence[int] = ()) -> None:
        """A dropout: nothing more is dealt from ``deck``; its dealt cards stay valid but
        for the positions in ``voided`` (cards on their way, dealt again from the fresh
        deck), which are nobody's any more."""
        ...

    def left(self, seat: int) -> None:
        """``seat`` left the table (a public event): his held hands may be opened now."""
        ...

    def release(self, deck: int, seat: int) -> list[bytes]:
        """``seat`` left holding a result: open his cards of ``deck`` for everybody, if
        this seat can (SRA: the escrow he left with the players who had finished)."""
        ...

    def finish_deck(self, deck: int) -> list[bytes]:
        """The round is over: start the audit of ``deck``."""
        ...

    def verdict(self, deck: int) -> DeckVerdict | None:
        """The audit's result, None while it runs."""
        ...

    def revealed(self, deck: int, seat: int) -> bool:
        """True once ``seat`` has given what the audit of ``deck`` needs from him (SRA:
        his round seed): a deck whose leaver had not cannot be audited."""
        ...

    def complained(self, deck: int, seat: int) -> bool:
        """True if ``seat`` complained about ``deck`` (a signed complaint)."""
        ...


class OpenSetup:
    """The set-up of a test dealer without secrecy (Oczko's :class:`OpenDealer`, the
    casino's :class:`~app.table.casino.open_shoe.OpenShoe`): nothing to set up, no
    background work; the host (``host``) shuffles with ``rng`` and sends JSON frames."""

    def __init__(self, seat: int, host: int = 0, rng: random.Random | None = None) -> None:
        self.seat = seat
        self.host = host
        self._rng = rng or random.Random(seat)

    def hello(self) -> list[bytes]:
        return []

    @property
    def ready(self) -> bool:
        return True

    @property
    def fingerprint(self) -> str:
        return "open"

    def leave_out(self, seat: int) -> list[bytes]:
        return []

    @staticmethod
    def _frame(**fields: object) -> bytes:
        return json.dumps(fields, separators=(",", ":")).encode()

    def has_work(self) -> bool:
        return False

    def work(self) -> list[bytes]:
        return []


class OpenDealer(OpenSetup):
    """Test dealer: the host shuffles and announces every card openly. NOT secret."""

    def __init__(self, seat: int, host: int = 0, rng: random.Random | None = None) -> None:
        super().__init__(seat, host, rng)
        self._decks: dict[int, list[int]] = {}
        self._mine: dict[tuple[int, int], int] = {}
        self._claims: dict[tuple[int, int], dict[int, int]] = {}
        self._dealt: dict[tuple[int, int], int] = {}  # host: (deck, position) -> seat

    def authenticate(self, frame: bytes) -> None:
        self._parse(frame)

    def _parse(self, frame: bytes) -> dict[str, Any]:
        try:
            data = json.loads(frame)
            if not isinstance(data, dict) or data.get("k") not in ("card", "claim"):
                raise ValueError("unknown frame")
            return data
        except ValueError as exc:
            raise DealerViolation(self.host, "bad_frame", str(exc)) from exc

    def handle(self, frame: bytes) -> list[bytes]:
        data = self._parse(frame)
        if data["k"] == "card":
            if data["s"] == self.seat:
                self._mine[(data["d"], data["p"])] = data["c"]
        else:
            seat, deck = data["s"], data["d"]
            cards = {int(p): c for p, c in data["cards"]}
            if self.seat == self.host:
                truth = self._decks.get(deck, [])
                for p, c in cards.items():
                    if self._dealt.get((deck, p)) != seat or truth[p] != c:
                        raise DealerViolation(seat, "false_claim", f"position {p}")
            self._claims[(deck, seat)] = cards
        return []

    def start_deck(self, deck: int, order: Sequence[int]) -> list[bytes]:
        if self.seat == self.host:
            cards = list(range(52))
            self._rng.shuffle(cards)
            self._decks[deck] = cards
        return []

    def deal(self, deck: int, assignments: Sequence[tuple[int, int]]) -> list[bytes]:
        if self.seat != self.host:
            return []
        out = []
        for position, seat in assignments:
            self._dealt[(deck, position)] = seat
            code = self._decks[deck][position]
            if seat == self.seat:
                self._mine[(deck, position)] = code
            out.append(self._frame(k="card", d=deck, p=position, s=seat, c=code))
        return out

    def card(self, deck: int, position: int) -> int | None:
        return self._mine.get((deck, position))

    def shared(self, deck: int, position: int, seat: int) -> bool:
        return True  # the host announced the card in the open when it was dealt

    def disputed(self, deck: int) -> bool:
        return False  # the host checks every claim against the deck it dealt

    def waiting_for(self, deck: int) -> set[int]:
        return set()  # every card comes from the host at once

    def keys_owed(self, deck: int) -> set[int]:
        return set()

    def progress(self, deck: int) -> float:
        return 1.0

    def claim(self, deck: int, kind: str) -> list[bytes]:
        cards = sorted((p, c) for (d, p), c in self._mine.items() if d == deck)
        self._claims[(deck, self.seat)] = dict(cards)
        return [self._frame(k="claim", d=deck, s=self.seat, kind=kind, cards=cards)]

    def claimed(self, deck: int, seat: int) -> dict[int, int] | None:
        return self._claims.get((deck, seat))

    def held(self, deck: int, finished: Sequence[int]) -> list[bytes]:
        return []  # the host knows every card: nothing to escrow

    def suspend_deck(self, deck: int, voided: Sequence[int] = ()) -> None:
        for position in voided:
            self._dealt.pop((deck, position), None)
            self._mine.pop((deck, position), None)

    def left(self, seat: int) -> None:
        pass  # the host holds every card: nothing to unlock

    def release(self, deck: int, seat: int) -> list[bytes]:
        if self.seat != self.host:
            return []
        cards = sorted(
            (p, self._decks[deck][p])
            for (d, p), s in self._dealt.items()
            if d == deck and s == seat
        )
        self._claims[(deck, seat)] = dict(cards)
        return [self._frame(k="claim", d=deck, s=seat, kind="release", cards=cards)]

    def finish_deck(self, deck: int) -> list[bytes]:
        return []

    def verdict(self, deck: int) -> DeckVerdict | None:
        return DeckVerdict(True)

    def revealed(self, deck: int, seat: int) -> bool:
        return self.verdict(deck) is not None  # (the host knows every card: no seed)

    def complained(self, deck: int, seat: int) -> bool:
        return False  # (nobody complains: every card opens at the host's word)

    def deck_of(self, frame: bytes) -> int:
        """The deck a frame belongs to (0: the table set-up)."""
        try:
            deck = json.loads(frame).get("d", 0)
        except (ValueError, AttributeError):
            return 0
        return deck if isinstance(deck, int) else 0


D = TypeVar("D", bound=FrameDealer)


class Generations(Generic[D]):
    """A seat's dealers set up one after the other (a returning player's old keys died
    with his phone), each from its first deck or shoe on (ascending). The set-up goes
    to the newest; a frame goes to the dealer :meth:`_route` finds for it."""

    def __init__(self, dealer: D, first: int = 0) -> None:
        self.seat = dealer.seat
        self._gens: list[tuple[int, D]] = [(first, dealer)]

    @property
    def current(self) -> D:
        return self._gens[-1][1]

    @property
    def generation(self) -> int:
        """How many dealers were set up so far (1: the table's first set-up)."""
        return len(self._gens)

    def _route(self, frame: bytes) -> D | None:
        """The dealer of the deck or shoe ``frame`` belongs to (None: not this phone's)."""
        raise NotImplementedError

    def hello(self) -> list[bytes]:
        return self.current.hello()

    @property
    def ready(self) -> bool:
        return self.current.ready

    @property
    def fingerprint(self) -> str:
        return self.current.fingerprint

    def leave_out(self, seat: int) -> list[bytes]:
        return self.current.leave_out(seat)

    def authenticate(self, frame: bytes) -> None:
        dealer = self._route(frame)
        if dealer is not None:
            dealer.authenticate(frame)

    def handle(self, frame: bytes) -> list[bytes]:
        dealer = self._route(frame)
        return [] if dealer is None else dealer.handle(frame)

    def has_work(self) -> bool:
        return any(d.has_work() for _, d in self._gens)

    def precheck(self, frames: Sequence[bytes]) -> None:
        """Batch-check the signatures of frames about to be read (those of each dealer
        together; see :mod:`app.table.prechecks`), if the dealers can."""
        groups: dict[int, tuple[D, list[bytes]]] = {}
        for frame in frames:
            dealer = self._route(frame)
            if dealer is not None:
                groups.setdefault(id(dealer), (dealer, []))[1].append(frame)
        for dealer, batch in groups.values():
            check = getattr(dealer, "precheck", None)
            if check is not None:
                check(batch)


class Rekeyed(Generations[Dealer]):
    """A phone's dealers over the match: a player's return sets the table up anew (his
    old keys died with his phone), with fresh dealers from ``first_deck`` on; the
    earlier decks stay with the dealers that shuffled them (their audits still come in).

    Frames are routed by the deck they belong to (``deck_of``; set-up frames go to the
    newest dealer).
    """

    def __init__(self, dealer: Dealer, first_deck: int = 0) -> None:
        # A returning phone starts at ``first_deck``: frames of earlier decks (relayed
        # audits of rounds played without it) are not for it.
        super().__init__(dealer, first_deck)

    def rekey(self, first_deck: int, dealer: Dealer) -> list[bytes]:
        """From ``first_deck`` on, deal with ``dealer`` (set up anew): its hello frames."""
        self._gens.append((first_deck, dealer))
        return dealer.hello()

    def _for(self, deck: int) -> Dealer:
        found = self._gens[0][1]
        for first, dealer in self._gens:
            if first <= deck:
                found = dealer
        return found

    def _route(self, frame: bytes) -> Dealer | None:
        deck = getattr(self.current, "deck_of", lambda f: 0)(frame)
        if deck == 0:
            return self.current
        return None if deck < self._gens[0][0] else self._for(deck)

    def extend(self, deck: int, upto: int) -> None:
        """Lock ``deck`` up to position ``upto`` in the background, if the dealer locks."""
        extend = getattr(self._for(deck), "extend", None)
        if extend is not None:
            extend(deck, upto)

    def first_reader(self, frame: bytes) -> int | None:
        """The seat that computes next on ``frame`` (a relay serves it first), if any."""
        dealer = self._route(frame)
        first = getattr(dealer, "first_reader", None)
        found = first(frame) if first is not None else None
        return found if isinstance(found, int) else None

    def withhold(self, frame: bytes) -> bytes | None:
        """The stub of ``frame`` for a guest that only checks it, if any (a relay sends
        its body later)."""
        withhold = getattr(self._route(frame), "withhold", None)
        found = withhold(frame) if withhold is not None else None
        return found if isinstance(found, bytes) else None

    def work(self) -> list[bytes]:
        for _, d in self._gens:
            if d.has_work():
                return d.work()
        return []

    def start_deck(self, deck: int, order: Sequence[int]) -> list[bytes]:
        return self._for(deck).start_deck(deck, order)

    def deal(self, deck: int, assignments: Sequence[tuple[int, int]]) -> list[bytes]:
        return self._for(deck).deal(deck, assignments)

    def card(self, deck: int, position: int) -> int | None:
        return self._for(deck).card(deck, position)

    def shared(self, deck: int, position: int, seat: int) -> bool:
        return self._for(deck).shared(deck, position, seat)

    def disputed(self, deck: int) -> bool:
        return self._for(deck).disputed(deck)

    def waiting_for(self, deck: int) -> set[int]:
        return (self.current if deck == 0 else self._for(deck)).waiting_for(deck)

    def keys_owed(self, deck: int) -> set[int]:
        return set() if deck == 0 else self._for(deck).keys_owed(deck)

    def progress(self, deck: int) -> float:
        return (self.current if deck == 0 else self._for(deck)).progress(deck)

    def claim(self, deck: int, kind: str) -> list[bytes]:
        return self._for(deck).claim(deck, kind)

    def claimed(self, deck: int, seat: int) -> dict[int, int] | None:
        return self._for(deck).claimed(deck, seat)

    def held(self, deck: int, finished: Sequence[int]) -> list[bytes]:
        return self._for(deck).held(deck, finished)

    def suspend_deck(self, deck: int, voided: Sequence[int] = ()) -> None:
        self._for(deck).suspend_deck(deck, voided)

    def left(self, seat: int) -> None:
        for _, dealer in self._gens:
            dealer.left(seat)

    def release(self, deck: int, seat: int) -> list[bytes]:
        return self._for(deck).release(deck, seat)

    def finish_deck(self, deck: int) -> list[bytes]:
        return self._for(deck).finish_deck(deck)

    def verdict(self, deck: int) -> DeckVerdict | None:
        return self._for(deck).verdict(deck)

    def revealed(self, deck: int, seat: int) -> bool:
        return self._for(deck).revealed(deck, seat)

    def complained(self, deck: int, seat: int) -> bool:
        return self._for(deck).complained(deck, seat)
