"""``blu21 demo --game blackjack``: the host here, bot guests as separate processes over
loopback with the real SRA shoe (ffdhe2048); every phone ends with the same digest of
every round (log, cards, chips) and the chips are conserved."""

from __future__ import annotations

import subprocess

import pytest

from app.spawn import blu21_command

RUN_TIMEOUT = 600.0  # hang guard for one demo run, not a speed target


@pytest.mark.parametrize(("players", "rounds"), [(2, 4), (4, 3)])
def test_bots_in_separate_processes_agree_with_the_sra_shoe(players: int, rounds: int) -> None:
    result = subprocess.run(
        [
            *blu21_command("demo"),
            *("--game", "blackjack", "--dealer", "sra", "--quiet"),
            *("--players", str(players), "--rounds", str(rounds)),
        ],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    out = result.stdout + result.stderr
    assert "Traceback" not in out, out
    assert result.returncode == 0, out
    assert "dealer: sra\n" in out, out
    assert "chips conserved: yes" in out, out
    assert "every phone agrees: yes" in out, out


def test_the_demo_refuses_an_unknown_game() -> None:
    result = subprocess.run(
        [*blu21_command("demo"), "--game", "poker"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "--game must be oczko or blackjack" in result.stderr
