"""The pure parts of tools/android_build_check.py (the rest runs in CI through
tools/ci-android.sh, with buildozer and python-for-android installed).

A manifest rendered like python-for-android's must match the table in docs/android.md
exactly: a lost flag, an extra permission or INTERNET are caught.
"""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "android_build_check.py"
spec = importlib.util.spec_from_file_location("android_build_check", TOOL)
check = importlib.util.module_from_spec(spec)
sys.modules["android_build_check"] = check
spec.loader.exec_module(check)

# What p4a renders, shortened; SNIPPET: recipes/blu21/manifest.xml.
GOOD = """<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android">
    <uses-sdk android:minSdkVersion="24" android:targetSdkVersion="35" />
    <uses-feature android:glEsVersion="0x00020000" />
    <uses-permission android:name="android.permission.BLUETOOTH" android:maxSdkVersion="30" />
    <uses-permission android:name="android.permission.BLUETOOTH_ADMIN" android:maxSdkVersion="30" />
    <uses-permission android:name="android.permission.BLUETOOTH_CONNECT" />
    <uses-permission android:name="android.permission.BLUETOOTH_SCAN"
                     android:usesPermissionFlags="neverForLocation" />
    <uses-permission android:name="android.permission.BLUETOOTH_ADVERTISE" />
    <uses-permission android:name="android.permission.ACCESS_FINE_LOCATION"
                     android:maxSdkVersion="30" />
    <uses-permission android:name="android.permission.VIBRATE" />
    <uses-permission android:name="android.permission.FOREGROUND_SERVICE" />
    <uses-permission android:name="android.permission.FOREGROUND_SERVICE_CONNECTED_DEVICE" />
    <uses-permission android:name="android.permission.POST_NOTIFICATIONS" />
    SNIPPET
    <application android:label="x"/>
</manifest>
"""


PERMISSION = '<uses-permission android:name="android.permission.{}" />'


@pytest.fixture(scope="module")
def documented() -> set:
    return check.documented_entries((ROOT / "docs" / "android.md").read_text(encoding="utf-8"))


def manifest(replace: tuple[str, str] = ("", "")) -> str:
    snippet = (ROOT / "recipes" / "blu21" / "manifest.xml").read_text(encoding="utf-8")
    return GOOD.replace("SNIPPET", snippet).replace(*replace)


def test_the_documented_manifest_matches(documented) -> None:
    check.check_manifest(manifest(), documented)
    names = {name for _tag, name, _attrs in documented}
    assert "android.hardware.bluetooth" in names


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        (
            'BLUETOOTH_SCAN"\n                     android:usesPermissionFlags="neverForLocation"',
            'BLUETOOTH_SCAN"',
            "missing",
        ),
        ('LOCATION"\n                     android:maxSdkVersion="30"', 'LOCATION"', "missing"),
        ("<application", PERMISSION.format("CAMERA") + "<application", "not documented"),
        ("<application", PERMISSION.format("INTERNET") + "<application", "requests .*INTERNET"),
        ('android:required="true"', "", "missing"),
    ],
)
def test_a_changed_manifest_is_caught(documented, old: str, new: str, why: str) -> None:
    text = manifest((old, new))
    assert text != manifest()
    with pytest.raises(check.CheckFailed, match=why):
        check.check_manifest(text, documented)


def test_a_manifest_that_is_not_xml_is_caught(documented) -> None:
    # e.g. a double hyphen inside a comment of the snippet
    with pytest.raises(check.CheckFailed, match="not XML"):
        check.check_manifest(manifest(("<application", "<!-- a -- b --><application")), documented)


def test_the_target_sdk_and_the_back_opt_out_are_checked() -> None:
    attrs = (ROOT / "recipes" / "blu21" / "application.xml").read_text(encoding="utf-8")
    good = manifest(('targetSdkVersion="35"', 'targetSdkVersion="36"'))
    good = good.replace("<application ", f"<application {attrs.strip()} ")
    check.check_application(good)
    with pytest.raises(check.CheckFailed, match="targetSdkVersion is '35'"):
        check.check_application(manifest().replace("<application ", f"<application {attrs} "))
    # what the check rendered before: p4a's default when no API reached the template
    with pytest.raises(check.CheckFailed, match="targetSdkVersion is '0'"):
        check.check_application(good.replace('targetSdkVersion="36"', 'targetSdkVersion="0"'))
    with pytest.raises(check.CheckFailed, match="back key"):
        check.check_application(good.replace(attrs.strip(), ""))


def _shared_lib(tmp_path: Path, name: str, *ldflags: str) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed to link the test libraries"
    src = tmp_path / "f.c"
    src.write_text("int f(int x) { return x + 1; }\n")
    out = tmp_path / name
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(out), str(src), *ldflags], check=True)
    return out


def test_the_page_alignment_check_tells_16_kb_from_4_kb(tmp_path: Path) -> None:
    tool = ROOT / "tools" / "elf-page-align.sh"
    aligned = _shared_lib(tmp_path, "a16.so", "-Wl,-z,max-page-size=16384")
    small = _shared_lib(tmp_path, "a4.so", "-Wl,-z,max-page-size=4096")
    ok = subprocess.run(["bash", str(tool), str(aligned)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(
        ["bash", str(tool), str(aligned), str(small)], capture_output=True, text=True
    )
    assert bad.returncode == 1 and "a4.so" in bad.stderr and "a16.so" not in bad.stderr


def _aar(path: Path, manifest: bytes) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        z.writestr("classes.jar", b"")
        z.writestr("AndroidManifest.xml", manifest)
    return path


def test_the_service_library_declares_the_table_service_in_the_apps_process(tmp_path) -> None:
    # (the recipe's own AAR is checked in CI: tools/ci-android.sh runs its build steps)
    manifest = (ROOT / "recipes" / "blu21" / "service" / "AndroidManifest.xml").read_bytes()
    java = str((ROOT / "recipes" / "blu21" / "java").resolve())

    def run(aar: Path, *options: str) -> None:
        command = ["--add-source", java, "--add-aar", str(aar.resolve())]
        check.check_service(ROOT, [*command, *options] if options else command, aar)

    run(_aar(tmp_path / "good.aar", manifest))
    good = tmp_path / "good.aar"
    with pytest.raises(check.CheckFailed, match=r"android\.add_aars"):
        check.check_service(ROOT, ["--add-source", java], good)
    with pytest.raises(check.CheckFailed, match="connectedDevice"):
        run(_aar(tmp_path / "type.aar", manifest.replace(b'connectedDevice"', b'dataSync"')))
    separate = manifest.replace(b"android:exported", b'android:process=":table" android:exported')
    with pytest.raises(check.CheckFailed, match="app's process"):
        run(_aar(tmp_path / "separate.aar", separate))
