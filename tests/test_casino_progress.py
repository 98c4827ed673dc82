"""The casino table's progress line (app/table/progress.py, as Oczko's): while the
table waits for the shoe, every phone's snapshot says what runs, whose phone it waits
for and how far along the shoe's chain of phones that is, and the screen and the
terminal show it in words. Over real TCP links with the real host and guests and the
SRA shoe; only the slow phone is modified."""

from __future__ import annotations

from typing import Any

import pytest

from app.i18n import set_language
from app.protocol.keys import DeterministicRng
from app.rules.table_rules import TableRules
from app.table.casino.guest import CasinoGuest
from app.table.casino.snapshot import CasinoStage
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from app.table.messages import Message, ProtocolFrame
from app.table.progress import progress_text
from app.terminal.casino import _Printer
from app.views.casino.vm import status_line
from tests.casino_net import GROUP, join, open_table, run

RULES = TableRules.preset("european", decks=1, penetration="1/2")


def sra(seat: int, players: int) -> SraShoe:
    return SraShoe(seat, players, group=GROUP, rng=DeterministicRng(seat))


class SlowShufflerGuest(CasinoGuest):
    """A slow phone: once its shoe dealer is set up, its frames (its shuffle pass and
    locks) wait until the test lets them go (``held`` is None again)."""

    held: list[ProtocolFrame] | None = None  # (set on the instance, below)

    def send(self, link: Any, message: Message | ProtocolFrame) -> bool:
        phone = self.phone
        ready = phone is not None and phone.dealer.ready
        held = self.__dict__.setdefault("held", [])  # (until release: none held before)
        if held is not None and ready and isinstance(message, ProtocolFrame):
            held.append(message)
            return True
        return super().send(link, message)

    def release(self) -> None:
        held, self.held = self.held or [], None
        for frame in held:
            super().send(self.link, frame)


def test_every_phone_says_whose_pass_the_first_shoe_waits_for(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_language("en")
    clock = FakeClock()
    host, guests = open_table(2, RULES, clock=clock, factory=sra, start=False)
    slow = join(host, SlowShufflerGuest, 2, clock, sra)
    guests.append(slow)
    sides = [host, *guests]
    run(sides, lambda: len(host._keys) == 2 and host.lobby.seating.can_start(), clock)
    host.start()

    def waits_for_p2() -> bool:
        return host.snapshot().progress_note == ("shoe", (2,))

    run(sides, waits_for_p2, clock)
    for side in (host, guests[0]):
        snap = side.snapshot()
        assert snap.stage is CasinoStage.SHUFFLING
        # p2 shuffles third of three: the first shoe waits for his pass
        assert (snap.progress_note, snap.progress_step) == (("shoe", (2,)), (3, 3))
        assert "Waiting for P2 · step 3 of 3" in status_line(snap)
        assert status_line(snap).splitlines()[1] == "Shuffling the shoe across the phones…"
    # the terminal casino prints the same line, once, as it changes
    printer = _Printer(host, quiet=False)
    printer()
    printer()
    out = capsys.readouterr().out.splitlines()
    line = "… Shuffling the shoe across the phones… · Waiting for P2 · step 3 of 3"
    assert out.count(line) == 1, out
    # his own phone made its pass (held on its way) and waits for the locks, the host's
    # first: the first of the chain
    mine = slow.snapshot()
    assert (mine.progress_note, mine.progress_step) == (("shoe", (0,)), (1, 3))
    slow.release()
    run(sides, lambda: all(s.phone.stage is CasinoStage.BETTING for s in sides), clock)
    for side in sides:
        snap = side.snapshot()
        assert snap.progress_note is None and snap.progress_step is None
        assert "\n" not in status_line(snap)  # (the line is gone once the shoe is in)
        assert side.phone.fault is None and not side.over


def test_the_progress_line_speaks_the_players_language() -> None:
    """The same words as Oczko's where they mean the same (the set-up, "Waiting for"),
    the step of the chain in each language."""
    names = ["Ala", "Bogdan", "Celina"]
    try:
        set_language("de")
        line = progress_text(("shoe", (1,)), names, (2, 3))
        assert line == (
            "Der Schlitten wird über die Handys gemischt…\nWarten auf Bogdan · Schritt 2 von 3"
        )
        set_language("pl")
        assert progress_text(("setup", (2,)), names).endswith("Czekamy na: Celina")
        assert "krok 1 z 3" in progress_text(("card", (0,)), names, (1, 3))
    finally:
        set_language("en")
