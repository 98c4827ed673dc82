"""Dealing and proving cards: dealt positions, card keys, opening, claims, complaints.

A deal names ``(position, drawer)`` pairs (a public event on every seat). Every seat
but the drawer broadcasts its card key for the position (KEYS) once it is locked; the
drawer opens its card with one exponentiation. A position dealt to
:data:`~app.protocol.transcript.PUBLIC` (a casino shoe's face-up card) gets every
seat's key, and every seat (followers too) opens it with one exponentiation. A card
that does not open is a complaint (COMPLAIN): the round is void and its audit names
the cheater. A claim (CLAIM) proves a seat's cards with its own keys; every other seat
opens them and counts the claim only once they open as claimed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.native.handeval import oczko_total
from app.protocol import errors as E
from app.protocol.core import SeatCore
from app.protocol.encoding import DECK_SIZE, pack_positions, unpack_positions
from app.protocol.errors import ProtocolUsageError, ProtocolViolation
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.transcript import PUBLIC, Claim, Pairs, Round

#: Positions a seat can draw privately: claims and escrow records carry one byte each.
PRIVATE_POSITIONS = 256


def reveal(core: SeatCore, rnd: Round, assignments: Sequence[tuple[int, int]]) -> list[Message]:
    """Deal ``(position, drawer)`` pairs (see :meth:`app.protocol.seat.Seat.reveal`)."""
    for pos, drawer in assignments:
        public = drawer == PUBLIC
        if not 0 <= pos < rnd.size or not (public or drawer in rnd.order):
            raise ProtocolUsageError("bad assignment")
        if not public and pos >= PRIVATE_POSITIONS:
            raise ProtocolUsageError("a private card lies in the first 256 positions")
        if pos in rnd.owner:
            raise ProtocolUsageError(f"position {pos} already dealt")
    for pos, drawer in assignments:
        rnd.owner[pos] = drawer
        rnd.keys.setdefault(pos, {})
    rnd.lock_target = max(rnd.lock_target, 1 + max(p for p, _ in assignments))
    if core.seat in rnd.order:
        mine = tuple(p for p, d in assignments if d != core.seat)
        if mine:
            rnd.pending_keys.append(mine)
    return []


def void_positions(rnd: Round, voided: Sequence[int]) -> None:
    """Take dealt positions back (a card on its way that can never open)."""
    gone = set(voided)
    if any(p not in rnd.owner for p in gone):
        raise ProtocolUsageError("only a dealt position can be voided")
    for pos in gone:
        del rnd.owner[pos]
        rnd.hand.pop(pos, None)
    rnd.pending_keys = [
        kept for batch in rnd.pending_keys if (kept := tuple(p for p in batch if p not in gone))
    ]


def claim(core: SeatCore, rnd: Round, kind: ClaimKind) -> list[Message]:
    """Prove my hand: PERSIAN (my first two cards are aces) or SHOWDOWN (all my cards)."""
    mine = rnd.positions_of(core.seat)
    if kind == ClaimKind.PERSIAN:
        mine = mine[:2]
    if not mine or any(p not in rnd.hand for p in mine):
        raise ProtocolUsageError("my cards are not open yet")
    codes = [rnd.hand[p] for p in mine]
    return [claim_message(core, rnd, kind, mine, codes, oczko_total(codes))]


def claim_message(
    core: SeatCore,
    rnd: Round,
    kind: ClaimKind,
    positions: Sequence[int],
    codes: Sequence[int],
    total: int,
) -> Message:
    """A signed CLAIM of ``codes`` at ``positions`` with my card keys for them."""
    assert rnd.secret is not None
    data = bytes([int(kind), total]) + b"".join(
        bytes([p, c]) for p, c in zip(positions, codes, strict=True)
    )
    keys = tuple(rnd.secret.card_key_inv(p) for p in positions)
    return core.send(Kind.CLAIM, rnd.round_id, values=keys, data=data)


# ---------------------------------------------------------------- frames in


def on_keys(core: SeatCore, rnd: Round, msg: Message) -> None:
    """A seat's card keys for dealt positions."""
    positions = unpack_positions(msg.data, rnd.size) or []
    if not positions or len(positions) != len(msg.values) or len(set(positions)) != len(positions):
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "keys")
    for pos, key in zip(positions, msg.values, strict=True):
        if pos >= rnd.size or msg.sender in rnd.keys.get(pos, {}):
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "key position")
        if not core.group.is_exponent(key):
            raise ProtocolViolation(msg.sender, E.NOT_EXPONENT, "key")
    for pos, key in zip(positions, msg.values, strict=True):
        rnd.keys.setdefault(pos, {})[msg.sender] = key


def on_claim(core: SeatCore, rnd: Round, msg: Message) -> None:
    """A seat's claim of its cards: its form checked now, its cards opened in the
    background (:func:`check_claim`)."""
    data = msg.data
    if len(data) < 4 or len(data) % 2 or len(msg.values) != (len(data) - 2) // 2:
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "claim")
    try:
        kind = ClaimKind(data[0])
    except ValueError:
        raise ProtocolViolation(msg.sender, E.BAD_FRAME, "claim kind") from None
    total = data[1]
    pairs = tuple((data[k], data[k + 1]) for k in range(2, len(data), 2))
    positions = [p for p, _ in pairs]
    codes = [c for _, c in pairs]
    if msg.sender in rnd.claims and rnd.claims[msg.sender].kind == kind:
        raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "second claim")
    if any(c >= DECK_SIZE for c in codes) or len(set(positions)) != len(positions):
        raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "claim values")
    if not all(core.group.is_exponent(k) for k in msg.values):
        raise ProtocolViolation(msg.sender, E.NOT_EXPONENT, "claim key")
    mine = rnd.positions_of(msg.sender)
    if kind == ClaimKind.PERSIAN:
        if positions != mine[:2] or len(positions) != 2 or any(c >= 4 for c in codes):
            raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "not a Persian 21")
    elif positions != mine:
        raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "not the claimer's cards")
    if total != oczko_total(codes):
        raise ProtocolViolation(msg.sender, E.FALSE_CLAIM, "false total")
    for pos, key in zip(positions, msg.values, strict=True):
        # Two signed keys for one position: one is false. Overwriting would let a claim
        # be checked with one key and the audit see another.
        if rnd.keys.get(pos, {}).get(msg.sender, key) != key:
            raise ProtocolViolation(msg.sender, E.BAD_KEY, "claim key differs from before")
    rnd.claims[msg.sender] = Claim(kind, total, pairs)
    for pos, key in zip(positions, msg.values, strict=True):
        rnd.keys.setdefault(pos, {})[msg.sender] = key
    rnd.claim_log.append((msg.sender, pairs))
    rnd.unchecked_claims.append((msg.sender, pairs))


def on_complain(core: SeatCore, rnd: Round, msg: Message) -> None:
    """A seat's card did not open (or a claim did not): the round is void."""
    positions = unpack_positions(msg.data, rnd.size) or []
    if len(positions) != 1:
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "complaint")
    if positions[0] >= len(rnd.final):
        # nobody can have failed to open a position that is not locked yet
        raise ProtocolViolation(msg.sender, E.FALSE_COMPLAINT, "position not locked")
    # A complaint voids the round: dealing stops here at once, but this seat reveals its
    # seed only after the complainer's own AUDIT (audit.reveal_due): a complaint must
    # not buy a seat everybody's cards while it keeps its own keys back.
    rnd.complaints.append((msg.sender, positions[0]))


# ---------------------------------------------------------------- background work


def keys_due(rnd: Round) -> bool:
    """My keys for the next dealt batch can go out (its positions are locked)."""
    return bool(rnd.pending_keys) and all(p < len(rnd.final) for p in rnd.pending_keys[0])


def send_keys(core: SeatCore, rnd: Round) -> list[Message]:
    """My card keys for the next dealt batch (positions dealt to the others)."""
    assert rnd.secret is not None
    positions = rnd.pending_keys.pop(0)
    keys = tuple(rnd.secret.card_key_inv(p) for p in positions)
    for p, k in zip(positions, keys, strict=True):
        rnd.keys.setdefault(p, {})[core.seat] = k  # verifying claims needs mine too
    data = pack_positions(positions, rnd.size)
    return [core.send(Kind.KEYS, rnd.round_id, values=keys, data=data)]


def openable(core: SeatCore, rnd: Round) -> list[int]:
    """My dealt positions not open yet whose every other key is in."""
    return [
        p
        for p in rnd.positions_of(core.seat)
        if p not in rnd.hand and rnd.keys_in(p, but=core.seat)
    ]


def open_exponent(core: SeatCore, rnd: Round, pos: int, owner_key: int) -> int:
    """The one exponent that opens locked position ``pos`` (all keys multiplied)."""
    keys = rnd.keys[pos]
    others = [keys[s] for s in rnd.order if s != rnd.owner[pos]]
    return core.group.prod_exp([*others, owner_key])


def _signed(signatures_ok: Callable[[], bool] | None) -> bool:
    return signatures_ok is None or signatures_ok()


def open_mine(
    core: SeatCore, rnd: Round, signatures_ok: Callable[[], bool] | None = None
) -> list[Message]:
    """Open my cards whose keys are all in; a card that does not open: a complaint.

    The keys' signatures may still be unchecked (a guest defers them: the card is open
    at once). A card that opens needs no signature to be right; one that does not is
    judged only on signed keys: ``signatures_ok`` checks the deferred ones first, and a
    forgery (named there: the relay) voids the round here instead of a complaint that
    would let the audit blame the seat the forged key claims to come from."""
    assert rnd.secret is not None
    positions = openable(core, rnd)
    exps = [open_exponent(core, rnd, p, rnd.secret.card_key_inv(p)) for p in positions]
    out: list[Message] = []
    opened = core.pow_many([rnd.final[p] for p in positions], exps)
    for pos, value in zip(positions, opened, strict=True):
        code = rnd.enc.card_of(value)
        if code is None:
            rnd.hand[pos] = -1
            if not _signed(signatures_ok):
                return out  # a forged key: the round is void here, the relay named
            # Somebody's key or lock is wrong: void the round, the audit names him.
            out.append(complain(core, rnd, pos))
        else:
            rnd.hand[pos] = code
    return out


def complain(core: SeatCore, rnd: Round, pos: int) -> Message:
    """Position ``pos`` did not open (or not as claimed): the round is void, and my seed
    goes out for its audit (not in a suspended round: it would open my own cards,
    still in play)."""
    rnd.complaints.append((core.seat, pos))
    rnd.audit_wanted = not rnd.suspended
    return core.send(Kind.COMPLAIN, rnd.round_id, data=pack_positions([pos], rnd.size))


def public_openable(rnd: Round) -> list[int]:
    """Public positions not open yet whose every key is in."""
    return [
        p
        for p, d in rnd.owner.items()
        if d == PUBLIC and p not in rnd.public and rnd.keys_in(p, but=PUBLIC)
    ]


def open_public(
    core: SeatCore, rnd: Round, signatures_ok: Callable[[], bool] | None = None
) -> list[Message]:
    """Open the public positions whose keys are all in (every seat, followers too).

    A position that does not open is a complaint by every seat of the order that sees
    it (a follower only records it: it sends nothing in a round it is not part of);
    deferred signatures are checked first, as in :func:`open_mine`.
    """
    positions = sorted(public_openable(rnd))
    exps = [core.group.prod_exp(rnd.keys[p][s] for s in rnd.order) for p in positions]
    out: list[Message] = []
    opened = core.pow_many([rnd.final[p] for p in positions], exps)
    for pos, value in zip(positions, opened, strict=True):
        code = rnd.enc.card_of(value)
        rnd.public[pos] = -1 if code is None else code
        if code is None and not _signed(signatures_ok):
            return out  # a forged key: the round is void here, the relay named
        if code is None and core.seat in rnd.order:
            out.append(complain(core, rnd, pos))
    return out


def checkable_claim(rnd: Round) -> tuple[int, Pairs] | None:
    """The first unchecked claim whose positions' keys are all in."""
    for claimer, pairs in rnd.unchecked_claims:
        if all(rnd.keys_in(p, but=claimer) for p, _ in pairs):
            return claimer, pairs
    return None


def check_claim(core: SeatCore, rnd: Round) -> list[Message]:
    """Open the claimed cards: true, they count (``proven``); false, a complaint."""
    entry = checkable_claim(rnd)
    assert entry is not None
    rnd.unchecked_claims.remove(entry)
    claimer, pairs = entry
    positions = [p for p, _ in pairs]
    exps = [open_exponent(core, rnd, p, rnd.keys[p][claimer]) for p in positions]
    opened = core.pow_many([rnd.final[p] for p in positions], exps)
    wrong = [p for v, (p, c) in zip(opened, pairs, strict=True) if rnd.enc.card_of(v) != c]
    if wrong:
        return [complain(core, rnd, wrong[0])]  # the transcript check decides who lied
    # (a showdown claim after a Persian one covers its cards too)
    merged = {**dict(rnd.proven.get(claimer, ())), **dict(pairs)}
    rnd.proven[claimer] = tuple(sorted(merged.items()))
    return []


def lacking_keys(rnd: Round) -> set[int]:
    """The seats whose key for a dealt position is not in yet."""
    return {
        s
        for pos, owner in rnd.owner.items()
        for s in rnd.order
        if s != owner and s not in rnd.keys.get(pos, {})
    }
