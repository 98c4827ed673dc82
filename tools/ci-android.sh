#!/usr/bin/env bash
# CI step (called from .ci/run): check the Android build without an SDK, NDK or phone
# (issue 22). Installs the pinned buildozer and python-for-android into a directory of
# their own (build/android-tools: buildozer brings Cython < 3, which the desktop build
# must not see; no venv needed) and runs tools/android_build_check.py: the p4a command
# buildozer assembles from buildozer.spec parses with p4a's own parsers, the manifest p4a
# renders has exactly the entries docs/android.md lists, and the blu21 recipe's build
# steps run against a stand-in NDK. Nothing is downloaded besides the two packages and
# their dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
target=build/android-tools
stamp="$target/.installed-$(sha256sum tools/android-build-requirements.txt | cut -c1-16)"
if [[ ! -e $stamp ]]; then
  rm -rf "$target"
  "$python" -m pip install -q --disable-pip-version-check --target "$target" \
    -r tools/android-build-requirements.txt
  touch "$stamp"
fi
PYTHONPATH="$PWD/$target${PYTHONPATH:+:$PYTHONPATH}" "$python" tools/android_build_check.py
