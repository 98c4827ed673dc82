#!/usr/bin/env bash
# CI step (called from .ci/run): cross-build the native core for aarch64 and 32-bit ARM and
# run its tests on each wheel under qemu, with Python 3.11 and 3.14; then the ARM modexp
# checks of tools/armcount.py: the constant-time trace check of every ARM kernel, the
# instruction counts beside GMP and OpenSSL, and the 2% guard against tools/arm-baseline.json.
# Installs the Debian tools it needs (as root, once, quietly); caches sysroots, venvs and
# CMake build trees under build/cross/.
set -euo pipefail
cd "$(dirname "$0")/.."

# qemu-user: the dynamically linked qemu, which loads TCG plugins (the static one cannot)
debs=(gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf mmdebstrap qemu-user-static qemu-user valgrind)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "ci-cross: installing ${missing[*]}" >&2
  apt-get update -qq >/dev/null || echo "apt-get update failed; trying the install anyway" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# Each target twice: with bookworm's Python 3.11 (this project's desktop Python) and with
# Debian sid's 3.14, the CPython python-for-android ships, so the native core is proven on
# both. If sid ever drops python3.14, raise the 3.14 below to p4a's version.
combos=("aarch64 3.11 bookworm" "aarch64 3.14 sid" "armhf 3.11 bookworm" "armhf 3.14 sid")
run() { # arch python suite
  BLU21_CROSS_PY=$2 BLU21_CROSS_SUITE=$3 tools/cross-test.sh "$1"
}

# 1. Sysroots, wheels and test dependencies, one at a time (they share caches).
for c in "${combos[@]}"; do
  # shellcheck disable=SC2086 # split the combo into its words
  BLU21_CROSS_PREPARE_ONLY=1 run $c
done

# 2. The emulated test runs: one lane per architecture, side by side (qemu user mode runs
# single-threaded; CI has 2 cores). Logs are printed after both, so pytest's last summary
# stays last.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
lane() { # arch
  local c status=0
  for c in "${combos[@]}"; do
    # shellcheck disable=SC2086
    [[ $c == "$1 "* ]] && { run $c >>"$logs/$1" 2>&1 || status=1; }
  done
  return "$status"
}
lane aarch64 &
aarch64=$!
lane armhf &
armhf=$!
status=0
wait "$aarch64" || status=1
wait "$armhf" || status=1
cat "$logs/aarch64" "$logs/armhf"

# 3. Constant time on ARM (address traces for two secrets), the counts and their baseline.
python3 tools/armcount.py ci || status=1
exit "$status"
