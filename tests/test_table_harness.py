"""The malicious-phone harness in CI (issue 13): fixed seeds plus two fresh ones,
printed so a failure can be replayed. ``BLU21_HARNESS=N`` runs N fresh sessions more
(e.g. ``BLU21_HARNESS=2000 pytest tests/test_table_harness.py -q -s``)."""

from __future__ import annotations

import os

import pytest
from malicious import seeds, session

FIXED = list(range(1, 61))  # about a minute on the toy group
SEEDS = seeds(FIXED, 2 + int(os.environ.get("BLU21_HARNESS", "0")))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_deviating_guest_never_wins_and_never_gets_the_honest_named(seed: int) -> None:
    print(session(seed))
