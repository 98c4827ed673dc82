"""The screen base class and the lazy screen registry."""

from __future__ import annotations

import importlib

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from app.views.registry import SCREENS


def screen_class(name: str) -> type[Screen]:
    """Import and return the class of screen ``name`` (KeyError for unknown names)."""
    module_name, cls_name = SCREENS[name].split(":")
    return getattr(importlib.import_module(module_name), cls_name)


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

    def can_return(self) -> bool:
        """False when going back to this screen would show something stale (a table
        that was left, a finished game): back then goes further up."""
        return True

    @property
    def app(self):
        return App.get_running_app()

    def refresh(self) -> None:
        """Re-render Python-built content (override)."""

    def on_pre_enter(self, *_args) -> None:
        self.refresh()
