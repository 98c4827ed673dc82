"""Cheating phones for the table-level attack tests and the malicious-phone harness.

Each class here is a modified :class:`~app.table.oczko.sra_deck.SraDealer` (the only thing a
cheater changes is his own phone): it lies about its cards, keeps back what it owes,
or sends frames an honest seat never would. They are built like an honest dealer
(``kind(seat, players, group=..., rng=...)``), so a test puts one at any seat.
"""

from __future__ import annotations

from typing import Any

from protocol_tools import claim_message, forged, send, tamper_with, withhold

from app.native.handeval import oczko_total
from app.protocol.encoding import DECK_SIZE
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.seat import Seat
from app.protocol.transcript import Round
from app.table.dealer import CLAIM_PERSIAN
from app.table.oczko.sra_deck import SraDealer

TWO = 4  # the card code of a two of spades (the smallest value in Oczko after the jack)
_LOW = (4, 5, 6, 7, 40, 41, 42, 43)  # the twos and the jacks (2 points each)
#: cards that make 21 by the number of cards claimed (As Ts; Ts 9s 2s; 9s 7s 3s 2s)
_TWENTY_ONE = {2: [0, 36], 3: [36, 32, 4], 4: [32, 24, 8, 4]}


class Cheat(SraDealer):
    """A cheating dealer; ``cheated``: the decks in which it did (for the harness)."""

    label = "cheat"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cheated: set[int] = set()


def keep_seed(dealer: SraDealer) -> None:
    """From now on this seat never reveals its round seed (its AUDIT never goes out)."""
    seat = dealer._seat

    def withheld(rnd: Round, msg: Message) -> list[Message] | None:
        return withhold(seat, rnd, msg) if msg.kind == Kind.AUDIT else None

    tamper_with(seat, withheld)


def mine(dealer: SraDealer, deck: int) -> list[int]:
    """The positions of ``deck`` dealt to this seat, in order."""
    return dealer._seat.round(deck).positions_of(dealer.seat)


class FalsePersian(Cheat):
    """Claims a Persian 21 with two aces it does not hold, and keeps its seed."""

    fake = (0, 1)  # the ace of spades and the ace of hearts

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        keep_seed(self)

    def card(self, deck: int, position: int) -> int | None:
        real = super().card(deck, position)
        first = mine(self, deck)[:2]
        if real is not None and position in first:
            self.cheated.add(deck)
            return self.fake[first.index(position)]  # its phone believes it, and says so
        return real

    def claim(self, deck: int, kind: str) -> list[bytes]:
        if kind != CLAIM_PERSIAN:
            return super().claim(deck, kind)
        codes = list(self.fake)
        msg = claim_message(
            self._seat, deck, ClaimKind.PERSIAN, mine(self, deck)[:2], codes, oczko_total(codes)
        )
        self._proved.add(deck)
        return self._encode([msg])


class SilentPersian(FalsePersian):
    """Says it was dealt a Persian 21 and sends no proof at all."""

    def claim(self, deck: int, kind: str) -> list[bytes]:
        return [] if kind == CLAIM_PERSIAN else SraDealer.claim(self, deck, kind)


class FalseShowdown(Cheat):
    """Claims 21 at the showdown with cards it does not hold, and keeps its seed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        keep_seed(self)

    def claim(self, deck: int, kind: str) -> list[bytes]:
        if kind == CLAIM_PERSIAN:
            return super().claim(deck, kind)
        positions = mine(self, deck)
        self.cheated.add(deck)
        codes = _TWENTY_ONE.get(len(positions), [0, 36, *[4] * (len(positions) - 2)])
        msg = claim_message(
            self._seat, deck, ClaimKind.SHOWDOWN, positions, codes, oczko_total(codes)
        )
        self._proved.add(deck)
        return self._encode([msg])


class HiddenBust(Cheat):
    """Its phone sees a two (or a jack) in every card it draws: it says "open" when it is bust,
    draws on and holds; at the showdown its true cards are proven."""

    def card(self, deck: int, position: int) -> int | None:
        real = super().card(deck, position)
        held = mine(self, deck)
        if real is None or position not in held[2:]:
            return real
        first = {SraDealer.card(self, deck, p) for p in held[:2]}
        low = [c for c in _LOW if c not in first]
        drawn = held[2:].index(position)
        if drawn >= len(low):
            return real  # (out of low cards: from here on it sees the truth)
        self.cheated.add(deck)
        return low[drawn]

    def claimed(self, deck: int, seat: int) -> dict[int, int] | None:
        got = super().claimed(deck, seat)
        if seat != self.seat or got is None:
            return got
        return {p: self.card(deck, p) for p in got}  # (its own engine keeps believing)


def greedy_bot(phone: Any) -> str | None:
    """Draws on up to 19 (by what its own phone believes), then holds."""
    r = phone.match.round
    if r is None or r.to_act != phone.seat:
        return None
    total = r.hand(phone.seat).total
    return None if total is None else "draw" if total < 19 else "hold"


class FalseComplaint(Cheat):
    """Complains at the deal about one of its own cards (which opened fine) and keeps
    its seed (``reveal=True``: reveals it, and is judged by the audit)."""

    reveal = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.reveal:
            keep_seed(self)
        self._complained: set[int] = set()

    def work(self) -> list[bytes]:
        out = super().work()
        seat = self._seat
        for deck in seat.rounds():
            rnd = seat.round(deck)
            pos = [p for p in mine(self, deck) if p in rnd.hand]
            if pos and deck not in self._complained:
                self._complained.add(deck)
                self.cheated.add(deck)
                rnd.complaints.append((self.seat, pos[0]))
                rnd.audit_wanted = self.reveal
                out += self._encode([send(seat, Kind.COMPLAIN, deck, data=bytes([pos[0]]))])
        return out


class RevealingFalseComplaint(FalseComplaint):
    reveal = True


def _own_pass(seat: Seat, rnd: Round, msg: Message) -> bool:
    """``msg`` is ``seat``'s own (non-last) shuffle pass."""
    return msg.kind == Kind.SHUFFLE and msg.sender == seat.seat and rnd.order[-1] != seat.seat


def _repass(seat: Seat, rnd: Round, msg: Message) -> list[Message]:
    """``seat``'s pass sent again from its (changed) encrypted deck."""
    assert rnd.secret is not None
    perm = rnd.secret.permutation(DECK_SIZE)
    out = [rnd.my_encrypted[perm[j]] for j in range(DECK_SIZE)]
    rnd.stages[rnd.order.index(seat.seat)] = out
    # (a pass may go out in parts: each part carries its slice of the changed pass)
    return [forged(seat, msg, values=tuple(out[msg.start : msg.start + len(msg.values)]))]


class MinusX(Cheat):
    """In its shuffle pass it puts x and -x (p - x) side by side: the next shuffler's
    even key makes them one value (-x is outside the group). Honest in the decks before
    ``first_deck``."""

    first_deck = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        seat = self._seat

        def release(rnd: Round, msg: Message) -> list[Message] | None:
            if rnd.round_id < self.first_deck or not _own_pass(seat, rnd, msg):
                return None
            self.cheated.add(rnd.round_id)
            assert rnd.secret is not None
            perm = rnd.secret.permutation(DECK_SIZE)
            rnd.my_encrypted[perm[1]] = seat.group.p - rnd.my_encrypted[perm[0]]
            return _repass(seat, rnd, msg)

        tamper_with(seat, release)


def related_values(seat: Any, rnd: Any) -> None:
    """First shuffler's tag (finding 3): before its pass goes out, the encrypted
    encodings of four cards become powers of two aces' ciphertexts (ace of spades: ^2,
    ^3; ace of hearts: ^5, ^7). The powers survive every honest pass (all keys commute),
    so the last shuffler finds both aces in its input."""
    enc, p = rnd.my_encrypted, seat.group.p
    for ace, powers, victims in ((0, (2, 3), (44, 45)), (1, (5, 7), (46, 47))):
        for r, card in zip(powers, victims, strict=True):
            enc[card] = pow(enc[ace], r, p)


def find_tagged(values: list[int], p: int) -> dict[int, int]:
    """Last shuffler: input index of each tagged ace (0: the one with ^2 and ^3)."""
    present = set(values)
    found = {}
    for i, v in enumerate(values):
        if pow(v, 2, p) in present and pow(v, 3, p) in present:
            found[0] = i
        if pow(v, 5, p) in present and pow(v, 7, p) in present:
            found[1] = i
    return found


class Tagger(Cheat):
    """Colluder 1, first shuffler of ``deck``: tags two aces (see related_values)."""

    deck = 3

    def start_deck(self, deck: int, order: Any) -> list[bytes]:
        out = super().start_deck(deck, order)
        if deck == self.deck and order[0] == self.seat:
            seat = self._seat
            rnd = seat.round(deck)

            def release(r: Round, msg: Message) -> list[Message] | None:
                if r is not rnd or not _own_pass(seat, r, msg):
                    return None
                related_values(seat, r)
                return _repass(seat, r, msg)

            tamper_with(seat, release)
        return out


class Stacker(Cheat):
    """Colluder 2, last shuffler of ``deck``: finds the tagged aces in its input and
    places them at its partner's two deal positions (against its own permutation)."""

    deck = 3
    partner = 2

    def start_deck(self, deck: int, order: Any) -> list[bytes]:
        out = super().start_deck(deck, order)
        if deck == self.deck and order[-1] == self.seat:
            rnd = self._seat.round(deck)
            rnd.secret = _StackedSecret(rnd, self.partner, self._seat.group.p)
        return out


class _StackedSecret:
    """A round secret whose permutation is chosen after seeing the input."""

    def __init__(self, rnd: Any, partner: int, p: int) -> None:
        self._rnd, self._honest, self._partner, self._p = rnd, rnd.secret, partner, p
        self._perm: tuple[int, ...] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._honest, name)

    def permutation(self, n: int) -> tuple[int, ...]:
        if self._perm is None:
            inp = self._rnd.stages[-2]
            aces = find_tagged(list(inp), self._p)
            order = [s for s in self._rnd.order]
            players = len(order)
            # the deal: position k goes to the k-th player of the round's order (mod n)
            targets = [k for k in range(2 * players) if order[k % players] == self._partner]
            perm = list(self._honest.permutation(n))
            for ace, target in zip((0, 1), targets, strict=False):
                if ace in aces:
                    src = perm.index(aces[ace])
                    perm[src], perm[target] = perm[target], perm[src]
            self._perm = tuple(perm)
        return self._perm
