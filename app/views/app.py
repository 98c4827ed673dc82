"""The Kivy application: preferences, branding, language, lazy screens, navigation."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import NoTransition, SlideTransition

from app import i18n
from app.branding import load_branding
from app.i18n.codes import message_for
from app.prefs import Prefs, load_prefs, make_data_dir, platform_data_dir, save_prefs
from app.views.base import BaseScreen, screen_class
from app.views.theme import theme

if TYPE_CHECKING:
    from app.table.service import TableService

log = logging.getLogger(__name__)
KV_DIR = Path(__file__).parent


class Root(BoxLayout):
    """Top bar + screen manager (see common.kv)."""


class Toast(Label):
    """A short message at the bottom of the screen."""


class ConfirmDialog(ModalView):
    """A yes/no question; ``on_answer(bool)`` is called once."""

    message = StringProperty("")
    yes_text = StringProperty("")
    no_text = StringProperty("")

    def __init__(self, on_answer: Callable[[bool], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._on_answer = on_answer

    def answer(self, yes: bool) -> None:
        self.dismiss(animation=False)  # at once: no fade to wait for on a slow phone
        self._on_answer(yes)


class NameDialog(ModalView):
    """Asks the player's name the first time he sits at a table; ``on_name(name)`` is
    called with the name (already saved) when he confirms."""

    #: why OK did nothing ('' until then)
    problem = StringProperty("")

    def __init__(self, on_name: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._on_name = on_name

    def confirm(self) -> None:
        name = " ".join(self.ids.name.text.split())[:24]
        if not name:
            # say why nothing happens (OK with an empty field)
            self.problem = i18n._("Please type a name first.")
            self.ids.name.focus = True
            return
        self.dismiss(animation=False)
        self._on_name(name)


class Blu21App(App):
    """The app. ``data_dir`` (else the platform's user data dir) holds prefs.json;
    ``service`` opens and finds networked tables (else the platform's, built on first
    use: Bluetooth on Android, TCP elsewhere; tests pass one over fake transports)."""

    title_msgid = StringProperty("")
    venue_name = StringProperty("blu21")
    lang = StringProperty(i18n.DEFAULT_LANGUAGE)
    can_go_back = BooleanProperty(False)
    branding = ObjectProperty(None, allownone=True)

    def __init__(
        self,
        data_dir: str | Path | None = None,
        language: str | None = None,
        first_screen: str = "home",
        service: TableService | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.title = "blu21"
        self._data_dir = Path(data_dir) if data_dir else None
        self._language_override = language
        self._first_screen = first_screen
        self._service = service
        self.prefs = Prefs()
        self.prefs_warning: str | None = None
        self.root_widget: Root | None = None
        self.history: list[str] = []
        #: per-game controllers (created by the game screens, kept across screens)
        self.controllers: dict[str, Any] = {}
        self._toast: Toast | None = None
        self.dialog: ConfirmDialog | None = None

    # -- start-up: only what the first screen needs; the rest loads lazily ------------
    @property
    def data_dir(self) -> Path:
        if self._data_dir is None:
            self._data_dir = Path(os.environ.get("BLU21_DATA_DIR") or self.user_data_dir)
        return self._data_dir

    def _get_user_data_dir(self) -> str:
        """Kivy's ``user_data_dir``, made with its parents on a desktop (Kivy makes only
        the last folder: the first start failed where ``~/.config`` did not exist), and
        named "blu21" whatever the app class is called."""
        from kivy.utils import platform

        if platform in ("android", "ios"):
            return str(super()._get_user_data_dir())
        return str(make_data_dir(platform_data_dir()))

    @property
    def service(self) -> TableService:
        """The one table service of the app (the screens receive it from here)."""
        if self._service is None:
            from app.table.service import platform_service
            from app.views.setup.device import on_android

            self._service = platform_service(android=on_android())
        return self._service

    @service.setter
    def service(self, service: TableService) -> None:
        self._service = service

    def build(self) -> Root:
        self.prefs, self.prefs_warning = load_prefs(self.data_dir)
        self.branding = load_branding(self.data_dir)
        theme.apply_branding(self.branding)
        if self.branding:
            self.venue_name = self.branding.name
        theme.apply_prefs(self.prefs)
        self.apply_language(self._language_override or self.prefs.language)
        self._pad_for_system_bars()
        Builder.load_file(str(KV_DIR / "common.kv"))
        self.root_widget = Root()
        self.go(self._first_screen, remember=False)
        Window.bind(on_keyboard=self._on_key)
        Window.softinput_mode = "below_target"  # the keyboard never hides the name field
        return self.root_widget

    def on_start(self) -> None:
        from app.history.live import start_recording
        from app.views.setup.device import prepare

        prepare()  # Java classes looked up on the main thread (issue 22)
        start_recording(self)  # hand history in data_dir (issue 20)
        # a networked table's turn reaches the player on any screen (issue 37, item 1)
        # (when a table pushes an update: app/views/table/turn_watch.py)
        from app.views.table.turn_watch import on_table_update

        on_table_update(self.watch_turns)
        if self.prefs_warning:
            Clock.schedule_once(lambda _dt: self.notify(message_for(self.prefs_warning)), 0)

    def _pad_for_system_bars(self) -> None:
        """Edge-to-edge on Android 15: keep content clear of the status/navigation bars."""
        if "ANDROID_ARGUMENT" in os.environ:
            from kivy.metrics import dp

            from app.views.setup.device import system_bar_insets

            insets = system_bar_insets()
            theme.inset_top, theme.inset_bottom = insets or (dp(24), dp(48))

    # -- language ----------------------------------------------------------------------
    def apply_language(self, choice: str) -> str:
        """Use ``choice`` ("auto" = the device language); screens re-render live."""
        lang = i18n.detect_language() if choice in ("auto", "", None) else choice
        lang = i18n.set_language(lang)
        self.lang = lang
        if self.root_widget is not None:
            for screen in self.sm.screens:
                if isinstance(screen, BaseScreen):
                    screen.refresh()
        return lang

    @property
    def language_choice(self) -> str:
        """The language setting in force: the one given at start (``--lang``) until the
        player chooses one in the settings, else the saved one ("auto": the device's)."""
        override = self._language_override
        if override and override != "auto":
            return override
        return self.prefs.language

    # -- preferences -------------------------------------------------------------------
    def update_prefs(self, **changes: Any) -> None:
        """Apply and save preference changes (a failed save is shown, not raised)."""
        self.prefs = self.prefs.replace(**changes)
        if "language" in changes:
            self._language_override = None  # the player's choice from now on
            self.apply_language(self.prefs.language)
        theme.apply_prefs(self.prefs)
        try:
            save_prefs(self.data_dir, self.prefs)
        except OSError as exc:
            log.warning("cannot save preferences: %s", exc)
            self.notify(message_for("prefs_save_failed"))

    # -- navigation --------------------------------------------------------------------
    @property
    def sm(self) -> Any:
        """The screen manager (built in :meth:`build`)."""
        assert self.root_widget is not None, "the app is not built yet"
        return self.root_widget.ids.sm

    def screen(self, name: str) -> BaseScreen:
        """The screen ``name``, created on first use."""
        if not self.sm.has_screen(name):
            self.sm.add_widget(screen_class(name)(name=name))
        screen: BaseScreen = self.sm.get_screen(name)
        return screen

    def go(self, name: str, remember: bool = True, **state: Any) -> BaseScreen:
        """Show screen ``name`` (``state`` is set on it first)."""
        screen = self.screen(name)
        for key, value in state.items():
            setattr(screen, key, value)
        current = self.sm.current if self.sm.screens and self.sm.current else None
        if remember and current and current != name:
            self.history.append(current)
        speed = self.prefs.animation_speed
        self.sm.transition = (
            NoTransition()
            if speed == "off" or current is None
            else SlideTransition(duration={"fast": 0.12, "normal": 0.22, "slow": 0.4}[speed])
        )
        if current == name:
            screen.refresh()
        self.sm.current = name
        self.title_msgid = screen.title
        self.can_go_back = name != "home"
        return screen

    def watch_turns(self, _dt: float = 0) -> str | None:
        """Bring the player back to a networked table that waits for his decision
        while he is on another screen (the rules, the settings, a round's fairness
        record): his turn and its clock are on the table screen, and he is told so.
        Returns the table screen he was brought to (None: nothing to do)."""
        if self.root_widget is None:
            return None
        from app.views.table.turn_watch import waiting_table

        target = waiting_table(self.controllers)
        if target is None or self.sm.current == target:
            return None
        if self.dialog is not None and self.dialog._is_open:
            if isinstance(self.dialog, ConfirmDialog):
                self.dialog.answer(False)  # a question asked elsewhere: not now
            else:
                self.dialog.dismiss(animation=False)
        self.return_to(target)
        # (at the top: the decision's buttons at the bottom stay clear)
        self.notify(i18n._("Your turn! Back at the table."), top=True)
        return target

    def return_to(self, name: str) -> BaseScreen:
        """Show ``name`` as if the player had gone back to it: the screens he passed
        after it are forgotten (after 'Leave the table', back goes on from the menu,
        not into the left table's lobby nor the screens that led to it)."""
        if name in self.history:
            del self.history[len(self.history) - 1 - self.history[::-1].index(name) :]
        return self.go(name, remember=False)

    def back(self, force: bool = False) -> None:
        """Go up one screen; asks first when that would leave a game in progress."""
        current = self.sm.get_screen(self.sm.current)
        if current.game_in_progress() and not force:
            self.confirm(
                current.leave_question(),
                lambda yes: self.back(force=True) if yes else None,
            )
            return
        if hasattr(current, "leave"):
            current.leave()
        target = self.history.pop() if self.history else current.up
        while target != "home" and not self.screen(target).can_return():
            target = self.history.pop() if self.history else self.screen(target).up
        self.go(target, remember=False)

    def _on_key(self, _window: Any, key: int, *_args: Any) -> bool:
        if key == 27:  # Android back gesture / Escape
            if self.dialog is not None and self.dialog._is_open:
                if isinstance(self.dialog, ConfirmDialog):
                    self.dialog.answer(False)  # back closes an open question first
                else:
                    self.dialog.dismiss(animation=False)
                return True
            if self.sm.current == "home":
                return False  # let Android close the app
            self.back()
            return True
        return False

    # -- messages ----------------------------------------------------------------------
    def notify(self, text: str, seconds: float = 3.5, top: bool = False) -> None:
        """Show ``text`` briefly at the bottom of the screen (``top``: under the top
        bar, clear of the buttons at the bottom)."""
        if self._toast is not None and self._toast.parent:
            self._toast.parent.remove_widget(self._toast)
        self._toast = Toast(text=text)
        if top:
            self._toast.pos_hint = {"center_x": 0.5, "top": 0.86}
        Window.add_widget(self._toast)
        toast = self._toast
        Clock.schedule_once(lambda _dt: toast.parent and toast.parent.remove_widget(toast), seconds)

    def with_name(self, then: Callable[[], None]) -> None:
        """Run ``then()`` once the player has a name: asked (and kept) on first use, so
        other phones never see a placeholder and texts can address him by name."""
        if self.prefs.player_name.strip():
            then()
            return

        def named(name: str) -> None:
            self.update_prefs(player_name=name)
            then()

        self.dialog = NameDialog(named)
        self.dialog.open()

    def confirm(self, message: str, on_answer: Callable[[bool], Any]) -> ConfirmDialog:
        """Ask a yes/no question."""
        self.dialog = ConfirmDialog(
            on_answer, message=message, yes_text=i18n._("Yes"), no_text=i18n._("No")
        )
        self.dialog.open()
        return self.dialog
