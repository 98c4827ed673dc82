"""A drawn card at the protocol level (issue 17): opened first, its keys checked after.

A guest that draws opens its card with the key shares as they come and checks their
signatures afterwards, in one batch; a card that does not open is judged only on
signed shares, so a share the relay forged names the relay and never the seat it
claims to come from. Signatures of frames waiting together are checked in one batch;
signing nonces are drawn ahead, in idle time, each used once.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from protocol_tools import forged, tamper_with

from app.protocol import deal
from app.protocol import errors as E
from app.protocol.errors import ProtocolViolation
from app.protocol.group import unsafe_test_group
from app.protocol.harness import LocalTable
from app.protocol.keys import (
    NONCE_BATCH,
    NONCE_STOCK,
    DeterministicRng,
    Identity,
    verify,
    verify_many,
)
from app.protocol.messages import Kind, Message
from app.protocol.seat import RoundSpec, Seat
from app.protocol.transcript import Round

TOY = unsafe_test_group()
ORDER = (0, 1, 2, 3)
DEAL = [(j, ORDER[j % 4]) for j in range(8)]


def _dealt(relay=None, seat_factory=None, seed: int = 3) -> LocalTable:
    t = LocalTable(4, TOY, seed=seed, relay=relay, seat_factory=seat_factory)
    t.setup()
    t.start(RoundSpec(1, ORDER))
    t.reveal(DEAL, ORDER)
    assert all(-1 not in s.hand(1).values() for s in t.seats)
    return t


def test_the_drawer_opens_its_card_before_it_checks_the_shares_signatures(monkeypatch) -> None:
    t = _dealt()
    seen: list[tuple[int, int]] = []  # (seat, signatures still unchecked) at each opening
    batches: list[int] = []
    opener = deal.open_mine
    batch = type(t.seats[0].core).verify_batch

    def spy_open(core, rnd: Round, signed=None):
        seen.append((core.seat, len(rnd.deferred_sigs)))
        return opener(core, rnd, signed)

    def spy_batch(core, msgs):
        batches.append(len(msgs))
        return batch(core, msgs)

    monkeypatch.setattr(deal, "open_mine", spy_open)
    monkeypatch.setattr(type(t.seats[0].core), "verify_batch", spy_batch)
    t.reveal([(8, 2)], ORDER)  # seat 2 (a guest) draws
    assert 8 in t.seats[2].hand(1) and t.seats[2].hand(1)[8] >= 0
    # The guest opened it with the other three seats' shares still unchecked, and
    # checked them after, together; nothing is left unchecked and nobody is named.
    assert seen == [(2, 3)]
    assert 3 in batches
    assert not t.seats[2].round(1).deferred_sigs
    assert not any(t.errors.values()) and not any(s.accusations for s in t.seats)
    t.finish(ORDER)
    assert all(s.verdict(1).ok for s in t.seats)


def test_the_host_never_opens_on_unchecked_shares() -> None:
    """The relay checks every frame before relaying it: it defers nothing."""
    t = _dealt()
    t.reveal([(8, 0)], ORDER)
    assert t.seats[0].hand(1)[8] >= 0 and not t.seats[0].round(1).deferred_sigs
    assert not any(t.errors.values())


def _forge_share_to(drawer: int, sender: int, *, value: bool, sig: bool):
    """A relay that changes ``sender``'s share for the drawn card on its way to
    ``drawer``: its key (``value``) and/or its signature (``sig``); it cannot sign it."""
    done: list[Message] = []

    def relay(frame: bytes, frm: int, to: int) -> bytes | None:
        msg = Message.decode(frame, TOY)
        if frm == sender and to == drawer and msg.kind == Kind.KEYS and 8 in msg.data and not done:
            keys = list(msg.values)
            if value:
                keys[0] = keys[0] * 3 % TOY.q
            signature = bytes([msg.sig[0] ^ 1]) + msg.sig[1:] if sig else msg.sig
            alt = Message(
                msg.kind,
                msg.round_id,
                msg.sender,
                msg.seq,
                msg.start,
                tuple(keys),
                msg.data,
                signature,
            )
            done.append(alt)
            return alt.encode(TOY)
        return frame

    return relay, done


def test_a_share_the_relay_forged_to_the_drawer_names_the_relay_not_its_sender() -> None:
    relay, done = _forge_share_to(2, 1, value=True, sig=False)
    t = _dealt(relay)
    t.reveal([(8, 2)], ORDER)
    assert done
    drawer = t.seats[2]
    # The card did not open; before complaining the drawer checked the shares it had
    # not checked yet: the forgery is the relay's. No complaint went out (which would
    # have let the audit blame seat 1, whose signed share was right).
    assert drawer.hand(1)[8] == -1
    assert t.codes_by(2) == {(0, E.BAD_SIGNATURE)}
    assert not drawer.round(1).complaints
    assert not drawer.verdict(1).ok and drawer.verdict(1).cheaters == ((0, E.BAD_SIGNATURE),)
    for s in ORDER:
        assert 1 not in t.named_by(s)


def test_a_share_with_its_true_key_but_a_broken_signature_still_names_the_relay() -> None:
    relay, done = _forge_share_to(2, 3, value=False, sig=True)
    t = _dealt(relay)
    t.reveal([(8, 2)], ORDER)
    assert done
    # The card opened (its key was right), and the check after names the relay.
    assert t.seats[2].hand(1)[8] >= 0
    assert t.codes_by(2) == {(0, E.BAD_SIGNATURE)}
    assert 3 not in t.named_by(2)


def test_a_wrong_share_signed_by_its_sender_is_named_by_the_audit() -> None:
    """A guest's own wrong key for the drawn card (signed by him): the drawer's card
    does not open, its shares' signatures hold, so it complains and the audit finds
    the key against the sender's seed: he is named, by every seat."""

    def factory(s: int, c, r) -> Seat:
        seat = Seat(s, c, r)
        if s == 3:

            def wrong(rnd: Round, msg: Message):
                if msg.kind == Kind.KEYS and 8 in msg.data:
                    return [forged(seat, msg, values=(msg.values[0] * 3 % TOY.q,))]
                return None

            tamper_with(seat, wrong)
        return seat

    t = _dealt(seat_factory=factory)
    t.reveal([(8, 2)], ORDER)
    assert t.seats[2].hand(1)[8] == -1 and t.seats[2].round(1).complaints
    t.finish(ORDER)
    for s in (0, 1, 2):
        assert t.seats[s].verdict(1).cheaters == ((3, E.BAD_KEY),), s
        assert t.named_by(s) == {3}


def test_verify_many_answers_exactly_as_verify() -> None:
    rng = DeterministicRng(5)
    ids = [Identity.generate(TOY, rng) for _ in range(4)]
    ctx = b"table"
    items = []
    for k, me in enumerate(ids):
        msg = bytes([k]) * 10
        items.append((me.sign_pub, ctx, msg, me.sign(ctx, msg)))
    bad_sig = bytearray(items[1][3])
    bad_sig[-1] ^= 1
    items[1] = (*items[1][:3], bytes(bad_sig))
    items[2] = (ids[3].sign_pub, *items[2][1:])  # another seat's key
    items.append((ids[0].sign_pub, ctx, b"short", b"\0" * 5))  # not a signature at all
    expected = [verify(TOY, p, c, m, s, check_pub=False) for p, c, m, s in items]
    assert expected == [True, False, False, True, False]
    assert verify_many(TOY, items) == expected
    assert verify_many(TOY, []) == []


def test_a_batch_check_ahead_makes_authentication_free_and_judges_nothing() -> None:
    t = _dealt()
    host = t.seats[0]
    guest = t.seats[1]
    frames = [guest.core.send(Kind.KEYS, 1, values=(5,), data=b"") for _ in range(3)]
    broken = replace(frames[2], sig=bytes([frames[2].sig[0] ^ 1]) + frames[2].sig[1:])
    host.precheck([frames[0], frames[1], broken])
    cost = host.cost
    host.authenticate(frames[0], link=1)
    host.authenticate(frames[1], link=1)
    assert host.cost == cost  # (checked in the batch already)
    with pytest.raises(ProtocolViolation) as caught:
        host.authenticate(broken, link=1)
    assert (caught.value.seat, caught.value.code) == (1, E.BAD_SIGNATURE)
    assert host.cost > cost  # checked again, alone, where it is judged


def test_signing_nonces_are_drawn_ahead_in_idle_time_and_used_once() -> None:
    t = LocalTable(2, TOY, seed=9)
    t.setup()  # (idle afterwards: every seat refilled its stock)
    seat = t.seats[1]
    stream = seat.identity.nonces
    assert len(stream) == NONCE_STOCK and not seat.has_work()
    ready = [r for r, _ in stream._ready]
    sig = seat.identity.sign(b"ctx", b"m")
    assert verify(TOY, seat.identity.sign_pub, b"ctx", b"m", sig)
    assert len(stream) == NONCE_STOCK - 1 and ready[0] not in [r for r, _ in stream._ready]
    assert len(set(ready)) == len(ready)  # (no nonce twice)
    while not seat.has_work():  # refilled in idle time, a batch once one is used up
        seat.identity.sign(b"ctx", b"m")
    assert len(stream) == NONCE_STOCK - NONCE_BATCH
    seat.work()
    assert len(stream) == NONCE_STOCK
