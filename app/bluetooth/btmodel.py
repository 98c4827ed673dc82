"""A model of Bluetooth RFCOMM links between phones, in simulated time.

Beside :mod:`app.bluetooth.faults` (which breaks a real link on purpose), this module
says *when* a frame sent on a link arrives at the other phone: after the time the bytes
take on the air (cut into RFCOMM frames, each with its headers, at the link's rate and
through the host's one radio, which all its links share), one-way latency and jitter,
and any stall of the link. It also says when a seat's app is paused (Android stops an
app in the background). The simulator (:mod:`app.sim.oczko`) uses it on its in-memory
links; the figures behind the defaults are in docs/transport.md ("The link model").

>>> import random
>>> model = LINKS["rfcomm"]
>>> radio = Radio(model)
>>> wire = Wire(model, radio, random.Random(1))
>>> arrival = wire.arrival(0.0, 1000)
>>> 0.03 < arrival < 0.1
True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class LinkModel:
    """What one kind of link does to frames (all times in seconds, rates in bytes/s).

    * ``latency_s``, ``jitter_s``: one-way delay of a frame on an idle link, plus a
      uniform random ``0..jitter_s``;
    * ``link_bytes_per_s``: what one link carries (its share of the air slots);
      ``radio_bytes_per_s``: what the host's radio carries over all its links together;
    * ``rfcomm_frame``: RFCOMM payload per frame (the negotiated N1), ``frame_overhead``:
      header bytes per RFCOMM frame (RFCOMM + L2CAP + ACL);
    * ``stall_every_s``: mean time between stalls of one link (0: none), each lasting
      ``stall_min_s..stall_max_s`` (nothing moves meanwhile, nothing is lost);
    * ``pause_every_s``: mean time between pauses of one phone's app (0: none), each
      lasting ``pause_min_s..pause_max_s`` (the phone computes and reads nothing; its
      links stay up and buffer).
    """

    name: str
    latency_s: float = 0.0
    jitter_s: float = 0.0
    link_bytes_per_s: float = math.inf
    radio_bytes_per_s: float = math.inf
    rfcomm_frame: int = 1 << 30
    frame_overhead: int = 0
    stall_every_s: float = 0.0
    stall_min_s: float = 0.5
    stall_max_s: float = 3.0
    pause_every_s: float = 0.0
    pause_min_s: float = 1.0
    pause_max_s: float = 10.0

    def with_faults(self, *, stall_every_s: float, pause_every_s: float) -> LinkModel:
        """The same link with stalls and pauses at the given mean intervals."""
        return replace(self, stall_every_s=stall_every_s, pause_every_s=pause_every_s)

    def air_bytes(self, payload: int) -> int:
        """Bytes on the air for one frame of ``payload`` bytes (cut into RFCOMM frames)."""
        pieces = max(1, math.ceil(payload / self.rfcomm_frame))
        return payload + pieces * self.frame_overhead


#: Named link models. "rfcomm": Android phones over Classic Bluetooth RFCOMM (sources
#: in docs/transport.md); "loopback": no delay at all (what the tests' TCP gives).
LINKS: dict[str, LinkModel] = {
    m.name: m
    for m in (
        LinkModel(
            "rfcomm",
            latency_s=0.025,
            jitter_s=0.020,
            link_bytes_per_s=60_000.0,
            radio_bytes_per_s=120_000.0,
            rfcomm_frame=990,
            frame_overhead=13,
        ),
        LinkModel("loopback"),
    )
}


def link_model(name: str) -> LinkModel:
    """The named model; ValueError if unknown."""
    try:
        return LINKS[name]
    except KeyError:
        raise ValueError(f"unknown link {name!r}; expected one of {', '.join(LINKS)}") from None


class Radio:
    """The host phone's radio: one air time shared by every link it has."""

    def __init__(self, model: LinkModel) -> None:
        self.model = model
        self.free_at = 0.0


class Wire:
    """One direction of one link: frames leave in order, each after the one before."""

    def __init__(self, model: LinkModel, radio: Radio, rng: random.Random) -> None:
        self.model = model
        self.radio = radio
        self._rng = rng
        self.free_at = 0.0
        self.last_arrival = 0.0
        self.stalls = 0
        self._stall_from = self._next_stall(0.0)
        self._stall_until = 0.0

    def _next_stall(self, after: float) -> float:
        every = self.model.stall_every_s
        return math.inf if every <= 0 else after + self._rng.expovariate(1.0 / every)

    def _stalled(self, start: float) -> float:
        """``start``, or the end of a stall that covers it."""
        while start >= self._stall_from:
            length = self._rng.uniform(self.model.stall_min_s, self.model.stall_max_s)
            self._stall_until = self._stall_from + length
            self.stalls += 1
            self._stall_from = self._next_stall(self._stall_until)
        return max(start, self._stall_until)

    def arrival(self, ready: float, payload: int) -> float:
        """When a frame of ``payload`` bytes, ready to go at ``ready``, is in at the peer."""
        m = self.model
        air = m.air_bytes(payload)
        start = self._stalled(max(ready, self.free_at))
        start = max(start, self.radio.free_at)
        self.radio.free_at = start + air / m.radio_bytes_per_s
        self.free_at = max(start + air / m.link_bytes_per_s, self.radio.free_at)
        delay = m.latency_s + (self._rng.uniform(0.0, m.jitter_s) if m.jitter_s else 0.0)
        self.last_arrival = max(self.free_at + delay, self.last_arrival)  # in order
        return self.last_arrival


def pauses(model: LinkModel, rng: random.Random, until: float) -> list[tuple[float, float]]:
    """A phone's app pauses up to ``until``: ``(start, end)`` intervals."""
    out: list[tuple[float, float]] = []
    if model.pause_every_s <= 0:
        return out
    t = rng.expovariate(1.0 / model.pause_every_s)
    while t < until:
        end = t + rng.uniform(model.pause_min_s, model.pause_max_s)
        out.append((t, end))
        t = end + rng.expovariate(1.0 / model.pause_every_s)
    return out
