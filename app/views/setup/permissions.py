"""The Bluetooth set-up screen: permissions, Bluetooth's switch, visibility, in turn.

Shown on Android when the player is about to host or join and something is missing
(:func:`ensure_bluetooth`); each step explains why in the player's language and has one
button that asks Android, a way around where there is one (paired phones only) and the
way back. A refusal is answered with the reason and, since Android stops asking after two
refusals, the app's settings page. The steps come from :mod:`app.table.readiness`,
the actions from :class:`app.views.setup.bluetooth.BluetoothSetup`. The phone is read again
whenever the app comes back to the front (the player may have changed a setting).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.lang import Builder
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty

from app.i18n import N_, _
from app.table.readiness import Step
from app.views.base import BaseScreen
from app.views.setup.bluetooth import BluetoothSetup

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

_NO_ADAPTER = N_(
    "This phone has no Bluetooth, so it cannot play at a table. "
    "You can still practise against bots."
)
#: step code -> (text for a host, text for a guest); the button texts below
_TEXTS: dict[str, tuple[str, str]] = {
    "no_adapter": (_NO_ADAPTER, _NO_ADAPTER),
    "permissions": (
        N_(
            "To open a table, allow blu21 to find and connect to nearby devices. "
            "Bluetooth is used only to play with the phones at your table; "
            "the app has no internet access."
        ),
        N_(
            "To join a table, allow blu21 to find and connect to nearby devices. "
            "Bluetooth is used only to play with the phones at your table; "
            "the app has no internet access."
        ),
    ),
    "bluetooth_off": (
        N_("Bluetooth is off. Turn it on to open a table."),
        N_("Bluetooth is off. Turn it on to join a table."),
    ),
    "visibility": (
        N_(
            "Let the other players' phones find yours: Android asks to make this phone "
            "visible for 5 minutes. Phones that have paired with yours can join without it."
        ),
        "",
    ),
    "search_permission": (
        "",
        N_(
            "To search for tables nearby, allow blu21 to find nearby devices. "
            "Without it you can still join a phone you have paired with."
        ),
    ),
    "location_off": (
        "",
        N_(
            "On this version of Android the search finds nothing while Location is off. "
            "Turn Location on, or join a phone you have paired with."
        ),
    ),
}
_RETRY = N_(
    "Without this permission blu21 cannot use Bluetooth. If Android no longer asks, "
    "allow \u201cNearby devices\u201d (or Location) in the app's settings."
)
_STILL_OFF = N_("Bluetooth is still off.")
_BUTTONS: dict[str, str] = {
    "permissions": N_("Allow"),
    "search_permission": N_("Allow"),
    "bluetooth_off": N_("Turn Bluetooth on"),
    "visibility": N_("Make this phone visible"),
    "location_off": N_("Open the Location settings"),
}


def step_texts(step: Step, purpose: str, enable_refused: bool = False) -> dict[str, str]:
    """The translated texts of a step: explanation, main button, skip button."""
    text = (
        _(_TEXTS.get(step.code, ("", ""))[0 if purpose == "host" else 1])
        if step.code in _TEXTS
        else ""
    )
    if step.retry:
        text = _(_RETRY) + "\n\n" + text
    if step.code == "bluetooth_off" and enable_refused:
        text = _(_STILL_OFF) + " " + text
    action = _BUTTONS.get(step.code, "")
    if step.retry and action:
        action = N_("Ask again")
    return {
        "text": text,
        "action": _(action) if action else "",
        "skip": _("Only phones paired with mine") if step.can_skip else "",
    }


class BluetoothSetupScreen(BaseScreen):
    """One step of the set-up; ``setup`` is the flow, ``then`` runs when it is done."""

    title = StringProperty(N_("Bluetooth"))
    up = StringProperty("oczko_menu")
    setup = ObjectProperty(None, allownone=True)
    then = ObjectProperty(None, allownone=True)
    text = StringProperty("")
    action = StringProperty("")
    skip_text = StringProperty("")
    retry = BooleanProperty(False)
    busy = BooleanProperty(False)

    def on_enter(self, *_args: Any) -> None:
        self.app.bind(on_resume=self._resumed)

    def on_leave(self, *_args: Any) -> None:
        self.app.unbind(on_resume=self._resumed)

    def _resumed(self, *_args: Any) -> None:
        self.refresh()  # a setting may have changed while the app was away

    def refresh(self) -> None:
        setup = self.setup
        if setup is None:
            # opened where there is nothing to set up (a desktop): say what it is for
            self.text = _(
                "Bluetooth set-up: on a phone, this screen asks for the Bluetooth "
                "permissions and turns Bluetooth on, so that phones at the table find "
                "each other. It needs a phone. On this computer tables are joined by "
                "address: there is nothing to set up here."
            )
            self.action = self.skip_text = ""
            self.retry = self.busy = False
            return
        step = setup.step()
        if step.code == "ready":
            then, self.then = self.then, None
            if then is not None and self.manager is not None and self.manager.current == self.name:
                then()
            return
        texts = step_texts(step, setup.purpose, setup.enable_refused)
        self.text, self.action, self.skip_text = texts["text"], texts["action"], texts["skip"]
        self.retry = step.retry
        self.busy = setup.busy

    def act(self) -> None:
        if self.setup is not None:
            self.setup.act()

    def skip(self) -> None:
        if self.setup is not None:
            self.setup.skip()

    def open_app_settings(self) -> None:
        if self.setup is not None:
            self.setup.open_app_settings()


def ensure_bluetooth(app: Any, purpose: str, then: Callable[[Any], None]) -> None:
    """Run ``then(setup)`` once the phone is ready to ``purpose`` ("host" or "join"),
    through the set-up screen if something is missing; at once with ``setup=None`` when
    the app's table service needs no set-up (TCP on the desktop)."""
    service = app.service
    if not service.bluetooth:
        then(None)
        return
    # The service's one transport for the app's life: it binds the activity's results.
    origin = app.sm.current
    screen = app.screen("bt_setup")
    setup = BluetoothSetup(service.transport(), purpose, on_change=screen.refresh)
    if setup.step().code == "ready":
        then(setup)
        return

    def done() -> None:
        app.go(origin, remember=False)
        then(setup)

    app.go("bt_setup", setup=setup, then=done, up=origin)
