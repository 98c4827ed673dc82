"""A casino host sending one guest another settlement log (issue 30), over real TCP
links with the real guests; only the host's phone is modified (the liar guest's, in the
last test). Every phone checks the host's signed digest of each round against its own
log, and a guest's signed digest carries the host's signed digest he got: so a host
that vouches for another log to one guest is named by every phone, a victim is never
taken for a cheater, and a guest that lies about the round is still named by all."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import pytest

from app.table.casino.digests import AGREE_CONTEXT, digest_of
from app.table.casino.messages import CAgree, CIntent
from app.table.casino.phone import HOST
from app.table.clock import FakeClock
from app.table.errors import TableError
from app.table.messages import ProtocolFrame, decode, encode
from tests.casino_net import open_table, run, settled
from tests.test_casino_faults import RULES, EquivocatingHost, LyingGuest, _join, left, named


def host_named(side: Any) -> set[str]:
    """The codes for which ``side``'s phone named the host."""
    return {n.details["code"] for n in side.notices if n.code == "violation"}


def honest_screen(side: Any, victim: str = "p2") -> None:
    """Nobody but the host named, the victim never shown as a cheater nor as removed
    for ``disagree``."""
    assert not any(
        n.code == "cheat_named" and n.params.get("player") != HOST for n in side._notes
    ), [n for n in side._notes if n.code == "cheat_named"]
    assert victim not in side.phone.named
    assert not left(side, victim, "disagree")
    assert not any(
        n.code == "player_left" and n.params.get("reason") == "disagree" for n in side._notes
    )


class VouchingEquivocator(EquivocatingHost):
    """Hides p1's "my bets are in" of round 3 from p2 (as :class:`EquivocatingHost`) and
    then vouches for the log it sent p2: its signed digest of each round, to p2 only, is
    that of p2's log (so p2's phone agrees and plays on); p2's digest is relayed to the
    others without its own phone looking at it (that phone would catch its own lie)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.p2_chain: bytes | None = None  # p2's log chain once it differs from mine
        self.shadow: dict[str, str] = {}  # my log chain -> p2's at the same point
        self.vouched = 0

    def _announce(self, message: Any) -> None:
        # (kept before the message goes out: my phone may settle on it and sign at once)
        phone = self.phone
        assert phone is not None
        mine = hashlib.sha256(phone.chain + encode(message)).digest()
        hides = (
            not self.done
            and isinstance(message, CIntent)
            and message.act == "done"
            and phone.round_no == 3
            and message.player == "p1"
        )
        if hides:  # (EquivocatingHost hides it from p2: his chain stays where it was)
            self.p2_chain = phone.chain
        elif self.p2_chain is not None:
            self.p2_chain = hashlib.sha256(self.p2_chain + encode(message)).digest()
        if self.p2_chain is not None:
            self.shadow[mine.hex()] = self.p2_chain.hex()
        super()._announce(message)

    def _flush_outbox(self) -> None:
        phone = self.phone
        while phone is not None and phone.outbox:
            item = phone.outbox.pop(0)
            if isinstance(item, bytes):
                self.lobby.broadcast(ProtocolFrame(item))
                continue
            if not isinstance(item, CAgree):
                continue
            theirs = self.shadow.get(item.log, item.log)
            if theirs == item.log:
                self.lobby.broadcast(item)
                continue
            body = {**phone.records[item.round].body, "log": theirs}
            unsigned = CAgree(HOST, item.round, digest_of(body), log=theirs)
            sig = self.identity.sign(AGREE_CONTEXT, unsigned.signed_bytes(phone.table))
            forged = replace(unsigned, sig=sig.hex())
            self.vouched += 1
            victim = self.link_of(2)
            for peer in self.lobby._peers.values():
                self.lobby.send(peer.link, forged if peer.link is victim else item)

    def _relay_agree(self, seat: int, pid: str, message: CAgree) -> None:
        phone = self.phone
        assert phone is not None
        rec = phone.records.get(message.round)
        if pid == "p2" and rec is not None and message.log != rec.body["log"]:
            self.lobby.broadcast(message, skip=seat)
            return
        super()._relay_agree(seat, pid, message)


def test_a_host_vouching_for_another_log_to_one_guest_is_named_by_every_phone() -> None:
    """The victim's signed digest carries the host's signature on his log; the others
    hold the host's signature on theirs: two host-signed logs of one round. Every guest
    (the victim too) names the host ``two_logs``; nobody names the victim."""
    clock = FakeClock()
    host, guests = open_table(4, RULES, clock=clock, seed=16, host_cls=VouchingEquivocator)
    sides = [host, *guests]
    run(sides, lambda: all(g.over for g in guests), clock)
    assert host.done and host.vouched
    for g in guests:
        assert named(g, HOST), (g.me, [n.code for n in g._notes])
        assert host_named(g) == {"two_logs"}, (g.me, host_named(g))
        honest_screen(g)
        # no honest phone was dropped for anything: each left on its own, naming the host
        assert not any(e.get("event") == "player_left" for e in g.phone.log), g.me


class DisagreeClaimingHost(EquivocatingHost):
    """As :class:`EquivocatingHost`, and when its victim leaves, tells the others he was
    removed for ``disagree`` (without any signed digest of his to show)."""

    def on_gone(self, seat: int, reason: str) -> None:
        super().on_gone(seat, "disagree" if seat == 2 and self.done else reason)


def test_a_host_signing_one_log_for_all_gets_its_victim_blamed_by_nobody() -> None:
    """A host that sends p2 another log but signs its own for everybody: p2's phone
    sees the host's signed digest differ from its log, names the host and leaves
    without signing (an honest phone signs only on the log the host signed for it). The
    others see him leave, never as a cheater nor as ``disagree``, and play on."""
    clock = FakeClock()
    host, guests = open_table(4, RULES, clock=clock, seed=16, host_cls=EquivocatingHost)
    victim, rest = guests[1], [guests[0], guests[2]]
    sides = [host, *guests]
    run(sides, lambda: host.done and victim.over, clock)
    assert named(victim, HOST) and host_named(victim) == {"disagree"}
    honest = [host, *rest]
    rnd = host.phone.round_no + 2
    run(honest, settled(honest, rnd), clock)
    for g in rest:
        assert not g.over and g.phone.fault is None, (g.me, g.phone.fault)
        honest_screen(g)
        assert left(g, "p2", "left") or left(g, "p2", "lost")
        assert all(g.phone.players[p].present for p in ("p0", "p1", "p3"))


def test_a_disagree_removal_without_the_guests_signed_digest_names_the_host() -> None:
    """The host's word that a guest disagreed is no evidence: without his differing
    signed digest relayed, every other phone names the host (``bad_left``), and
    nobody shows the victim as a cheater."""
    clock = FakeClock()
    host, guests = open_table(4, RULES, clock=clock, seed=16, host_cls=DisagreeClaimingHost)
    victim, rest = guests[1], [guests[0], guests[2]]
    run([host, *guests], lambda: host.done and victim.over and all(g.over for g in rest), clock)
    for g in rest:
        assert named(g, HOST) and host_named(g) == {"bad_left"}, (g.me, host_named(g))
        honest_screen(g)
    honest_screen(victim)


def test_a_guest_signing_a_false_digest_is_named_on_every_phone() -> None:
    """A guest that signs a digest of round 2 that is not the table's, on the log the
    host signed for him: the host relays it, then removes him; every phone holds his
    signed lie and names him (``disagree``), nobody names the host, the table goes on."""
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=13, start=False)
    liar = _join(host, LyingGuest, 3, clock)
    sides = [host, *guests, liar]
    run(sides, lambda: len(host._keys) == 3 and host.lobby.seating.can_start(), clock)
    host.start()
    honest = [host, *guests]
    run(sides, lambda: not host.phone.players["p3"].present, clock)
    run(honest, settled(honest, host.phone.round_no + 1), clock)
    for s in honest:
        assert not s.over and s.phone.fault is None, (s.me, s.phone.fault)
        assert left(s, "p3", "disagree")
        assert named(s, "p3") and "p3" in s.phone.named and "p3" in s.phone.liars
        assert not named(s, HOST)


def test_a_round_digest_with_its_log_and_the_hosts_signature_is_bounded_on_decode() -> None:
    """The new fields travel intact and are bounded like the others: a log or host
    digest is 64 hex digits, the host's signature a signature's length (``bad_message``
    otherwise: the link that sent it is dropped)."""
    agree = CAgree("p2", 4, "0f" * 32, "ab" * 20, log="1e" * 32, hdigest="0f" * 32, hsig="cd" * 20)
    assert decode(encode(agree)) == agree
    for field, value in (("log", "1e" * 33), ("hdigest", "0F" * 32), ("hsig", "cd" * 600)):
        with pytest.raises(TableError) as bad:
            decode(encode(replace(agree, **{field: value})))
        assert bad.value.code == "bad_message"
