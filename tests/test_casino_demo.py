"""``blu21 demo --game blackjack``: the host here, bot guests as separate processes over
loopback with the real SRA shoe (ffdhe2048); every phone ends with the same digest of
every round (log, cards, chips) and the chips are conserved."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from app.i18n import set_language
from app.rules.errors import IllegalAction
from app.spawn import blu21_command
from app.terminal.casino import _command

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


def test_blu21_casino_host_and_join_in_the_terminal() -> None:
    """Two terminals: a bot host and a bot guest play 3 rounds and print the same result;
    a typed command the table refuses gets a translated message, not a traceback."""
    host = subprocess.Popen(
        [
            *blu21_command("casino", "--host", "--bot", "--start-with", "2"),
            *("--rounds", "3", "--result-json", "--dealer", "open", "--decks", "1", "--quiet"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert host.stdout is not None
        first = host.stdout.readline()
        assert first.startswith("listening on "), first
        address = first.split()[-1]
        guest = subprocess.run(
            [
                *blu21_command("casino", "--join", address, "--bot", "--lang", "de"),
                *("--rounds", "3", "--result-json", "--dealer", "open", "--quiet"),
            ],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        out, _ = host.communicate(timeout=RUN_TIMEOUT)
    finally:
        if host.poll() is None:
            host.kill()
    assert host.returncode == 0, out
    mine = next(x for x in out.splitlines() if x.startswith("RESULT "))
    theirs = next(x for x in guest.stdout.splitlines() if x.startswith("RESULT "))
    assert mine == theirs
    assert '"conserved": true' in mine


class _Refusing:
    """A table that refuses every box (what ``_command`` needs of a table)."""

    me = "p1"
    phone = None

    def take_box(self, box: int) -> None:
        raise IllegalAction("bad_box", "no box")


def test_a_typed_command_the_table_refuses_is_explained() -> None:
    table: Any = _Refusing()

    set_language("de")
    try:
        assert _command(table, "take 9") == "Diese Box gibt es nicht."
        assert _command(table, "bogus") == "Unbekannter Befehl; tippe help."
        assert _command(table, "bet x") == "Unbekannter Befehl; tippe help."
    finally:
        set_language("en")
