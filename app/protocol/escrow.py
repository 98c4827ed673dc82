"""A held hand escrowed for the showdown, should its owner drop out.

After a seat holds, it gives the seats that have *finished their turn* its card keys,
each record encrypted under their pairwise key (ESCROW); a holder checks its record on
arrival. At the showdown, if the owner is gone, each holder publishes its record key
(RELEASE) and everybody opens the owner's cards from the signed escrow and the keys
broadcast at the deal, while no seat still to act can read them before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.protocol import errors as E
from app.protocol.core import SeatCore
from app.protocol.deal import open_exponent
from app.protocol.errors import ProtocolUsageError, ProtocolViolation
from app.protocol.keys import keystream
from app.protocol.messages import Kind, Message
from app.protocol.transcript import Round


def _xor(data: bytes, key: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, keystream(key, len(data)), strict=True))


def escrow(core: SeatCore, rnd: Round, holders: Sequence[int]) -> list[Message]:
    """My card keys for each of ``holders`` under our pairwise key (one ESCROW)."""
    assert rnd.secret is not None
    mine = rnd.positions_of(core.seat)
    if not mine or any(p not in rnd.hand for p in mine):
        raise ProtocolUsageError("my cards are not open yet")
    plain = b"".join(
        bytes([p]) + rnd.secret.card_key_inv(p).to_bytes(core.group.byte_len, "big") for p in mine
    )
    holders = [h for h in holders if h != core.seat and h in rnd.order]
    if not holders:
        return []
    data = bytes([len(holders)])
    for h in holders:
        ct = _xor(plain, core.record_key(rnd.round_id, core.seat, h))
        data += bytes([h]) + len(ct).to_bytes(2, "big") + ct
    return [core.send(Kind.ESCROW, rnd.round_id, data=data)]


def release(core: SeatCore, rnd: Round, owner: int) -> list[Message]:
    """Publish the key of ``owner``'s escrow record I hold (sent in the latest round)."""
    if (owner, core.seat) not in rnd.escrows:
        return []
    key = core.record_key(rnd.round_id, owner, core.seat)
    apply_release(core, rnd, owner, core.seat, key)
    data = bytes([owner]) + rnd.round_id.to_bytes(8, "big") + key
    return [core.send(Kind.RELEASE, core.current, data=data)]


def held_hand(rnd: Round, owner: int) -> dict[int, int] | None:
    """A dropped seat's opened escrowed hand, position -> card code (None until opened)."""
    cards, positions = rnd.held.get(owner), rnd.released.get(owner)
    if cards is None or positions is None:
        return None
    return dict(zip(positions, cards, strict=True))


def open_record(
    core: SeatCore, rnd: Round, owner: int, ct: bytes, key: bytes
) -> tuple[list[int], list[int]] | None:
    """Decrypt one escrow record: (positions, keys), or None if it is not the owner's."""
    plain = _xor(ct, key)
    step = 1 + core.group.byte_len
    recs = [plain[i : i + step] for i in range(0, len(plain), step)]
    positions = [r[0] for r in recs]
    keys = [int.from_bytes(r[1:], "big") for r in recs]
    if positions != rnd.positions_of(owner) or not all(core.group.is_exponent(k) for k in keys):
        return None
    return positions, keys


def _check_my_record(core: SeatCore, rnd: Round, owner: int, ct: bytes) -> None:
    """A holder checks its record on arrival (it may read it: it has finished).

    Without this an owner could escrow garbage and, once the honest holder released it,
    get the holder named for a record that does not open. A record that does not
    decrypt to keys opening the owner's cards names the owner here, and is not kept, so
    this holder never releases it.
    """
    key = core.record_key(rnd.round_id, owner, core.seat)
    opened = open_record(core, rnd, owner, ct, key)
    if opened is not None and all(rnd.keys_in(p, but=owner) for p in opened[0]):
        exps = [open_exponent(core, rnd, p, k) for p, k in zip(*opened, strict=True)]
        values = core.pow_many([rnd.final[p] for p in opened[0]], exps)
        if all(rnd.enc.card_of(v) is not None for v in values):
            return
    raise ProtocolViolation(owner, E.BAD_KEY, "my escrow record does not open")


def apply_release(core: SeatCore, rnd: Round, owner: int, holder: int, key: bytes) -> None:
    """Open ``owner``'s record held by ``holder`` with the released ``key``."""
    opened = open_record(core, rnd, owner, rnd.escrows[(owner, holder)], key)
    if opened is None:
        # honest holders check their record on arrival: a release that does not
        # decrypt to the owner's positions carries a wrong key
        raise ProtocolViolation(holder, E.BAD_KEY, "escrow record does not open")
    positions, keys = opened
    if owner in rnd.released:
        return
    for p, k in zip(positions, keys, strict=True):
        rnd.keys.setdefault(p, {})[owner] = k
    rnd.released[owner] = tuple(positions)


def open_early_releases(core: SeatCore, rnd: Round, owner: int | None) -> None:
    """Apply the releases kept back for ``owner`` (None: every owner)."""
    keep = []
    for entry in rnd.early_releases:
        if owner is not None and entry[0] != owner:
            keep.append(entry)
            continue
        try:
            apply_release(core, rnd, *entry)
        except ProtocolViolation as exc:
            core.accusations.append(exc)
    rnd.early_releases = keep


# ---------------------------------------------------------------- frames in


def on_escrow(core: SeatCore, rnd: Round, msg: Message) -> None:
    """An owner's escrow records (mine checked at once)."""
    data = msg.data
    recs: dict[int, bytes] = {}
    try:
        count, off = data[0], 1
        for _ in range(count):
            holder = data[off]
            size = int.from_bytes(data[off + 1 : off + 3], "big")
            recs[holder] = data[off + 3 : off + 3 + size]
            if len(recs[holder]) != size:
                raise IndexError
            off += 3 + size
    except IndexError:
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "escrow") from None
    if off != len(data):
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "escrow")
    if core.seat in recs:
        _check_my_record(core, rnd, msg.sender, recs[core.seat])
    for holder, ct in recs.items():
        rnd.escrows[(msg.sender, holder)] = ct


def on_release(core: SeatCore, rounds: Mapping[int, Round], msg: Message) -> None:
    """A holder's record key for a dropped owner's hand (of the round it names)."""
    if len(msg.data) != 41:
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "release")
    owner = msg.data[0]
    old = rounds.get(int.from_bytes(msg.data[1:9], "big"))
    if old is None or (owner, msg.sender) not in old.escrows:
        raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "no such escrow")
    if not old.suspended and owner not in core.dropped:
        # The owner has not dropped here (yet): opening its held hand now would show it
        # to a seat still to act. Kept until he drops here or the round is suspended.
        old.early_releases.append((owner, msg.sender, msg.data[9:]))
        return
    apply_release(core, old, owner, msg.sender, msg.data[9:])


def open_released(core: SeatCore, rnd: Round, owner: int) -> list[Message]:
    """Open a dropped seat's released hand (None: a deal key is missing)."""
    positions = rnd.released[owner]
    if not all(s in rnd.keys.get(p, {}) for p in positions for s in rnd.order):
        rnd.held[owner] = None
        return []
    exps = [open_exponent(core, rnd, p, rnd.keys[p][owner]) for p in positions]
    codes = [rnd.enc.card_of(v) for v in core.pow_many([rnd.final[p] for p in positions], exps)]
    rnd.held[owner] = None if None in codes else tuple(c for c in codes if c is not None)
    return []


def release_due(rnd: Round) -> int | None:
    """A released hand that can be opened now (its positions locked)."""
    pend = [o for o in rnd.released if o not in rnd.held]
    if pend and all(len(rnd.final) > p for p in rnd.released[pend[0]]):
        return pend[0]
    return None
