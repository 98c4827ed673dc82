"""The Android build configuration: buildozer.spec and the python-for-android recipe.

The APK itself cannot be built here (no Android NDK); these tests guard what the
configuration promises: no network permission, both ARM ABIs, the recipe wired in, and
the recipe's pure helpers (docs/android.md).
"""

import configparser
import importlib.util
import re
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "recipes" / "blu21" / "__init__.py"


@pytest.fixture(scope="module")
def spec() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "buildozer.spec", encoding="utf-8")
    return parser["app"]


def as_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def permission_names(spec: configparser.SectionProxy) -> list[str]:
    names = []
    for perm in as_list(spec["android.permissions"]):
        m = re.fullmatch(r"\(name=([\w.]+)(;\w+=\w+)*\)", perm)
        name = m.group(1) if m else perm
        names.append(name if "." in name else f"android.permission.{name}")
    return names


def test_no_internet_permission(spec) -> None:
    names = permission_names(spec)
    assert "android.permission.INTERNET" not in names
    assert not any("INTERNET" in name for name in names)
    guard = (ROOT / spec["android.extra_manifest_xml"]).read_text(encoding="utf-8")
    assert re.search(r'android:name="android.permission.INTERNET"\s+tools:node="remove"', guard)


def test_bluetooth_feature_in_the_manifest_snippet_not_android_features(spec) -> None:
    # buildozer passes android.features as --feature, which p4a's build.py rejects.
    assert "android.features" not in spec
    snippet = (ROOT / spec["android.extra_manifest_xml"]).read_text(encoding="utf-8")
    assert re.search(r'<uses-feature android:name="android.hardware.bluetooth"', snippet)


def test_bluetooth_permissions(spec) -> None:
    names = set(permission_names(spec))
    for perm in ("BLUETOOTH_CONNECT", "BLUETOOTH_SCAN", "BLUETOOTH_ADVERTISE", "VIBRATE"):
        assert f"android.permission.{perm}" in names
    # Location only where Bluetooth discovery needs it (Android <= 11).
    assert "(name=android.permission.ACCESS_FINE_LOCATION;maxSdkVersion=30)" in as_list(
        spec["android.permissions"]
    )


def test_no_service_that_could_not_hold_the_links(spec) -> None:
    # A python-for-android service runs in a process of its own: it cannot keep the
    # app's Bluetooth links alive (docs/android.md). The table is kept open by the
    # Java service in the app's own process (issue 33), whose type needs these two.
    assert "services" not in spec
    names = set(permission_names(spec))
    assert {"FOREGROUND_SERVICE", "FOREGROUND_SERVICE_CONNECTED_DEVICE"} <= {
        n.rsplit(".", 1)[-1] for n in names
    }


def test_both_arm_abis_and_api_levels(spec) -> None:
    assert as_list(spec["android.archs"]) == ["arm64-v8a", "armeabi-v7a"]
    assert int(spec["android.api"]) >= 35
    assert int(spec["android.minapi"]) == int(spec["android.ndk_api"])


def test_recipe_is_wired_in_and_app_not_shadowed(spec) -> None:
    assert "blu21" in as_list(spec["requirements"])
    assert (ROOT / spec["p4a.local_recipes"] / "blu21" / "__init__.py").is_file()
    # A source-dir copy of app/ (without compiled modules) would shadow the built one.
    assert "app" in as_list(spec["source.exclude_dirs"])
    presplash = spec["presplash.filename"].replace("%(source.dir)s", spec["source.dir"])
    assert (ROOT / presplash).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.fixture(scope="module")
def recipe_module() -> types.ModuleType:
    """recipes/blu21 loaded with stand-ins for python-for-android (not installed here)."""
    stubs = {
        "sh": types.ModuleType("sh"),
        "pythonforandroid": types.ModuleType("pythonforandroid"),
        "pythonforandroid.logger": types.ModuleType("pythonforandroid.logger"),
        "pythonforandroid.recipe": types.ModuleType("pythonforandroid.recipe"),
        "pythonforandroid.util": types.ModuleType("pythonforandroid.util"),
    }
    for fn in ("info", "shprint", "warning"):
        setattr(stubs["pythonforandroid.logger"], fn, print)
    for fn in ("current_directory", "ensure_dir", "rmdir"):
        setattr(stubs["pythonforandroid.util"], fn, print)
    stubs["pythonforandroid.recipe"].PyProjectRecipe = type("PyProjectRecipe", (), {})
    stubs["pythonforandroid.recipe"].Recipe = type("Recipe", (), {})
    saved = {name: sys.modules.get(name) for name in stubs}
    sys.modules.update(stubs)
    try:
        spec = importlib.util.spec_from_file_location("blu21_recipe", RECIPE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
    return module


def test_recipe_copies_what_the_wheel_build_needs(recipe_module) -> None:
    for item in recipe_module.SOURCE_ITEMS:
        assert (ROOT / item).exists(), item
    assert {"pyproject.toml", "CMakeLists.txt", "app", "native"} <= set(recipe_module.SOURCE_ITEMS)
    prereqs = " ".join(recipe_module.Blu21Recipe.hostpython_prerequisites)
    assert "cython>=3.1" in prereqs and "scikit-build-core" in prereqs


@pytest.mark.parametrize(
    ("text", "soabi"),
    [
        (
            "{'EXT_SUFFIX': '.cpython-314-aarch64-linux-android.so', 'SOABI': 'x'}",
            "cpython-314-aarch64-linux-android",
        ),
        (
            'build_time_vars = {"EXT_SUFFIX": ".cpython-314-arm-linux-androideabi.so"}',
            "cpython-314-arm-linux-androideabi",
        ),
        ("{'SOABI': 'cpython-314'}", None),
        ("{'EXT_SUFFIX': '.pyd'}", None),
    ],
)
def test_soabi_from_sysconfigdata(recipe_module, text: str, soabi: str | None) -> None:
    assert recipe_module.soabi_from_sysconfigdata(text) == soabi


def test_soabi_matches_this_interpreter(recipe_module) -> None:
    import sysconfig

    text = repr({"EXT_SUFFIX": sysconfig.get_config_var("EXT_SUFFIX")})
    assert recipe_module.soabi_from_sysconfigdata(text) == sysconfig.get_config_var("SOABI")
