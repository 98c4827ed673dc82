"""``blu21 table`` as a person would start it: a host and a guest in two processes."""

from __future__ import annotations

import json
import subprocess

import pytest

from app.spawn import blu21_command

TIMEOUT = 600.0  # hang guard, not a speed target


def test_host_and_join_from_the_command_line() -> None:
    common = ["--bot", "--dealer", "open", "--rounds", "2", "--turn-time", "5", "--result-json"]
    host = subprocess.Popen(
        [
            *blu21_command("table"),
            "--host",
            "--name",
            "Ala",
            "--start-with",
            "2",
            *common,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    guest = None
    try:
        first = host.stdout.readline()
        assert first.startswith("listening on 127.0.0.1:"), first
        address = first.split()[-1]
        guest = subprocess.Popen(
            [*blu21_command("table"), "--join", address, "--name", "Bartek", *common],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        outs = [p.communicate(timeout=TIMEOUT)[0] for p in (host, guest)]
    finally:
        for p in (host, guest):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert host.returncode == 0 and guest.returncode == 0, outs
    results = [
        json.loads(next(x for x in o.splitlines() if x.startswith("RESULT "))[7:]) for o in outs
    ]
    assert results[0] == results[1]
    assert "match_started" in outs[0] and "seated" in outs[1]


def test_bad_arguments_are_clear_errors(capsys) -> None:
    from app.terminal.commands import demo_main, table_main

    with pytest.raises(SystemExit):
        table_main([])  # --host or --join is required
    assert table_main(["--join", "not-an-address", "--dealer", "open"]) == 1
    assert "bad_address" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        demo_main(["--players", "9"])
    with pytest.raises(SystemExit):
        demo_main(["--players", "3", "--fault", "7=kill@1"])
    capsys.readouterr()
    for main, extra in ((demo_main, []), (table_main, ["--host"])):
        with pytest.raises(SystemExit):  # the table would refuse it: said at once
            main([*extra, "--turn-time", "3"])
        assert "--turn-time: a whole number from 5 to 600, not '3'" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            main([*extra, "--rounds", "0"])
        assert "--rounds: a whole number from 1 to 99, not '0'" in capsys.readouterr().err
