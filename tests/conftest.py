"""Shared test set-up. Tests import the installed package with its built extensions."""

import os

from hypothesis import HealthCheck, settings

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
