"""python-for-android recipe for blu21: the ``app`` package with its native core.

Builds this checkout (not a download) into a wheel with scikit-build-core, exactly like the
desktop build, but with CMake cross-compiling through the NDK's own toolchain file
(``build/cmake/android.toolchain.cmake``) against p4a's target Python. Cython runs on the
build host, so it is a host prerequisite, not a target requirement. The extension modules
are linked against ``libpython3.X.so``, which Android requires (CMakeLists.txt does that
when ``ANDROID`` is set and this recipe passes ``Python_LIBRARY``).

Used through buildozer.spec (``p4a.local_recipes = ./recipes``, ``requirements = ...,blu21``);
see docs/android.md.
"""

from __future__ import annotations

import glob
import io
import re
import shutil
import zipfile
from os.path import dirname, isdir, join
from pathlib import Path
from typing import ClassVar

import sh
from pythonforandroid.logger import info, shprint, warning
from pythonforandroid.recipe import PyProjectRecipe, Recipe
from pythonforandroid.util import current_directory, ensure_dir, rmdir

# What a wheel build needs from the checkout: not build/, tests/, recipes/, ...
SOURCE_ITEMS = ("pyproject.toml", "CMakeLists.txt", "README.md", "app", "native")
#: 16 KB pages (Android 15+ devices; Play requires it): every module is linked this way
PAGE_ALIGN_LDFLAGS = "-Wl,-z,max-page-size=16384"
#: The library whose manifest declares the table's foreground service (buildozer.spec:
#: android.add_aars); written by this recipe, packaged by python-for-android afterwards.
SERVICE_AAR = join("build", "android", "blu21-table-service.aar")
#: its manifest, in the recipe's directory
SERVICE_MANIFEST = join("service", "AndroidManifest.xml")
EXT_SUFFIX_RE = re.compile(r"""['"]EXT_SUFFIX['"]\s*:\s*['"]([^'"]+)['"]""")


def service_aar_bytes(manifest: bytes) -> bytes:
    """An Android library (AAR) holding only ``manifest`` (and the empty ``classes.jar``
    and ``R.txt`` an AAR must have): Gradle's manifest merger puts its ``<service>`` into
    the app's ``<application>``. The service's class is compiled from recipes/blu21/java
    (android.add_src). Deterministic: the same bytes for the same manifest.

    >>> import io, zipfile
    >>> names = zipfile.ZipFile(io.BytesIO(service_aar_bytes(b"<manifest/>"))).namelist()
    >>> sorted(names)
    ['AndroidManifest.xml', 'R.txt', 'classes.jar']
    """

    def pack(files: dict[str, bytes]) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in files.items():
                z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
        return out.getvalue()

    jar = pack({"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\r\n\r\n"})
    return pack({"AndroidManifest.xml": manifest, "classes.jar": jar, "R.txt": b""})


def soabi_from_sysconfigdata(text: str) -> str | None:
    """The SOABI in the text of a target ``_sysconfigdata_*.py`` file (None if absent).

    >>> soabi_from_sysconfigdata("{'EXT_SUFFIX': '.cpython-314-aarch64-linux-android.so'}")
    'cpython-314-aarch64-linux-android'
    """
    m = EXT_SUFFIX_RE.search(text)
    if m and m.group(1).endswith(".so"):
        return m.group(1)[: -len(".so")].lstrip(".")
    return None


class Blu21Recipe(PyProjectRecipe):
    """The blu21 ``app`` package (pure Python plus app.native.sra / app.native.handeval)."""

    name = "blu21"
    version = None
    url = None  # built from the checkout this recipe lives in
    site_packages_name = "app"
    depends: ClassVar[list[str]] = ["python3"]
    # Installed into p4a's host Python; the wheel is built without isolation so these are
    # the build requirements (keep in step with [build-system] in pyproject.toml). Cython
    # 3.1 is the first release that supports CPython 3.14, which p4a ships.
    hostpython_prerequisites: ClassVar[list[str]] = [
        "scikit-build-core>=0.10",
        "cython>=3.1",
        "cmake>=3.22",
        "ninja",
    ]

    @property
    def project_root(self) -> str:
        """The checkout: recipes/blu21/ is two levels below it."""
        return dirname(dirname(self.get_recipe_dir()))

    def prepare_build_dir(self, arch: str) -> None:
        """Copy the sources of the wheel (only those) from the checkout."""
        build_dir = self.get_build_dir(arch)
        rmdir(build_dir)
        ensure_dir(build_dir)
        ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
        for item in SOURCE_ITEMS:
            src = join(self.project_root, item)
            if isdir(src):
                shutil.copytree(src, join(build_dir, item), ignore=ignore)
            else:
                shutil.copy2(src, build_dir)

    def should_build(self, arch) -> bool:
        # The source is the working tree, which changes between builds: always rebuild
        # (it takes seconds; prepare_build_dir starts from an empty build dir, so CMake's
        # build tree in it is made afresh every time).
        return True

    def target_soabi(self, arch) -> str:
        """SOABI of p4a's target Python, read from its _sysconfigdata; '' means plain ``.so``."""
        python = Recipe.get_recipe("python3", self.ctx)
        found = sorted(
            glob.glob(
                join(python.link_root(arch.arch), "**", "_sysconfigdata_*.py"), recursive=True
            )
        )
        for path in found:
            with open(path, encoding="utf-8") as f:
                soabi = soabi_from_sysconfigdata(f.read())
            if soabi is not None:
                info(f"blu21: target SOABI {soabi} (from {path})")
                return soabi
        # A bare .so is accepted by every CPython; only the name gets less specific.
        warning("blu21: no target _sysconfigdata found; extension modules end in .so")
        return ""

    def cmake_config_settings(self, arch) -> list[str]:
        """scikit-build-core config settings for cross-compiling with the NDK."""
        python = Recipe.get_recipe("python3", self.ctx)
        libpython = join(python.link_root(arch.arch), f"libpython{python.link_version}.so")
        settings = {
            "cmake.toolchain-file": join(
                self.ctx.ndk_dir, "build", "cmake", "android.toolchain.cmake"
            ),
            # The host interpreter's include dirs and SOABI must not reach FindPython.
            "cmake.python-hints": "false",
            "cmake.define.ANDROID_ABI": arch.arch,
            "cmake.define.ANDROID_PLATFORM": f"android-{self.ctx.ndk_api}",
            "cmake.define.Python_INCLUDE_DIR": python.include_root(arch.arch),
            "cmake.define.Python_LIBRARY": libpython,
            # the NDK's own switch for 16 KB pages (r27+; the default from r28)
            "cmake.define.ANDROID_SUPPORT_FLEXIBLE_PAGE_SIZES": "ON",
            "build-dir": join(self.get_build_dir(arch.arch), "p4a_cmake_build"),
        }
        soabi = self.target_soabi(arch)
        if soabi:
            settings["cmake.define.Python_SOABI"] = soabi
        return [f"--config-setting={key}={value}" for key, value in settings.items()]

    def build_arch(self, arch) -> None:
        """Build the wheel with the NDK toolchain and unpack it into the target Python."""
        self.install_hostpython_prerequisites(
            packages=["build", "pip", *self.hostpython_prerequisites]
        )
        env = self.get_recipe_env(arch, with_flags_in_cc=False)
        # The NDK toolchain file sets compiler, target and flags; p4a's autotools-style
        # variables (CC with flags, -lpython in LDFLAGS, ...) would only fight it.
        for var in ("CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED"):
            env.pop(var, None)
        # Google Play: arm64 libraries of apps targeting Android 15+ must be 16 KB
        # page-aligned. CMake adds LDFLAGS to the NDK toolchain's own linker flags.
        env["LDFLAGS"] = PAGE_ALIGN_LDFLAGS
        # The wheel's platform tag (install_wheel re-tags it the same way).
        env["_PYTHON_HOST_PLATFORM"] = self.get_wheel_platform_tag(arch.arch)
        build_dir = self.get_build_dir(arch.arch)
        with current_directory(build_dir):
            rmdir("dist")
            shprint(
                sh.Command(self.real_hostpython_location),
                "-m",
                "build",
                "--wheel",
                "--no-isolation",
                *self.cmake_config_settings(arch),
                _env=env,
            )
            wheels = [join(build_dir, w) for w in glob.glob("dist/*.whl")]
        info(f"blu21: built {wheels}")
        self.install_wheel(arch, wheels)
        self.write_service_aar()

    def write_service_aar(self) -> str:
        """Write the service's library (:data:`SERVICE_AAR`, under the checkout); its path."""
        manifest = Path(self.get_recipe_dir(), SERVICE_MANIFEST).read_bytes()
        path = Path(self.project_root, SERVICE_AAR)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(service_aar_bytes(manifest))
        info(f"blu21: wrote {path}")
        return str(path)


recipe = Blu21Recipe()
