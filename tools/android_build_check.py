"""Check the Android build without an SDK, NDK, phone or download (issue 22).

Run with a Python that has the pinned buildozer and python-for-android installed
(tools/ci-android.sh makes one). Three checks, each through the tools' own code:

1. **The command**: buildozer's Android target reads our buildozer.spec and assembles the
   python-for-android command (its ``_p4a`` call is intercepted instead of run); p4a's
   ``ToolchainCL`` parses that command line (up to the point where it would start
   building), and the sdl2 bootstrap's ``build.py`` parser takes what p4a hands on to it,
   as in ``ToolchainCL._build_package``. An option either tool does not know fails here.
2. **The manifest**: the bootstrap's ``AndroidManifest.tmpl.xml`` rendered through
   ``build.py``'s own ``render`` with the parsed arguments (as ``make_package`` does) must
   hold exactly the ``uses-permission`` / ``uses-feature`` entries, with their
   ``maxSdkVersion`` / ``usesPermissionFlags`` / ``required`` / ``tools:node`` attributes,
   of the table in docs/android.md, and no INTERNET permission that is not removed.
3. **The recipe**: p4a loads recipes/blu21 from ``p4a.local_recipes``; its build steps
   (copying the sources, reading the target SOABI, the CMake settings, the wheel build
   command) run against a stand-in NDK and target Python in a temporary directory, with
   the host Python's ``python -m build`` replaced by a recorder.

Exit status 0 when everything matches; the first mismatch is printed otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import types
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "android.md"
ANDROID_NS = "{http://schemas.android.com/apk/res/android}"
TOOLS_NS = "{http://schemas.android.com/tools}"
#: Google Play: new apps and updates target API 36 from 2026-08-31
TARGET_SDK = 36
#: the 16 KB page size the native modules are linked for (Android 15+, Play)
PAGE_ALIGN_LDFLAGS = "-Wl,-z,max-page-size=16384"


class CheckFailed(Exception):
    """A check found the build configuration wrong."""


class _Captured(Exception):
    """Stops a tool once what we need is captured."""


@contextlib.contextmanager
def _chdir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


# -- 1. the command ----------------------------------------------------------------------


def buildozer_p4a_command(root: Path, storage: Path) -> tuple[list[str], int]:
    """The python-for-android argument list buildozer's Android target builds (debug), and
    the target API (buildozer hands it to p4a as ``ANDROIDAPI`` and ``project.properties``,
    not on the command line)."""
    from buildozer import Buildozer

    with _chdir(root):
        bz = Buildozer(filename=str(root / "buildozer.spec"))
        # Buildozer.set_target would also create ~/.buildozer and ./bin: not needed here.
        from buildozer.targets import android

        bz.targetname = "android"
        target = bz.target = android.get_target(bz)
        target.build_mode = "debug"
        target._build_dir = str(storage)
        target.extra_p4a_args = [
            a if not a.startswith("--storage-dir=") else f"--storage-dir={storage}"
            for a in target.extra_p4a_args
        ]
        # Writing into a distribution that does not exist here: not part of the command.
        target._update_libraries_references = lambda dist_dir: None
        target._generate_whitelist = lambda dist_dir: None
        captured: list[list[str]] = []

        def p4a(cmd: list[str], env: Any = None, **kwargs: Any) -> None:
            captured.append([*target._p4a_cmd, *cmd, *target.extra_p4a_args])
            raise _Captured

        target._p4a = p4a
        with contextlib.suppress(_Captured):
            target.build_package()
    if not captured:
        raise CheckFailed("buildozer never called python-for-android")
    command = captured[0]
    if "--use-setup-py" in command or "--ignore-setup-py" not in command:
        raise CheckFailed("buildozer asks p4a to pip-install the checkout (--use-setup-py)")
    return command, int(target.android_api)


def p4a_parse(command: list[str], work: Path) -> tuple[Any, Any, Any]:
    """Parse ``command`` as p4a would: (toolchain args, build.py args, build.py module)."""
    from pythonforandroid import toolchain

    module_at = command.index("pythonforandroid.toolchain")
    argv = ["p4a", *command[module_at + 1 :]]
    seen: list[Any] = []

    def apk(self: Any, args: Any) -> None:  # where ToolchainCL would start building
        seen.append(args)
        raise _Captured

    saved_argv, saved_apk = sys.argv, toolchain.ToolchainCL.apk
    sys.argv, toolchain.ToolchainCL.apk = argv, apk
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.suppress(_Captured):
            toolchain.ToolchainCL()
    except SystemExit as exc:
        raise CheckFailed(f"python-for-android rejects the command: {err.getvalue()}") from exc
    finally:
        sys.argv, toolchain.ToolchainCL.apk = saved_argv, saved_apk
    if not seen:
        raise CheckFailed("python-for-android did not reach the apk command")
    args = seen[0]
    toolchain.ToolchainCL._fix_args(args)

    build = _load_build_py(work, int(args.ndk_api))
    with _chdir(work), contextlib.redirect_stderr(err):
        parser = build.create_argument_parser()
        try:
            build_args = parser.parse_args(args.unknown_args)
        except SystemExit as exc:
            raise CheckFailed(f"p4a's build.py rejects the command: {err.getvalue()}") from exc
    if build_args.min_sdk_version != int(args.ndk_api):
        raise CheckFailed(
            f"--minsdk {build_args.min_sdk_version} differs from --ndk-api {args.ndk_api}: "
            "build.py would stop"
        )
    build_args.permissions = build.parse_permissions(build_args.permissions)
    build_args.manifest_orientation = build.get_manifest_orientation(
        build_args.orientation, build_args.manifest_orientation
    )
    return args, build_args, build


def _bootstrap_dir() -> Path:
    import pythonforandroid

    return Path(pythonforandroid.__file__).parent / "bootstraps"


def _load_build_py(work: Path, ndk_api: int) -> Any:
    """build.py as a distribution holds it: next to its dist_info.json."""
    os.environ["P4A_BUILD_IS_RUNNING_UNITTESTS"] = "1"  # no host Python to look for
    path = work / "build.py"
    path.write_bytes((_bootstrap_dir() / "common" / "build" / "build.py").read_bytes())
    info = {"bootstrap": "sdl2", "ndk_api": ndk_api, "hostpython": None}
    (work / "dist_info.json").write_text(json.dumps(info))
    spec = importlib.util.spec_from_file_location("p4a_bootstrap_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- 2. the manifest ---------------------------------------------------------------------


def render_manifest(build: Any, build_args: Any, android_api: int, work: Path) -> str:
    """The sdl2 bootstrap's manifest, rendered as ``make_package`` renders it."""
    import jinja2

    # A distribution's templates/ is common's overlaid by the bootstrap's own.
    dirs = [_bootstrap_dir() / d / "build" / "templates" for d in ("_sdl_common", "common")]
    build.environment = jinja2.Environment(loader=jinja2.FileSystemLoader([str(d) for d in dirs]))
    # What make_package normalises before it renders (build.py, make_package).
    build_args.add_activity = build_args.add_activity or []
    build_args.activity_launch_mode = build_args.activity_launch_mode or ""
    build_args.numeric_version = build_args.numeric_version or "1"
    dest = work / "AndroidManifest.xml"
    build.render(
        "AndroidManifest.tmpl.xml",
        str(dest),
        args=build_args,
        service=False,
        service_data=[],
        android_api=android_api,
        debug=True,
        native_services=build_args.native_services,
        url_scheme="kivy",
    )
    return dest.read_text(encoding="utf-8")


Entry = tuple[str, str, frozenset[tuple[str, str]]]


def manifest_entries(text: str) -> set[Entry]:
    """The manifest's uses-permission / uses-feature entries: (tag, name, attributes)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = text.splitlines()[exc.position[0] - 1] if exc.position[0] else ""
        raise CheckFailed(f"the rendered manifest is not XML: {exc}: {line.strip()}") from exc
    entries: set[Entry] = set()
    for element in root:
        if element.tag not in ("uses-permission", "uses-feature"):
            continue
        name = element.get(f"{ANDROID_NS}name")
        if name is None:  # e.g. the OpenGL ES version feature
            name = "glEsVersion=" + (element.get(f"{ANDROID_NS}glEsVersion") or "?")
        attrs = frozenset(
            (key.replace(ANDROID_NS, "").replace(TOOLS_NS, "tools:"), value)
            for key, value in element.attrib.items()
            if key not in (f"{ANDROID_NS}name", f"{ANDROID_NS}glEsVersion")
        )
        entries.add((element.tag, name, attrs))
    return entries


def documented_entries(text: str) -> set[Entry]:
    """The manifest table of docs/android.md: rows ``| uses-... | name | attrs | why |``."""
    entries: set[Entry] = set()
    for line in text.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] not in ("uses-permission", "uses-feature"):
            continue
        attrs = frozenset(
            tuple(a.strip().strip("`").split("=", 1))  # type: ignore[misc]
            for a in cells[2].split(",")
            if a.strip() and a.strip() != "-"
        )
        entries.add((cells[0], cells[1], attrs))
    if not entries:
        raise CheckFailed(f"no manifest table found in {DOCS}")
    return entries


def check_manifest(text: str, documented: set[Entry]) -> None:
    """The rendered manifest has exactly the documented entries; INTERNET only removed."""
    found = manifest_entries(text)
    for _tag, name, attrs in found:
        if "INTERNET" in name and ("tools:node", "remove") not in attrs:
            raise CheckFailed(f"the manifest requests {name}")
    missing, extra = documented - found, found - documented
    if missing or extra:
        raise CheckFailed(
            "manifest differs from docs/android.md:\n"
            + "".join(f"  missing: {e}\n" for e in sorted(missing, key=str))
            + "".join(f"  not documented: {e}\n" for e in sorted(extra, key=str))
        )


def check_application(text: str) -> None:
    """The target SDK is :data:`TARGET_SDK` and ``<application>`` opts out of predictive
    back (Android 16 delivers no back key to an app targeting 36 otherwise)."""
    root = ET.fromstring(text)
    sdk = root.find("uses-sdk")
    target = None if sdk is None else sdk.get(f"{ANDROID_NS}targetSdkVersion")
    if target != str(TARGET_SDK):
        raise CheckFailed(f"targetSdkVersion is {target!r}, Play requires {TARGET_SDK}")
    app = root.find("application")
    back = None if app is None else app.get(f"{ANDROID_NS}enableOnBackInvokedCallback")
    if back != "false":
        raise CheckFailed(
            f"<application android:enableOnBackInvokedCallback> is {back!r}: at API 36 the "
            "back key would not reach the app"
        )


SERVICE_CLASS = "org.blu21.TableService"


def check_service(root: Path, command: list[str], aar: Path) -> None:
    """The table's foreground service reaches the build: its Java source directory and
    the library (``aar``, written by the recipe) whose manifest declares it, in the app's
    process, of type connectedDevice (Gradle merges it into ``<application>``)."""
    import zipfile

    def values(option: str) -> list[str]:
        return [command[i + 1] for i, a in enumerate(command[:-1]) if a == option]

    java = root / "recipes" / "blu21" / "java"
    if str(java.resolve()) not in values("--add-source"):
        raise CheckFailed(f"buildozer does not add {java} (android.add_src)")
    if str(aar.resolve()) not in values("--add-aar"):
        raise CheckFailed(f"buildozer does not add {aar} (android.add_aars)")
    source = java / (SERVICE_CLASS.replace(".", "/") + ".java")
    if not source.exists() or "class TableService extends Service" not in source.read_text():
        raise CheckFailed(f"no service class {SERVICE_CLASS} in {source}")
    try:
        with zipfile.ZipFile(aar) as z:
            names = set(z.namelist())
            manifest = ET.fromstring(z.read("AndroidManifest.xml"))
    except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError) as exc:
        raise CheckFailed(f"the recipe did not write a readable {aar}: {exc}") from exc
    if "classes.jar" not in names:
        raise CheckFailed(f"{aar} has no classes.jar (Gradle rejects such an AAR)")
    services = {e.get(f"{ANDROID_NS}name"): e for e in manifest.iter("service")}
    element = services.get(SERVICE_CLASS)
    if element is None or set(services) != {SERVICE_CLASS}:
        raise CheckFailed(f"{aar} declares {sorted(services)}, expected {SERVICE_CLASS}")
    if element.get(f"{ANDROID_NS}foregroundServiceType") != "connectedDevice":
        raise CheckFailed("the table service is not of type connectedDevice")
    if element.get(f"{ANDROID_NS}process") is not None:
        raise CheckFailed("the table service must run in the app's process (the sockets')")
    if element.get(f"{ANDROID_NS}exported") != "false":
        raise CheckFailed("the table service must not be exported")


# -- 3. the recipe -----------------------------------------------------------------------


def check_recipe(root: Path, local_recipes: str, work: Path) -> list[str]:
    """Run the blu21 recipe's build steps against a stand-in NDK and target Python.

    Returns the recorded wheel build command.
    """
    from pythonforandroid.archs import ArchAarch_64
    from pythonforandroid.build import Context
    from pythonforandroid.recipe import Recipe

    ctx = Context()
    ctx.local_recipes = str((root / local_recipes).resolve())
    ctx.setup_dirs(str(work / "storage"))
    ctx.ndk_dir = str(work / "ndk")
    ctx.ndk_api = 24
    ctx.android_api = TARGET_SDK
    ctx.recipe_build_order = ["hostpython3", "python3", "blu21"]
    arch = ArchAarch_64(ctx)
    blu21 = Recipe.get_recipe("blu21", ctx)
    if blu21.depends != ["python3"]:
        raise CheckFailed(f"unexpected recipe dependencies {blu21.depends}")
    python = Recipe.get_recipe("python3", ctx)
    # The stand-in target Python: a _sysconfigdata and include dir where p4a keeps them.
    link_root = Path(python.link_root(arch.arch))
    (link_root / "lib").mkdir(parents=True, exist_ok=True)
    soabi = f"cpython-{python.link_version.replace('.', '')}-aarch64-linux-android"
    (link_root / "lib" / "_sysconfigdata__android_aarch64-linux-android.py").write_text(
        repr({"EXT_SUFFIX": f".{soabi}.so"})
    )
    recorded: list[list[str]] = []
    envs: list[dict[str, str]] = []

    class Recorder:  # stands in for sh.Command(host python)
        def __init__(self, path: str) -> None:
            self.path = path

        def __call__(self, *args: str, **kwargs: Any) -> str:
            recorded.append([self.path, *args])
            envs.append(dict(kwargs.get("_env") or {}))
            Path("dist").mkdir(exist_ok=True)
            Path("dist/blu21-0.1.0-cp314-cp314-android_24_arm64_v8a.whl").touch()
            return ""

    installed: list[list[str]] = []
    names = type(blu21).build_arch.__globals__  # the recipe module's namespace
    saved = {k: names[k] for k in ("sh", "shprint")}
    names["sh"] = types.SimpleNamespace(Command=Recorder)
    names["shprint"] = lambda cmd, *a, **kw: cmd(*a, **kw)
    saved_location = type(blu21).real_hostpython_location
    type(blu21).real_hostpython_location = property(lambda self: "/stand-in/hostpython3")
    blu21.install_hostpython_prerequisites = lambda packages=None, **kw: None
    blu21.get_recipe_env = lambda arch=None, **kw: {"CC": "clang --target", "PATH": "/usr/bin"}
    blu21.install_wheel = lambda arch, wheels: installed.append(wheels)
    try:
        blu21.prepare_build_dir(arch.arch)
        build_dir = Path(blu21.get_build_dir(arch.arch))
        for item in ("pyproject.toml", "CMakeLists.txt", "app", "native"):
            if not (build_dir / item).exists():
                raise CheckFailed(f"the recipe did not copy {item}")
        if any(build_dir.rglob("*.so")) or (build_dir / "tests").exists():
            raise CheckFailed("the recipe copied build products or tests")
        blu21.build_arch(arch)
    finally:
        names.update(saved)
        type(blu21).real_hostpython_location = saved_location
    if len(recorded) != 1 or recorded[0][1:5] != ["-m", "build", "--wheel", "--no-isolation"]:
        raise CheckFailed(f"unexpected wheel build: {recorded}")
    settings = dict(a.removeprefix("--config-setting=").split("=", 1) for a in recorded[0][5:])
    expected = {
        "cmake.toolchain-file": f"{ctx.ndk_dir}/build/cmake/android.toolchain.cmake",
        "cmake.define.ANDROID_ABI": "arm64-v8a",
        "cmake.define.ANDROID_PLATFORM": "android-24",
        "cmake.define.Python_SOABI": soabi,
        "cmake.python-hints": "false",
    }
    for key, value in expected.items():
        if settings.get(key) != value:
            raise CheckFailed(f"recipe setting {key} = {settings.get(key)!r}, expected {value!r}")
    if not settings.get("cmake.define.Python_LIBRARY", "").endswith(
        f"libpython{python.link_version}.so"
    ):
        raise CheckFailed(f"recipe links {settings.get('cmake.define.Python_LIBRARY')}")
    if PAGE_ALIGN_LDFLAGS not in envs[0].get("LDFLAGS", ""):
        raise CheckFailed(f"the recipe links without {PAGE_ALIGN_LDFLAGS} (16 KB pages)")
    if len(installed) != 1 or len(installed[0]) != 1:
        raise CheckFailed(f"the recipe installed {installed}")
    return recorded[0]


def main(argv: list[str] | None = None) -> int:
    """Run the three checks; print what was checked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    opts = parser.parse_args(argv)
    root = opts.root.resolve()
    with tempfile.TemporaryDirectory(prefix="blu21-android-check-") as tmp:
        work = Path(tmp)
        try:
            command, android_api = buildozer_p4a_command(root, work / "storage")
            args, build_args, build = p4a_parse(command, work)
            print(f"p4a command from buildozer.spec parses ({len(command)} arguments)")
            manifest = render_manifest(build, build_args, android_api, work)
            documented = documented_entries((root / "docs" / "android.md").read_text())
            check_manifest(manifest, documented)
            print(f"manifest: the {len(documented)} entries of docs/android.md, no INTERNET")
            check_application(manifest)
            print(f"manifest: targetSdkVersion {TARGET_SDK}, back key opted out of predictive back")
            wheel = check_recipe(root, args.local_recipes or "recipes", work)
            print(f"recipe: build steps ran against the stand-in NDK ({' '.join(wheel[:5])} ...)")
            check_service(root, command, root / "build" / "android" / "blu21-table-service.aar")
            print(f"service: {SERVICE_CLASS} (connectedDevice, the app's process) in the build")
        except CheckFailed as exc:
            print(f"android build check FAILED: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
