"""Attack on the constant-time claim of the portable kernels (ctgrind method).

A small C harness links native/sra_*.c, marks the exponent bytes as
uninitialised for valgrind's memcheck and runs the exponentiation: any branch
or memory address that depends on an exponent bit is then reported as a use
of an uninitialised value. Only the result is declassified. A control run with
one deliberate secret-dependent branch proves the detector sees such leaks.

valgrind cannot run AVX-512, so the IFMA kernels are not covered here; their
secret data flow is the same (window bits -> masks, see docs/sra.md).
"""

import random
import subprocess
from pathlib import Path

NATIVE = Path(__file__).resolve().parent.parent / "native"
SOURCES = sorted(str(p) for p in NATIVE.glob("sra_*.c"))

HARNESS = r"""
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>
#include "sra_core.h"
#include "ctdata.h"

static int run(const sra_kernel *k, const uint8_t *r2, const uint8_t *exps) {
    uint8_t e[COUNT * NB], out[COUNT * NB];
    memcpy(e, exps, sizeof e);
    void *st = k->init(M, r2, NB);
    VALGRIND_MAKE_MEM_UNDEFINED(e, sizeof e); /* the secret exponents */
    int rc = k->pow(st, BASES, e, NB, NB, COUNT, out);
#ifdef CT_LEAK
    if (e[1] & 4) puts("a secret-dependent branch");
#endif
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out); /* only the result is released */
    k->free(st);
    int ok = rc == 0 && memcmp(out, WANT, sizeof out) == 0;
    printf("%s %s\n", k->name, ok ? "ok" : "WRONG");
    return !ok;
}

int main(void) {
    int rc = run(&sra_kernel_c32, R2_32, EXPS);
#if defined(__SIZEOF_INT128__)
    rc |= run(&sra_kernel_c64, R2_64, EXPS);
#endif
#if defined(SRA_HAVE_ADX)
    if (sra_cpu_has_adx()) rc |= run(&sra_kernel_adx, R2_64, EXPS);
#endif
    return rc;
}
"""


def c_array(name: str, data: bytes) -> str:
    return f"static const uint8_t {name}[{len(data)}] = {{{','.join(map(str, data))}}};\n"


def build(tmp_path: Path, bits: int, extra: list[str]) -> Path:
    rng = random.Random(bits)
    m = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
    nb = (bits + 7) // 8
    exps = [0, 1, m - 2, (1 << (8 * nb)) - 1, rng.getrandbits(bits)]
    bases = [rng.randrange(m) for _ in exps]

    def r2(limb_bits: int) -> bytes:
        rbits = (nb * 8 + limb_bits - 1) // limb_bits * limb_bits
        return ((1 << (2 * rbits)) % m).to_bytes(nb, "little")

    def cat(values: list[int]) -> bytes:
        return b"".join(v.to_bytes(nb, "little") for v in values)

    want = [pow(b, e, m) for b, e in zip(bases, exps, strict=True)]
    (tmp_path / "ctdata.h").write_text(
        f"#define NB {nb}\n#define COUNT {len(exps)}\n"
        + c_array("M", m.to_bytes(nb, "little"))
        + c_array("R2_64", r2(64))
        + c_array("R2_32", r2(32))
        + c_array("BASES", cat(bases))
        + c_array("EXPS", cat(exps))
        + c_array("WANT", cat(want))
    )
    (tmp_path / "ct.c").write_text(HARNESS)
    exe = tmp_path / "ct"
    subprocess.run(
        ["gcc", "-O3", "-fno-strict-aliasing", "-g", f"-I{NATIVE}", f"-I{tmp_path}",
         *extra, str(tmp_path / "ct.c"), *SOURCES, "-lpthread", "-o", str(exe)],
        check=True,
    )  # fmt: skip
    return exe


def memcheck(exe: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["valgrind", "-q", "--error-exitcode=3", str(exe)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_no_secret_dependent_branch_or_index(tmp_path: Path) -> None:
    # 521 bits: 9 limbs of 64 and 17 of 32 bits, odd counts on both paths
    run = memcheck(build(tmp_path, 521, []))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "c32 ok" and all(line.endswith(" ok") for line in lines), lines
    assert "uninitialised" not in run.stderr


def test_the_detector_sees_a_planted_leak(tmp_path: Path) -> None:
    run = memcheck(build(tmp_path, 200, ["-DCT_LEAK"]))
    assert run.returncode == 3
    assert "depends on uninitialised value" in run.stderr
