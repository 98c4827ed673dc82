"""A process killed while writing rounds leaves a history that opens, with every round
it had stored intact (SIGKILL at random points, many times, on one database)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from app.history.store import HistoryStore
from tests.history_rounds import record

#: one writer process after the other on the same file (each costs a Python start-up)
KILLS = 16

WRITER = r"""
import sys
from app.history.store import HistoryStore
from tests.history_rounds import record
from tests.history_rounds import record
store = HistoryStore(sys.argv[1])
print("ready", flush=True)
run = int(sys.argv[2])
for i in range(100000):
    rid = store.add(record(run, i))
    print(rid, run, i, flush=True)  # only after the commit returned
"""


@pytest.mark.slow
def test_killed_writers_leave_every_committed_round(tmp_path):
    path = tmp_path / "history.db"
    rng = random.Random(20)
    committed: dict[int, tuple[int, int]] = {}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    mid_write = 0
    for run in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(run)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=os.path.dirname(os.path.dirname(__file__)),
        )
        assert proc.stdout.readline().strip() == "ready", "the writer did not start"
        time.sleep(rng.uniform(0.0, 0.12))  # a random point in the stream of writes
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        lines = out.split("\n")
        mid_write += not out.endswith("\n") or bool(lines[-1])  # killed mid-line or mid-write
        for line in lines:
            parts = line.split()
            if len(parts) == 3:  # a complete report: that round was committed
                committed[int(parts[0])] = (int(parts[1]), int(parts[2]))
        with HistoryStore(path) as store:  # opens, nothing moved aside
            assert store.moved_aside is None
            stored = {r.id: r for r in store.rounds()}
        # every round any writer reported is there, unchanged
        for rid, (r, i) in committed.items():
            assert stored.get(rid) == record(r, i).with_id(rid), (rid, r, i)
    assert len(committed) > KILLS  # the writers did write between the kills
    assert not list(tmp_path.glob("*.corrupt-*"))
