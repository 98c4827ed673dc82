"""The command line as a new user meets it: bad values, rules files, pipes, exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.replay import main as replay_main
from app.rules.table_rules import PRESETS, TableRules
from app.strategy.cli import edge_main, sim_main
from app.terminal.commands import table_main

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


# --- issue 37, item 4: a host refuses at once what its guests would refuse ---


def _accepts(check, value) -> bool:
    try:
        check(value)
    except (ValueError, __import__("argparse").ArgumentTypeError):
        return False
    return True


def _edges(limits: tuple[int, int]) -> list[int]:
    low, high = limits
    return [-5, 0, low - 1, low, low + 1, high - 1, high, high + 1, 10**6]


@pytest.mark.parametrize("field", ["bet_time", "turn_time"])
def test_the_casino_host_refuses_what_its_guests_would(field: str) -> None:
    from app.bluetooth.tcp import TcpTransport
    from app.rules.table_rules import TableRules
    from app.table.casino.host import CasinoHost
    from app.table.casino.messages import BET_TIME_RANGE, CBegin
    from app.table.clock import FakeClock
    from app.table.messages import TURN_TIME_RANGE
    from app.terminal.common import bounded
    from tests.casino_net import shoes

    limits = BET_TIME_RANGE if field == "bet_time" else TURN_TIME_RANGE
    for value in _edges(limits):
        guest = _accepts(CBegin.CHECKS[field], value)  # what a guest runs on c_begin
        assert guest == (limits[0] <= value <= limits[1])
        assert _accepts(bounded(limits), str(value)) == guest  # blu21 casino --host
        try:
            host = CasinoHost(
                TcpTransport().listen(),
                player_id="a" * 32,
                name="Host",
                lang="en",
                clock=FakeClock(),
                shoe_factory=shoes(1),
                rules=TableRules(),
                **{field: value},
            )
        except ValueError as exc:
            assert not guest, exc
            assert f"c_begin.{field}" in str(exc)
        else:
            host.leave()
            assert guest, value


@pytest.mark.parametrize("field", ["rounds", "turn_time"])
def test_the_oczko_host_refuses_what_its_guests_would(field: str) -> None:
    from app.table.errors import TableError
    from app.table.messages import ROUNDS_RANGE, TURN_TIME_RANGE, Options
    from app.table.seating import Seating
    from app.terminal.common import bounded

    limits = ROUNDS_RANGE if field == "rounds" else TURN_TIME_RANGE
    for value in _edges(limits):
        guest = _accepts(Options.CHECKS[field], value)  # what a guest runs on options
        assert guest == (limits[0] <= value <= limits[1])
        assert _accepts(bounded(limits), str(value)) == guest  # blu21 table --host
        try:  # every host (the app's too) seats itself at a table with these options
            Seating.new("a" * 32, "Host", "en", Options(**{field: value}))
        except TableError as exc:
            assert not guest and exc.code == "bad_options", exc
        else:
            assert guest, value
        try:  # or changes them in the lobby
            Seating.new("a" * 32, "Host", "en").set_options(Options(**{field: value}))
        except TableError as exc:
            assert not guest and exc.code == "bad_options", exc
        else:
            assert guest, value


@pytest.mark.parametrize(
    "args",
    [
        ["casino", "--host", "--bet-time", "1"],
        ["casino", "--host", "--turn-time", "601"],
        ["casino", "--host", "--port", "99999"],
        ["table", "--host", "--turn-time", "4"],
        ["table", "--host", "--rounds", "100"],
    ],
)
def test_the_host_tool_refuses_before_it_listens(args, capsys) -> None:
    from app.cli import main

    with pytest.raises(SystemExit) as exc:
        main([*args, "--dealer", "open", "--bot"])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert "listening" not in captured.out
    problem = [line for line in captured.err.splitlines() if "error:" in line]
    assert len(problem) == 1 and "Traceback" not in captured.err
    assert f"argument {args[2]}: a whole number from" in problem[0], problem


# --- issue 37, item 12 (the terminal's part) ---


def test_version(capsys) -> None:
    from importlib.metadata import version

    from app.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"blu21 {version('blu21')}"
    assert main(["--help"]) == 0
    assert "--version" in capsys.readouterr().out


def test_demo_help_lists_the_game(capsys) -> None:
    from app.terminal.commands import demo_main

    with pytest.raises(SystemExit) as exc:
        demo_main(["--help"])
    assert exc.value.code == 0
    assert "--game {oczko,blackjack}" in capsys.readouterr().out


def test_sim_has_a_default_and_shows_its_progress(monkeypatch, capsys) -> None:
    import app.strategy.cli as strategy_cli
    import app.strategy.sim as sim

    assert strategy_cli.DEFAULT_HANDS >= 1_000_000  # a useful standard error
    monkeypatch.setattr(strategy_cli, "DEFAULT_HANDS", 3 * sim.PROGRESS_CHUNK // 2)
    assert sim_main(["--threads", "1", "--json"]) == 0  # no --hands: the default
    captured = capsys.readouterr()
    assert json.loads(captured.out)["hands"] == strategy_cli.DEFAULT_HANDS
    progress = captured.err.splitlines()
    assert progress[0] == f"blu21 sim: playing {strategy_cli.DEFAULT_HANDS} hands (Ctrl-C stops)"
    assert progress[-1] == f"blu21 sim: 100 % of {strategy_cli.DEFAULT_HANDS} hands"
    assert len(progress) >= 3  # and some way between (one line per chunk of a quarter)


def test_sim_in_chunks_is_reproducible_and_sums_every_chunk() -> None:
    from app.rules.table_rules import TableRules
    from app.strategy.edge import house_edge
    from app.strategy.sim import PROGRESS_CHUNK, simulate

    rules = TableRules()
    report = house_edge(rules, threads=1)
    seen: list[tuple[int, int]] = []
    hands = 2 * PROGRESS_CHUNK + 7
    a = simulate(rules, hands, threads=1, seed=5, report=report, progress=lambda *p: seen.append(p))
    b = simulate(rules, hands, threads=1, seed=5, report=report, progress=lambda *p: None)
    assert (a.ev, a.standard_error) == (b.ev, b.standard_error)  # reproducible by seed
    assert a.hands == hands
    assert seen == [
        (0, hands),
        (PROGRESS_CHUNK, hands),
        (2 * PROGRESS_CHUNK, hands),
        (hands, hands),
    ]
    # one chunk: the same as without progress
    small = simulate(rules, 1000, threads=1, seed=5, report=report)
    assert (
        small.ev
        == simulate(rules, 1000, threads=1, seed=5, report=report, progress=lambda *p: None).ev
    )


@pytest.mark.parametrize("tool", ["history", "stats"])
def test_a_history_file_or_folder_that_is_not_there(tool, tmp_path, capsys) -> None:
    from app.cli import main

    for option, path, what in (
        ("--db", tmp_path / "none" / "x.db", "file"),
        ("--db", tmp_path / "x.db", "file"),
        ("--data-dir", tmp_path / "none", "folder"),
    ):
        assert main([tool, option, str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert _one_line(captured.err) == f"blu21 {tool}: the {what} {path} does not exist"
        assert not path.exists()  # nothing created
    assert sorted(tmp_path.iterdir()) == []


@pytest.mark.parametrize("limit", ["-3", "0", "x"])
def test_history_limit_must_be_positive(limit, tmp_path, capsys) -> None:
    from app.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["history", "--data-dir", str(tmp_path), "--limit", limit])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --limit: a whole number of at least 1, not '{limit}'" in err
    assert main(["history", "--data-dir", str(tmp_path), "--all"]) == 0


def test_stats_say_what_there_is_not_yet(tmp_path, english_after, capsys) -> None:
    from app.cli import main

    for lang, none in (("en", "none yet"), ("de", "noch nichts"), ("pl", "jeszcze brak")):
        from app import i18n

        i18n.set_language(lang)
        from app.history.messages import stats_lines
        from app.history.stats import statistics

        lines = [
            x for game in ("oczko", "blackjack") for x in stats_lines(game, statistics([])[game])
        ]
        assert any(none in x for x in lines) and not any("None" in x for x in lines)
    assert main(["stats", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "None" not in out and "biggest_loss" not in out
    assert "Biggest win: none yet, biggest loss: none yet" in out


# --- issue 37, item 10 (the terminal's part): readable lines, amounts as decimals ---


def test_the_casino_lines_read_as_sentences_with_decimal_amounts(english_after) -> None:
    from fractions import Fraction

    from app import i18n
    from app.cards import Card
    from app.rules.blackjack.events import (
        BetPlaced,
        DealerPeeked,
        InsuranceTaken,
        PlayerCard,
        RoundSettled,
        Settled,
    )
    from app.terminal.casino import event_line, notice_line

    names = {"p0": "Ala", "p1": "Bartek"}
    half = Fraction(75, 2)
    events = [  # as the phone logs them: the engine's events as JSON, its own notes as is
        BetPlaced("p1", 3, Fraction(25), behind=False).to_json(),
        PlayerCard(3, 1, Card.parse("Ah")).to_json(),
        InsuranceTaken("p1", 3, Fraction(25, 2)).to_json(),
        DealerPeeked(False).to_json(),
        Settled("p1", 3, 1, "blackjack", Fraction(25), Fraction(125, 2), half).to_json(),
        RoundSettled({"p0": -half, "p1": half}, Fraction(0)).to_json(),
        {"event": "round_settled", "round": 4, "net": {"p0": -half, "p1": half}},
    ]
    want = {
        "en": [
            "Bartek bets 25 on box 3.",
            "Box 3, hand 1: Ah",
            "Bartek insures box 3 for 12.5.",
            "The dealer checks: no blackjack.",
            "Bartek wins 37.5 (box 3, hand 1).",
            "Round settled: Ala -37.5, Bartek +37.5; the house 0.",
            "Round 4 agreed by every phone: Ala -37.5, Bartek +37.5.",
        ],
        "de": [
            "Bartek setzt 25 auf Box 3.",
            "Box 3, Hand 1: Ah",
            "Bartek versichert Box 3 mit 12,5.",
            "Der Dealer prüft: kein Blackjack.",
            "Bartek gewinnt 37,5 (Box 3, Hand 1).",
            "Runde abgerechnet: Ala -37,5, Bartek +37,5; die Bank 0.",
            "Runde 4, von jedem Telefon bestätigt: Ala -37,5, Bartek +37,5.",
        ],
    }
    for lang, lines in want.items():
        i18n.set_language(lang)
        assert [event_line(e, names) for e in events] == lines
    i18n.set_language("en")
    assert notice_line("player_left", {"player": "p1"}, names) == "Bartek left the table."
    assert (
        notice_line("odd", {"player": "p1", "net": half}, names) == "odd: player Bartek, net 37.5"
    )


def test_the_casino_terminal_prints_no_python_values() -> None:
    """A bot host and a bot guest in two terminals, every line printed as it happens."""
    from app.spawn import blu21_command

    common = ["--bot", "--rounds", "2", "--dealer", "open", "--bet-time", "5", "--turn-time", "5"]
    host = subprocess.Popen(
        [*blu21_command("casino"), "--host", "--name", "Ala", "--start-with", "2", *common],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = host.stdout.readline()
        assert first.startswith("listening on "), first
        guest = subprocess.run(
            [*blu21_command("casino"), "--join", first.split()[-1], "--name", "Bartek", *common],
            capture_output=True,
            text=True,
            timeout=600,  # hang guard, not a speed target
        )
        out = host.communicate(timeout=600)[0]
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert host.returncode == 0 and guest.returncode == 0, (out, guest.stdout, guest.stderr)
    for text in (out, guest.stdout):
        assert "Round 1: bets are open." in text and "Round 2: bets are open." in text
        assert "Traceback" not in text
        for line in text.splitlines():
            assert not any(c in line for c in '{}[]"'), line  # no dict, list or JSON
            assert "Fraction" not in line
    chips = next(x for x in out.splitlines() if x.startswith("Chips: "))
    assert "Ala " in chips and "Bartek " in chips


# --- issue 37, item 13: the README tells every command ---


def test_the_readme_names_every_command_and_how_to_start() -> None:
    from app.cli import COMMANDS

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    # the two set-up commands stay first, exactly
    assert text.split("```sh\n")[1].split("```")[0] == "pip install . && blu21\n"
    setup = "pip install -e '.[test]' && pytest -n auto --dist loadfile\n"  # (issue 34)
    assert text.split("```sh\n")[2].split("```")[0] == setup
    commands = text.split("## Commands")[1].split("\n## ")[0]
    for name in COMMANDS:
        assert f"`blu21 {name}" in commands, name
    for hint in ("--size 360x640", "--lang de", "--join 127.0.0.1:PORT --bot", "--version"):
        assert hint in commands, hint
    # what it says of --size is what blu21 app accepts
    from app.views.screenshot import parse_size

    assert parse_size("360x640") == (360, 640) and "240x320 to 4096x4096" in commands


# --- issue 37 leftover: a bad argument is one translated line, no usage block ---


@pytest.mark.parametrize(
    ("args", "english", "german"),
    [
        (
            ["table", "--host", "--bogus"],
            "unknown argument: --bogus",
            "unbekanntes Argument: --bogus",
        ),
        (["table", "--bogus"], "required: one of --host --join", "nötig: eines von --host --join"),
        (
            ["casino", "--host", "--lang", "xx"],
            "--lang: 'xx' is not one of",
            "--lang: 'xx' ist keiner",
        ),
        (
            ["table", "--host", "--join", "a:1"],
            "--join cannot be used together with --host",
            "--join geht nicht zusammen mit --host",
        ),
        (["history", "--limit"], "--limit needs a value", "--limit braucht einen Wert"),
        (["demo", "--bogus"], "unknown argument: --bogus", "unbekanntes Argument: --bogus"),
        (["edge", "--decks", "x"], "--decks: 'x' is not", "--decks: 'x' ist"),
        (["replay"], "required: file", "nötig: file"),
        (["soak", "--bogus"], "unknown argument", "unbekanntes Argument"),
    ],
)
def test_a_bad_argument_is_one_translated_line(
    args, english, german, english_after, monkeypatch, capsys
) -> None:
    from app.cli import main

    for lang, text, word, hint in (
        ("en_US.UTF-8", english, "error:", "--help' lists the arguments"),
        ("de_DE.UTF-8", german, "Fehler:", "--help' zeigt die Argumente"),
    ):
        monkeypatch.setenv("LANG", lang)
        for key in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
            monkeypatch.delenv(key, raising=False)
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 2
        captured = capsys.readouterr()
        line = _one_line(captured.err)
        assert "usage:" not in captured.err and not captured.out, captured
        assert line.startswith(f"blu21 {args[0]}: {word} "), line
        assert text in line and f"'blu21 {args[0]} --help" in line and hint in line, line


@pytest.mark.parametrize("tool", ["table", "casino", "history", "edge", "replay", "app"])
def test_help_still_shows_the_usage(tool, capsys) -> None:
    from app.cli import main

    with pytest.raises(SystemExit) as exc:
        main([tool, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: blu21 {tool}") and "--help" in out, out
