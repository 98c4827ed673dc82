"""The history's Android share sheet (app/history/share.py) against a real JVM with the
stand-in Android classes (tests/java; the JDK is found as in
tests/test_transport_android.py; only the classes sharing needs are compiled). The
scenario runs in a fresh subprocess (one JVM per process, its class path fixed at
start)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def _run(env: dict[str, str], scenario: str, *args: str) -> None:
    result = subprocess.run(
        [sys.executable, __file__, scenario, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{scenario} ok" in result.stdout


def test_the_share_sheet_opens_with_the_history_as_text(standin_env) -> None:  # noqa: F811
    _run(standin_env, "share")


def test_the_share_sheet_sends_the_exported_files_as_content_uris(
    standin_env,  # noqa: F811
    tmp_path,
) -> None:
    from app.history.export import export_files
    from app.history.store import open_store

    store = open_store(tmp_path)
    store.add_many(_records(40))
    paths = export_files(store, tmp_path / "exports")
    store.close()
    _run(standin_env, "files", *map(str, paths))


def test_before_android_10_the_files_are_not_shared(standin_env, tmp_path) -> None:  # noqa: F811
    # no MediaStore Downloads there: the app falls back to the text
    (tmp_path / "h.csv").write_text("id\n")
    _run(standin_env, "old", str(tmp_path / "h.csv"))


def test_a_refused_copy_is_an_error_and_nothing_is_shared(standin_env, tmp_path) -> None:  # noqa: F811
    (tmp_path / "h.csv").write_text("id\n")
    _run(standin_env, "full", str(tmp_path / "h.csv"))


def test_a_share_that_fails_halfway_leaves_no_copies_behind(standin_env, tmp_path) -> None:  # noqa: F811
    # the storage takes the first file, refuses the second: the first copy is removed
    (tmp_path / "h.json").write_text("{}")
    (tmp_path / "h.csv").write_text("id\n")
    _run(standin_env, "halfway", str(tmp_path / "h.json"), str(tmp_path / "h.csv"))


def _s(value) -> str:
    """A CharSequence from Java: pyjnius gives a String as str."""
    return value if isinstance(value, str) else value.toString()


def _child() -> int:  # pragma: no cover - runs in the subprocess
    import jnius_config

    jnius_config.set_classpath(os.environ["BLU21_STANDIN_CLASSES"])
    scenario, args = sys.argv[1], sys.argv[2:]
    if scenario != "share":
        return _files(scenario, [Path(a) for a in args])
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


def _files(scenario: str, paths: list[Path]) -> int:  # pragma: no cover - in the subprocess
    from jnius import autoclass, cast

    from app.history.share import ShareUnsupported, share_files

    intent = autoclass("android.content.Intent")
    activity = autoclass("org.kivy.android.PythonActivity")
    resolver = autoclass("android.content.ContentResolver")
    autoclass("android.bluetooth.Standin").setSdk(28 if scenario == "old" else 34)
    if scenario == "old":
        try:
            share_files(paths, "subject", "title")
        except ShareUnsupported:
            assert len(activity.standinStarted()) == 0
            print("old ok")
            return 0
        raise AssertionError("shared files before Android 10")
    if scenario == "full":
        resolver.standinFull(True)
        try:
            share_files(paths, "subject", "title")
        except OSError as exc:
            assert "h.csv" in str(exc)
            assert len(activity.standinStarted()) == 0
            print("full ok")
            return 0
        raise AssertionError("a refused copy was shared")
    if scenario == "halfway":
        resolver.standinRoom(1)
        try:
            share_files(paths, "subject", "title")
        except OSError as exc:
            assert "h.csv" in str(exc)
            assert len(activity.standinStarted()) == 0
            assert resolver.standinRows() == 0  # the first file's copy is gone again
            print("halfway ok")
            return 0
        raise AssertionError("a refused copy was shared")
    share_files(paths, "blu21: hand history", "Share the hand history")
    (chooser,) = activity.standinStarted()
    assert chooser.getAction() == intent.ACTION_CHOOSER
    target = cast("android.content.Intent", chooser.getParcelableExtra(intent.EXTRA_INTENT))
    assert target.getAction() == intent.ACTION_SEND_MULTIPLE
    assert target.getType() == "*/*"  # JSON and CSV together
    assert target.getFlags() & intent.FLAG_GRANT_READ_URI_PERMISSION
    streams = target.getParcelableArrayListExtra(intent.EXTRA_STREAM)
    uris = [cast("android.net.Uri", streams.get(i)) for i in range(streams.size())]
    assert len(uris) == len(paths) == 2
    clip = target.getClipData()
    assert [clip.getItemAt(i).getUri().toString() for i in range(clip.getItemCount())] == [
        u.toString() for u in uris
    ]
    columns = autoclass("android.provider.MediaStore$MediaColumns")
    for uri, path in zip(uris, paths, strict=True):
        assert uri.getScheme() == "content", uri.toString()
        # the file itself, byte for byte, not a text extract
        assert bytes(resolver.standinContent(uri)) == path.read_bytes()
        values = resolver.standinValues(uri)
        assert values.getAsString(columns.DISPLAY_NAME) == path.name
        assert values.getAsString(columns.RELATIVE_PATH) == "Download/Blu21"
        want = "application/json" if path.suffix == ".json" else "text/csv"
        assert values.getAsString(columns.MIME_TYPE) == want
    assert target.getCharSequenceExtra(intent.EXTRA_TEXT) is None  # no text instead
    assert _s(chooser.getCharSequenceExtra(intent.EXTRA_TITLE)) == "Share the hand history"
    assert resolver.standinRows() == 2  # shared: the player finds the files in Downloads
    assert "Zoë" in paths[0].read_text(encoding="utf-8")
    print("files ok")
    return 0


if __name__ == "__main__":
    sys.exit(_child())
