"""A networked table's turn reaches the player wherever he is in the app.

A networked table runs on its own thread while the player reads the rules, the
settings or a round's fairness record; when its clock starts for his decision (the
Oczko turn, the casino table's decision) the app brings him back to the table screen
(:meth:`app.views.app.Blu21App.watch_turns`), where the turn alert sounds and the
countdown shows. The app looks when a table pushes an update (:func:`table_updated`,
called on the UI thread by every networked table's bridge; nothing polls). No Kivy
import: the tests read it headless.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: controller key -> the screen of its table
TABLE_SCREENS = (("oczko", "oczko_table"), ("casino", "casino_table"))


def waiting_table(controllers: Mapping[str, Any]) -> str | None:
    """The table screen whose networked table waits for this player's decision now
    (None: no table waits for him). A practice match runs only while its screen is
    shown, so only networked tables count."""
    for key, screen in TABLE_SCREENS:
        controller = controllers.get(key)
        if controller is None:
            continue
        waits = getattr(controller, "my_turn_waits", None)
        if waits is not None and waits():
            return screen
    return None


#: who looks when a table's state changes (the app's :meth:`watch_turns`)
_WATCHERS: list[Callable[[], object]] = []


def on_table_update(watcher: Callable[[], object]) -> Callable[[], None]:
    """Call ``watcher()`` after every update a networked table pushes to the UI
    thread; returns the function that stops it."""
    _WATCHERS.append(watcher)

    def stop() -> None:
        if watcher in _WATCHERS:
            _WATCHERS.remove(watcher)

    return stop


def table_updated() -> None:
    """A networked table pushed an update (UI thread): the watchers look."""
    for watcher in tuple(_WATCHERS):
        watcher()
