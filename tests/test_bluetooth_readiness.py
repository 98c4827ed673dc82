"""The order of the Bluetooth set-up steps (app/table/readiness.py) and the
main-thread hand-over the Android transport uses (issue 22)."""

import threading

import pytest

from app.table.readiness import STEPS, Situation, can_search, next_step

C = (("connect", ("android.permission.BLUETOOTH_CONNECT",)),)
A = (("advertise", ("android.permission.BLUETOOTH_ADVERTISE",)),)
S = (("scan", ("android.permission.BLUETOOTH_SCAN",)),)


@pytest.mark.parametrize(
    ("situation", "code", "retry", "can_skip"),
    [
        (Situation("host", adapter="no_adapter", missing=C), "no_adapter", False, False),
        # permissions before the switch: Android 12+ needs CONNECT to ask for it
        (Situation("host", adapter="off", missing=C), "permissions", False, False),
        (
            Situation("host", missing=A, refused=frozenset({"advertise"})),
            "permissions",
            True,
            False,
        ),
        (Situation("host", adapter="off"), "bluetooth_off", False, False),
        (Situation("host"), "visibility", False, True),
        (Situation("host", asked_visible=True), "ready", False, False),
        # a guest does not need ADVERTISE, and may go on without the search
        (Situation("join", missing=A), "ready", False, False),
        (Situation("join", missing=C + S), "permissions", False, False),
        (Situation("join", missing=S), "search_permission", False, True),
        (
            Situation("join", missing=S, refused=frozenset({"scan"})),
            "search_permission",
            True,
            True,
        ),
        (Situation("join", missing=S, paired_only=True), "ready", False, False),
        (Situation("join", location_blocks_discovery=True), "location_off", False, True),
        (
            Situation("join", location_blocks_discovery=True, paired_only=True),
            "ready",
            False,
            False,
        ),
    ],
)
def test_next_step(situation: Situation, code: str, retry: bool, can_skip: bool) -> None:
    step = next_step(situation)
    assert (step.code, step.retry, step.can_skip) == (code, retry, can_skip)
    assert step.code in STEPS


def test_a_guest_searches_only_when_allowed_and_useful() -> None:
    assert can_search(Situation("join"))
    assert not can_search(Situation("join", missing=S))
    assert not can_search(Situation("join", location_blocks_discovery=True))
    assert not can_search(Situation("join", paired_only=True))
    assert not can_search(Situation("host"))


def test_bad_situations_are_refused() -> None:
    with pytest.raises(ValueError, match="purpose"):
        Situation("watch")
    with pytest.raises(ValueError, match="adapter"):
        Situation("host", adapter="maybe")


def test_run_on_main_hands_work_from_a_worker_to_the_main_thread() -> None:
    from kivy.clock import Clock

    from app.bluetooth.android import run_on_main

    ran: list[threading.Thread] = []
    run_on_main(lambda: ran.append(threading.current_thread()))  # on main: at once
    assert ran == [threading.main_thread()]
    worker = threading.Thread(
        target=run_on_main, args=(lambda: ran.append(threading.current_thread()),)
    )
    worker.start()
    worker.join()
    assert len(ran) == 1  # posted, not run on the worker
    Clock.tick()  # the app's next frame
    assert ran == [threading.main_thread()] * 2
