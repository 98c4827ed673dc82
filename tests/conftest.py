"""Shared test set-up. Tests import the installed package with its built extensions."""

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

# -- parallel workers (pytest-xdist, README "Tests") -------------------------------------------
# Each worker gets a Kivy home and user folders of its own (Kivy writes its config.ini there
# on import; the app its prefs and history): two workers never share one. Tests use
# tmp_path and port 0 for the rest.
if os.environ.get("PYTEST_XDIST_WORKER"):
    _home = tempfile.mkdtemp(prefix=f"blu21-{os.environ['PYTEST_XDIST_WORKER']}-")
    atexit.register(shutil.rmtree, _home, True)
    for _var in ("KIVY_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        os.environ[_var] = os.path.join(_home, _var.lower())

settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=50, deadline=None)
# Under emulation (tools/cross-test.sh): the same examples on every run, fewer than on the host.
settings.register_profile(
    "cross",
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(
    os.environ.get("BLU21_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)

# The terminal tables keep their rounds in the data folder (issue 31): the `blu21 table` and
# `blu21 casino` processes the tests start (they inherit this environment) must not write
# into the developer's own hand history. A test that wants a HOME's folder sets its own.
if not os.environ.get("BLU21_DATA_DIR"):
    _data = tempfile.mkdtemp(prefix="blu21-tests-data-")
    os.environ["BLU21_DATA_DIR"] = _data
    atexit.register(shutil.rmtree, _data, True)


# -- tiers (issue 34) -----------------------------------------------------------------------
# Every test carries one tier marker, from its module's name, so a maintainer runs the part
# he touches: `pytest -m unit` in seconds, `pytest -m "net or unit"` for the table, and so
# on (README, "Tests"). The README's plain `pytest` still runs every tier, as CI does.
#: tier -> module name prefixes (first match wins; everything else is ``unit``)
TIERS: dict[str, tuple[str, ...]] = {
    "cross": ("test_armcount", "test_sra_consttime"),
    "install": ("test_install", "test_build", "test_native_stubs", "test_collection"),
    "android": (
        "test_transport_android",
        "test_history_android",
        "test_android_build_check",
        "test_arm_android",
        "test_views_permissions",
    ),
    "gui": (
        "test_app_",
        "test_views_",
        "test_screenshot_states",
        "test_kivy_driver",
        "test_newcomer_screens",
        "test_oczko_crowded",
        "test_turn_reaches",
        "test_casino_turn_reaches",
        "test_between_rounds",
        "test_bluetooth_readiness",
    ),
    "referee": (
        "test_strategy_referee",
        "test_resplit_referee",
        "test_handeval_analysis",
        "test_networked_edge",
        "test_networked_money",
    ),
    "net": (
        "test_table_",
        "test_casino_",
        "test_transport_",
        "test_oczko_rejoin",
        "test_oczko_hidden",
        "test_sra_shoe",
        "test_cli_edges",
        "test_history_kill",
        "test_layering",
    ),
}


def tier_of(module: str) -> str:
    """The tier of a test module by its name (``unit`` unless listed in :data:`TIERS`)."""
    for tier, prefixes in TIERS.items():
        if module.startswith(prefixes):
            return tier
    return "unit"


#: the longest modules first, then by tier: with parallel workers (``-n auto --dist
#: loadfile``, README "Tests") a long module started last would leave one core idle while
#: the other finishes it; the many short unit modules fill the gaps at the end
LONGEST = (
    "test_screenshot_states",
    "test_app_layout",
    "test_install",
    "test_app_casino",
    "test_app_kivy",
    "test_app_casino_live",
)
ORDER = ("gui", "install", "net", "android", "referee", "cross", "unit")


def _rank(item: pytest.Item) -> tuple[int, int]:
    stem = item.path.stem
    first = LONGEST.index(stem) if stem in LONGEST else len(LONGEST)
    return first, ORDER.index(tier_of(stem))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tiers = {"unit", *TIERS}
    for item in items:
        # (a case may name its own tier, e.g. a real-size group in a unit module: the
        # module's tier then is not added, so `-m unit` leaves it out)
        if not any(m.name in tiers for m in item.iter_markers()):
            item.add_marker(getattr(pytest.mark, tier_of(item.path.stem)))
    items.sort(key=_rank)  # (stable: a module's tests stay together and in order)
