"""The screen base class and the lazy screen registry."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from app.prefs import Prefs
from app.views.registry import SCREENS

if TYPE_CHECKING:
    from app.branding import Branding
    from app.table.service import TableService


class ScreenApp(Protocol):
    """What the screens use of the running app (:class:`app.views.app.Blu21App`)."""

    prefs: Prefs
    #: per-game controllers, created by the game screens and kept across screens
    controllers: dict[str, Any]
    branding: Branding | None

    @property
    def data_dir(self) -> Path: ...

    @property
    def service(self) -> TableService: ...

    def return_to(self, name: str) -> Any: ...

    def update_prefs(self, **changes: Any) -> None: ...

    # Any: a screen's class follows from its name (app.views.registry.SCREENS), which
    # mypy cannot see; :func:`screen_class` checks that every one is a BaseScreen.
    def screen(self, name: str) -> Any: ...

    def go(self, name: str, remember: bool = True, **state: Any) -> Any: ...

    def notify(self, text: str, seconds: float = 3.5, top: bool = False) -> None: ...

    def with_name(self, then: Callable[[], object]) -> None: ...

    def confirm(self, message: str, on_answer: Callable[[bool], object]) -> Any: ...

    def bind(self, **handlers: Callable[..., object]) -> None: ...

    def unbind(self, **handlers: Callable[..., object]) -> None: ...


def screen_class(name: str) -> type[BaseScreen]:
    """Import and return the class of screen ``name`` (KeyError for unknown names)."""
    module_name, cls_name = SCREENS[name].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    if not (isinstance(cls, type) and issubclass(cls, BaseScreen)):
        raise TypeError(f"{SCREENS[name]} is not a screen class")
    return cls


class BaseScreen(Screen):
    """A screen: ``title`` is an untranslated msgid; ``refresh()`` re-renders from state.

    ``refresh`` is called before the screen is shown and after a language switch, so
    text built in Python (not in kv) follows the language too.
    """

    title = StringProperty("")
    #: where the back button / gesture goes
    up = StringProperty("home")

    def game_in_progress(self) -> bool:
        """True while leaving this screen would lose a game (the app asks first)."""
        return False

    def leave_question(self) -> str:
        """What the app asks before leaving a game in progress on this screen."""
        from app.i18n import _

        return _("Leave the game? The game in progress will be lost.")

    def can_return(self) -> bool:
        """False when going back to this screen would show something stale (a table
        that was left, a finished game): back then goes further up."""
        return True

    @property
    def app(self) -> ScreenApp:
        """The running app."""
        running: ScreenApp = App.get_running_app()
        return running

    def refresh(self) -> None:
        """Re-render Python-built content (override)."""

    def on_pre_enter(self, *_args: object) -> None:
        self.refresh()
