"""The history's Android share sheet (app/history/share.py) against a real JVM with the
stand-in Android classes (tests/java; the JDK is found as in
tests/test_transport_android.py; only the classes sharing needs are compiled). The
scenario runs in a fresh subprocess (one JVM per process, its class path fixed at
start)."""

from __future__ import annotations

import os
import subprocess
import sys

from test_transport_android import standin_env  # noqa: F401 - the stand-ins, compiled once

from app.history.model import Facts, RoundRecord
from app.history.share import share_payload


def _records(n: int) -> list[RoundRecord]:
    return [
        RoundRecord(
            "blackjack", "casino", "s", i, float(i), i + 0.5, "Zoë", "won", "1000", "1015",
            Facts(hands=1, wins=1),
        )
        for i in range(n)
    ]  # fmt: skip


def test_the_share_text_holds_the_newest_rounds_that_fit() -> None:
    rounds = _records(500)
    text, n = share_payload(rounds, limit=5000)
    assert 0 < n < 500 and len(text) <= 5000
    lines = text.splitlines()
    assert lines[0].startswith("id,game,mode")
    assert [int(line.split(",")[4]) for line in lines[1:]] == list(range(500 - n, 500))
    everything, m = share_payload(rounds, limit=10**9)
    assert m == 500 and everything.endswith(text[len(lines[0]) + 2 :])


def test_the_share_sheet_opens_with_the_history_as_text(standin_env) -> None:  # noqa: F811
    result = subprocess.run(
        [sys.executable, __file__, "share"],
        env=standin_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "share ok" in result.stdout


def _s(value) -> str:
    """A CharSequence from Java: pyjnius gives a String as str."""
    return value if isinstance(value, str) else value.toString()


def _child() -> int:  # pragma: no cover - runs in the subprocess
    import jnius_config

    jnius_config.set_classpath(os.environ["BLU21_STANDIN_CLASSES"])
    from jnius import autoclass, cast

    from app.history.share import share_payload, share_text

    text, n = share_payload(_records(30))
    chooser = share_text("blu21: hand history", text, "Share the hand history")
    intent = autoclass("android.content.Intent")
    started = autoclass("org.kivy.android.PythonActivity").standinStarted()
    assert len(started) == 1 and started[0].getAction() == intent.ACTION_CHOOSER
    assert chooser.getAction() == intent.ACTION_CHOOSER
    target = cast("android.content.Intent", started[0].getParcelableExtra(intent.EXTRA_INTENT))
    assert target.getAction() == intent.ACTION_SEND
    assert target.getType() == "text/plain"
    assert _s(target.getCharSequenceExtra(intent.EXTRA_TEXT)) == text
    assert "Zoë" in text and n == 30
    assert _s(target.getCharSequenceExtra(intent.EXTRA_SUBJECT)) == "blu21: hand history"
    title = _s(started[0].getCharSequenceExtra(intent.EXTRA_TITLE))
    assert title == "Share the hand history"
    print("share ok")
    return 0


if __name__ == "__main__":
    sys.exit(_child())
