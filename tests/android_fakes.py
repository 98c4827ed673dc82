"""python-for-android's ``android.*`` modules for the JVM tests, over the Java stand-ins.

On a phone these modules come with the APK (pythonforandroid/recipes/android/src/android);
here they are small copies that call the same stand-in Java methods p4a's versions call
(``PythonActivity.requestPermissionsWithRequestCode``, ``addPermissionsCallback``,
``checkCurrentPermission``, ``runOnUiThread``, ``registerActivityResultListener``), so
the Android behaviour lives in the Java stand-ins (tests/java, docs/android.md):

* ``android.permissions``: like p4a 2026.05.09, the Java callback is created on the first
  request; created off the main thread it fails as on a phone (the stand-in refuses app
  classes there); the Python callback is stored after the request call, so an answer
  given during it is lost.
* ``android.runnable.run_on_ui_thread``: a ``java.lang.Runnable`` posted with
  ``runOnUiThread``, so the function runs on the stand-in activity's UI thread.
* ``android.activity.bind(on_activity_result=...)``: an ``ActivityResultListener``.
* ``android.broadcast.BroadcastReceiver``: registered with the stand-in system.

:func:`guard_app_classes` makes ``jnius.autoclass`` behave as on Android: a thread other
than the main one cannot find the app's classes (``org.kivy.*``) unless pyjnius has them
cached from an earlier lookup on the main thread.
"""

from __future__ import annotations

import sys
import threading
import types
from typing import Any

APP_PACKAGES = ("org.kivy.",)


def guard_app_classes(jnius: Any) -> None:
    """Make ``jnius.autoclass`` fail for uncached app classes off the main thread."""
    real = jnius.autoclass
    cached: set[str] = set()

    def autoclass(name: str, *args: Any, **kwargs: Any) -> Any:
        app_class = name.replace("/", ".").startswith(APP_PACKAGES)
        if app_class and name not in cached:
            if threading.current_thread() is not threading.main_thread():
                raise jnius.JavaException(
                    f"Class not found b'{name}'", "java.lang.NoClassDefFoundError", []
                )
            cached.add(name)
        return real(name, *args, **kwargs)

    jnius.autoclass = autoclass


def install(jnius: Any) -> dict[str, types.ModuleType]:
    """Put the ``android`` package and its modules into ``sys.modules``; returns them."""
    guard_app_classes(jnius)
    android = types.ModuleType("android")
    android.__path__ = []  # a package
    modules = {
        "android": android,
        "android.permissions": _permissions(jnius),
        "android.runnable": _runnable(jnius),
        "android.activity": _activity(jnius),
        "android.broadcast": _broadcast(jnius),
    }
    for name, module in modules.items():
        if name != "android":
            setattr(android, name.split(".")[1], module)
    sys.modules.update(modules)
    return modules


def _permissions(jnius: Any) -> types.ModuleType:
    module = types.ModuleType("android.permissions")

    class Callback(jnius.PythonJavaClass):
        __javainterfaces__ = ("org/kivy/android/PythonActivity$PermissionsCallback",)
        __javacontext__ = "app"

        def __init__(self, func: Any) -> None:
            super().__init__()
            self.func = func

        @jnius.java_method("(I[Ljava/lang/String;[I)V")
        def onRequestPermissionsResult(self, code: int, permissions: Any, grants: Any) -> None:
            self.func(code, permissions, grants)

    state: dict[str, Any] = {"java_callback": None, "id": 1, "callbacks": {}}
    lock = threading.Lock()

    def activity() -> Any:
        return jnius.autoclass("org.kivy.android.PythonActivity").mActivity

    def python_callback(code: int, permissions: Any, grants: Any) -> None:
        callback = state["callbacks"].get(code)
        if callback:
            callback(list(permissions), [g == 0 for g in grants])

    def request_permissions(permissions: list[str], callback: Any = None) -> None:
        with lock:
            if not state["java_callback"]:  # p4a: created on the first request
                state["java_callback"] = Callback(python_callback)
                activity().addPermissionsCallback(state["java_callback"])
            state["id"] += 1
            activity().requestPermissionsWithRequestCode(permissions, state["id"])
            # p4a stores the callback only after the request returns: an answer given
            # during the call (a second request while a dialog is open) finds none
            state["callbacks"][state["id"]] = callback

    def check_permission(permission: str) -> bool:
        return bool(activity().checkCurrentPermission(permission + ""))

    module.request_permissions = request_permissions
    module.check_permission = check_permission
    module.state = state
    return module


def _runnable(jnius: Any) -> types.ModuleType:
    module = types.ModuleType("android.runnable")
    activity_class = jnius.autoclass("org.kivy.android.PythonActivity")  # at import, as p4a
    keep: list[Any] = []

    class Runnable(jnius.PythonJavaClass):
        __javainterfaces__ = ("java/lang/Runnable",)

        def __init__(self, func: Any) -> None:
            super().__init__()
            self.func = func

        def __call__(self, *args: Any, **kwargs: Any) -> None:
            self.args, self.kwargs = args, kwargs
            keep.append(self)
            activity_class.mActivity.runOnUiThread(self)

        @jnius.java_method("()V")
        def run(self) -> None:
            try:
                self.func(*self.args, **self.kwargs)
            except Exception:  # p4a prints and goes on
                import traceback

                traceback.print_exc()
            keep.remove(self)

    def run_on_ui_thread(f: Any) -> Any:
        runnable = Runnable(f)

        def posted(*args: Any, **kwargs: Any) -> None:
            runnable(*args, **kwargs)

        return posted

    module.run_on_ui_thread = run_on_ui_thread
    return module


def _activity(jnius: Any) -> types.ModuleType:
    module = types.ModuleType("android.activity")
    activity = jnius.autoclass("org.kivy.android.PythonActivity").mActivity
    listeners: list[Any] = []

    class Listener(jnius.PythonJavaClass):
        __javainterfaces__ = ("org/kivy/android/PythonActivity$ActivityResultListener",)
        __javacontext__ = "app"

        def __init__(self, callback: Any) -> None:
            super().__init__()
            self.callback = callback

        @jnius.java_method("(IILandroid/content/Intent;)V")
        def onActivityResult(self, code: int, result: int, intent: Any) -> None:
            self.callback(code, result, intent)

    def bind(on_activity_result: Any) -> None:
        listener = Listener(on_activity_result)
        activity.registerActivityResultListener(listener)
        listeners.append(listener)

    def unbind(on_activity_result: Any) -> None:
        for listener in listeners[:]:
            if listener.callback == on_activity_result:
                listeners.remove(listener)
                activity.unregisterActivityResultListener(listener)

    module.bind = bind
    module.unbind = unbind
    return module


def _broadcast(jnius: Any) -> types.ModuleType:
    module = types.ModuleType("android.broadcast")
    standin = jnius.autoclass("android.bluetooth.Standin")

    class Callback(jnius.PythonJavaClass):
        __javainterfaces__ = ("android/bluetooth/Standin$ReceiverCallback",)

        def __init__(self, callback: Any) -> None:
            super().__init__()
            self.callback = callback

        @jnius.java_method("(Landroid/content/Context;Landroid/content/Intent;)V")
        def onReceive(self, context: Any, intent: Any) -> None:
            self.callback(context, intent)

    class BroadcastReceiver:
        """Same constructor and start/stop as python-for-android's."""

        def __init__(self, callback: Any, actions: Any = None, categories: Any = None) -> None:
            if not actions and not categories:
                raise Exception("You need to define at least actions or categories")
            self.actions = list(actions or [])
            self.listener = Callback(callback)

        def start(self) -> None:
            standin.registerReceiver(self.listener, self.actions)

        def stop(self) -> None:
            standin.unregisterReceiver(self.listener)

    module.BroadcastReceiver = BroadcastReceiver
    return module
