"""A phone's CPU in simulated time: how long the protocol's exponentiations take on it.

Every exponentiation the SRA protocol performs goes through its :class:`Group`
(``pow_batch``, ``pow_many``, ``ctx.pow``) and every subgroup test through
``is_element``. A :class:`MeteredGroup` is the same group (same prime, same wire id,
the same native results) that also charges each of those calls to a :class:`CpuMeter`,
in seconds of the phone's :class:`PhoneCpu`: an exponent of ``b`` bits costs
``b / 2048`` modexps, a signature check (one full and one 128-bit exponent in one call)
costs :attr:`PhoneCpu.sigcheck_s`, a batch is spread over the cores the seat may use.
The simulator (:mod:`app.sim.oczko`) then lets the phone's frames leave only once the
computation that made them is done.

>>> cpu = PROFILES["a53-arm64"]
>>> meter = CpuMeter(cpu)
>>> from app.protocol.group import FFDHE2048
>>> g = MeteredGroup(FFDHE2048, meter)
>>> _ = g.pow_batch([4] * 52, FFDHE2048.q - 2)
>>> round(meter.charged, 3)  # 52 full modexps on 4 cores: 13 in a row
0.206
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.native.sra import MontContext
from app.protocol.group import Group

#: Exponent bits of a "full" exponentiation (2048-bit group, exponents mod q).
FULL_BITS = 2047
#: Bits of the Schnorr challenge (app.protocol.keys.CHALLENGE_BYTES * 8).
CHALLENGE_BITS = 128


@dataclass(frozen=True)
class PhoneCpu:
    """What one phone's CPU costs the protocol, in seconds of its own time.

    ``modexp_s``: one 2048-bit modular exponentiation with a full-size exponent on one
    core (our native kernel). ``sigcheck_s``: one Schnorr signature check (one full
    and one 128-bit exponent, in one call). ``jacobi_s``: one subgroup test of an
    incoming value. ``frame_s``: the interpreter's work per frame sent or received
    (decoding, hashing, the table's bookkeeping), apart from exponentiations.
    ``cores``: the cores the seat may use for a batch.
    """

    name: str
    modexp_s: float
    sigcheck_s: float
    jacobi_s: float
    frame_s: float
    cores: int

    def __post_init__(self) -> None:
        if self.cores < 1 or min(self.modexp_s, self.sigcheck_s, self.jacobi_s) < 0:
            raise ValueError("a phone has at least one core and no negative costs")

    def with_cores(self, cores: int) -> PhoneCpu:
        """The same phone allowed ``cores`` cores."""
        return replace(self, cores=cores)


#: Retired instructions of one 2048-bit modexp (full-size exponent) of the kernel each
#: phone runs (the one ``sra_ctx.c`` picks there): the ``a64`` kernel on a Cortex-A53
#: (aarch64), the ``neon`` kernel on a Cortex-A7 (armhf), counted under qemu by
#: ``tools/armcount.py`` on the built wheels and kept in ``tools/arm-baseline.json``,
#: which CI gates (a kernel that grows by more than 2% fails it).
INSNS_A53_A64 = 22_199_436
INSNS_A7_NEON = 32_804_358
#: Retired instructions of one Jacobi symbol (the subgroup test of an incoming value) of
#: our binary Jacobi on each, from the same baseline's count for 52 symbols.
INSNS_A53_JACOBI = 3_947_070 / 52
INSNS_A7_JACOBI = 6_859_632 / 52
#: Clock of the cheap phones modelled, and the instructions per cycle assumed for the
#: multiply-accumulate rows (both cores are in-order and dual-issue; 1.0 is a round,
#: neither optimistic nor pessimistic figure for this code, see docs/transport.md).
CLOCK_HZ = 1.4e9
IPC = 1.0


def _profile(name: str, modexp_s: float, jacobi_s: float, cores: int, frame_ms: float) -> PhoneCpu:
    # A signature check is one full plus one 128-bit exponent, sharing the squarings of
    # a simultaneous exponentiation in the best case and not at all in ours: 1 + 128/2047.
    return PhoneCpu(
        name,
        modexp_s=modexp_s,
        sigcheck_s=modexp_s * (1 + CHALLENGE_BITS / FULL_BITS),
        jacobi_s=jacobi_s,
        frame_s=frame_ms / 1000,
        cores=cores,
    )


def _seconds(insns: float) -> float:
    return insns / (IPC * CLOCK_HZ)


#: Named phones (docs/transport.md, "The phone model", gives the sources).
#: a53-arm64: Cortex-A53 at 1.4 GHz, 64-bit build (about 16 ms per modexp); a7-armv7:
#: Cortex-A7 at 1.4 GHz, 32-bit build with NEON (about 23 ms); fast: a recent big core
#: (4 ms).
PROFILES: dict[str, PhoneCpu] = {
    p.name: p
    for p in (
        _profile("a53-arm64", _seconds(INSNS_A53_A64), _seconds(INSNS_A53_JACOBI), 4, 2.0),
        _profile("a7-armv7", _seconds(INSNS_A7_NEON), _seconds(INSNS_A7_JACOBI), 4, 4.0),
        # a big core: the A53's instruction mix, about four times as fast
        _profile("fast", 0.004, 0.004 * INSNS_A53_JACOBI / INSNS_A53_A64, 4, 0.3),
    )
}


def phone_cpu(spec: str) -> PhoneCpu:
    """``"a53-arm64"`` or ``"a53-arm64:2"`` (at most 2 cores); ValueError if unknown."""
    name, _, cores = spec.partition(":")
    try:
        cpu = PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown phone {name!r}; expected one of {', '.join(PROFILES)}") from None
    return cpu.with_cores(int(cores)) if cores else cpu


class CpuMeter:
    """Seconds of work charged to one phone (``charged`` only grows)."""

    def __init__(self, cpu: PhoneCpu) -> None:
        self.cpu = cpu
        self.charged = 0.0
        self.modexps = 0.0  # in full-size exponentiations
        self.sigchecks = 0

    def exps(self, bits: Sequence[int], full_bits: int = FULL_BITS) -> None:
        """A batch of exponentiations, spread over the cores (none splits); an exponent
        of ``full_bits`` costs one modexp (a smaller test group is charged as if it
        were the 2048-bit one: same work, counted in its own size)."""
        if not bits:
            return
        units = [max(b, 1) / full_bits for b in bits]
        self.modexps += sum(units)
        cores = min(self.cpu.cores, len(units))
        self.charged += self.cpu.modexp_s * max(sum(units) / cores, max(units))

    def sigcheck(self) -> None:
        self.sigchecks += 1
        self.charged += self.cpu.sigcheck_s

    def jacobi(self) -> None:
        self.charged += self.cpu.jacobi_s

    def frames(self, n: int = 1) -> None:
        self.charged += self.cpu.frame_s * n


class _MeteredCtx:
    """The native context with ``pow`` charged to the meter."""

    def __init__(self, ctx: MontContext, meter: CpuMeter, full: int) -> None:
        self._ctx = ctx
        self._meter = meter
        self._full = full

    def pow(self, base: int, exp: int) -> int:
        self._meter.exps([exp.bit_length()], self._full)
        return self._ctx.pow(base, exp)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)


class MeteredGroup(Group):
    """``group`` (same prime, wire id and results) charging its work to ``meter``."""

    def __init__(self, group: Group, meter: CpuMeter) -> None:
        super().__init__(group.name, group.gid, group.p, production=group.production)
        self.meter = meter
        self.full_bits = self.q.bit_length()
        self._native = group.ctx
        # Group.ctx is a cached property: the protocol's own pow calls go through the meter.
        self.__dict__["ctx"] = _MeteredCtx(self._native, meter, self.full_bits)

    # The results are the native kernel's, computed on one thread: the simulation runs
    # one phone at a time, and the phone's own cores are in the charge.
    def pow_batch(self, bases: Sequence[int], exp: int) -> list[int]:
        self.meter.exps([exp.bit_length()] * len(bases), self.full_bits)
        return self._many(list(bases), [exp] * len(bases))

    def _many(self, bases: list[int], exps: list[int]) -> list[int]:
        ctx = self._native
        if len(bases) <= 4:  # (a short batch is cheaper one by one than in lanes)
            return [ctx.pow(b, e) for b, e in zip(bases, exps, strict=True)]
        return ctx.pow_many(bases, exps, threads=1)

    def pow_many(self, bases: Sequence[int], exps: Sequence[int]) -> list[int]:
        if len(exps) == 2 and bases[0] == self.g and exps[1].bit_length() <= CHALLENGE_BITS:
            self.meter.sigcheck()  # app.protocol.keys.verify: g^s * (y^-1)^c
        else:
            self.meter.exps([e.bit_length() for e in exps], self.full_bits)
        return self._many(list(bases), list(exps))

    def is_element(self, c: object) -> bool:
        self.meter.jacobi()
        return super().is_element(c)


def batch_time(cpu: PhoneCpu, n: int) -> float:
    """Seconds for ``n`` full exponentiations in one batch on ``cpu`` (for the docs)."""
    return cpu.modexp_s * math.ceil(n / cpu.cores) if n else 0.0
