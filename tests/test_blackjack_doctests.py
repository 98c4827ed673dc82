"""The usage examples in the blackjack modules' docstrings stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "app.rules.money",
    "app.rules.table_rules",
    "app.rules.shoe",
    "app.rules.blackjack_settle",
    "app.rules.blackjack",
    "app.rules.session",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
