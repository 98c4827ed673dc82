#!/usr/bin/env bash
# CI step (called from .ci/run): check the Android build without an SDK, NDK or phone
# (issue 22). Installs the pinned buildozer and python-for-android into build/android-venv
# and runs tools/android_build_check.py: the p4a command buildozer assembles from
# buildozer.spec parses with p4a's own parsers, the manifest p4a renders has exactly the
# entries docs/android.md lists, and the blu21 recipe's build steps run against a stand-in
# NDK. Nothing is downloaded besides the two packages and their dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/android-venv
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r tools/android-build-requirements.txt
"$venv/bin/python" tools/android_build_check.py
