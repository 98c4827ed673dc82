"""A shuffler who leaves a casino table while his shoe is in play (issue 30): the shoe
can never be audited (his seed left with him), so the rounds dealt from it are marked
``unaudited`` on every honest phone alike (not passed, and not failed with nobody to
blame), nobody honest is named or dropped, and the next round is dealt from a fresh
shoe among those present. A colluder who stacked the shoe and leaves before its audit
does not get his rounds marked passed. Real host and guests over TCP loopback; only the
attacker's phone is modified."""

from __future__ import annotations

from typing import Any

import pytest
from protocol_tools import forged, tamper_with

from app.history.model import UNAUDITED, audit_status
from app.protocol.keys import DeterministicRng
from app.protocol.messages import Kind, Message
from app.protocol.transcript import Round
from app.rules.table_rules import TableRules
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from app.table.dealer import DeckVerdict
from app.table.phone_copy import RoundEnd
from app.views.table.fairness import Audit, CasinoFairness, audit_text
from tests.casino_net import GROUP, digests, open_table, run

RULES = TableRules.preset("european", decks=1, penetration="1/2")


class Stacker(SraShoe):
    """The last shuffler puts the card of position 0 at position 1 too (under position
    1's card key, so no value repeats and the card opens as it is): a card twice in
    the shoe, which only the shoe's audit can catch (``tests/test_sra_shoe.py``'s
    ``LastDuplicates``, at the table)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tamper_with(self._seat, self.tamper)

    def tamper(self, rnd: Round, msg: Message) -> list[Message] | None:
        if not (msg.kind == Kind.SHUFFLE and msg.start == 0 and rnd.order[-1] == self.seat):
            return None
        assert rnd.secret is not None
        first = rnd.stages[-2][rnd.secret.permutation(rnd.size)[0]]
        twin = pow(first, rnd.secret.card_key(1), self._group.p)
        rnd.stages[-1][1] = twin
        return [forged(self._seat, msg, values=(msg.values[0], twin, *msg.values[2:]))]


def factory(cheater: int | None) -> Any:
    def make(seat: int, players: int) -> SraShoe:
        kind = Stacker if seat == cheater else SraShoe
        return kind(seat, players, group=GROUP, rng=DeterministicRng(seat))

    return make


def table(
    cheater: int | None, seed: int, n: int = 3
) -> tuple[FakeClock, Any, list[Any], dict[str, Any]]:
    """``n`` phones (the host p0, guests p1..) with an SRA shoe; each phone's
    round-end records, newest per round, in ``ends[pid]``."""
    clock = FakeClock()
    host, guests = open_table(n, RULES, clock=clock, seed=seed, factory=factory(cheater))
    ends: dict[str, dict[int, RoundEnd]] = {}
    for side in (host, *guests):
        seen = ends.setdefault(side.me, {})
        side.phone.on_round_end = lambda rec, seen=seen: seen.__setitem__(rec.number, rec)
    return clock, host, guests, ends


def leave_mid_shoe(clock: FakeClock, host: Any, guests: list[Any]) -> list[Any]:
    """Round 1 settles on every phone from shoe 1, which is still in play; then the
    last guest (the shoe's last shuffler) leaves. Returns the phones left."""
    sides = [host, *guests]
    run(sides, lambda: all(1 in s.phone.records for s in sides), clock)
    leaver = len(guests)
    for s in sides:  # (the shoe he shuffled is the one in play: not finished, not audited)
        shoe = s.phone.live_shoe()
        assert shoe is not None and shoe.shoe == 1 and shoe.order[-1] == leaver
        assert not shoe.finished and 1 not in s.phone.audits
    guests[-1].leave()
    return [host, *guests[:-1]]


def assert_unaudited_everywhere(rest: list[Any], ends: dict[str, Any]) -> None:
    """Shoe 1's rounds are unaudited on every phone left, nobody is named or dropped,
    and the table went on with a fresh shoe among those present."""
    for s in rest:
        phone = s.phone
        assert phone.fault is None, (s.me, phone.fault)
        assert not s.over
        assert not any(n.code in ("cheat_named", "table_fault") for n in s._notes), s._notes
        assert all(phone.players[o.me].present for o in rest)
        assert phone.audits[1] == DeckVerdict(False, (), unaudited=True)
        entry = next(e for e in phone.log if e.get("event") == "audit" and e.get("shoe") == 1)
        assert entry == {
            "event": "audit",
            "shoe": 1,
            "ok": False,
            "cheaters": [],
            "unaudited": True,
        }
        assert audit_status([entry], 1) == UNAUDITED  # what the history stores
        # what the screen shows: the newest audit (shoe 1, or the next shoe he had
        # shuffled in the background, dead with him before any card of it opened)
        shown = CasinoFairness().read(s, s.snapshot()).audit
        assert shown is not None and shown == Audit(False, (), shown.shoe, unaudited=True)
        assert phone.audits[shown.shoe] == DeckVerdict(False, (), unaudited=True)
        text = audit_text(shown)
        assert f"Shoe {shown.shoe} could not be audited" in text and "?" not in text
        from_shoe_1 = [r for r in ends[s.me].values() if 1 in r.units]
        assert from_shoe_1 and all(
            (r.audit, r.cheaters, r.unaudited) == (False, (), True) for r in from_shoe_1
        )
        # the next rounds are dealt from a fresh shoe without him
        orders = {r.shoe: r.order for r in phone.shoes}
        later = [r for n, r in ends[s.me].items() if n > 1 and r.units]
        present = tuple(sorted(o.phone.players[o.me].seat for o in rest))
        assert later and all(orders[u] == present for r in later for u in r.units)
    assert all(digests(o) == digests(rest[0]) for o in rest)


def round_after(rest: list[Any], rnd: int) -> Any:
    return lambda: all(rnd in s.phone.records and 1 in s.phone.audits for s in rest)


def test_a_shuffler_leaving_mid_shoe_leaves_its_rounds_unaudited_on_every_phone() -> None:
    """An honest leaver: nobody is named, the shoe's rounds stand, marked unaudited."""
    clock, host, guests, ends = table(None, seed=41)
    rest = leave_mid_shoe(clock, host, guests)
    run(rest, round_after(rest, 2), clock)
    assert_unaudited_everywhere(rest, ends)


@pytest.mark.parametrize("n", [3, 4])
def test_a_stacker_leaving_before_the_audit_gets_no_passed_rounds(n: int) -> None:
    """The last shuffler stacked shoe 1 (a card twice, caught only by the audit) and
    leaves before it runs: the rounds dealt from it are unaudited on every honest
    phone, never passed."""
    clock, host, guests, ends = table(n - 1, seed=43, n=n)
    rest = leave_mid_shoe(clock, host, guests)
    run(rest, round_after(rest, 2), clock)
    assert_unaudited_everywhere(rest, ends)
    for s in rest:
        assert not any(r.audit for r in ends[s.me].values() if 1 in r.units)


def test_a_stacker_who_stays_is_named_by_the_shoes_audit() -> None:
    """The same stacker staying: the audit of shoe 1 names him on every honest phone."""
    clock, host, guests, ends = table(2, seed=43)
    sides = [host, *guests]
    honest = [host, guests[0]]
    run(sides, lambda: all(1 in s.phone.audits or s.phone.fault for s in honest), clock)
    for s in honest:
        verdict = s.phone.audits.get(1)
        assert verdict is not None and not verdict.ok and verdict.cheaters == (2,)
        assert not verdict.unaudited
        assert all(
            r.audit is False and r.cheaters == (2,)
            for r in ends[s.me].values()
            if 1 in r.units and r.audit is not None
        )


def test_a_stacker_leaving_after_he_revealed_is_named_in_his_absence() -> None:
    """The stacker stays until shoe 1 is dealt out and leaves as soon as his seed went
    out, before the verdict: the audit runs with it on every honest phone and names
    him; nobody else is named, and no round of the shoe is marked passed."""
    clock, host, guests, ends = table(2, seed=43)
    sides = [host, *guests]
    stacker = guests[1]

    def revealed() -> bool:
        shoe = stacker.phone.dealer._for(1)
        return shoe._round(1) is not None and 2 in shoe._round(1).audits

    run(sides, revealed, clock)
    stacker.leave()
    honest = [host, guests[0]]
    run(honest, lambda: all(1 in s.phone.audits for s in honest), clock)
    for s in honest:
        assert s.phone.audits[1] == DeckVerdict(False, (2,))
        assert not any(
            n.code in ("cheat_named", "table_fault") and n.params.get("player") != "p2"
            for n in s._notes
        )
        assert not any(r.audit for r in ends[s.me].values() if 1 in r.units)
        assert "p2" in s.phone.named  # (out for the rest of the table)
