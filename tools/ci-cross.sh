#!/usr/bin/env bash
# CI step (called from .ci/run): cross-build the native core for aarch64 and 32-bit ARM and
# run its tests on each wheel under qemu, with Python 3.11 and 3.14; then the ARM modexp
# checks of tools/armcount.py: the constant-time trace check of every ARM kernel, our
# instruction counts (beside the peers' from the baseline) and the 2% guard against
# tools/arm-baseline.json.
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
# The 3.14 runs leave out the three slowest reference comparisons of the blackjack analysis
# (over a minute each under emulation): they check the C algorithms, which are the same for
# both Pythons and run in the 3.11 run of the same target; the other tests of the module
# still call every function of it through 3.14's extension.
py314_skip="not (test_hand_evs_infinite_deck_match_reference"
py314_skip+=" or test_game_ev_matches_reference_on_small_shoes or test_resplits_match_reference)"
run() { # arch python suite [pytest args]
  local arch=$1 py=$2 suite=$3
  shift 3
  if [[ $py == 3.14 ]]; then set -- -k "$py314_skip" "$@"; fi
  BLU21_CROSS_PY=$py BLU21_CROSS_SUITE=$suite tools/cross-test.sh "$arch" "$@"
}
step() { echo "ci-cross: $1 took $((SECONDS - started)) s (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2; }

# 1. The caches both targets share (the host build venv, the test dependencies per Python),
# made by the aarch64 builds, one at a time. The armhf wheels are built in the armhf lane,
# beside the aarch64 tests.
started=$SECONDS
for c in "${combos[@]}"; do
  # shellcheck disable=SC2086 # split the combo into its words
  if [[ $c == aarch64* ]]; then BLU21_CROSS_PREPARE_ONLY=1 run $c; fi
done
step "the aarch64 wheels"

# 2. The emulated test runs: one lane per architecture, side by side (qemu user mode runs
# single-threaded; CI has 2 cores); each wheel is built once. Logs are printed after both,
# so pytest's last summary stays last.
started=$SECONDS
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
lane() { # arch
  local c status=0
  for c in "${combos[@]}"; do
    [[ $c == "$1 "* ]] || continue
    # shellcheck disable=SC2086
    if [[ $1 == aarch64 ]]; then
      BLU21_CROSS_PREBUILT=1 run $c >>"$logs/$1" 2>&1 || status=1
    else
      run $c >>"$logs/$1" 2>&1 || status=1
    fi
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
step "the emulated tests"

# 3. Constant time on ARM (address traces for two secrets), our counts and their baseline.
started=$SECONDS
python3 tools/armcount.py ci || status=1
step "the trace check and the counts"
exit "$status"
