#!/usr/bin/env bash
# Instructions per 2048-bit modexp of our portable kernels (c64, c32) on the phones' CPUs,
# and what that means in milliseconds. The phone profiles in app/sim/phone_cpu.py charge
# the kernels the phones run (a64, neon), from tools/arm-baseline.json (tools/armcount.py).
#
#   tools/phone-insns.sh [REPS]        # default 4
#
# Lighter than tools/cross-insns.sh (no sysroots, no target Python): the kernel's C
# (native/sra_*.c, the flags of CMakeLists.txt) is linked statically into a tiny harness
# with Debian's cross compilers, run under qemu-user as a Cortex-A53 (aarch64, c64
# kernel) and a Cortex-A7 (armhf, c32 kernel with umaal), counting retired
# instructions with the TCG plugin cross-insns.sh builds. Each count is
# (REPS+1 exponentiations - 1) / REPS on ffdhe2048 with a full-size exponent, so start-up
# and set-up cancel out. Needs qemu-user, gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf.
set -euo pipefail

REPS=${1:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${TMPDIR:-/tmp}/blu21-phone-insns
PLUGIN=$WORK/insn-plugin.so
mkdir -p "$WORK"

if [[ ! -f $PLUGIN ]]; then # the plugin's C, taken from cross-insns.sh
  sed -n "/^  cat >\"\$CROSS\/insn-plugin.c\" <<'EOF'$/,/^EOF$/p" "$ROOT/tools/cross-insns.sh" |
    sed '1d;$d' >"$WORK/insn-plugin.c"
  gcc -O2 -shared -fPIC -o "$PLUGIN" "$WORK/insn-plugin.c"
fi

python3 - "$WORK" "$ROOT/app/protocol/group.py" <<'EOF'
import sys
from pathlib import Path
work = Path(sys.argv[1])
import re
text = Path(sys.argv[2]).read_text()  # ffdhe2048, as app/protocol/group.py types it in
block = re.search(r'_FFDHE2048_HEX = \((.*?)\)', text, re.S).group(1)
hexp = "".join(re.findall(r'"([0-9A-F]+)"', block))
m = int(hexp, 16); nb = 256
e = (m - 1) // 2 - 12345  # a full-size exponent mod q
b = pow(3, 2 * 987654321, m)
def arr(name, v):
    return f"static const uint8_t {name}[{nb}] = {{{','.join(map(str, v.to_bytes(nb, 'little')))}}};\n"
r2 = {bits: pow(2, 2 * ((nb * 8 + bits - 1) // bits * bits), m) for bits in (32, 64)}
(work / "data.h").write_text(
    arr("M", m) + arr("B", b) + arr("E", e) + arr("WANT", pow(b, e, m))
    + arr("R2_32", r2[32]) + arr("R2_64", r2[64])
)
EOF

cat >"$WORK/harness.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sra_core.h"
#include "data.h"
int main(int argc, char **argv) {
    int reps = atoi(argv[1]);
#if defined(__SIZEOF_INT128__)
    const sra_kernel *k = &sra_kernel_c64; const uint8_t *r2 = R2_64;
#else
    const sra_kernel *k = &sra_kernel_c32; const uint8_t *r2 = R2_32;
#endif
    void *st = k->init(M, r2, 256);
    uint8_t out[256];
    for (int i = 0; i < reps; i++) k->pow(st, B, E, 0, 256, 1, out);
    printf("%s %s\n", k->name, memcmp(out, WANT, 256) == 0 ? "ok" : "WRONG");
    return 0;
}
EOF

count() { # qemu cpu reps
  "$1" -cpu "$2" -plugin "$PLUGIN" -d plugin "$WORK/harness-$1" "$3" 2>&1 | sed -n 's/^insns: //p'
}
printf '%-10s %-12s %-6s %14s\n' target cpu kernel "insns/modexp"
for target in aarch64:aarch64-linux-gnu:qemu-aarch64:cortex-a53 armhf:arm-linux-gnueabihf:qemu-arm:cortex-a7; do
  IFS=: read -r name triple qemu cpu <<<"$target"
  "$triple-gcc" -O3 -fno-strict-aliasing -static -I"$ROOT/native" -I"$WORK" \
    "$WORK/harness.c" "$ROOT"/native/sra_*.c -lpthread -o "$WORK/harness-$qemu"
  kernel=$("$qemu" -cpu "$cpu" "$WORK/harness-$qemu" 1)
  [[ $kernel == *" ok" ]] || { echo "wrong result on $name: $kernel" >&2; exit 1; }
  one=$(count "$qemu" "$cpu" 1) many=$(count "$qemu" "$cpu" $((REPS + 1)))
  printf '%-10s %-12s %-6s %14d\n' "$name" "$cpu" "${kernel% ok}" $(((many - one) / REPS))
done
