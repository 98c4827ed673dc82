"""Representative states for ``blu21 screenshot`` (and the render-every-screen test)."""

from __future__ import annotations

from collections.abc import Callable

DEMOS: dict[str, Callable] = {}


def demo(name: str) -> Callable[[Callable], Callable]:
    def register(func: Callable) -> Callable:
        DEMOS[name] = func
        return func

    return register
