"""tools/armcount.py: the 2% baseline guard and the table, on made-up counts (no emulation)."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "armcount.py"
spec = importlib.util.spec_from_file_location("armcount", TOOL)
armcount = importlib.util.module_from_spec(spec)
sys.modules["armcount"] = armcount  # dataclasses look their module up
spec.loader.exec_module(armcount)

COUNTS = {
    "x86_64 sra-c32": 80_000_000,
    "x86_64 sra-c64": 57_000_000,
    "aarch64 sra-c32": 120_000_000,
    "aarch64 sra-c64": 51_300_000,
    "aarch64 sra-a64": 29_000_000,
    "aarch64 gmp": 28_800_000,
    "aarch64 gmp-sec": 37_900_000,
    "aarch64 openssl": 26_300_000,
    "aarch64 jacobi-sra": 9_000_000,
    "aarch64 jacobi-gmp": 2_000_000,
    "armhf sra-c32": 83_000_000,
    "armhf sra-neon": 33_000_000,
    "armhf gmp": 109_800_000,
    "armhf gmp-sec": 122_300_000,
    "armhf openssl": 41_200_000,
    "armhf openssl-noneon": 153_400_000,
    "armhf jacobi-sra": 20_000_000,
    "armhf jacobi-gmp": 5_000_000,
}


@pytest.fixture
def baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "arm-baseline.json"
    monkeypatch.setattr(armcount, "BASELINE", path)
    armcount.write_baseline(COUNTS)
    return path


def test_baseline_keeps_ours_and_the_peers_apart(baseline: Path) -> None:
    doc = json.loads(baseline.read_text())
    assert set(doc["counts"]) == {k for k in COUNTS if " sra-" in k or k.endswith("jacobi-sra")}
    assert doc["peers"]["armhf openssl-noneon"] == 153_400_000
    assert "aarch64 openssl" not in doc["counts"]


def test_unchanged_and_within_two_percent_pass(baseline: Path) -> None:
    assert armcount.check_baseline(COUNTS) == []
    slower = {**COUNTS, "aarch64 sra-a64": int(29_000_000 * 1.019)}
    assert armcount.check_baseline(slower) == []


def test_a_regression_over_two_percent_fails(baseline: Path) -> None:
    slower = {**COUNTS, "armhf sra-c32": 84_743_000}  # +2.1%
    problems = armcount.check_baseline(slower)
    assert len(problems) == 1 and problems[0].startswith("armhf sra-c32: 84743000 against 83000000")


def test_a_peer_getting_slower_is_not_our_regression(baseline: Path) -> None:
    assert armcount.check_baseline({**COUNTS, "aarch64 openssl": 99_000_000}) == []


def test_a_new_kernel_without_baseline_fails(baseline: Path) -> None:
    problems = armcount.check_baseline({**COUNTS, "aarch64 sra-neon": 1})
    assert problems == [
        "aarch64 sra-neon: 1 has no baseline (run: tools/armcount.py baseline --update)"
    ]


def test_table_puts_our_row_beside_the_peers() -> None:
    lines = armcount.table(COUNTS).splitlines()
    assert lines[2].split() == ["blu21", "default", "kernel", "29.0M", "33.0M"]
    row = {line[:40].strip(): line[40:].split() for line in lines[2:-1]}
    assert row["blu21 c32"] == ["120.0M", "83.0M"]  # the fallback beside the NEON default
    assert row["OpenSSL BN_mod_exp_mont_consttime"] == ["26.3M", "41.2M"]
    assert row["OpenSSL without NEON"] == ["-", "153.4M"]
    assert row["Jacobi, 52 values: GMP mpz_jacobi"] == ["2.0M", "5.0M"]
    assert lines[-1] == "x86-64 (callgrind): c32 80.0M, c64 57.0M"
