"""The README's first command, then ``blu21 demo`` from the clone's own folder (issue 21).

The package is installed as ``pip install .`` does (not editable) into a throwaway
environment that sees nothing of the test environment's packages, and the demo is run with
the clone as the current folder: the bots it starts must import the installed package (with
its compiled modules), not the uncompiled ``app/`` folder beside them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

# Longer than the default per-test limit (pyproject.toml): a real build and install of the package
# in a fresh environment (30-110 s).
pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_demo_from_the_clone_after_a_plain_install(tmp_path: Path) -> None:
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    # The demo needs no Kivy, so --no-deps keeps the install to the package itself; a build
    # folder of its own keeps the editable install's build untouched.
    install = subprocess.run(
        [
            str(bin_dir / "python"),
            *("-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check"),
            *("-C", f"build-dir={tmp_path / 'build'}", str(ROOT)),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    # The wheel carries the typing marker and the compiled modules' stubs (issue 15), so a
    # program that imports the installed package is type-checked against it.
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import app, os; print(os.path.dirname(app.__file__))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    installed = Path(where.stdout.strip())
    assert installed.parent.name == "site-packages", where.stdout + where.stderr
    for name in ("py.typed", "native/sra.pyi", "native/handeval.pyi"):
        assert (installed / name).is_file(), name
    demo = subprocess.run(
        [str(bin_dir / "blu21"), "demo", "--players", "3", "--rounds", "2", "--turn-time", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    out = demo.stdout + demo.stderr
    assert "dealer: sra" in out, out  # the compiled SRA dealer, not a fallback
    assert "every phone agrees: yes" in out, out
    assert demo.returncode == 0, out


def test_a_bot_that_cannot_start_is_reported_as_such(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import app.terminal.bot_processes as bot_guests
    import app.terminal.commands as table_cli

    # Bots whose interpreter fails before reaching the table (as an ImportError would).

    def broken(*args: str) -> list[str]:
        return [sys.executable, "-c", "raise ImportError('no app here')"]

    monkeypatch.setattr(bot_guests, "blu21_command", broken)
    argv = ["--players", "2", "--dealer", "open", "--quiet", "--turn-time", "5"]
    code = table_cli.demo_main(argv)
    out = capsys.readouterr().out
    assert code == 2, out
    assert "Bot1 could not start" in out and "no app here" in out, out
    assert "every phone agrees" not in out, out

