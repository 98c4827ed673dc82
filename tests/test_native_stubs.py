"""The type stubs of the compiled modules (app/native/*.pyi) match the built modules.

mypy checks every caller of ``app.native.sra`` and ``app.native.handeval`` against these
stubs, so a stub that drifts from its ``.pyx`` would let a wrong call through. mypy's
stubtest imports the built module and compares every public name, parameter and default
with the stub (issue 15).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("app.native.sra", "app.native.handeval")

# Attributes Cython generates in every module: pickling support and the doctest table.
ALLOWLIST = """\
app\\.native\\.[a-z]+\\.__reduce_cython__
app\\.native\\.[a-z]+\\.__setstate_cython__
app\\.native\\.[a-z]+\\.__test__
"""


def _stubtest(
    tmp_path: Path, *modules: str, mypy_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    allow = tmp_path / "allowlist.txt"
    allow.write_text(ALLOWLIST)
    env = dict(os.environ)
    if mypy_path is not None:
        env["MYPYPATH"] = str(mypy_path)  # searched before the installed package
    return subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--allowlist", str(allow), *modules],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )


def test_every_compiled_module_has_a_stub() -> None:
    pyx = {p.stem for p in (ROOT / "native").glob("*.pyx")}
    pyi = {p.stem for p in (ROOT / "app" / "native").glob("*.pyi")}
    assert pyx == pyi
    assert {m.rsplit(".", 1)[1] for m in MODULES} == pyx


def test_stubs_match_the_compiled_modules(tmp_path: Path) -> None:
    pytest.importorskip("mypy.stubtest")
    run = _stubtest(tmp_path, *MODULES)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success" in run.stdout, run.stdout


def test_stubtest_catches_a_drifted_signature(tmp_path: Path) -> None:
    # The check itself is live: a stub whose parameter differs from the module fails.
    pytest.importorskip("mypy.stubtest")
    pkg = tmp_path / "stubs" / "app" / "native"
    pkg.mkdir(parents=True)
    (pkg.parent / "__init__.pyi").write_text("")
    (pkg / "__init__.pyi").write_text("")
    stub = (ROOT / "app" / "native" / "sra.pyi").read_text()
    assert "def jacobi(a: int, n: int)" in stub
    (pkg / "sra.pyi").write_text(stub.replace("def jacobi(a: int", "def jacobi(x: int"))
    run = _stubtest(tmp_path, "app.native.sra", mypy_path=tmp_path / "stubs")
    assert run.returncode != 0
    assert 'stub parameter "x" differs from runtime parameter "a"' in run.stdout, run.stdout
