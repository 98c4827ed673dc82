#!/usr/bin/env bash
# Instructions per modular exponentiation on aarch64, 32-bit ARM and the x86-64 host.
#
#   tools/cross-insns.sh [BITS] [REPS]        # defaults: 2048 3
#
# Counts retired guest instructions of the cross-built wheels (tools/cross-build.sh) under
# qemu user emulation with a tiny TCG plugin (tools/qemu-plugins/count.c, built here against
# qemu's plugin API; Debian's qemu ships no plugins), and the host's native build under
# valgrind --tool=callgrind. Each count is (run with REPS exponentiations - run with none)
# / REPS, so interpreter start-up and set-up cancel out. Two peers per target, in the same
# run: MontContext.pow (app.native.sra) and CPython's built-in pow(). Exponent and modulus
# are random BITS-bit numbers (fixed seed). BLU21_SRA_KERNEL=c32 (etc.) forces a kernel on
# every target. callgrind hides ADX and AVX-512 from the program, so x86-64 runs c64 here.
set -euo pipefail

BITS=${1:-2048}
REPS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CROSS=$ROOT/build/cross
PLUGIN=$CROSS/insn-plugin.so

for p in qemu-user valgrind gcc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || {
    echo "cross-insns: installing $p" >&2
    apt-get update -qq >/dev/null || echo "apt-get update failed; trying the install anyway" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null
  }
done

# The counting plugin (tools/qemu-plugins/count.c, shared with tools/armcount.py).
if [[ ! -f $PLUGIN || $ROOT/tools/qemu-plugins/count.c -nt $PLUGIN ]]; then
  mkdir -p "$CROSS"
  gcc -O2 -shared -fPIC -o "$PLUGIN" "$ROOT/tools/qemu-plugins/count.c"
fi

# The workload, run by each target's own Python.
read -r -d '' WORK <<'EOF' || true
import os, random, sys
from app.native.sra import MontContext
bits, reps, peer = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r = random.Random(bits)
m = r.getrandbits(bits) | 1 | (1 << (bits - 1))
b, e = r.randrange(m), r.getrandbits(bits) | (1 << (bits - 1))
kernel = os.environ.get("BLU21_SRA_KERNEL")  # default: the fastest the CPU runs
ctx = MontContext(m, threads=1, **({"kernel": kernel} if kernel else {}))
f = ctx.pow if peer == "sra" else (lambda b, e: pow(b, e, m))
assert ctx.pow(b, e) == pow(b, e, m)  # in every run, so it cancels out
print("kernel:", getattr(ctx, "kernel", "placeholder (built-in pow)"))
for _ in range(reps):
    f(b, e)
EOF

# x86-64: the same wheel build, native, with the host-venv tools/cross-build.sh made.
X86=$CROSS/x86_64
"$ROOT/tools/cross-build.sh" aarch64 >/dev/null # makes the host venv if needed
if [[ ! -d $X86/target || $ROOT/native -nt $X86/target ]]; then
  rm -rf "$X86/dist" "$X86/target"
  (cd "$ROOT" && "$CROSS/host-venv/bin/python" -m pip wheel --quiet --no-deps \
    --no-build-isolation --wheel-dir "$X86/dist" -C "build-dir=$X86/cmake" .)
  "$CROSS/host-venv/bin/python" -m zipfile -e "$X86"/dist/*.whl "$X86/target"
fi

# Each run leaves "kernel: NAME" in $KERNEL_FILE and prints its instruction count.
KERNEL_FILE=$(mktemp)
trap 'rm -f "$KERNEL_FILE"' EXIT
count_x86() { # reps peer
  local out
  out=$(PYTHONPATH=$X86/target valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$CROSS/host-venv/bin/python" -S -P -c "$WORK" "$BITS" "$1" "$2" 2>&1)
  sed -n 's/^kernel: //p' <<<"$out" >"$KERNEL_FILE"
  sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' <<<"$out"
}
count_qemu() { # arch reps peer
  local qemu cpu dir=$CROSS/$1
  case $1 in
    aarch64) qemu=qemu-aarch64 cpu=cortex-a53 ;;
    armhf) qemu=qemu-arm cpu=cortex-a7 ;;
  esac
  [[ -d $dir/target ]] || "$ROOT/tools/cross-test.sh" "$1" >/dev/null
  local out
  out=$(PYTHONPATH=$dir/target QEMU_LD_PREFIX=$dir/sysroot QEMU_CPU=$cpu \
    "$qemu" -plugin "$PLUGIN" -d plugin "$dir/sysroot/usr/bin/python3.11" -S -P -c "$WORK" \
    "$BITS" "$2" "$3" 2>&1)
  sed -n 's/^kernel: //p' <<<"$out" >"$KERNEL_FILE"
  sed -n 's/^insns: //p' <<<"$out"
}

printf '%-20s %18s %16s   %s\n' "instructions/modexp" "sra (MontContext)" "built-in pow" \
  "sra kernel"
for target in x86_64 aarch64 armhf; do
  row=()
  for peer in sra builtin; do
    if [[ $target == x86_64 ]]; then
      base=$(count_x86 0 "$peer") full=$(count_x86 "$REPS" "$peer")
    else
      base=$(count_qemu "$target" 0 "$peer") full=$(count_qemu "$target" "$REPS" "$peer")
    fi
    row+=("$(((full - base) / REPS))")
    [[ $peer == sra ]] && kernel=$(<"$KERNEL_FILE")
  done
  printf '%-20s %18s %16s   %s\n' "$target ($BITS-bit)" "${row[0]}" "${row[1]}" "$kernel"
done
