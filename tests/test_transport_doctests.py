"""The usage examples in the transport modules' docstrings (and in the shared errors and
the table messages) run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "app.bluetooth.framing",
    "app.bluetooth.link",
    "app.bluetooth.tcp",
    "app.bluetooth.rfcomm",
    "app.bluetooth.ids",
    "app.bluetooth.android",
    "app.bluetooth.readiness",
    "app.errors",
    "app.table.messages",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no usage example"
