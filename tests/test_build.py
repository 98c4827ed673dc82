"""The package is installed with its compiled modules."""

import importlib.machinery

import app.native.handeval as handeval
import app.native.sra as sra


def test_native_modules_are_compiled_extensions() -> None:
    for mod in (sra, handeval):
        assert mod.__file__ is not None
        assert mod.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), mod.__file__


def test_cli_help_lists_commands(capsys) -> None:
    from app.cli import main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "replay" in out and "edge" in out


def test_cli_rejects_unknown_command(capsys) -> None:
    from app.cli import main

    assert main(["nonsense"]) == 2
    assert "unknown command" in capsys.readouterr().err
