"""Issue 37, item 7: between networked rounds, after the player tapped "Next round",
his screen keeps the last round's result (its hands, his cards and total) and says who
is still reading it and when the next round comes anyway; no red, error-looking
message over an empty hand. Host and guest over loopback TCP, the screens' view-model.
"""

from __future__ import annotations

import re
import time

import pytest
from kivy_driver import STALL

from app.i18n import set_language
from app.table.service import tcp_service
from app.views.oczko import network as oczko_network
from app.views.oczko.network import NetworkTable
from app.views.oczko.vm import present
from app.views.table.bridge import direct, never

# Longer than the default per-test limit (pyproject.toml): a Kivy process plays networked rounds
# through the screens.
pytestmark = pytest.mark.timeout(600)


def _start(host: NetworkTable, deadline: float) -> None:
    while not (
        host.lobby and all(r for _n, r in host.lobby["players"]) and len(host.lobby["players"]) == 2
    ):
        assert time.monotonic() < deadline, "lobby"
        host.tick(0.0)
        time.sleep(0.02)
    host.begin()


def _vm(phone: NetworkTable, now: float):  # what the table screen renders
    return present(
        phone.view(),
        phone.names,
        awaiting_next=phone.awaiting_next,
        message=phone.message,
        reading=phone.still_reading(now),
    )


def test_after_next_round_the_result_stays_with_who_still_reads(monkeypatch) -> None:
    set_language("en")
    monkeypatch.setattr(oczko_network, "ROUND_PAUSE", 600.0)  # only the taps deal
    host = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        service=tcp_service(),
        hosting=True,
        name="Ala",
        dealer="open",
        rounds=3,
        turn_time=600,
    )
    guest = None
    try:
        assert host.wait_open(10.0), host.error
        guest = NetworkTable(  # (headless: pushed on the worker thread)
            post=direct,
            later=never,
            service=tcp_service(),
            hosting=False,
            name="Bartek",
            address=host.address,
            dealer="open",
        )
        deadline = time.monotonic() + STALL  # a hang guard, not a speed target
        _start(host, deadline)
        checked = {0: False, 1: False}
        clicked: dict[int, object] = {0: None, 1: None}
        while not all(checked.values()):
            assert time.monotonic() < deadline, "the first round did not end"
            for i, phone in enumerate((host, guest)):
                now = time.monotonic()
                phone.tick(now)
                m = phone.match
                if m is None:
                    continue
                if phone.awaiting_next and not checked[i]:
                    before = _vm(phone, now)
                    if i == 1 and not checked[0]:
                        continue  # the host goes on first: the guest is still reading
                    phone.next_round(now)
                    vm = _vm(phone, now)
                    result = before.banner.split("\n")[0]
                    # the round's result, the cards and the total stay on screen
                    assert vm.banner.startswith(result), vm.banner
                    assert vm.my_cards == before.my_cards and len(vm.my_cards) >= 2
                    assert vm.my_total == before.my_total and vm.my_total != "Total: 0"
                    assert [s.cards for s in vm.seats] == [s.cards for s in before.seats]
                    assert vm.message == ""  # nothing red
                    assert vm.next_text == "" and not vm.my_turn
                    # who is still reading (the host knows; a guest's says "the others"),
                    # and when the next round comes at the latest
                    who = "Still reading the result: Bartek" if i == 0 else "the others"
                    assert who in vm.banner
                    assert re.search(r"The next round starts in \d+ s at the latest\.", vm.banner)
                    checked[i] = True
                elif (
                    m.to_act == phone.seat
                    and not m.over
                    and not phone.awaiting_next
                    and clicked[i] is not m  # one tap per state the screen shows
                ):
                    clicked[i] = m
                    phone.hold(0.0)
            time.sleep(0.02)
    finally:
        host.leave()
        if guest is not None:
            guest.leave()
            guest.join_thread()
        host.join_thread()
