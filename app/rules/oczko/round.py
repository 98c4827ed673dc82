"""One Oczko round as an immutable state: deal, Persian 21 check, turns, showdown.

The match (:mod:`app.rules.oczko.match`) drives these functions; other code uses
:class:`app.rules.oczko.Match`. Every function takes a :class:`Round` and returns
``(new_round, events)``, or raises :class:`~app.rules.errors.IllegalAction` and
changes nothing.

A round runs in one of two modes (see :mod:`app.rules.oczko` for the why):

* full information (``me`` is None): every card is known; busts, holds at 21 and
  Persian 21s happen by themselves and the round never waits for a reveal;
* a phone (``me`` is the phone's seat): other players' cards are None (hidden); nothing
  happens by itself, every change of status comes from an action of the common message
  stream (claims, reveals), and the phone's own cards only restrict what the phone
  itself may claim.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from app.cards import Card
from app.native import handeval
from app.rules.errors import IllegalAction
from app.rules.oczko.actions import ActionKind
from app.rules.oczko.events import (
    Busted,
    CardDealt,
    CardDrawn,
    DeckReplaced,
    Disconnected,
    Event,
    Held,
    Persian21,
    Revealed,
    TurnStarted,
)

Events = tuple[Event, ...]


class Phase(enum.StrEnum):
    """Where a round stands."""

    #: cards of the deal are still to come (:func:`deal`)
    DEAL = "deal"
    #: (phone) dealt: waiting for Persian 21 proofs (:func:`reveal`) and :func:`close_deal`
    DEAL_CHECK = "deal_check"
    #: players take their turns (:func:`draw`, :func:`hold`, :func:`claim_bust`)
    PLAY = "play"
    #: (phone) everyone is done: waiting for the hands to be opened (:func:`reveal`)
    SHOWDOWN = "showdown"
    #: decided
    OVER = "over"


class Status(enum.StrEnum):
    """Where one player's hand stands in the round."""

    PLAYING = "playing"
    HELD = "held"
    BUST = "bust"
    PERSIAN = "persian"


def total_of(cards: tuple[Card | None, ...]) -> int | None:
    """Oczko total of ``cards``, or None if any card is hidden."""
    if any(c is None for c in cards):
        return None
    return int(handeval.oczko_total([c.code for c in cards if c is not None]))


def _persian(cards: tuple[Card | None, ...]) -> bool:
    if len(cards) != 2 or cards[0] is None or cards[1] is None:
        return False
    return bool(handeval.is_persian([cards[0].code, cards[1].code]))


@dataclass(frozen=True, slots=True)
class Hand:
    """One player's hand in a round.

    ``cards`` in the order received (None: hidden from this engine); ``decks`` the
    number of the deck each card came from (a dropout brings a fresh deck);
    ``reason`` says how the status came about (``"hold"``, ``"timeout"``, ``"21"``,
    ``"over_21"``, ``"claim"``, ``"disconnect"``, ``"persian"``, ``"unopened"``);
    ``dropped`` is True once the player left the table; ``shown`` once the hand was
    opened to everybody (phone mode).
    """

    seat: int
    cards: tuple[Card | None, ...] = ()
    decks: tuple[int, ...] = ()
    status: Status = Status.PLAYING
    reason: str = ""
    dropped: bool = False
    shown: bool = False

    @property
    def known(self) -> bool:
        """True when every card of the hand is known to this engine."""
        return None not in self.cards

    @property
    def total(self) -> int | None:
        """Oczko total, None when a card is hidden (a Persian 21 sums to 22)."""
        return total_of(self.cards)


@dataclass(frozen=True, slots=True)
class Round:
    """State of one round. ``hands[i]`` belongs to seat ``order[i]``.

    ``order`` is the dealing and turn order (the round's first seat first);
    ``me`` the seat of the phone running this engine (None: full information);
    ``deal_pos`` the next position in the deal (two passes over ``order``);
    ``turn`` the index in ``order`` of the player to act (PLAY only); ``seen`` the
    ``(deck, card)`` pairs known to be out of their deck (no card comes twice).
    """

    number: int
    tiebreak: bool
    order: tuple[int, ...]
    hands: tuple[Hand, ...]
    me: int | None = None
    phase: Phase = Phase.DEAL
    deal_pos: int = 0
    turn: int | None = None
    deck: int = 0
    seen: frozenset[tuple[int, Card]] = frozenset()
    winner: int | None = None
    end_reason: str = ""

    @classmethod
    def start(
        cls, number: int, tiebreak: bool, order: tuple[int, ...], me: int | None = None
    ) -> Round:
        """A new round, nothing dealt yet."""
        return cls(number, tiebreak, order, tuple(Hand(s) for s in order), me)

    @property
    def full(self) -> bool:
        """True when this engine sees every card (not a phone)."""
        return self.me is None

    def hand(self, seat: int) -> Hand:
        """The hand of ``seat`` (IllegalAction ``not_in_round`` if he does not play)."""
        try:
            return self.hands[self.order.index(seat)]
        except ValueError:
            raise IllegalAction(
                "not_in_round", f"seat {seat} does not play round {self.number}", seat=seat
            ) from None

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is, or None outside PLAY."""
        return None if self.turn is None else self.order[self.turn]

    @property
    def to_deal(self) -> int | None:
        """The seat the next card of the deal goes to, or None outside DEAL."""
        pos = _next_deal_pos(self, self.deal_pos)
        return None if pos is None else self.order[pos % len(self.order)]

    @property
    def to_reveal(self) -> tuple[int, ...]:
        """Seats whose hands the showdown waits for (SHOWDOWN only)."""
        if self.phase is not Phase.SHOWDOWN:
            return ()
        return tuple(h.seat for h in self.hands if _must_reveal(h))

    def claim_due(self, seat: int) -> str | None:
        """What the phone of ``seat`` must announce now from its own cards, if anything.

        ``"persian"`` (reveal two aces while the deal is checked), ``"bust"`` (over 21 on
        his turn), ``"hold"`` (21 on his turn), or None. Only the phone that sees the
        cards can tell; in full information nothing is ever due.
        """
        if self.full or seat != self.me or seat not in self.order:
            return None
        h = self.hand(seat)
        if self.phase is Phase.DEAL_CHECK and h.status is Status.PLAYING and _persian(h.cards):
            return "persian"
        if self.phase is Phase.PLAY and self.to_act == seat and h.total is not None:
            if h.total > 21:
                return "bust"
            if h.total == 21:
                return "hold"
        return None


# --- helpers ---------------------------------------------------------------------------------


def _with_hand(r: Round, hand: Hand, **changes: object) -> Round:
    i = r.order.index(hand.seat)
    hands = (*r.hands[:i], replace(hand, **changes), *r.hands[i + 1 :])  # type: ignore[arg-type]
    return replace(r, hands=hands)


def _next_deal_pos(r: Round, pos: int) -> int | None:
    if r.phase is not Phase.DEAL:
        return None
    n = len(r.order)
    while pos < 2 * n:
        if not r.hands[pos % n].dropped:
            return pos
        pos += 1
    return None


def _check_card(r: Round, seat: int, card: object) -> None:
    """A card for ``seat``: known in full information and to its owner, else hidden."""
    if card is not None and not isinstance(card, Card):
        raise IllegalAction("bad_card", f"not a card: {card!r}")
    if (card is None) == (r.full or seat == r.me):
        hidden = "must be known" if card is None else "is hidden on this phone"
        raise IllegalAction("hidden_card", f"seat {seat}'s card {hidden}", seat=seat)
    if card is not None and (r.deck, card) in r.seen:
        raise IllegalAction(
            "duplicate_card", f"{card} was already dealt from this deck", card=str(card)
        )


def _require_phase(r: Round, *phases: Phase) -> None:
    if r.phase not in phases:
        raise IllegalAction(
            "wrong_phase",
            f"not allowed in the {r.phase} phase of round {r.number}",
            phase=str(r.phase),
        )


def _require_turn(r: Round, seat: int) -> Hand:
    h = r.hand(seat)
    _require_phase(r, Phase.PLAY)
    if h.status is not Status.PLAYING:
        raise IllegalAction(
            "already_decided",
            f"seat {seat} has already {h.status}",
            seat=seat,
            status=str(h.status),
        )
    if r.to_act != seat:
        raise IllegalAction("not_your_turn", f"it is not seat {seat}'s turn", seat=seat)
    return h


def _must_reveal(h: Hand) -> bool:
    # A dropped player's bust cards may be unopenable; every other hand is opened.
    return not h.shown and not (h.dropped and h.status is Status.BUST)


def _remaining(r: Round) -> list[Hand]:
    return [h for h in r.hands if not h.dropped]


# --- phase transitions -----------------------------------------------------------------------


def _end(r: Round, winner: int | None, reason: str) -> tuple[Round, Events]:
    return replace(r, phase=Phase.OVER, turn=None, winner=winner, end_reason=reason), ()


def _last_player(r: Round) -> tuple[Round, Events] | None:
    """When one player is left in the round it is decided at once."""
    left = _remaining(r)
    if len(left) > 1:
        return None
    winner = left[0].seat if left and left[0].status is not Status.BUST else None
    return _end(r, winner, "last_player")


def _decide_persians(r: Round) -> tuple[Round, Events]:
    persians = [h.seat for h in r.hands if h.status is Status.PERSIAN]
    if persians:
        return _end(r, persians[0] if len(persians) == 1 else None, "persian")
    return _advance(replace(r, phase=Phase.PLAY), -1)


def _after_deal(r: Round) -> tuple[Round, Events]:
    if not r.full:
        # Others' hands are hidden: a Persian 21 must be proven before anyone draws.
        return replace(r, phase=Phase.DEAL_CHECK), ()
    events: list[Event] = []
    for h in r.hands:
        if h.status is Status.PLAYING and _persian(h.cards):
            r = _with_hand(r, h, status=Status.PERSIAN, reason="persian")
            events.append(Persian21(r.number, h.seat))
    r, more = _decide_persians(r)
    return r, (*events, *more)


def _advance(r: Round, after: int) -> tuple[Round, Events]:
    """Give the turn to the next player still playing (full information: 21 holds)."""
    events: list[Event] = []
    for i in range(after + 1, len(r.order)):
        h = r.hands[i]
        if h.status is not Status.PLAYING:
            continue
        if r.full and h.total == 21:
            r = _with_hand(r, h, status=Status.HELD, reason="21")
            events.append(Held(r.number, h.seat, 21, "21"))
            continue
        r = replace(r, turn=i)
        events.append(TurnStarted(r.number, h.seat))
        return r, tuple(events)
    r, more = _showdown(replace(r, turn=None))
    return r, (*events, *more)


def _showdown(r: Round) -> tuple[Round, Events]:
    if not r.full and any(_must_reveal(h) for h in r.hands):
        return replace(r, phase=Phase.SHOWDOWN), ()
    return _score(r)


def _score(r: Round) -> tuple[Round, Events]:
    held = [(h.total, h.seat) for h in r.hands if h.status is Status.HELD]
    best = max((t for t, _ in held if t is not None), default=None)
    top = [s for t, s in held if t == best]
    return _end(r, top[0] if len(top) == 1 else None, "showdown")


def _after_dropout(r: Round, i: int) -> tuple[Round, Events]:
    if r.phase is Phase.SHOWDOWN:
        # Everybody is done: the results stand and only wait to be opened.
        return _showdown(r)
    done = _last_player(r)
    if done is not None:
        return done
    if r.phase is Phase.DEAL and _next_deal_pos(r, r.deal_pos) is None:
        return _after_deal(r)
    if r.phase is Phase.PLAY and r.turn == i:
        return _advance(r, i)
    return r, ()


# --- legality: the one check of each action (the card it carries aside) ---------------------


def check(r: Round, kind: ActionKind, seat: int | None = None) -> None:
    """Raise IllegalAction unless ``kind`` (by or about ``seat``) is allowed now, whatever
    card it carries. The actions below run it first, and the match's ``legal_actions``
    lists exactly the kinds it lets through."""
    K = ActionKind
    if kind is K.DEAL:
        _require_phase(r, Phase.DEAL)
    elif kind is K.CLOSE_DEAL:
        _require_phase(r, Phase.DEAL_CHECK)
        if r.me is not None and r.claim_due(r.me) == "persian":
            raise IllegalAction("claim_due", "this phone has a Persian 21 to prove first")
    elif kind is K.NEW_DECK:
        _require_open(r)
    elif seat is None:
        raise IllegalAction("bad_action", f"{kind} needs a seat")
    elif kind in (K.DRAW, K.HOLD, K.TIMEOUT, K.BUST):
        h = _require_turn(r, seat)
        total = h.total
        if total is None:
            return
        if kind is K.DRAW and total >= 21:
            raise IllegalAction(
                "cannot_draw", f"seat {seat} is at {total} and cannot draw", seat=seat
            )
        if kind is K.HOLD and total > 21:
            raise IllegalAction("false_claim", f"seat {seat} is bust at {total}", seat=seat)
        if kind is K.BUST and total <= 21:
            raise IllegalAction(
                "false_claim", f"seat {seat} is not bust: his total is {total}", seat=seat
            )
    elif kind is K.DISCONNECT:
        _require_open(r)
        if r.hand(seat).dropped:
            raise IllegalAction("player_gone", f"seat {seat} has already left", seat=seat)
    elif kind is K.REVEAL:
        # Which cards open a hand is the reveal's own check against everything known
        # (reveal below). Before that: while the deal is checked only a hand still in
        # play may prove two aces, and a hand this engine knows only if it holds them.
        h = r.hand(seat)
        _require_phase(r, Phase.DEAL_CHECK, Phase.SHOWDOWN)
        if (
            r.phase is Phase.DEAL_CHECK
            and not h.shown  # opening again with the same cards is a no-op
            and (h.status is not Status.PLAYING or (h.known and not _persian(h.cards)))
        ):
            raise IllegalAction(
                "false_claim", f"seat {seat}: only two aces are shown at the deal", seat=seat
            )
    elif kind is K.FORFEIT:
        h = r.hand(seat)
        _require_phase(r, Phase.SHOWDOWN)
        if not _must_reveal(h):
            raise IllegalAction(
                "nothing_to_reveal", f"seat {seat}'s hand is not awaited", seat=seat
            )
    else:
        raise IllegalAction("bad_action", f"{kind} is not an action of a round")


def _require_open(r: Round) -> None:
    if r.phase is Phase.OVER:
        raise IllegalAction("wrong_phase", f"round {r.number} is over", phase=str(r.phase))


# --- actions ---------------------------------------------------------------------------------


def deal(r: Round, card: Card | None) -> tuple[Round, Events]:
    """The next card of the deal (to :attr:`Round.to_deal`); None when it is hidden here."""
    check(r, ActionKind.DEAL)
    pos = _next_deal_pos(r, r.deal_pos)
    assert pos is not None  # DEAL always has a next position (else the deal is over)
    h = r.hands[pos % len(r.order)]
    _check_card(r, h.seat, card)
    r = _with_hand(r, h, cards=(*h.cards, card), decks=(*h.decks, r.deck))
    if card is not None:
        r = replace(r, seen=r.seen | {(r.deck, card)})
    r = replace(r, deal_pos=pos + 1)
    events: Events = (CardDealt(r.number, h.seat, card),)
    if _next_deal_pos(r, r.deal_pos) is None:
        r, more = _after_deal(r)
        events += more
    return r, events


def close_deal(r: Round) -> tuple[Round, Events]:
    """Every Persian 21 proof is in (phone mode): decide them or start the turns."""
    check(r, ActionKind.CLOSE_DEAL)
    return _decide_persians(r)


def draw(r: Round, seat: int, card: Card | None) -> tuple[Round, Events]:
    """``seat`` draws ``card`` (None: hidden here). Full information: over 21 busts and
    21 holds at once; on a phone the owner announces it (:meth:`Round.claim_due`)."""
    check(r, ActionKind.DRAW, seat)
    h = r.hand(seat)
    _check_card(r, seat, card)
    r = _with_hand(r, h, cards=(*h.cards, card), decks=(*h.decks, r.deck))
    if card is not None:
        r = replace(r, seen=r.seen | {(r.deck, card)})
    h = r.hand(seat)
    total = h.total
    events: Events = (CardDrawn(r.number, seat, card, total),)
    if not r.full or total is None or total < 21:
        return r, events
    if total > 21:
        r = _with_hand(r, h, status=Status.BUST, reason="over_21")
        events += (Busted(r.number, seat, total, "over_21"),)
    else:
        r = _with_hand(r, h, status=Status.HELD, reason="21")
        events += (Held(r.number, seat, 21, "21"),)
    r, more = _advance(r, r.order.index(seat))
    return r, events + more


def hold(r: Round, seat: int, reason: str = "hold") -> tuple[Round, Events]:
    """``seat`` holds; ``reason`` ``"timeout"`` when the table's timer ran out.

    A phone refuses its own hold over 21 (it must announce the bust); a timeout is the
    table's and is always taken (a hand held over 21 counts as bust at the showdown).
    """
    check(r, ActionKind.TIMEOUT if reason == "timeout" else ActionKind.HOLD, seat)
    h = r.hand(seat)
    r = _with_hand(r, h, status=Status.HELD, reason=reason)
    r, more = _advance(r, r.order.index(seat))
    return r, (Held(r.number, seat, h.total, reason), *more)


def claim_bust(r: Round, seat: int) -> tuple[Round, Events]:
    """``seat`` announces he went over 21 (verified by his own phone, and at the showdown)."""
    check(r, ActionKind.BUST, seat)
    h = r.hand(seat)
    r = _with_hand(r, h, status=Status.BUST, reason="claim")
    r, more = _advance(r, r.order.index(seat))
    return r, (Busted(r.number, seat, h.total, "claim"), *more)


def disconnect(r: Round, seat: int) -> tuple[Round, Events]:
    """``seat`` left: bust for this round unless his result was already decided."""
    check(r, ActionKind.DISCONNECT, seat)
    h = r.hand(seat)
    events: list[Event] = [Disconnected(r.number, seat)]
    if h.status is Status.PLAYING:
        r = _with_hand(r, h, status=Status.BUST, reason="disconnect", dropped=True)
        events.append(Busted(r.number, seat, None, "disconnect"))
    else:
        r = _with_hand(r, h, dropped=True)
    r, more = _after_dropout(r, r.order.index(seat))
    return r, (*events, *more)


def new_deck(r: Round) -> tuple[Round, Events]:
    """A fresh deck from here on (after a dropout); cards may repeat those of the old deck."""
    check(r, ActionKind.NEW_DECK)
    r = replace(r, deck=r.deck + 1)
    return r, (DeckReplaced(r.number, r.deck),)


def _check_history(h: Hand, cards: tuple[Card, ...]) -> None:
    """An opened hand must be one the rules could have produced with the claims made."""
    codes = [c.code for c in cards]
    seat = h.seat
    for i in range(2, len(codes)):
        if handeval.oczko_total(codes[:i]) >= 21:
            raise IllegalAction("inconsistent_hand", f"seat {seat} drew at 21 or over", seat=seat)
    if handeval.is_persian(codes[:2]):
        raise IllegalAction("inconsistent_hand", f"seat {seat} concealed a Persian 21", seat=seat)
    total = handeval.oczko_total(codes)
    if h.status is Status.HELD and h.reason != "timeout" and total > 21:
        raise IllegalAction("false_claim", f"seat {seat} held at {total}", seat=seat)
    if h.status is Status.BUST and h.reason == "claim" and total <= 21:
        raise IllegalAction("false_claim", f"seat {seat} claimed bust at {total}", seat=seat)


def _check_opening(r: Round, h: Hand, cards: tuple[Card, ...]) -> set[tuple[int, Card]]:
    """Opened cards agree with the known ones and repeat no card of their deck."""
    seat = h.seat
    if not all(isinstance(c, Card) for c in cards):
        raise IllegalAction("bad_card", f"seat {seat}: an opened card is not a card", seat=seat)
    if len(cards) != len(h.cards):
        raise IllegalAction(
            "false_claim", f"seat {seat} has {len(h.cards)} cards, not {len(cards)}", seat=seat
        )
    fresh: set[tuple[int, Card]] = set()
    for c, known, d in zip(cards, h.cards, h.decks, strict=True):
        if known is not None:
            if c != known:
                raise IllegalAction("false_claim", f"seat {seat} did not get {c}", seat=seat)
        elif (d, c) in r.seen or (d, c) in fresh:
            raise IllegalAction(
                "duplicate_card", f"{c} was already dealt from this deck", card=str(c)
            )
        else:
            fresh.add((d, c))
    return fresh


def reveal(r: Round, seat: int, cards: tuple[Card, ...]) -> tuple[Round, Events]:
    """Open ``seat``'s hand (phone mode): a Persian 21 proof while the deal is checked, or
    his whole hand at the showdown.

    The cards must match those known, repeat no card of their deck and agree with the
    claims made (a held hand not over 21, a claimed bust over 21, no draw at 21 or more,
    no concealed Persian 21). Opening a hand again with the same cards is a no-op.
    """
    check(r, ActionKind.REVEAL, seat)
    h = r.hand(seat)
    cards = tuple(cards)
    fresh = _check_opening(r, h, cards)
    if h.shown:
        return r, ()
    total = handeval.oczko_total([c.code for c in cards])
    if r.phase is Phase.DEAL_CHECK:
        if h.status is not Status.PLAYING or not _persian(cards):
            raise IllegalAction(
                "false_claim", f"seat {seat}: only two aces are shown at the deal", seat=seat
            )
        r = replace(r, seen=r.seen | fresh)
        r = _with_hand(r, h, cards=cards, shown=True, status=Status.PERSIAN, reason="persian")
        return r, (Revealed(r.number, seat, cards, total), Persian21(r.number, seat))
    _check_history(h, cards)
    changes: dict[str, object] = {"cards": cards, "shown": True}
    if h.status is Status.HELD and total > 21:  # held by a timeout while over 21
        changes |= {"status": Status.BUST, "reason": "over_21"}
    r = _with_hand(replace(r, seen=r.seen | fresh), h, **changes)
    r, more = _showdown(r)
    return r, (Revealed(r.number, seat, cards, total), *more)


def forfeit(r: Round, seat: int) -> tuple[Round, Events]:
    """``seat``'s hand cannot be opened at the showdown (e.g. a lost escrow): it counts
    as bust. The table decides when to give up waiting."""
    check(r, ActionKind.FORFEIT, seat)
    h = r.hand(seat)
    r = _with_hand(r, h, status=Status.BUST, reason="unopened")
    r, more = _showdown(r)
    return r, (Busted(r.number, seat, None, "unopened"), *more)
