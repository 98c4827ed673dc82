"""``blu21`` without a reachable display exits at once with a clear, translated message
(issue 16, item 11): with DISPLAY unset, and with DISPLAY naming a display where nothing
answers (SDL would otherwise fall back to an off-screen window and the app would run
silently, with no window, until killed)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.i18n import set_language
from app.views.main import DISPLAY_UNREACHABLE, display_problem, x_display_answers


def _blu21(display: str | None, lang: str = "en") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KIVY", "SDL", "WAYLAND"))}
    env.pop("DISPLAY", None)
    if display is not None:
        env["DISPLAY"] = display
    env["LANG"] = {"en": "en_US.UTF-8", "de": "de_DE.UTF-8", "pl": "pl_PL.UTF-8"}[lang]
    env.pop("LANGUAGE", None)
    env.pop("LC_ALL", None)
    return subprocess.run(
        [sys.executable, "-m", "app", "app"], env=env, capture_output=True, text=True, timeout=60
    )


def _free_display() -> int:
    """A display number where nothing listens (neither its socket nor its TCP port)."""
    for number in range(70, 200):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not x_display_answers(
            f":{number}", timeout=0.5
        ):
            return number
    raise AssertionError("no free display number")


@pytest.fixture
def x_server() -> Iterator[int]:
    """Something listening where an X server would (Linux's abstract socket)."""
    number = _free_display()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(f"\0/tmp/.X11-unix/X{number}")
        sock.listen(16)  # nobody accepts: every probe waits in the backlog
        yield number


def test_a_display_where_nothing_answers_is_refused_at_once() -> None:
    number = _free_display()
    proc = _blu21(f":{number}")  # (the timeout above: it must not run until killed)
    assert proc.returncode == 1
    assert f"no display answers at :{number}" in proc.stderr
    assert "blu21 screenshot" in proc.stderr


def test_no_display_at_all_is_refused_in_the_players_language() -> None:
    texts = set()
    for lang in ("en", "de", "pl"):
        proc = _blu21(None, lang)
        assert proc.returncode == 1 and "blu21 screenshot" in proc.stderr
        texts.add(proc.stderr)
    assert len(texts) == 3


def test_the_unreachable_display_is_named_in_every_language() -> None:
    texts = set()
    for lang in ("en", "de", "pl"):
        set_language(lang)
        text = display_problem({"DISPLAY": "host:7"}, lambda _d: False)
        assert "host:7" in text and "blu21 screenshot" in text
        texts.add(text)
    set_language("en")
    assert len(texts) == 3
    assert display_problem({"DISPLAY": "host:7"}, lambda _d: False) == (
        DISPLAY_UNREACHABLE.format(display="host:7")
    )


def test_a_listening_display_is_accepted(x_server: int) -> None:
    assert x_display_answers(f":{x_server}")
    assert x_display_answers(f"unix:{x_server}.0")
    assert display_problem({"DISPLAY": f":{x_server}"}) == ""


def test_a_display_over_tcp() -> None:
    with socket.socket() as sock:
        for number in range(70, 200):
            try:
                sock.bind(("127.0.0.1", 6000 + number))
                break
            except OSError:
                continue
        sock.listen(1)
        assert x_display_answers(f"127.0.0.1:{number}")
    assert not x_display_answers(f"127.0.0.1:{number}", timeout=0.5)


def test_a_wayland_session_or_a_chosen_driver_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "wayland-0").touch()
    env = {"WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": str(tmp_path)}
    assert display_problem(env, lambda _d: False) == ""
    gone = {"WAYLAND_DISPLAY": "wayland-1", "XDG_RUNTIME_DIR": str(tmp_path)}
    assert "wayland-1" in display_problem(gone, lambda _d: False)
    assert display_problem({"SDL_VIDEODRIVER": "offscreen"}) == ""
