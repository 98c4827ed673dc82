"""The command line as a new user meets it: bad values, rules files, pipes, exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.replay import main as replay_main
from app.rules.table_rules import PRESETS, TableRules
from app.strategy.cli import edge_main, sim_main
from app.table.cli import table_main

SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.mark.parametrize("main", [edge_main, sim_main])
@pytest.mark.parametrize("threads", ["0", "-3", "257", "two"])
def test_threads_follow_one_rule_for_edge_and_sim(main, threads: str, capsys) -> None:
    args = ["--threads", threads] + (["--hands", "10"] if main is sim_main else [])
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert "--threads" in capsys.readouterr().err


def test_rules_file_as_the_app_saves_it(tmp_path: Path, capsys) -> None:
    rules = TableRules(decks=2, dealer_hits_soft_17=True)
    plain = tmp_path / "rules.json"
    plain.write_text(json.dumps(rules.to_json()))
    prefs = tmp_path / "prefs.json"
    prefs.write_text(json.dumps({"language": "en", "table_rules": rules.to_json()}))
    for path in (plain, prefs):
        assert edge_main(["--rules", str(path), "--threads", "1", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["decks"] == 2 and out["rules"].startswith("2D, H17")
    # a rule option changes one rule of the file
    assert edge_main(["--rules", str(plain), "--decks", "1", "--threads", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"].startswith("1D, H17")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read rules file"),
        ('{"decks": 2', "is not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"h17": true}', "unknown table rule field"),
        ('{"decks": 12}', "decks"),
    ],
)
def test_bad_rules_file_is_reported_as_such(tmp_path: Path, capsys, content, message) -> None:
    path = tmp_path / "rules.json"
    if content is not None:
        path.write_text(content)
    assert edge_main(["--rules", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err


def test_help_lists_presets_and_allowed_values_without_field_names(capsys) -> None:
    with pytest.raises(SystemExit):
        edge_main(["--help"])
    text = capsys.readouterr().out
    for name in PRESETS:
        assert name in text
    for allowed in ("peek", "enhc", "9-11", "10-11", "rank", "value", "yes|no", "1-8"):
        assert allowed in text
    assert "TableRules" not in text


def test_negative_payout_is_a_clear_error(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        edge_main(["--blackjack-pays", "-3:2"])
    assert exc.value.code == 2
    assert "positive ratio" in capsys.readouterr().err


def test_infinite_deck_is_labelled_as_such(capsys) -> None:
    assert edge_main(["--infinite", "--threads", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"].startswith("infinite deck,") and "6D" not in out["rules"]


@pytest.mark.parametrize("reader", ["head -3", "true"])
def test_a_closed_pipe_ends_quietly(reader: str) -> None:
    cmd = f"{sys.executable} -m app edge --threads 1 | {reader}"
    done = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    if reader.startswith("head"):
        assert done.stdout.splitlines()[0].startswith("rules:")


def test_replay_fails_when_an_expectation_is_not_met(tmp_path: Path, capsys) -> None:
    data = json.loads((SCENARIOS / "blackjack_bj_6_5_on_7_chips.json").read_text())
    assert "expect" in data
    assert replay_main([str(SCENARIOS / "blackjack_bj_6_5_on_7_chips.json")]) == 0
    capsys.readouterr()
    data["expect"] = {"house": 12345}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert replay_main([str(bad)]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)  # the report is still printed
    assert report["expect"]["met"] is False
    assert "house" in captured.err


def test_table_refuses_an_unknown_language(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        table_main(["--host", "--lang", "xx"])
    assert exc.value.code == 2
    assert "--lang" in capsys.readouterr().err


# --- issue 37, item 2: ordinary mistakes get one translated line, never a traceback ---


@pytest.fixture
def english_after():
    """A test that switches the language leaves English behind for the next test."""
    from app import i18n

    yield
    i18n.set_language("en")


def _one_line(err: str) -> str:
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("tool", ["casino", "table"])
@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("127.0.0.1:1", "Could not reach the table at that address."),  # nobody listens
        ("foo:bar", "That is not a table address."),
    ],
)
def test_a_table_that_cannot_be_joined_is_one_line(tool, address, message, capsys) -> None:
    from app.cli import main

    assert main([tool, "--join", address, "--bot", "--dealer", "open"]) == 1
    captured = capsys.readouterr()
    line = _one_line(captured.err)
    assert line.startswith(f"blu21 {tool}: {message}"), line


def test_the_join_error_speaks_the_terminals_language(english_after, monkeypatch, capsys) -> None:
    from app.cli import main

    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert main(["casino", "--join", "foo:bar", "--dealer", "open"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("blu21 casino: Das ist keine Tischadresse."), line
    # --lang overrides the terminal's language
    assert main(["casino", "--join", "foo:bar", "--dealer", "open", "--lang", "pl"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("blu21 casino: To nie jest adres stołu."), line


@pytest.mark.parametrize(
    ("size", "english", "german"),
    [
        ("banana", "WIDTHxHEIGHT", "BREITExHÖHE"),
        ("10x10", "out of range: 240x320 to 4096x4096", "240x320 bis 4096x4096"),
    ],
)
def test_a_bad_window_size_is_one_line(size, english, german, english_after, capsys) -> None:
    from app.cli import main

    for lang, text in (("en", english), ("de", german)):
        with pytest.raises(SystemExit) as exc:
            main(["app", "--lang", lang, "--size", size])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err
        problem = [line for line in err.splitlines() if "--size:" in line]
        assert len(problem) == 1 and problem[0].startswith("blu21 app: "), err
        assert text in problem[0] and size in problem[0], err


def test_ctrl_c_during_sim_stops_cleanly() -> None:
    import signal
    import threading

    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "sim", "--hands", str(10**10), "--threads", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**__import__("os").environ, "LANG": "C.UTF-8"},
        # a shell's background job may ignore SIGINT; the child starts as a terminal would
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    guard = threading.Timer(600, proc.kill)  # hang guard only (the run is meant to be cut)
    guard.start()
    try:
        started = proc.stderr.readline()  # the simulation says it began
        assert "playing 10000000000 hands" in started, started
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate()
    finally:
        guard.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (proc.returncode, err)
    assert out == ""
    rest = [line for line in err.splitlines() if "% of" not in line]  # progress lines
    assert rest == ["blu21 sim: stopped (Ctrl-C)."], err
