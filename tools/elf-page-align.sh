#!/usr/bin/env bash
# Usage: tools/elf-page-align.sh [--min BYTES] LIB.so...
# Fails unless every LOAD segment of every LIB is aligned to at least BYTES (default 16384):
# Google Play requires 16 KB page-aligned native libraries for arm64 apps targeting
# Android 15+ (developer.android.com/guide/practices/page-sizes). Reads the program
# headers with readelf ($READELF, else readelf; binutils' readelf reads any ELF machine).
set -euo pipefail
min=16384
if [[ ${1:-} == --min ]]; then min=$2; shift 2; fi
[[ $# -gt 0 ]] || { echo "usage: $0 [--min BYTES] LIB.so..." >&2; exit 2; }
readelf=${READELF:-readelf}
status=0
for lib in "$@"; do
  aligns=$("$readelf" -lW "$lib" | awk '$1 == "LOAD" { print $NF }')
  [[ -n $aligns ]] || { echo "$lib: no LOAD segments" >&2; status=1; continue; }
  for a in $aligns; do
    if (( a < min )); then
      echo "$lib: a LOAD segment is aligned to $a bytes, less than $min" >&2
      status=1
    fi
  done
done
exit "$status"
