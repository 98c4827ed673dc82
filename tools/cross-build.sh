#!/usr/bin/env bash
# Cross-build the native core (app.native.sra, app.native.handeval) into a wheel for ARM Linux.
#
#   tools/cross-build.sh aarch64   # 64-bit ARM  (stands in for Android arm64-v8a)
#   tools/cross-build.sh armhf     # 32-bit ARMv7 hard-float (stands in for armeabi-v7a)
#
# What it does (idempotent; everything is cached under build/cross/, so a second run only
# rebuilds what changed):
#   1. installs the Debian cross compiler and mmdebstrap if missing (needs root + apt);
#   2. makes build/cross/<arch>/sysroot: a Debian bookworm root of the target architecture
#      with libc6-dev, libpython3.11-dev and the target's python3.11 (also used by
#      tools/cross-test.sh to run the tests under qemu), libgmp-dev and libssl-dev (the
#      peers tools/armcount.py counts);
#   3. makes build/cross/host-venv with the build requirements (scikit-build-core, cython);
#   4. builds the wheel through scikit-build-core like the native build, with CMake pointed at
#      tools/cmake/<triplet>.cmake, into build/cross/<arch>/dist/*-linux_<machine>.whl.
# Prints the wheel's path on the last line.
#
# The target Python is the Debian release's: bookworm's 3.11 by default. To check the core
# against a newer CPython (python-for-android ships 3.14), pick another release and its
# Python, e.g. BLU21_CROSS_SUITE=sid BLU21_CROSS_PY=3.14 (cached apart, under
# build/cross/<arch>-py3.14/; the wheel is re-tagged cp314 since the host is 3.11).
set -euo pipefail

usage() { echo "usage: $0 aarch64|armhf" >&2; exit 2; }
[[ $# -eq 1 ]] || usage
ARCH=$1
case "$ARCH" in
  aarch64) DEB_ARCH=arm64 TRIPLET=aarch64-linux-gnu PLATFORM=linux-aarch64 ;;
  armhf)   DEB_ARCH=armhf TRIPLET=arm-linux-gnueabihf PLATFORM=linux-armv7l ;;
  *) usage ;;
esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CROSS=$ROOT/build/cross
SUITE=${BLU21_CROSS_SUITE:-bookworm}
PYVER=${BLU21_CROSS_PY:-3.11}
WORK=$CROSS/$ARCH
[[ $PYVER == 3.11 ]] || WORK=$CROSS/$ARCH-py$PYVER
SYSROOT=$WORK/sysroot
MIRROR=${BLU21_DEBIAN_MIRROR:-http://deb.debian.org/debian}
HOST_PYTHON=${BLU21_HOST_PYTHON:-python3}

log() { echo "cross-build[$ARCH]: $*" >&2; }
die() { log "error: $*"; exit 1; }

# Installs the named Debian packages that are missing (quietly; needs root).
ensure_debs() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  [[ $(id -u) -eq 0 ]] || die "missing Debian packages: ${missing[*]} (install them as root)"
  log "installing ${missing[*]}"
  apt-get update -qq >/dev/null || echo "apt-get update failed; trying the install anyway" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# Cython runs on the host and its C output builds for any CPython 3; only the wheel's cpXY
# tag comes from the host interpreter (fixed up below when the versions differ).
host_ver=$("$HOST_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

start=$EPOCHREALTIME
ensure_debs "gcc-$TRIPLET" mmdebstrap

# --- 2. target sysroot -------------------------------------------------------------------
# libgmp-dev and libssl-dev: the peers of tools/armcount.py (GMP and OpenSSL, same sysroot)
SYSROOT_PKGS="python$PYVER-minimal,libpython$PYVER-stdlib,libpython$PYVER-dev,libc6-dev,libgmp-dev,libssl-dev"
stamp="$SUITE $DEB_ARCH $SYSROOT_PKGS"
if [[ ! -f $SYSROOT/.blu21-sysroot || $(<"$SYSROOT/.blu21-sysroot") != "$stamp" ]]; then
  log "making the $DEB_ARCH sysroot ($SUITE: $SYSROOT_PKGS)"
  rm -rf "$SYSROOT" "$SYSROOT.tmp"
  mkdir -p "$WORK"
  # extract: unpack the packages and their dependencies, run no maintainer scripts
  # (nothing of the target architecture has to execute on the host).
  # Check-Valid-Until: mirrors may serve a frozen snapshot whose Release file has expired
  # (signatures are still checked).
  mmdebstrap --quiet --variant=extract --arch="$DEB_ARCH" --include="$SYSROOT_PKGS" \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    "$SUITE" "$SYSROOT.tmp" "$MIRROR" </dev/null
  # Releases after bookworm have a merged /usr whose /lib symlink comes from base-files,
  # which --variant=extract leaves out: the linker script and the loader path need it.
  for d in bin sbin lib; do
    [[ -e $SYSROOT.tmp/$d || ! -d $SYSROOT.tmp/usr/$d ]] || ln -s "usr/$d" "$SYSROOT.tmp/$d"
  done
  echo "$stamp" >"$SYSROOT.tmp/.blu21-sysroot"
  mv "$SYSROOT.tmp" "$SYSROOT"
fi

# --- 3. host build tools -----------------------------------------------------------------
VENV=$CROSS/host-venv
# [build-system] requires of pyproject.toml, with Cython >= 3.1 (the first to support
# CPython 3.14, which python-for-android ships); wheel re-tags.
BUILD_REQS=("scikit-build-core>=0.10" "cython>=3.1" wheel)
command -v ninja >/dev/null || BUILD_REQS+=(ninja)
command -v cmake >/dev/null || BUILD_REQS+=("cmake>=3.18")
if [[ ! -f $VENV/.blu21-reqs || $(<"$VENV/.blu21-reqs") != "${BUILD_REQS[*]}" ]]; then
  log "making the host build venv"
  rm -rf "$VENV"
  "$HOST_PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${BUILD_REQS[@]}"
  echo "${BUILD_REQS[*]}" >"$VENV/.blu21-reqs"
fi

# --- 4. the wheel ------------------------------------------------------------------------
DIST=$WORK/dist
rm -rf "$DIST"
mkdir -p "$DIST"
ext_suffix=$("$SYSROOT/usr/bin/$TRIPLET-python$PYVER-config" --extension-suffix)
log "building the wheel (extension suffix $ext_suffix)"
# _PYTHON_HOST_PLATFORM sets the wheel's platform tag and SETUPTOOLS_EXT_SUFFIX
# scikit-build-core's SKBUILD_SOABI; the toolchain file does the rest. python-hints=false:
# the host interpreter's paths must not reach FindPython.
(
  cd "$ROOT"
  # LDFLAGS: CMake adds it to the toolchain's linker flags; 16 KB pages as on Android 15+
  # (the recipe does the same for the phone build).
  LDFLAGS="-Wl,-z,max-page-size=16384" \
  BLU21_SYSROOT=$SYSROOT _PYTHON_HOST_PLATFORM=$PLATFORM SETUPTOOLS_EXT_SUFFIX=$ext_suffix \
    "$VENV/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation --wheel-dir "$DIST" \
    -C "cmake.toolchain-file=$ROOT/tools/cmake/$TRIPLET.cmake" \
    -C cmake.python-hints=false \
    -C "build-dir=$WORK/cmake" \
    .
)
shopt -s nullglob
wheels=("$DIST"/*-"${PLATFORM//-/_}".whl)
[[ ${#wheels[@]} -eq 1 ]] || die "expected one *-${PLATFORM//-/_}.whl in $DIST"
wheel=${wheels[0]}
if [[ $host_ver != "$PYVER" ]]; then
  tag=cp${PYVER/./}
  wheel=$DIST/$("$VENV/bin/python" -m wheel tags --remove --python-tag "$tag" --abi-tag "$tag" \
    "$wheel")
fi

# Check what went in: both modules, built for the target machine.
want_machine=$([[ $ARCH == aarch64 ]] && echo AArch64 || echo ARM)
check=$WORK/check
rm -rf "$check"
"$VENV/bin/python" -m zipfile -e "$wheel" "$check"
for mod in sra handeval; do
  so=$check/app/native/$mod$ext_suffix
  [[ -f $so ]] || die "$mod$ext_suffix missing from $(basename "$wheel")"
  machine=$("$TRIPLET-readelf" -h "$so" | sed -n 's/^ *Machine: *//p')
  [[ $machine == "$want_machine" ]] || die "$mod is built for '$machine', not $want_machine"
  # Play: arm64 libraries of apps targeting Android 15+ must be 16 KB page-aligned (the
  # recipe links the phone's modules the same way, recipes/blu21).
  if [[ $ARCH == aarch64 ]]; then
    READELF="$TRIPLET-readelf" "$ROOT/tools/elf-page-align.sh" "$so" ||
      die "$mod is not 16 KB page-aligned"
  fi
done
rm -rf "$check"
# armhf: NEON instructions (q registers, d16-d31, integer vector types) only in the NEON
# kernel's object, which is offered at run time when the CPU has NEON; everything else must
# run on an ARMv7 without it (VFPv3-D16).
if [[ $ARCH == armhf ]]; then
  neon_insns() { # object file -> number of NEON instructions in it
    "$TRIPLET-objdump" -d --no-show-raw-insn "$1" | sed 's/@.*//; s/<[^>]*>//g' |
      awk -F'\t' '$2 ~ /^v/ && $2 !~ /^vcvt/ {
        if ($3 ~ /(^|[ ,{])(q[0-9]+|d(1[6-9]|2[0-9]|3[01]))([ ,}[]|$)/ ||
            $2 ~ /\.(i|u|s|p)(8|16|32|64)$/) c++ } END { print c + 0 }'
  }
  for obj in "$WORK"/cmake/CMakeFiles/*.dir/*.o "$WORK"/cmake/CMakeFiles/*.dir/native/*.o; do
    n=$(neon_insns "$obj")
    if [[ $(basename "$obj") == sra_neon.c.o ]]; then
      [[ $n -gt 0 ]] || die "sra_neon.c.o has no NEON instructions (built without -mfpu=neon?)"
    else
      [[ $n -eq 0 ]] || die "$(basename "$obj") has $n NEON instructions; only sra_neon.c may"
    fi
  done
fi
log "built $(basename "$wheel") in $(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $start }") s"
echo "$wheel"
