"""The terminal tables keep history (issue 31): after two rounds of a 3-phone
``blu21 casino`` and of a 3-phone ``blu21 table``, each phone in a HOME of its own,
every phone's ``blu21 history --game G --json`` lists both rounds with their audit
verdict, and ``blu21 stats`` counts them. Real processes over TCP loopback, as players
start them; every wait is on a process's output or its end (a hang guard, no sleeps).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from app.spawn import blu21_command

TIMEOUT = 600.0  # hang guard, not a speed target
NAMES = ("Ala", "Bartek", "Celina")


def _env(home: Path) -> dict[str, str]:
    """A phone's environment: its own HOME, the data folder chosen from it as the app
    chooses it (nothing else points elsewhere)."""
    env = {k: v for k, v in os.environ.items() if k not in ("BLU21_DATA_DIR", "XDG_CONFIG_HOME")}
    env["HOME"] = str(home)
    return env


def _table(command: str, homes: list[Path], host_args: list[str], common: list[str]) -> None:
    """A host and two guests of ``blu21 COMMAND``, bots all, to the table's end."""
    procs: list[subprocess.Popen[str]] = []
    try:
        host = subprocess.Popen(
            [*blu21_command(command), "--host", "--name", NAMES[0], *host_args, *common],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=_env(homes[0]),
        )
        procs.append(host)
        assert host.stdout is not None
        first = host.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:"), first
        address = first.split()[-1]
        for i in (1, 2):
            procs.append(
                subprocess.Popen(
                    [*blu21_command(command), "--join", address, "--name", NAMES[i], *common],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    env=_env(homes[i]),
                )
            )
        outs = [p.communicate(timeout=TIMEOUT)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert all("Traceback" not in out for out in outs), outs


def _blu21(home: Path, *args: str) -> str:
    """What ``blu21 ARGS`` prints with ``home`` as the player's home."""
    return subprocess.run(
        [*blu21_command(args[0]), *args[1:]],
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=TIMEOUT,
        check=True,
    ).stdout


def _history(home: Path, game: str) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = json.loads(_blu21(home, "history", "--game", game, "--json"))
    return sorted(rounds, key=lambda r: r["number"])


def _lines(home: Path, game: str) -> list[str]:
    return _blu21(home, "history", "--game", game).splitlines()


def _stats(home: Path, game: str) -> dict[str, Any]:
    out = _blu21(home, "stats", "--game", game, "--json")
    stats: dict[str, Any] = json.loads(out)[game]
    return stats


def test_every_phone_of_a_terminal_casino_table_keeps_its_rounds(tmp_path: Path) -> None:
    homes = [tmp_path / f"home{i}" for i in range(3)]
    common = ["--bot", "--dealer", "open", "--rounds", "2", "--result-json"]
    # a shoe cut early: the first round's shoe is done (and audited) when the second
    # round opens its bets
    host_args = ["--start-with", "3", "--decks", "1", "--penetration", "1/10"]
    host_args += ["--bet-time", "5", "--turn-time", "5"]
    _table("casino", homes, host_args, common)
    digests = set()
    for i, home in enumerate(homes):
        rounds = _history(home, "blackjack")
        assert [r["number"] for r in rounds] == [1, 2], rounds
        for r in rounds:
            assert (r["game"], r["mode"], r["player"]) == ("blackjack", "network", NAMES[i])
            detail = r["detail"]
            assert detail["named"] == [] and detail["shoes"], detail
            assert r["facts"]["decisions"] == len(detail["decisions"])
            assert detail["names"][detail["me"]] == NAMES[i]
            digests.add((r["number"], detail["digest"]))
        first, second = rounds
        assert first["detail"]["audit"] == "passed", first["detail"]["audits"]
        assert first["detail"]["audits"] == [
            {"shoe": first["detail"]["shoes"][0], "ok": True, "cheaters": []}
        ]
        # the second round's shoe may be done or not when the table ends: the record
        # says which, from its shoes' audits
        audits = second["detail"]["audits"]
        assert all(a["ok"] and a["cheaters"] == [] for a in audits)
        done = {a["shoe"] for a in audits} == set(second["detail"]["shoes"])
        assert second["detail"]["audit"] == ("passed" if done else "pending"), audits
        assert _stats(home, "blackjack")["rounds"] == 2
        lines = _lines(home, "blackjack")  # newest first, each with its verdict
        assert len(lines) == 2 and lines[1].endswith("; audit passed"), lines
        assert _history(home, "oczko") == []
    assert len(digests) == 2  # every phone recorded the rounds all of them agreed on


def test_every_phone_of_a_terminal_oczko_table_keeps_its_rounds(tmp_path: Path) -> None:
    homes = [tmp_path / f"home{i}" for i in range(3)]
    common = ["--bot", "--rounds", "2", "--turn-time", "5", "--result-json", "--quiet"]
    _table("table", homes, ["--start-with", "3"], common)  # the SRA dealer
    fingerprints, played, seatings = set(), set(), set()
    for i, home in enumerate(homes):
        rounds = _history(home, "oczko")
        # (a match of two rounds may take a third: a round nobody wins scores nothing)
        numbers = [r["number"] for r in rounds]
        assert numbers == list(range(1, len(rounds) + 1)) and len(rounds) >= 2, numbers
        played.add(len(rounds))
        for r in rounds:
            assert (r["game"], r["mode"], r["player"]) == ("oczko", "network", NAMES[i])
            detail = r["detail"]
            assert detail["audit"] == "passed", detail["audits"]
            assert all(a["ok"] and a["cheaters"] == [] for a in detail["audits"])
            assert detail["named"] == [] and detail["names"][detail["me"]] == NAMES[i]
            seatings.add(tuple(detail["names"]))  # (seats go by the order of joining)
            fingerprints.add(detail["fingerprint"])
        assert rounds[-1]["facts"]["match_end"] in ("won", "lost")
        assert _stats(home, "oczko")["rounds"] == len(rounds)
        assert all(line.endswith("; audit passed") for line in _lines(home, "oczko"))
        assert _history(home, "blackjack") == []
    assert len(played) == 1  # every phone recorded every round
    assert [sorted(names) for names in seatings] == [sorted(NAMES)]
    (code,) = fingerprints  # the one shuffle every phone showed
    assert code is not None and code.isdigit()
