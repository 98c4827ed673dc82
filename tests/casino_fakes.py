"""A fake networked casino table for the screens' tests (until the real one lands).

:class:`FakeCasinoTable` is :class:`app.views.casino.local.LocalCasinoTable` (a real
multi-player ``Round``, bots at the other boxes, every intent checked by the engine
and recorded in ``intents``) calling ``on_change`` from a worker thread, as the real
table does; :class:`FakeCasinoService` hands such tables out as the app's table
service's ``host_casino`` / ``join_casino``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from app.table.casino.snapshot import CasinoSnapshot
from app.views.casino.local import LocalCasinoTable


class FakeCasinoTable(LocalCasinoTable):
    """A local table whose ``on_change`` comes from another thread (``threaded``)."""

    def __init__(self, *args: Any, threaded: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.threaded = threaded

    #: what the table waits for while the shoe is prepared (the snapshot's progress
    #: line: note and step, as a networked phone's), or None
    waits: tuple[tuple[str, tuple[int, ...]], tuple[int, int] | None] | None = None

    def snapshot(self) -> CasinoSnapshot:
        snap = super().snapshot()
        if self.waits is None:
            return snap
        return replace(snap, progress_note=self.waits[0], progress_step=self.waits[1])

    def _changed(self) -> None:
        if self.on_change is None:
            return
        if self.threaded:
            t = threading.Thread(target=self.on_change, daemon=True)
            t.start()
            t.join()
        else:
            self.on_change()


class FakeCasinoService:
    """The app's table service for the screens' tests: ``host_casino``/``join_casino``
    hand out the fake tables ``make(hosting, on_change)`` builds; the rest as the real
    service (``dealer``, ``transport``, ``bluetooth``)."""

    bluetooth = False

    def __init__(self, make: Callable[..., FakeCasinoTable]) -> None:
        self.make = make
        self.tables: list[FakeCasinoTable] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []

    @staticmethod
    def on_main(fn: Callable[[], object]) -> None:
        fn()

    def dealer(self) -> str:
        return "sra"

    def transport(self) -> None:
        return None

    def host_casino(self, *, on_change: Callable[[], None], **kwargs: Any) -> FakeCasinoTable:
        self.calls.append(("host_casino", kwargs))
        table = self.make(True, on_change, kwargs)
        self.tables.append(table)
        return table

    def join_casino(
        self, address: str, *, on_change: Callable[[], None], **kwargs: Any
    ) -> FakeCasinoTable:
        self.calls.append(("join_casino", {"address": address, **kwargs}))
        table = self.make(False, on_change, kwargs)
        self.tables.append(table)
        return table
