#!/usr/bin/env python3
"""Instruction counts, peers and the constant-time trace check of the modexp kernels on ARM.

    python3 tools/armcount.py table        # ours beside GMP and OpenSSL, aarch64 and armhf
    python3 tools/armcount.py trace        # same addresses for two secrets, every ARM kernel
    python3 tools/armcount.py baseline     # counts against tools/arm-baseline.json (2%)
    python3 tools/armcount.py baseline --update   # write the measured counts there
    python3 tools/armcount.py spread       # a 52-value batch over 4 threads: per-thread counts
    python3 tools/armcount.py ci           # trace, our counts against the baseline (CI)

One 2048-bit modexp (RFC 7919 ffdhe2048, full 2048-bit exponent) by bench/native/modexp_count.c,
cross-compiled against the Debian bookworm sysroots of tools/cross-build.sh (with Debian's
libgmp and libcrypto as the peers) and run under qemu user emulation (Cortex-A53 / Cortex-A7)
with the counting plugin tools/qemu-plugins/count.c; the x86-64 portable kernels run natively
under callgrind. Each count is (run with one modexp - run with none), so start-up cancels out.
The trace check records instruction and data addresses with tools/qemu-plugins/trace.c between
the harness's ct_trace_begin/ct_trace_end, for two base/exponent pairs; builds with a planted
secret-dependent branch or table index must be caught; on armhf it also checks the run-time
choice: a CPU model without NEON (Cortex-R5F) must not be offered the NEON kernel. The spread:
52 values, one exponent, 4 threads through sra_pow_batch (the driver of MontContext.pow_batch),
counted per thread with tools/qemu-plugins/threads.c. `ci` counts only ours (the peers in its
table come from the baseline) and leaves the spread to `table`, `baseline` and `spread`.
Standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CROSS = ROOT / "build" / "cross"
WORK = CROSS / "count"
NATIVE = ROOT / "native"
HARNESS = ROOT / "bench" / "native" / "modexp_count.c"
BASELINE = ROOT / "tools" / "arm-baseline.json"
TOLERANCE = 0.02  # a count may grow by this much before CI fails


@dataclass(frozen=True)
class Target:
    name: str
    cc: str
    qemu: str
    cpu: str
    kernels: tuple[str, ...]  # every kernel this target compiles
    default: str  # the one sra_plan picks there


TARGETS = {
    "aarch64": Target(
        "aarch64",
        "aarch64-linux-gnu-gcc",
        "qemu-aarch64",
        "cortex-a53",
        ("c32", "c64", "a64"),
        "a64",
    ),
    "armhf": Target(
        "armhf", "arm-linux-gnueabihf-gcc", "qemu-arm", "cortex-a7", ("c32", "neon"), "neon"
    ),
}
NO_NEON_CPU = "cortex-r5f"  # ARMv7 with VFPv3-D16 and no NEON: the c32 fallback
HOST_KERNELS = ("c32", "c64")  # callgrind hides ADX and AVX-512: the portable kernels

# (row label, harness mode, extra environment) per target, in table order
PEERS: dict[str, list[tuple[str, str, dict[str, str]]]] = {
    "aarch64": [
        ("GMP mpz_powm (variable time)", "gmp", {}),
        ("GMP mpz_powm_sec", "gmp-sec", {}),
        ("OpenSSL BN_mod_exp_mont_consttime", "openssl", {}),
    ],
    "armhf": [
        ("GMP mpz_powm (variable time)", "gmp", {}),
        ("GMP mpz_powm_sec", "gmp-sec", {}),
        ("OpenSSL BN_mod_exp_mont_consttime", "openssl", {}),
        # OPENSSL_armcap=0 turns off OpenSSL's NEON code: the CPUs without NEON
        ("OpenSSL without NEON", "openssl", {"OPENSSL_armcap": "0"}),
    ],
}


def log(msg: str) -> None:
    print(f"armcount: {msg}", file=sys.stderr, flush=True)


def sysroot(arch: str) -> Path:
    return CROSS / arch / "sysroot"


def run(cmd: list[str], env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        raise SystemExit(f"armcount: {' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout + proc.stderr


def build() -> dict[str, Path]:
    """Plugins, the data header and the harness for every target (cached by mtime)."""
    WORK.mkdir(parents=True, exist_ok=True)
    for arch in TARGETS:
        if not (sysroot(arch) / "usr/include/gmp.h").exists() and not any(
            sysroot(arch).glob("usr/include/*/gmp.h")
        ):
            log(f"making the {arch} sysroot (tools/cross-build.sh)")
            run([str(ROOT / "tools" / "cross-build.sh"), arch])
    for plugin in ("count", "trace", "threads"):
        src, so = ROOT / "tools" / "qemu-plugins" / f"{plugin}.c", WORK / f"{plugin}.so"
        if not so.exists() or so.stat().st_mtime < src.stat().st_mtime:
            run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(so), str(src)])
    data = WORK / "modexp_data.h"
    gen = ROOT / "bench" / "native" / "modexp_data.py"
    if not data.exists() or data.stat().st_mtime < gen.stat().st_mtime:
        data.write_text(run([sys.executable, str(gen)]))
    sources = [HARNESS, *sorted(NATIVE.glob("sra_*.c"))]
    newest = max(p.stat().st_mtime for p in [*sources, data, *NATIVE.glob("sra_*.h")])
    flags = ["-O3", "-no-pie", "-fno-strict-aliasing", f"-I{NATIVE}", f"-I{WORK}"]
    exes: dict[str, Path] = {}
    jobs = []
    for arch, t in TARGETS.items():
        for variant, extra in (
            ("", []),
            ("-leak-branch", ["-DCT_LEAK_BRANCH"]),
            ("-leak-index", ["-DCT_LEAK_INDEX"]),
        ):
            exe = WORK / f"modexp-{arch}{variant}"
            cmd = [
                t.cc,
                f"--sysroot={sysroot(arch)}",
                *flags,
                *extra,
                "-DWITH_GMP",
                "-DWITH_OPENSSL",
                *map(str, sources),
                "-o",
                str(exe),
                "-lgmp",
                "-lcrypto",
                "-lpthread",
            ]
            exes[arch + variant] = exe
            if not exe.exists() or exe.stat().st_mtime < newest:
                jobs.append(cmd)
    exe = WORK / "modexp-x86_64"
    exes["x86_64"] = exe
    if not exe.exists() or exe.stat().st_mtime < newest:
        jobs.append(["gcc", *flags, *map(str, sources), "-o", str(exe), "-lpthread"])
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(run, jobs))
    return exes


def qemu_cmd(arch: str, exe: Path, plugin: str) -> tuple[list[str], dict[str, str]]:
    t = TARGETS[arch]
    env = {"QEMU_LD_PREFIX": str(sysroot(arch)), "QEMU_CPU": t.cpu}
    return [t.qemu, "-plugin", plugin, "-d", "plugin", str(exe)], env


def found_int(pattern: str, out: str) -> int:
    """The number the pattern's group captures in a tool's output."""
    found = re.search(pattern, out)
    if not found:
        raise SystemExit(f"armcount: no {pattern!r} in:\n{out}")
    return int(found.group(1))


def count(arch: str, exe: Path, mode: str, env: dict[str, str] | None = None) -> int:
    """Instructions of one modexp (or one batch of 52 Jacobi symbols)."""
    totals = []
    for reps in (0, 1):
        if arch == "x86_64":
            out = run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    "--callgrind-out-file=/dev/null",
                    str(exe),
                    mode,
                    str(reps),
                ],
                env,
            )
            totals.append(found_int(r"Collected : *(\d+)", out))
        else:
            cmd, qenv = qemu_cmd(arch, exe, str(WORK / "count.so"))
            out = run([*cmd, mode, str(reps)], {**qenv, **(env or {})})
            totals.append(found_int(r"insns: (\d+)", out))
    return totals[1] - totals[0]


CountJob = tuple[str, str, str, dict[str, str]]  # key, target, harness mode, environment


def count_jobs(peers: bool = True) -> list[CountJob]:
    """(key 'target mode[ extra]', target, harness mode, extra environment) of every count:
    our kernels and Jacobi on every target, and the peers' unless peers is False."""
    jobs: list[CountJob] = [("x86_64 sra-" + k, "x86_64", "sra-" + k, {}) for k in HOST_KERNELS]
    for arch, t in TARGETS.items():
        jobs += [(f"{arch} sra-{k}", arch, f"sra-{k}", {}) for k in t.kernels]
        jobs.append((f"{arch} jacobi-sra", arch, "jacobi-sra", {}))
        if peers:
            for _, mode, env in PEERS[arch]:
                jobs.append((f"{arch} {mode}" + ("-noneon" if env else ""), arch, mode, env))
            jobs.append((f"{arch} jacobi-gmp", arch, "jacobi-gmp", {}))
    return jobs


def measure(exes: dict[str, Path], peers: bool = True) -> dict[str, int]:
    """Every count of the table (only ours when peers is False), two at a time."""
    jobs = count_jobs(peers)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        done = pool.map(lambda j: count(j[1], exes[j[1]], j[2], j[3]), jobs)
        return {job[0]: n for job, n in zip(jobs, done, strict=True)}


def mega(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e6:.1f}M"


def table(counts: dict[str, int]) -> str:
    arm64, arm32 = TARGETS["aarch64"], TARGETS["armhf"]
    rows: list[tuple[str, str | None, str | None]] = [
        ("blu21 default kernel", "sra-" + arm64.default, "sra-" + arm32.default)
    ]
    rows += [
        ("blu21 " + k, "sra-" + k, "sra-" + k if k in arm32.kernels else None)
        for k in arm64.kernels
        if k != arm64.default
    ]
    for label, mode, env in PEERS["armhf"]:
        key = mode + ("-noneon" if env else "")
        rows.append((label, key if f"aarch64 {key}" in counts else None, key))
    rows.append(("Jacobi, 52 values: blu21", "jacobi-sra", "jacobi-sra"))
    rows.append(("Jacobi, 52 values: GMP mpz_jacobi", "jacobi-gmp", "jacobi-gmp"))
    lines = [
        "instructions per 2048-bit modexp (ffdhe2048, full exponent), qemu "
        f"{TARGETS['aarch64'].cpu} / {TARGETS['armhf'].cpu}",
        f"{'implementation':40} {'aarch64':>10} {'armhf':>10}",
    ]
    for label, a, b in rows:
        ca = counts.get(f"aarch64 {a}") if a else None
        cb = counts.get(f"armhf {b}") if b else None
        lines.append(f"{label:40} {mega(ca):>10} {mega(cb):>10}")
    lines.append(
        "x86-64 (callgrind): "
        + ", ".join(f"{k} {mega(counts[f'x86_64 sra-{k}'])}" for k in HOST_KERNELS)
    )
    return "\n".join(lines)


def ours(counts: dict[str, int]) -> dict[str, int]:
    """The counts the baseline guards: our kernels (the peers are references, not ours)."""
    return {k: v for k, v in counts.items() if " sra-" in k or k.endswith(" jacobi-sra")}


def check_baseline(counts: dict[str, int]) -> list[str]:
    base = json.loads(BASELINE.read_text())["counts"]
    problems = []
    for key, value in sorted(ours(counts).items()):
        if key not in base:
            problems.append(
                f"{key}: {value} has no baseline (run: tools/armcount.py baseline --update)"
            )
            continue
        change = value / base[key] - 1
        note = f"{key}: {value} against {base[key]} ({change:+.2%})"
        if change > TOLERANCE:
            problems.append(note + f", more than {TOLERANCE:.0%} above the baseline")
        else:
            print(note)
    return problems


def write_baseline(counts: dict[str, int]) -> None:
    doc = {
        "about": "instructions per 2048-bit modexp (and per 52 Jacobi symbols), written by "
        "tools/armcount.py baseline --update; CI fails when one of ours grows by more than "
        f"{TOLERANCE:.0%}. peers: Debian bookworm's GMP and OpenSSL, same run, for reference.",
        "counts": dict(sorted(ours(counts).items())),
        "peers": {k: v for k, v in sorted(counts.items()) if k not in ours(counts)},
    }
    BASELINE.write_text(json.dumps(doc, indent=1) + "\n")
    log(f"wrote {BASELINE}")


def save_history(counts: dict[str, int]) -> None:
    """One JSON per run beside pytest-benchmark's, for tools/bench_report.py."""
    out = ROOT / ".benchmarks" / "counts"
    out.mkdir(parents=True, exist_ok=True)
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    stamp = subprocess.run(["date", "-u", "+%Y%m%dT%H%M%S"], capture_output=True, text=True)
    path = out / f"{stamp.stdout.strip()}-{rev or 'unknown'}.json"
    path.write_text(json.dumps({"commit": rev, "counts": counts}, indent=1) + "\n")


def trace_line(arch: str, exe: Path, kernel: str, which: int) -> str:
    begin = end = None
    nm = run([TARGETS[arch].cc.replace("-gcc", "-nm"), str(exe)])
    for line in nm.splitlines():
        parts = line.split()
        if parts[-1] == "ct_trace_begin":
            begin = "0x" + parts[0]
        elif parts[-1] == "ct_trace_end":
            end = "0x" + parts[0]
    cmd, env = qemu_cmd(arch, exe, f"{WORK / 'trace.so'},begin={begin},end={end}")
    out = run([*cmd, f"sra-{kernel}", "1", str(which)], env)
    found = re.search(r"trace: .*", out)
    if not found or "ok" not in out:
        raise SystemExit(
            f"armcount: no trace or a wrong result from {exe.name} sra-{kernel}:\n{out}"
        )
    return found.group(0)


TraceJob = tuple[str, str, str, bool]  # target, harness variant, kernel, traces must be equal


def trace_jobs() -> list[TraceJob]:
    """Every ARM kernel with the plain harness; the planted leaks in the default kernel's."""
    jobs: list[TraceJob] = []
    for arch, t in TARGETS.items():
        jobs += [(arch, "", k, True) for k in t.kernels]
        jobs += [(arch, v, t.default, False) for v in ("-leak-branch", "-leak-index")]
    return jobs


def trace_one(exes: dict[str, Path], job: TraceJob) -> str | None:
    """Both inputs' traces; a problem when they differ (or, for a planted leak, do not)."""
    arch, variant, kernel, want_same = job
    a, b = (trace_line(arch, exes[arch + variant], kernel, i) for i in (0, 1))
    name = f"{arch} {kernel}{' with a planted ' + variant[6:] + ' leak' if variant else ''}"
    print(f"{name}: input 0 {a}\n{' ' * len(name)}  input 1 {b}", flush=True)
    if (a == b) != want_same:
        return f"{name}: the traces {'differ' if want_same else 'are identical'}"
    return None


def trace(exes: dict[str, Path]) -> list[str]:
    """Every ARM kernel: identical traces for both inputs; the planted leaks: different."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return [p for p in pool.map(lambda j: trace_one(exes, j), trace_jobs()) if p]


def ci(exes: dict[str, Path]) -> tuple[dict[str, int], list[str]]:
    """The CI step: the trace check, the run-time choice on armhf and our counts (not the
    peers', which are Debian's and stay in the baseline), all on one pool of two workers,
    the longest jobs first so neither waits at the end. Returns the counts and problems."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        # the 125M-instruction c32 traces and counts first
        traces = sorted(trace_jobs(), key=lambda j: j[2] != "c32")
        counts = sorted(count_jobs(peers=False), key=lambda j: not j[2].endswith("c32"))
        trace_futs = [pool.submit(trace_one, exes, j) for j in traces]
        count_futs = [(j[0], pool.submit(count, j[1], exes[j[1]], j[2], j[3])) for j in counts]
        dispatch_fut = pool.submit(dispatch, exes)
        problems = [p for f in trace_futs if (p := f.result())]
        problems += dispatch_fut.result()
        return {key: f.result() for key, f in count_futs}, problems


def dispatch(exes: dict[str, Path]) -> list[str]:
    """On a CPU model without NEON the NEON kernel is not offered and c32 still runs."""
    cmd, env = qemu_cmd("armhf", exes["armhf"], str(WORK / "count.so"))
    env["QEMU_CPU"] = NO_NEON_CPU
    problems = []
    neon = subprocess.run(
        [*cmd, "sra-neon", "1"], capture_output=True, text=True, env={**os.environ, **env}
    )
    if "no such kernel" not in neon.stderr:
        problems.append(f"armhf {NO_NEON_CPU}: the NEON kernel ran on a CPU without NEON")
    c32 = run([*cmd, "sra-c32", "1"], env)
    if "sra-c32 ok" not in c32:
        problems.append(f"armhf {NO_NEON_CPU}: c32 gave no result")
    print(f"armhf {NO_NEON_CPU} (no NEON): neon not offered, c32 ok" if not problems else "")
    return problems


# The batch through the Python API (MontContext.pow_batch) on the cross-built wheel.
PY_BATCH = """
import json, sys
from app.native.sra import MontContext
d = json.load(open(sys.argv[1]))
ctx = MontContext(d["m"], threads=4)
assert ctx.batch_kernel == sys.argv[3], ctx.batch_kernel
for _ in range(int(sys.argv[2])):
    assert ctx.pow_batch(d["bases"], d["exp"], threads=4) == d["want"]
"""


def spread_inputs() -> Path:
    """The 52 bases, the exponent and the results of the harness's batch, as JSON."""
    path = WORK / "batch.json"
    if (
        not path.exists()
        or path.stat().st_mtime < (HARNESS.parent / "modexp_data.py").stat().st_mtime
    ):
        spec = importlib.util.spec_from_file_location(
            "modexp_data", HARNESS.parent / "modexp_data.py"
        )
        assert spec and spec.loader
        modexp_data = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modexp_data)
        _, exps, values = modexp_data.inputs()
        m = modexp_data.FFDHE2048
        want = [pow(b, exps[0], m) for b in values]
        path.write_text(json.dumps({"m": m, "exp": exps[0], "bases": values, "want": want}))
    return path


def per_thread(arch: str, prog: Path, args: list[str], env: dict[str, str]) -> list[int]:
    """Instructions per thread of `prog args` with the batch (REPS 1) less those of the same
    run without it (REPS 0: start-up and set-up, all on the calling thread)."""
    cmd, qenv = qemu_cmd(arch, prog, str(WORK / "threads.so"))
    runs = []
    for reps in ("0", "1"):
        out = run([*cmd, *[reps if a == "REPS" else a for a in args]], {**qenv, **env})
        runs.append({int(k): int(n) for k, n in re.findall(r"thread (\d+) insns: (\d+)", out)})
    return [runs[1][k] - runs[0].get(k, 0) for k in sorted(runs[1])]


def spread(exes: dict[str, Path]) -> str:
    """Per-thread instructions of a 52-value batch over 4 threads, through the harness
    (sra_pow_batch) and through MontContext.pow_batch on the wheel tools/cross-test.sh
    unpacked (the target's Python 3.11), with max/min."""
    data = spread_inputs()

    def line(arch: str, label: str, per: list[int]) -> str:
        cols = " ".join(f"{mega(n):>8}" for n in per)
        return f"{arch:8} {label:30} {cols}   max/min {max(per) / min(per):.4f}"

    def one(arch: str) -> list[str]:
        kernel = TARGETS[arch].default
        per = per_thread(arch, exes[arch], [f"batch-{kernel}", "REPS"], {})
        lines = [line(arch, f"sra_pow_batch ({kernel})", per)]
        target = CROSS / arch / "target"
        if not target.exists():
            return [*lines, f"{arch:8} MontContext.pow_batch: no wheel (tools/cross-test.sh)"]
        python = sysroot(arch) / "usr" / "bin" / "python3.11"
        args = ["-S", "-P", "-c", PY_BATCH, str(data), "REPS", kernel]
        per = per_thread(arch, python, args, {"PYTHONPATH": str(target), "PYTHONHASHSEED": "0"})
        return [*lines, line(arch, f"MontContext.pow_batch ({kernel})", per)]

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        parts = list(pool.map(one, ["aarch64", "armhf"]))
    head = "batch spread: 52 values, one exponent, 4 threads; instructions per thread"
    return "\n".join([head, *(text for part in parts for text in part)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["table", "trace", "baseline", "ci", "spread"])
    ap.add_argument("--update", action="store_true", help="baseline: write the measured counts")
    args = ap.parse_args()
    for tool in ("qemu-aarch64", "qemu-arm", "valgrind", "gcc"):
        if not shutil.which(tool):
            raise SystemExit(f"armcount: {tool} missing (tools/ci-cross.sh installs it)")
    exes = build()
    problems: list[str] = []
    if args.command == "trace":
        problems += trace(exes)
        problems += dispatch(exes)
    if args.command == "ci":
        counts, problems = ci(exes)
        peers = json.loads(BASELINE.read_text())["peers"]
        print(table({**peers, **counts}))
        print(f"(peers: from {BASELINE.relative_to(ROOT)}, measured with its counts)")
        save_history(counts)
        problems += check_baseline(counts)
    if args.command in ("table", "baseline"):
        counts = measure(exes)
        print(table(counts))
        print(spread(exes))
        save_history(counts)
        if args.command == "baseline" and args.update:
            write_baseline(counts)
        elif args.command == "baseline":
            problems += check_baseline(counts)
    if args.command == "spread":
        print(spread(exes))
    for p in problems:
        log(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
