"""The shuffle and the locking pass of one round (see docs/protocol.md, "The shuffle").

Every seat in the order first commits to its round seed (COMMIT). The non-last
shufflers each encrypt the whole deck with their shuffle key and permute it (one
SHUFFLE pass, released whole); the last shuffler streams its output, each position
under its own card key; the locking pass then re-encrypts position by position
(LOCK), streamed in chunks up to the round's lock target. Incoming passes get cheap
checks at once (range, duplicates) and their subgroup tests in the background.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise

from app.protocol import errors as E
from app.protocol.core import SeatCore
from app.protocol.errors import ProtocolViolation
from app.protocol.messages import Kind, Message
from app.protocol.transcript import Round, seed_commitment

CHECKS_PER_STEP = 8
#: Cards one step of a shuffle pass encrypts (a quarter deck: 4 modexps per core).
ENCRYPT_PER_STEP = 13


def commit(core: SeatCore, rnd: Round) -> list[Message]:
    """Bind my permutation and keys before anybody's pass exists: a seat that could
    pick its seed after seeing its input could place cards it found."""
    if rnd.secret is None:
        return []
    rnd.commits[core.seat] = seed_commitment(rnd.secret.seed)
    return [core.send(Kind.COMMIT, rnd.round_id, data=rnd.commits[core.seat])]


def input_missing(rnd: Round, msg: Message) -> bool:
    """A SHUFFLE or LOCK frame whose input has not (all) been seen here."""
    if msg.sender not in rnd.order:
        return False
    i = rnd.order.index(msg.sender)
    if msg.kind == Kind.SHUFFLE:
        return (i > 0 and len(rnd.stages[i - 1]) < rnd.size) or len(rnd.commits) < rnd.n
    if msg.kind == Kind.LOCK and i < rnd.n - 1:
        inp = rnd.stages[-1] if i == 0 else rnd.locks[i - 1]
        return msg.start + len(msg.values) > len(inp)
    return False


def may_defer_signature(core: SeatCore, rnd: Round | None, msg: Message) -> bool:
    """Can this guest check the signature later, in the background?

    Only for shuffle and lock frames it does not exponentiate next (and not the final
    locks, which everybody opens), and for card keys: they are recorded at once (their
    order matters) but nothing this seat sends depends on them before the background
    check ran. A drawer opens its card with keys whose signatures are still to be
    checked (optimistic: the card is shown at once); a card that does not open is
    complained about only once they are checked, so a forged key names the relay, never
    the seat it claims to come from (:func:`app.protocol.deal.open_mine`). The host
    never defers: it checks every frame before relaying it.
    """
    if msg.round_id == 0 or core.is_host or msg.kind not in (Kind.SHUFFLE, Kind.LOCK, Kind.KEYS):
        return False
    if rnd is None or msg.sender not in rnd.order:
        return False
    if msg.kind == Kind.KEYS:
        return True
    reader = consumer(rnd, msg)
    return reader is not None and reader != core.seat


def consumer(rnd: Round, msg: Message) -> int | None:
    """The one seat that computes next on a SHUFFLE or LOCK frame of ``rnd`` (the
    others only check it, and audit it); None for the final locks, which every seat
    opens cards with, and for any other frame."""
    if msg.kind not in (Kind.SHUFFLE, Kind.LOCK) or msg.sender not in rnd.order:
        return None
    i, n = rnd.order.index(msg.sender), rnd.n
    if msg.kind == Kind.SHUFFLE:
        return rnd.order[i + 1] if i + 1 < n else rnd.order[0]  # (last: the first locker)
    return rnd.order[i + 1] if i < n - 2 else None


def check_elements(
    core: SeatCore, rnd: Round, sender: int, values: Sequence[int], seen: Iterable[int]
) -> None:
    """Duplicate checks at once; range and subgroup (Jacobi) tests in the background.

    The Jacobi tests need not delay the chain: every exponent an honest seat applies
    before releasing values is even (:func:`app.protocol.keys.even_exponent`), so a
    non-residue cannot leak its Legendre symbol through this seat. The tests run as
    background work (before the audit) and name the sender on this seat.
    """
    if not values:
        raise ProtocolViolation(sender, E.BAD_LENGTH, "no values")
    if len(set(values)) != len(values) or not set(seen).isdisjoint(values):
        raise ProtocolViolation(sender, E.DUPLICATE_VALUE, "duplicate card")
    p = core.group.p
    if not all(1 < v < p - 1 for v in values):  # cheap, and the kernels need it
        raise ProtocolViolation(sender, E.NOT_ELEMENT, "out of range")
    rnd.deferred_checks.append((sender, tuple(values)))


def run_deferred_checks(core: SeatCore, rnd: Round) -> list[Message]:
    """A few of the background subgroup tests (so urgent work waits little)."""
    sender, values = rnd.deferred_checks.pop(0)
    head, rest = values[:CHECKS_PER_STEP], values[CHECKS_PER_STEP:]
    if rest:
        rnd.deferred_checks.insert(0, (sender, rest))
    try:
        core.check_subgroup(sender, head)
    except ProtocolViolation as exc:
        core.accusations.append(exc)
        rnd.deferred_checks = [c for c in rnd.deferred_checks if c[0] != sender]
    return []


# ---------------------------------------------------------------- frames in


def on_commit(core: SeatCore, rnd: Round, msg: Message) -> None:
    """A seat's commitment to its round seed."""
    if len(msg.data) != 32 or msg.values or msg.sender in rnd.commits:
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "commitment")
    if rnd.stages[0]:
        # the first pass waits for every commitment: this one comes too late
        raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "commitment after the shuffle")
    rnd.commits[msg.sender] = msg.data


def _shuffle_shape(core: SeatCore, rnd: Round, msg: Message, blame: int) -> list[int]:
    """The checks of a (part of a) pass that need no value (``blame``: the seat that
    made the header); its stage."""
    i = rnd.order.index(msg.sender)
    if msg.sender in rnd.audits:
        # (its own AUDIT came first: the last shuffler's chunks sent before it were
        # still in flight when this seat revealed, which is no fault of anybody's)
        raise ProtocolViolation(blame, E.OUT_OF_ORDER, "shuffle after its audit")
    if (i > 0 and len(rnd.stages[i - 1]) < rnd.size) or len(rnd.commits) < rnd.n:
        # the sender must have had its input and every commitment: an in-order relay
        # lost them
        raise ProtocolViolation(
            core.blame_link(msg.sender), E.OUT_OF_ORDER, "shuffle before its input"
        )
    stage = rnd.stages[i]
    if msg.start != len(stage) or msg.start + msg.count > rnd.size or not msg.count:
        raise ProtocolViolation(blame, E.BAD_LENGTH, "shuffle range")
    return stage


def _shuffle_values(core: SeatCore, rnd: Round, msg: Message, seen: Sequence[int]) -> None:
    """The checks of a pass's values (the sender signed them)."""
    check_elements(core, rnd, msg.sender, msg.values, seen)
    i = rnd.order.index(msg.sender)
    prev = rnd.enc.values if i == 0 else rnd.stages[i - 1]
    if not set(prev).isdisjoint(msg.values):
        raise ProtocolViolation(msg.sender, E.BAD_SHUFFLE, "value passed through unencrypted")


def on_shuffle(core: SeatCore, rnd: Round, msg: Message) -> None:
    """A (part of a) shuffle pass."""
    stage = _shuffle_shape(core, rnd, msg, msg.sender)
    _shuffle_values(core, rnd, msg, stage)
    stage.extend(msg.values)


def _lock_shape(core: SeatCore, rnd: Round, msg: Message, blame: int) -> list[int]:
    """The checks of a chunk of a locking step that need no value; its output."""
    u = rnd.order.index(msg.sender)
    if u >= rnd.n - 1:
        raise ProtocolViolation(blame, E.WRONG_SENDER, "the last shuffler does not lock")
    inp = rnd.stages[-1] if u == 0 else rnd.locks[u - 1]
    out = rnd.locks[u]
    if msg.start != len(out) or not msg.count:
        raise ProtocolViolation(blame, E.BAD_LENGTH, "lock range")
    if msg.start + msg.count > len(inp):
        # the locker must have had its input: an in-order relay lost it
        raise ProtocolViolation(core.blame_link(msg.sender), E.OUT_OF_ORDER, "lock input")
    return out


def on_lock(core: SeatCore, rnd: Round, msg: Message) -> None:
    """A chunk of a locking step."""
    out = _lock_shape(core, rnd, msg, msg.sender)
    check_elements(core, rnd, msg.sender, msg.values, out)
    out.extend(msg.values)


#: What a withheld body's values are, until it comes (no group element is 0).
PLACEHOLDER = 0


def on_stub(core: SeatCore, rnd: Round, msg: Message) -> None:
    """The header of a pass or lock whose body the relay sends later (a guest that does
    not compute next on it): its place is kept with placeholders, so the frames after
    it are judged as if it were in. Only the relay makes stubs: whatever is wrong with
    one names the relay, never the seat it names as sender."""
    relay = core.blame_link(msg.sender)
    reader = consumer(rnd, msg)
    if core.is_host or reader is None or reader == core.seat:
        raise ProtocolViolation(relay, E.BAD_FRAME, "a stub of a frame this seat needs")
    shape = _shuffle_shape if msg.kind == Kind.SHUFFLE else _lock_shape
    shape(core, rnd, msg, relay).extend([PLACEHOLDER] * msg.count)
    rnd.withheld.append(msg)


def on_body(core: SeatCore, rnd: Round, msg: Message) -> None:
    """The body of the oldest stub (the relay sends them in order): its values are
    checked as a full frame's are, naming the sender, and take their place."""
    rnd.withheld.pop(0)
    if msg.kind == Kind.SHUFFLE:
        out = rnd.stages[rnd.order.index(msg.sender)]
    else:
        out = rnd.locks[rnd.order.index(msg.sender)]
    a, b = msg.start, msg.start + len(msg.values)
    others = out[:a] + out[b:]
    if msg.kind == Kind.SHUFFLE:
        _shuffle_values(core, rnd, msg, others)
    else:
        check_elements(core, rnd, msg.sender, msg.values, others)
    out[a:b] = msg.values


# ---------------------------------------------------------------- my passes


def encrypt_incoming(core: SeatCore, rnd: Round, inp: Sequence[int]) -> list[Message]:
    """Encrypt the part of my input that has come (my pass is released whole)."""
    assert rnd.secret is not None
    done = len(rnd.my_encrypted)
    # (a bounded step: urgent work of another round, a drawn card's key, waits little)
    batch = inp[done : done + ENCRYPT_PER_STEP]
    rnd.my_encrypted.extend(core.pow_batch(batch, rnd.secret.shuffle_key))
    return []


def release_shuffle(core: SeatCore, rnd: Round) -> list[Message]:
    """Permute my encrypted deck and send it (in ``spec.shuffle_parts`` frames)."""
    assert rnd.secret is not None
    size = rnd.size
    perm = rnd.secret.permutation(size)
    out = [rnd.my_encrypted[perm[j]] for j in range(size)]
    me = rnd.order.index(core.seat)
    if len(set(out)) != size:
        # x and -x in my input (an even key maps both to one value): name the sender
        sender = rnd.order[me - 1]
        rnd.frozen = True
        try:
            core.check_subgroup(sender, rnd.stages[me - 1])
            exc = ProtocolViolation(sender, E.DUPLICATE_VALUE, "x and -x")
        except ProtocolViolation as found:
            exc = found
        core.accusations.append(exc)
        return []
    rnd.shuffle_sent = True
    rnd.stages[me] = list(out)
    # Released as a whole, but in parts: the next shuffler encrypts part 1 while part 2
    # is still on the air (one signature per part: more parts, more bytes).
    parts = max(1, min(rnd.spec.shuffle_parts, size))
    bounds = [size * k // parts for k in range(parts + 1)]
    return [
        core.send(Kind.SHUFFLE, rnd.round_id, start=a, values=tuple(out[a:b]))
        for a, b in pairwise(bounds)
    ]


def last_pass(core: SeatCore, rnd: Round, start: int, end: int) -> list[int]:
    """The last shuffler's output at positions ``start..end``: ``input[perm[j]] ^ e_j``."""
    assert rnd.secret is not None
    perm = rnd.secret.permutation(rnd.size)
    inp = rnd.stages[-2]
    return core.pow_many(
        [inp[perm[j]] for j in range(start, end)],
        [rnd.secret.card_key(j) for j in range(start, end)],
    )


def last_shuffle_chunk(core: SeatCore, rnd: Round) -> list[Message]:
    """The last shuffler streams its output up to the lock target. Each position costs
    the same whatever ``perm[j]`` is, so streaming in position order leaks nothing."""
    stage = rnd.stages[-1]
    start = len(stage)
    vals = last_pass(core, rnd, start, min(rnd.lock_target, start + rnd.spec.chunk))
    stage.extend(vals)
    return [core.send(Kind.SHUFFLE, rnd.round_id, start=start, values=tuple(vals))]


def lock_chunk(core: SeatCore, rnd: Round, inp: Sequence[int]) -> list[Message]:
    """Lock the next chunk of my input."""
    assert rnd.secret is not None
    out = rnd.locks[rnd.order.index(core.seat)]
    start = len(out)
    end = min(len(inp), rnd.lock_target, start + rnd.spec.chunk)
    vals = core.pow_many(inp[start:end], [rnd.secret.lock_exponent(j) for j in range(start, end)])
    out.extend(vals)
    return [core.send(Kind.LOCK, rnd.round_id, start=start, values=tuple(vals))]


def progress(core: SeatCore, rnd: Round) -> float:
    """How far the shuffle and the locking of the positions due now have come, 0..1."""
    n, need = rnd.n, max(1, rnd.lock_target)
    me = rnd.order.index(core.seat) if core.seat in rnd.order else -1
    done = total = 0
    for i, stage in enumerate(rnd.stages):
        size = rnd.size if i < n - 1 else need
        have = len(rnd.my_encrypted) if i == me and i < n - 1 and not stage else len(stage)
        done, total = done + min(have, size), total + size
    for lock in rnd.locks:
        done, total = done + min(len(lock), need), total + need
    return done / total


def lacking(rnd: Round, upto: int = 0) -> set[int]:
    """Whose commitment, pass or lock the dealt positions (and the first ``upto``)
    still wait for (empty: none)."""
    need = max(upto, 1 + max(rnd.owner, default=-1))
    if need <= 0:
        return set()
    uncommitted = {s for s in rnd.order if s not in rnd.commits}
    if uncommitted and len(rnd.stages[0]) < rnd.size:
        return uncommitted
    for i, s in enumerate(rnd.order):
        if len(rnd.stages[i]) < (rnd.size if i < rnd.n - 1 else need):
            return {s}
    for u, s in enumerate(rnd.order[:-1]):
        if len(rnd.locks[u]) < need:
            return {s}
    return set()
