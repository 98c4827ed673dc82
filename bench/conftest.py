"""pytest-benchmark runs under bench/ are kept: each run's JSON goes to .benchmarks/ as with
--benchmark-autosave (named for the commit and time), where tools/bench_report.py draws their
history."""

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "benchmark_autosave", "absent") is None:
        from pytest_benchmark.utils import get_tag

        config.option.benchmark_autosave = get_tag()
