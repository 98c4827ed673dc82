"""Sharing the history on Android: the system's share sheet through pyjnius.

The exported files (JSON, complete, and CSV) go out as files (:func:`share_files`):
each is copied into the phone's Downloads through MediaStore (``Download/Blu21``) and
the share sheet gets their ``content://`` URIs with read permission granted
(``ACTION_SEND_MULTIPLE``). This is how python-for-android apps share files
(Android-for-Python's androidstorage4kivy does the same): p4a's manifest template has
no place for a ``FileProvider``, and a MediaStore row needs neither a provider nor a
permission from Android 10 (API 29) on. The player also finds the files in Downloads.

Before Android 10 MediaStore's Downloads does not exist (and shared storage would need
the storage permission), so there :func:`share_files` raises :class:`ShareUnsupported`
and the app shares the history as CSV text (:func:`share_text`). An Intent's extras
travel through Binder's buffer (about 1 MB for everything in flight), so the text is
bounded: the newest rounds that fit in :data:`MAX_CHARS`, and the player is told how
many went in.

``Intent.createChooser`` has two public overloads on Android (``(Intent, CharSequence)``
and, since API 22, ``(Intent, CharSequence, IntentSender)``); with more than one, pyjnius
scores the arguments and a Python ``str`` does not match ``CharSequence``. The title goes
in as a ``java.lang.String`` (:func:`_char_sequence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from app.history.export import csv_lines
from app.history.model import RoundRecord

#: characters of CSV put into the share intent (UTF-16 in the Parcel: ~2 bytes each)
MAX_CHARS = 200_000
#: MediaStore.Downloads (and RELATIVE_PATH) came with Android 10
DOWNLOADS_API = 29
#: where the shared files land in the phone's shared storage
FOLDER = "Download/Blu21"
#: the files' types by suffix
MIME_TYPES = {".json": "application/json", ".csv": "text/csv"}
#: bytes handed to Java per write (one JNI array copy each)
CHUNK = 1 << 16


class ShareUnsupported(Exception):
    """This Android cannot share files without a permission (before Android 10)."""


def share_payload(rounds: Sequence[RoundRecord], limit: int = MAX_CHARS) -> tuple[str, int]:
    """CSV of the newest of ``rounds`` (given oldest first) that fit in ``limit``
    characters, oldest first; and how many rounds it holds.

    >>> from app.history.model import RoundRecord
    >>> r = RoundRecord("oczko", "practice", "s", 1, 0.0, 1.0, "A", "won", "0", "1")
    >>> text, n = share_payload([r] * 10, limit=600)
    >>> n < 10 and len(text) <= 600 and text.startswith("id,game")
    True
    """
    header, *lines = csv_lines(rounds)
    size, n = len(header), 0
    for line in reversed(lines):  # newest first, while they fit
        if size + len(line) > limit:
            break
        size, n = size + len(line), n + 1
    return header + "".join(lines[len(lines) - n :]), n


def share_text(subject: str, text: str, chooser_title: str) -> Any:
    """Open Android's share sheet with ``text`` (plain text); returns the chooser Intent.
    Raises ImportError off Android (no pyjnius / no activity)."""
    from jnius import autoclass

    intent_class = autoclass("android.content.Intent")
    activity = autoclass("org.kivy.android.PythonActivity").mActivity
    intent = intent_class(intent_class.ACTION_SEND)
    intent.setType("text/plain")
    intent.putExtra(intent_class.EXTRA_SUBJECT, subject)
    intent.putExtra(intent_class.EXTRA_TEXT, text)
    chooser = intent_class.createChooser(intent, _char_sequence(chooser_title))
    activity.startActivity(chooser)
    return chooser


def _char_sequence(text: str) -> Any:
    """``text`` as a Java ``CharSequence`` (a ``java.lang.String``), so that pyjnius
    matches a method that takes one among several overloads."""
    from jnius import autoclass, cast

    return cast("java.lang.CharSequence", autoclass("java.lang.String")(text))


def share_files(paths: Sequence[Path], subject: str, chooser_title: str) -> Any:
    """Copy ``paths`` into Downloads/Blu21 through MediaStore and open the share sheet
    with their ``content://`` URIs (read permission granted to the app chosen); returns
    the chooser Intent. Raises :class:`ShareUnsupported` before Android 10, OSError when
    shared storage refuses a file, ImportError off Android."""
    from jnius import autoclass, cast

    if autoclass("android.os.Build$VERSION").SDK_INT < DOWNLOADS_API:
        raise ShareUnsupported
    intent_class = autoclass("android.content.Intent")
    clip_class = autoclass("android.content.ClipData")
    activity = autoclass("org.kivy.android.PythonActivity").mActivity
    resolver = activity.getContentResolver()
    uris: list[Any] = []
    try:
        for path in paths:
            uris.append(_copy_to_downloads(resolver, path))
        streams = autoclass("java.util.ArrayList")()
        for uri in uris:
            streams.add(cast("android.os.Parcelable", uri))
        intent = intent_class(intent_class.ACTION_SEND_MULTIPLE)
        types = {MIME_TYPES.get(p.suffix, "application/octet-stream") for p in paths}
        intent.setType(types.pop() if len(types) == 1 else "*/*")
        intent.putParcelableArrayListExtra(intent_class.EXTRA_STREAM, streams)
        intent.putExtra(intent_class.EXTRA_SUBJECT, subject)
        intent.addFlags(intent_class.FLAG_GRANT_READ_URI_PERMISSION)
        # the grant reaches the app chosen in the sheet through the ClipData
        clip = clip_class.newRawUri(_char_sequence(subject), uris[0])
        for uri in uris[1:]:
            clip.addItem(autoclass("android.content.ClipData$Item")(uri))
        intent.setClipData(clip)
        chooser = intent_class.createChooser(intent, _char_sequence(chooser_title))
        activity.startActivity(chooser)
    except BaseException:
        # nothing was shared: leave no copies in Downloads (each try would add more)
        for uri in uris:
            _delete_quietly(resolver, uri)
        raise
    return chooser


def _delete_quietly(resolver: Any, uri: Any) -> None:
    """Remove a MediaStore row we made; a failure to do so must not hide the first one."""
    with suppress(Exception):  # best effort: the original error is re-raised
        resolver.delete(uri, None, None)


def _copy_to_downloads(resolver: Any, path: Path) -> Any:
    """A new MediaStore Downloads row with the bytes of ``path``; its ``content://`` URI."""
    from jnius import autoclass

    columns = autoclass("android.provider.MediaStore$MediaColumns")
    values = autoclass("android.content.ContentValues")()
    values.put(columns.DISPLAY_NAME, path.name)
    values.put(columns.MIME_TYPE, MIME_TYPES.get(path.suffix, "application/octet-stream"))
    values.put(columns.RELATIVE_PATH, FOLDER)
    downloads = autoclass("android.provider.MediaStore$Downloads").EXTERNAL_CONTENT_URI
    uri = resolver.insert(downloads, values)
    if uri is None:
        raise OSError(f"shared storage refused {path.name}")
    try:
        stream = resolver.openOutputStream(uri)
        try:
            with path.open("rb") as f:
                while chunk := f.read(CHUNK):
                    stream.write(chunk)
        finally:
            stream.close()
    except BaseException:
        _delete_quietly(resolver, uri)  # a half-written row is no copy to keep
        raise
    return uri
