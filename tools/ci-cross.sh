#!/usr/bin/env bash
# CI step (called from .ci/run): cross-build the native core for aarch64 and 32-bit ARM and
# run its tests on each wheel under qemu, with Python 3.11 and 3.14. Installs the Debian tools it needs (as root, once,
# quietly); caches sysroots, venvs and CMake build trees under build/cross/.
set -euo pipefail
cd "$(dirname "$0")/.."

debs=(gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf mmdebstrap qemu-user-static)
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
# both. If sid ever drops python3.14, raise BLU21_CROSS_PY below to p4a's version.
# Each step prints its own timing (cross-build) and pytest's summary, which stays last.
for arch in aarch64 armhf; do
  tools/cross-test.sh "$arch"
  BLU21_CROSS_SUITE=sid BLU21_CROSS_PY=3.14 tools/cross-test.sh "$arch"
done
