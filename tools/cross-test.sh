#!/usr/bin/env bash
# Run the native test suite on the ARM wheel under user-mode emulation (qemu), with the
# target's own Python from the sysroot.
#
#   tools/cross-test.sh aarch64 [pytest args...]
#   tools/cross-test.sh armhf   [pytest args...]
#
# Builds the wheel first (tools/cross-build.sh, cached), unpacks it into
# build/cross/<arch>/target, installs the pure-Python test dependencies into
# build/cross/test-site-<python> (shared by both targets) and runs pytest on the native-core tests
# (the reference comparisons of sra and handeval, the card and hand modules, the build
# checks) with qemu-<arch>-static, under the hypothesis profile "cross" of tests/conftest.py
# (fewer examples than on the host, the same ones every run). Extra arguments go to pytest.
# BLU21_CROSS_SUITE and BLU21_CROSS_PY pick another Debian release and its Python, as for tools/cross-build.sh
# (e.g. BLU21_CROSS_SUITE=sid BLU21_CROSS_PY=3.14: the CPython python-for-android ships).
set -euo pipefail

usage() { echo "usage: $0 aarch64|armhf [pytest args...]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
ARCH=$1
shift
# The emulated CPU: the cores of cheap phones (ARMv8.0 Cortex-A53; ARMv7 Cortex-A7), not
# qemu's default "max", whose emulated pointer authentication makes Debian's
# branch-protected aarch64 Python several times slower. BLU21_QEMU_CPU overrides.
case "$ARCH" in
  aarch64) QEMU=qemu-aarch64-static MACHINE=aarch64 CPU=cortex-a53 ;;
  armhf)   QEMU=qemu-arm-static MACHINE=armv7l CPU=cortex-a7 ;;
  *) usage ;;
esac
CPU=${BLU21_QEMU_CPU:-$CPU}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CROSS=$ROOT/build/cross
PYVER=${BLU21_CROSS_PY:-3.11}
WORK=$CROSS/$ARCH
[[ $PYVER == 3.11 ]] || WORK=$CROSS/$ARCH-py$PYVER
SYSROOT=$WORK/sysroot
# The native core's tests: every file of these areas that exists (new ones are picked up).
TEST_GLOBS=(tests/test_sra*.py tests/test_handeval*.py tests/test_hands*.py
            tests/test_cards*.py tests/test_build*.py)
# Tests of the native sources that build and run host tools (cc, valgrind) rather than
# import the wheel: they belong to the host run and prove nothing about ARM. The SRA
# shoe's tests (app/table/casino/sra_shoe.py: whole multi-deck shoes among up to 7 seats over
# TCP) are protocol and table logic in Python: the modexp they call is covered by
# test_sra.py here, and under qemu they ran for a quarter of an hour on aarch64 and
# were killed for memory on armhf.
HOST_ONLY=(tests/test_sra_consttime*.py tests/test_sra_shoe*.py)
# Pure-Python test requirements, installed for the target with the host's pip.
TEST_REQS=("pytest>=8" "hypothesis>=6.100")

log() { echo "cross-test[$ARCH]: $*" >&2; }
die() { log "error: $*"; exit 1; }

# BLU21_CROSS_PREBUILT=1 (tools/ci-cross.sh, after its prepare step): the wheel is built.
if [[ ${BLU21_CROSS_PREBUILT:-} == 1 ]]; then
  shopt -s nullglob
  built=("$WORK"/dist/*.whl)
  shopt -u nullglob
  [[ ${#built[@]} -eq 1 ]] || die "BLU21_CROSS_PREBUILT: expected one wheel in $WORK/dist"
  wheel=${built[0]}
else
  wheel=$("$ROOT/tools/cross-build.sh" "$ARCH" | tail -n 1)
fi

if ! command -v "$QEMU" >/dev/null; then
  [[ $(id -u) -eq 0 ]] || die "$QEMU missing (apt-get install qemu-user-static as root)"
  log "installing qemu-user-static"
  apt-get update -qq >/dev/null || echo "apt-get update failed; trying the install anyway" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    qemu-user-static >/dev/null
fi

# The wheel, unpacked (an install without entry-point scripts, which the tests don't use).
TARGET=$WORK/target
rm -rf "$TARGET"
python3 -m zipfile -e "$wheel" "$TARGET"

# Test dependencies: pure-Python wheels only, resolved for the target's Python version.
SITE=$CROSS/test-site-$PYVER
if [[ ! -f $SITE/.blu21-reqs || $(<"$SITE/.blu21-reqs") != "${TEST_REQS[*]}" ]]; then
  log "installing ${TEST_REQS[*]} for the target into $SITE"
  rm -rf "$SITE"
  python3 -m pip install --quiet --disable-pip-version-check --target "$SITE" \
    --python-version "$PYVER" --implementation py --only-binary=:all: "${TEST_REQS[@]}"
  echo "${TEST_REQS[*]}" >"$SITE/.blu21-reqs"
fi
# Set by tools/ci-cross.sh to fill the shared caches one at a time before parallel runs.
[[ ${BLU21_CROSS_PREPARE_ONLY:-} == 1 ]] && exit 0

cd "$ROOT"
shopt -s nullglob
tests=()
for g in "${TEST_GLOBS[@]}"; do
  for f in $g; do
    for h in "${HOST_ONLY[@]}"; do
      # shellcheck disable=SC2053 # $h is a glob on purpose
      [[ $f == $h ]] && continue 2
    done
    tests+=("$f")
  done
done
[[ ${#tests[@]} -gt 0 ]] || die "no native tests found"

# -S: no site-packages of anything (qemu falls back to host paths missing in the sysroot);
# -P: not the work tree's app/ (it has no compiled modules) but the wheel's, via PYTHONPATH.
run() {
  PYTHONPATH=$TARGET:$SITE PYTHONDONTWRITEBYTECODE=1 QEMU_LD_PREFIX=$SYSROOT QEMU_CPU=$CPU \
    BLU21_HYPOTHESIS_PROFILE=${BLU21_HYPOTHESIS_PROFILE:-cross} \
    "$QEMU" "$SYSROOT/usr/bin/python$PYVER" -S -P "$@"
}
run -c '
import platform, sys, app.native.sra as s, app.native.handeval as h
assert platform.machine() == sys.argv[1], platform.machine()
print("target python", platform.python_version(), platform.machine(), s.__file__, h.__file__)
' "$MACHINE"
log "pytest under $QEMU -cpu $CPU: ${tests[*]}"
run -m pytest -q -p no:cacheprovider "${tests[@]}" "$@"
