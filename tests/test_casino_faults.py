"""Faults and cheats at a casino table, over real TCP links with the real host and
guests; in each test only the attacker's phone is modified. Each cheat is caught, the
right phone is named, nobody honest is blamed or dropped, and the honest phones agree."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from app.protocol.keys import DeterministicRng
from app.rules.table_rules import TableRules
from app.table.casino.book import Readmit
from app.table.casino.guest import CasinoGuest
from app.table.casino.host import CasinoHost
from app.table.casino.messages import (
    CAgree,
    CDeal,
    CIntent,
    CKey,
    CResume,
    money_wire,
    signed_bytes_of_key,
)
from app.table.casino.phone import CasinoPhone
from app.table.casino.snapshot import CasinoStage
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from app.table.messages import Message, ProtocolFrame
from tests.casino_net import GROUP, digests, join, open_table, run, settled, shoes

RULES = TableRules.preset("european", decks=1, penetration="1/2")


def named(side: Any, player: str) -> bool:
    return any(n.code == "cheat_named" and n.params.get("player") == player for n in side._notes)


def left(side: Any, player: str, reason: str) -> bool:
    return any(
        e.get("event") == "player_left" and e["player"] == player and e["reason"] == reason
        for e in side.phone.log
    )


def honest_agree(sides: list[Any], rnd: int) -> None:
    for s in sides:
        assert s.phone.fault is None, (s.me, s.phone.fault)
        assert not s.over, s.me
        assert not any(n.code == "cheat_named" and n.params.get("player") != "p2" for n in s._notes)
        assert s.phone.conservation() == s.phone.total
    ref = digests(sides[0])[:rnd]
    assert all(digests(s)[:rnd] == ref for s in sides)


def sra(seat: int, players: int) -> SraShoe:
    return SraShoe(seat, players, group=GROUP, rng=DeterministicRng(seat))


@pytest.mark.parametrize("shoe", ["open", "sra"])
def test_a_phone_killed_mid_round_keeps_its_chips_and_its_hands_stand(shoe: str) -> None:
    """With the SRA shoe the shoes he shuffled die where they are: the round in play
    goes on from a fresh shoe shuffled among the others."""
    clock = FakeClock()
    factory = sra if shoe == "sra" else None
    host, guests = open_table(3, RULES, clock=clock, seed=11, factory=factory)
    victim = guests[1]  # p2
    sides = [host, *guests]
    run(sides, settled(sides, 2), clock)

    def his_hand_in_play() -> bool:
        r = host.phone.round
        return (
            host.phone.stage is CasinoStage.PLAYING
            and r is not None
            and any(h.stake_of("p2") for h in r.hands)
        )

    run(sides, his_hand_in_play, clock)
    victim.bot = None
    rnd = host.phone.round_no
    before = host.phone.players["p2"].chips
    victim.link.close(linger=0)  # killed: no goodbye
    victim.over = True
    rest = [host, guests[0]]
    run(rest, settled(rest, rnd + 2), clock)
    for s in rest:
        # (over TCP a killed app's socket closes like a goodbye: "left")
        assert left(s, "p2", "lost") or left(s, "p2", "left")
        p2 = s.phone.players["p2"]
        assert not p2.present
        # his chips are kept: what he had, plus what his hands of that round brought
        assert p2.chips == before + s.phone.records[rnd].net.get("p2", Fraction(0))
        assert "p2" not in s.phone.boxes.values()  # his box is free from the next round
        # the shoes he shuffled died at the cards opened; a fresh one without him followed
        dead = [r for r in s.phone.shoes if r.dead is not None]
        assert dead and any(r.order == (0, 1) for r in s.phone.shoes if r.shoe > dead[-1].shoe)
    honest_agree(rest, rnd + 2)


class ForgingGuest(CasinoGuest):
    """Sends a bet in the name of another player (signed with its own key)."""

    forged = False

    def _send_intent(self, intent: CIntent) -> None:
        if intent.act == "bet" and not self.forged and self.phone and self.phone.round_no >= 2:
            self.forged = True
            intent = replace(intent, player="p1")
        super()._send_intent(intent)


def test_a_bet_in_another_players_name_names_the_forger() -> None:
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=12, start=False)
    # (the guest class is the attacker's only change: re-join seat 2 as a forger)
    guests[1].leave()
    run([host, guests[0]], lambda: len(host.lobby.seating.sitters) == 2, clock)
    attacker = _join(host, ForgingGuest, 2, clock)
    sides = [host, guests[0], attacker]
    run(sides, lambda: len(host._keys) == 2 and host.lobby.seating.can_start(), clock)
    host.start()
    rest = [host, guests[0]]
    run(sides, lambda: attacker.forged and host.phone.round_no >= 4, clock)
    run(rest, settled(rest, host.phone.round_no), clock)
    for s in rest:
        assert left(s, "p2", "cheat")
    assert named(host, "p2")
    honest_agree(rest, host.phone.round_no - 1)


class LyingGuest(CasinoGuest):
    """Signs a digest of round 2 that is not the table's (a forged settlement)."""

    def send(self, link: Any, message: Message | ProtocolFrame) -> bool:
        if isinstance(message, CAgree) and message.round == 2 and self.phone is not None:
            fake = replace(message, digest="0" * 64)  # (on the log the host signed)
            sig = self.identity.sign(b"blu21/casino-agree", fake.signed_bytes(self.phone.table))
            message = replace(fake, sig=sig.hex())
        return super().send(link, message)


class CardClaimingGuest(CasinoGuest):
    """Sends a shoe frame 'opening' a card it does not hold."""

    def _after(self) -> None:
        super()._after()
        phone = self.phone
        if phone is not None and phone.round_no == 2 and not getattr(self, "claimed", False):
            self.claimed = True
            frame = b'{"k":"open","sh":1,"p":[40],"c":[0]}'
            super().send(self.link, ProtocolFrame(frame))


def _join(host: CasinoHost, cls: type[CasinoGuest], seat: int, clock: FakeClock) -> CasinoGuest:
    return join(host, cls, seat, clock, shoes(seat))


def _cheat_by_guest(cls: type[CasinoGuest], reason: str, seed: int) -> None:
    clock = FakeClock()
    host, guests = open_table(2, RULES, clock=clock, seed=seed, start=False)
    attacker = _join(host, cls, 2, clock)
    sides = [host, guests[0], attacker]
    run(sides, lambda: len(host._keys) == 2 and host.lobby.seating.can_start(), clock)
    host.start()
    rest = [host, guests[0]]
    run(sides, lambda: not host.phone.players["p2"].present, clock)
    run(rest, settled(rest, host.phone.round_no + 1), clock)
    for s in rest:
        assert left(s, "p2", reason), [e for e in s.phone.log if e.get("event") == "player_left"]
    assert named(host, "p2")
    honest_agree(rest, host.phone.round_no - 1)


def test_a_forged_settlement_names_the_liar() -> None:
    _cheat_by_guest(LyingGuest, "disagree", 13)


def test_a_card_the_guest_does_not_hold_names_him() -> None:
    _cheat_by_guest(CardClaimingGuest, "cheat", 14)


class AlteringHost(CasinoHost):
    """Relays a guest's bet with a doubled amount (the signature left as it was)."""

    altered = False

    def _announce(self, message: Any) -> None:
        if (
            isinstance(message, CIntent)
            and message.player == "p1"
            and message.act == "bet"
            and not self.altered
            and self.phone is not None
            and self.phone.round_no >= 2
        ):
            self.altered = True
            message = replace(message, amount=message.amount * 2)
            self.lobby.broadcast(message)  # to the guests only: its own phone stays honest
            return
        super()._announce(message)


def test_a_host_altering_a_relayed_bet_is_named_by_every_guest() -> None:
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=15, host_cls=AlteringHost)
    run([host, *guests], lambda: all(g.over for g in guests), clock)
    for g in guests:
        assert named(g, "p0"), [n.code for n in g._notes]
        assert not any(n.code == "cheat_named" and n.params.get("player") != "p0" for n in g._notes)
        v = [n for n in g.notices if n.code == "violation"]
        assert v and v[0].details["code"] == "forged_intent"


class EquivocatingHost(CasinoHost):
    """Tells guest p2 that a round's deal came before p1's bet (another log)."""

    done = False

    def _announce(self, message: Any) -> None:
        phone = self.phone
        if (
            not self.done
            and isinstance(message, CIntent)
            and message.act == "done"
            and phone is not None
            and phone.round_no == 3
            and message.player == "p1"
        ):
            self.done = True
            link = self.link_of(2)
            for peer in self.lobby._peers.values():
                if peer.link is not link:
                    self.lobby.send(peer.link, message)
            phone.receive(message)
            self._flush()
            return
        super()._announce(message)


def test_a_host_sending_two_logs_is_named_by_the_guests() -> None:
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=16, host_cls=EquivocatingHost)
    sides = [host, *guests]
    run(sides, lambda: host.done and any(g.over for g in guests), clock)
    caught = [g for g in guests if g.over]
    for g in caught:
        assert named(g, "p0")
        assert not any(n.code == "cheat_named" and n.params.get("player") != "p0" for n in g._notes)


def test_bad_input_from_a_guest_changes_nothing() -> None:
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=17)
    sides = [host, *guests]
    run(sides, settled(sides, 1), clock)
    phone: CasinoPhone = host.phone
    guests[0].link.send(b'\x01{"t":"c_intent","player":"p1","n":"x"}')
    run(sides, lambda: guests[0].closed, clock)
    assert left(host, "p1", "bad_message")  # only the link that sent it is dropped
    rest = [host, guests[1]]
    run(rest, settled(rest, phone.round_no + 1), clock)
    honest_agree(rest, phone.round_no)
    # and with nobody left to shuffle a shoe with, the table ends, every chip counted
    guests[1].leave()
    run([host], lambda: host.over, clock)
    assert phone.fault is None
    assert sum(phone.players_chips().values()) + phone.house == phone.total
    assert any(
        n.code == "table_over" and n.params["reason"] == "too_few_players" for n in host._notes
    )


def test_the_host_leaving_ends_the_table_everywhere_with_the_chips() -> None:
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=18)
    sides = [host, *guests]
    run(sides, settled(sides, 2), clock)
    run(sides, lambda: all(s.phone.stage is CasinoStage.BETTING for s in sides), clock)
    chips = host.phone.players_chips()
    host.leave()
    run(guests, lambda: all(g.over for g in guests), clock)
    for g in guests:
        snap = g.snapshot()
        assert snap.stage is CasinoStage.OVER
        assert any(
            n.code == "table_closed" and n.params["reason"] == "host_left" for n in snap.notices
        )
        assert g.phone.players_chips() == chips  # each player's chips as they were
        assert snap.chips == chips  # the abandoned round's bets are back with their players
        assert g.phone.fault is None


class UnsignedAtTwoGuest(CasinoGuest):
    """An honest phone that dies before its digest of round 2 went out (its CAgree is
    lost with it)."""

    def send(self, link: Any, message: Message | ProtocolFrame) -> bool:
        if isinstance(message, CAgree) and message.round == 2:
            return True
        return super().send(link, message)


class SlowReturnGuest(CasinoGuest):
    """A returning phone slow to set its shoe dealer up: its set-up frames go out 15 s
    of the table's clock after it has the table (a slow phone making its new keys),
    more than a decision's time (10 s), less than a set-up's."""

    _held_frames: list[ProtocolFrame] | None = None
    _until = 0.0

    def _resume(self, message: Any) -> None:
        self._held_frames, self._until = [], self.clock.now() + 15.0
        super()._resume(message)

    def send(self, link: Any, message: Message | ProtocolFrame) -> bool:
        held = self._held_frames
        if held is not None and isinstance(message, ProtocolFrame):
            if self.clock.now() < self._until:
                held.append(message)
                return True
            self._held_frames = None
            for frame in held:
                super().send(link, frame)
        return super().send(link, message)

    def step(self, wait: float = 0.0) -> None:
        held = self._held_frames
        if held and self.clock.now() >= self._until:
            self._held_frames = None
            for frame in held:
                super().send(self.link, frame)
        super().step(wait)


def _p2_dies(host: CasinoHost, guests: list[CasinoGuest], clock: FakeClock) -> list[Any]:
    """p2's phone (``guests[1]``) dies; the two left play one more round without him."""
    guests[1].link.close(linger=0)
    guests[1].over = True
    rest = [host, guests[0]]
    run(rest, lambda: not host.phone.players["p2"].present, clock)
    run(rest, settled(rest, host.phone.round_no + 1), clock)
    return rest


def _p2_back(host: CasinoHost, cls: type[CasinoGuest], clock: FakeClock, factory: Any) -> Any:
    """p2's phone joins (back: the same player, lobby id, on a new phone, with a fresh
    key and a fresh shoe dealer)."""
    return join(host, cls, 2, clock, factory)


def _comes_back(first_cls: type[CasinoGuest], back_cls: type[CasinoGuest] = CasinoGuest) -> None:
    """p2's phone (``first_cls``) dies after round 2; p2 comes back on a new phone a
    round later and plays on with his chips; nobody is dropped, named or out of step."""
    clock = FakeClock()
    factory = lambda seat, n: SraShoe(seat, n, group=GROUP, rng=DeterministicRng(seat))  # noqa: E731
    host, guests = open_table(2, RULES, clock=clock, factory=factory, start=False)
    guests.append(_p2_back(host, first_cls, clock, factory))  # (his first phone)
    sides = [host, *guests]
    run(sides, lambda: len(host._keys) == 2 and host.lobby.seating.can_start(), clock)
    host.start()
    run(sides, settled(sides, 2), clock)
    _p2_dies(host, guests, clock)
    chips = host.phone.players["p2"].chips
    back = _p2_back(host, back_cls, clock, factory)
    sides = [host, guests[0], back]
    run(sides, lambda: back.phone is not None and back.phone.players["p2"].present, clock)
    first = back.phone.round_no + 1
    assert back.phone.players["p2"].chips == chips  # his chips were kept
    run(sides, lambda: back.over or settled(sides, first + 2)(), clock)
    for s in sides:
        assert not s.over, (s.me, [n for n in s._notes if n.code != "intent_refused"])
    for s in sides:
        assert s.phone.fault is None, (s.me, s.phone.fault)
        assert s.phone.records[first + 1].digest == host.phone.records[first + 1].digest
        assert s.phone.conservation() == s.phone.total
        assert not any(n.code in ("cheat_named", "player_stalled") for n in s._notes), s.me
        assert not left(s, "p2", "stalled")
    assert all(left(s, "p2", "left") or left(s, "p2", "lost") for s in sides[:2])
    assert "p2" in host.phone.round.players() or host.phone.records[first + 1].net.get("p2")
    assert len(host.phone.agreed[first + 1]) == 2  # both guests' digests matched the host's


def test_a_player_who_left_comes_back_at_a_later_round_with_his_chips() -> None:
    _comes_back(CasinoGuest)


def test_a_digest_his_dead_phone_owed_is_not_asked_of_the_player_back() -> None:
    """His old phone died before its digest of round 2 went out: that debt died with it
    (forgotten as he left), so his new phone is not taken for withholding it."""
    _comes_back(UnsignedAtTwoGuest)


def test_a_returning_phone_slow_to_set_its_shoe_dealer_up_is_waited_for() -> None:
    """Each step of the shoe protocol has its own time: a set-up (new keys and proofs)
    two decisions' time; a returning phone that takes longer than one decision over it
    is not dropped as stalled."""
    _comes_back(CasinoGuest, SlowReturnGuest)


class ChipsLyingHost(CasinoHost):
    """Tells a returning phone its player has 100 chips more than he has (in the
    table it sends him, whose chips still add up; with ``body``, also in the last
    round's digest body)."""

    body = False

    def _readmit(self, effect: Readmit) -> None:
        phone = self.phone
        assert phone is not None
        begin = self._begin_now()
        players = tuple(
            replace(p, chips=p.chips + 100) if p.pid == effect.player else p for p in begin.players
        )
        state = {**phone.snapshot(), "first_shoe": effect.first_shoe}
        state["total"] = money_wire(phone.total + 100)  # (the table's chips add up)
        if self.body:
            proof = state["proof"]
            chips = {**proof["body"]["chips"], effect.player: money_wire(players[2].chips)}
            state["proof"] = {**proof, "body": {**proof["body"], "chips": chips}}
        link = self.link_of(phone.players[effect.player].seat)
        assert link is not None
        self.lobby.send(link, CResume(replace(begin, players=players), state))


@pytest.mark.parametrize("body", [False, True], ids=["table", "table_and_digest"])
def test_a_host_lying_about_a_returners_chips_is_named_by_him(body: bool) -> None:
    """A returning phone takes its player's chips only as the last round's digest has
    them, signed by every other player present: the host's lie is caught at once."""
    clock = FakeClock()
    host_cls = type("Liar", (ChipsLyingHost,), {"body": body})
    host, guests = open_table(3, RULES, clock=clock, factory=sra, host_cls=host_cls)
    run([host, *guests], settled([host, *guests], 2), clock)
    rest = _p2_dies(host, guests, clock)
    back = _p2_back(host, CasinoGuest, clock, sra)
    run([*rest, back], lambda: back.over, clock)
    assert named(back, "p0") and back.phone is None  # caught before it played a card
    v = [n for n in back.notices if n.code == "violation"]
    assert v and v[0].details["code"] == "forged_snapshot"
    assert not any(n.code == "cheat_named" for s in rest for n in s._notes)


class DiesOnReturnGuest(CasinoGuest):
    """A returning phone that dies as soon as it has the table again (its set-up part
    and its shuffle never come)."""

    def _resume(self, message: Any) -> None:
        super()._resume(message)
        self.link.close(linger=0)
        self.over = True


def test_a_shoe_whose_shuffler_left_before_it_started_is_never_started() -> None:
    """p2 comes back and his phone dies during the table's new set-up: the shoe the host
    announced among the three (not started yet: the set-up was not done) is void on
    every phone, a fresh one is shuffled between the two left, and they play on."""
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, factory=sra)
    run([host, *guests], settled([host, *guests], 2), clock)
    rest = _p2_dies(host, guests, clock)
    back = _p2_back(host, DiesOnReturnGuest, clock, sra)
    run([*rest, back], lambda: back.over, clock)

    def gone_twice() -> bool:
        return sum(e.get("event") == "player_left" for e in host.phone.log) == 2

    run(rest, gone_twice, clock)
    rnd = host.phone.round_no
    run(rest, settled(rest, rnd + 2), clock)
    for s in rest:
        assert s.phone.fault is None, (s.me, s.phone.fault)
    for s in rest:
        void = [r for r in s.phone.shoes if 2 in r.order][-1]  # announced on his return
        assert (void.dead, void.requested, void.cut) == (0, 0, None)  # never started
        later = [r for r in s.phone.shoes if r.shoe > void.shoe]
        assert later and all(r.order == (0, 1) for r in later)
        assert not left(s, "p2", "stalled")
    honest_agree(rest, rnd + 2)


class StallingGuest(CasinoGuest):
    """From round 3 on sends none of its shoe frames (its keys): the cards cannot open."""

    def send(self, link: Any, message: Message | ProtocolFrame) -> bool:
        if isinstance(message, ProtocolFrame) and self.phone and self.phone.round_no >= 3:
            return True
        return super().send(link, message)


def test_a_phone_holding_the_cards_up_is_removed_after_a_decisions_time() -> None:
    clock = FakeClock()
    factory = lambda seat, n: SraShoe(seat, n, group=GROUP, rng=DeterministicRng(seat))  # noqa: E731
    host, guests = open_table(2, RULES, clock=clock, factory=factory, start=False)
    attacker = join(host, StallingGuest, 2, clock, factory)
    sides = [host, guests[0], attacker]
    run(sides, lambda: len(host._keys) == 2 and host.lobby.seating.can_start(), clock)
    host.start()
    rest = [host, guests[0]]
    run(sides, lambda: not host.phone.players["p2"].present, clock)
    run(rest, settled(rest, host.phone.round_no + 1), clock)
    for s in rest:
        assert left(s, "p2", "stalled")
    assert any(n.code == "player_stalled" and n.params["player"] == "p2" for n in host._notes)
    honest_agree(rest, host.phone.round_no - 1)


class WithholdingHost(CasinoHost):
    """Does not pass p2's signed results on to p1 (p1 could compare them with its own)."""

    def on_game_message(self, seat: int, message: Message | ProtocolFrame) -> None:
        if isinstance(message, CAgree) and seat == 2 and self.phone is not None:
            self.phone.agree(message)
            link = self.link_of(2)
            for peer in self.lobby._peers.values():
                if peer.link is not link and peer.seat != 1:
                    self.lobby.send(peer.link, message)
            return
        super().on_game_message(seat, message)


def test_a_host_withholding_a_players_result_is_named() -> None:
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=19, host_cls=WithholdingHost)
    run([host, *guests], lambda: guests[0].over, clock)
    assert named(guests[0], "p0")
    v = [n for n in guests[0].notices if n.code == "violation"]
    assert v and v[0].details["code"] == "withheld_agreement"
    assert not named(guests[1], "p1") and not named(host, "p1")  # nobody honest blamed


class SilentDealerHost(CasinoHost):
    """From round 3 on sends none of its own shoe frames (its keys)."""

    def _flush(self) -> None:
        phone = self.phone
        if phone is not None and phone.round_no >= 3:
            phone.outbox = [m for m in phone.outbox if not isinstance(m, bytes)]
        super()._flush()


def test_a_host_holding_the_cards_up_ends_the_table_and_blames_nobody_honest() -> None:
    """A host withholding its own keys of the cards in play is named by the guests it
    starves before its watchdog could remove them as ``stalled`` (issue 30: its own
    key of a card every other phone gave its key for is waited for half a step); no
    honest phone names an honest player, every guest ends up off the table, naming the
    host if it was not removed first, and the table ends."""
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, factory=sra, host_cls=SilentDealerHost)
    run([host, *guests], lambda: all(g.over for g in guests) and host.over, clock)
    for g in guests:
        assert not any(n.code == "cheat_named" and n.params.get("player") != "p0" for n in g._notes)
        assert g.phone.fault is None or g.phone.fault.player == "p0"
    assert host.over


@pytest.mark.parametrize("shoe", ["open", "sra"])
def test_a_phone_paused_in_the_background_is_waited_for_not_dropped(shoe: str) -> None:
    """An Android app put in the background stops for a while (here 8 s of the table's
    clock, below the 10 s decision time): frames for it pile up unread and it sends
    nothing, its part of the shoe included. When it comes back the table goes on with
    it: nobody is dropped or named, every phone agrees and the chips are conserved."""
    clock = FakeClock()
    factory = sra if shoe == "sra" else None
    host, guests = open_table(3, RULES, clock=clock, seed=23, factory=factory)
    sides = [host, *guests]
    run(sides, settled(sides, 1), clock)
    run(sides, lambda: host.phone.stage is CasinoStage.PLAYING, clock)
    rest = [host, guests[0]]  # p2 (guests[1]) does not step: paused
    held = host.phone.round_no
    until = clock.now() + 8.0
    run(rest, lambda: clock.now() >= until, clock)
    assert host.phone.players["p2"].present
    assert held not in host.phone.records  # the round waited for p2's part of the cards
    target = host.phone.round_no + 2
    run(sides, settled(sides, target), clock)
    for s in sides:
        assert not left(s, "p2", "stalled") and not left(s, "p2", "gone")
        assert not any(n.code == "cheat_named" for n in s._notes), s.me
        assert s.phone.fault is None
        assert s.phone.conservation() == s.phone.total
    ref = digests(host)[:target]
    assert all(digests(s)[:target] == ref for s in sides)


class DiesAtTheDealGuest(CasinoGuest):
    """An honest phone that dies (battery, out of range) as round 2's deal comes: its
    keys for the deal's cards never go out, so the host's copy waits for a fresh shoe
    before it can deal, and his departure waits in its queue behind that deal."""

    def on_game_message(self, message: Message | ProtocolFrame) -> None:
        if isinstance(message, CDeal) and message.round == 2:
            self.link.close(linger=0)
            self.over = True
            return
        super().on_game_message(message)


def test_a_player_back_while_his_departure_waits_for_a_fresh_shoe_is_readmitted() -> None:
    """p2's phone dies at round 2's deal and he comes back at once, while the host's copy
    still has him at the table (his ``CLeft`` waits behind the deal's cards from the
    fresh shoe): his key is a return, not a cheat. He is readmitted with his chips,
    nobody is named or removed, and the table plays on in step."""
    clock = FakeClock()
    host, guests = open_table(2, RULES, clock=clock, factory=sra, start=False)
    guests.append(_p2_back(host, DiesAtTheDealGuest, clock, sra))  # (his first phone)
    sides = [host, *guests]
    run(sides, lambda: len(host._keys) == 2 and host.lobby.seating.can_start(), clock)
    host.start()
    run(sides, lambda: guests[1].over, clock)
    run([host], lambda: host.link_of(2) is None, clock)  # the host dropped his phone
    # (his departure is announced and waits in the host's copy behind the deal)
    assert host.phone.players["p2"].present and host.phone.waiting
    assert not any(e.get("event") == "player_left" for e in guests[0].phone.log)
    chips = host.phone.players["p2"].chips
    back = _p2_back(host, CasinoGuest, clock, sra)
    # (p1 waits meanwhile: the fresh shoe cannot be shuffled, his departure stays queued)
    run([host, back], lambda: back.over or bool(host.book.returning), clock)
    assert not back.over and [p for p, _ in host.book.returning] == ["p2"]
    assert host.phone.players["p2"].present and host.phone.leaving() == {"p2"}
    sides = [host, guests[0], back]
    run(sides, lambda: back.over or (back.phone is not None and "p2" in back.phone.present), clock)
    assert not back.over, [n for n in back.notices]
    first = back.phone.round_no + 1
    # his chips were kept (round 2 settled his bets in it, his hands standing)
    assert back.phone.players["p2"].chips == host.phone.players["p2"].chips
    assert host.phone.records[2].net.get("p2", 0) == host.phone.players["p2"].chips - chips
    run(sides, lambda: back.over or settled(sides, first + 1)(), clock)
    for s in sides:
        assert not s.over, (s.me, [n for n in s._notes if n.code != "intent_refused"])
        assert s.phone.fault is None, (s.me, s.phone.fault)
        assert not any(n.code in ("cheat_named", "player_stalled") for n in s._notes), s.me
        assert s.phone.records[first + 1].digest == host.phone.records[first + 1].digest
        assert s.phone.conservation() == s.phone.total
    for s in sides[:2]:  # he left once, as his first phone died; never for a bad message
        assert left(s, "p2", "left") or left(s, "p2", "lost")
        assert not left(s, "p2", "bad_message")


def test_a_new_key_for_a_player_still_at_the_table_is_refused() -> None:
    """A phone sending a new key mid-table for its seat, present and not leaving, is
    removed (``bad_message``); the table plays on without him."""
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, factory=sra)
    sides = [host, *guests]
    run(sides, settled(sides, 1), clock)
    cheat = guests[1]
    key = format(cheat.identity.sign_pub, "x")
    sig = cheat.identity.sign(b"blu21/casino-key", signed_bytes_of_key("", key))
    cheat.send(cheat.link, CKey(key, sig.hex()))
    rest = [host, guests[0]]
    run(rest, lambda: host.link_of(2) is None, clock)
    run(rest, settled(rest, host.phone.round_no + 1), clock)
    for s in rest:
        assert s.phone.fault is None and not s.over
        assert left(s, "p2", "bad_message")
        assert not any(n.code == "cheat_named" and n.params.get("player") != "p2" for n in s._notes)
