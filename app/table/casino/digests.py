"""The round digests the phones of a casino table sign, and the proof a returner checks.

At the end of every round each phone hashes what it settled (the log chain, the cards'
positions, chips, boxes, house: :meth:`CasinoPhone.digest_body
<app.table.casino.phone.CasinoPhone.digest_body>`) and signs it for the others
(``CAgree``). :class:`Digests` keeps, per round, whose digest came, whose matched this
phone's, whose must still come, and the signatures a returning phone is shown: the
proof :func:`check_proof` checks, so that a returner need not take the host's word for
the chips.

>>> d = Digests()
>>> d.settled(1, "abc", {"p1", "p2"})
>>> d.received.setdefault(1, {})["p1"] = "abc"
>>> d.compare(1, "abc")
>>> sorted(d.agreed[1]), d.missing({"p1", "p2"}, last_round=3)
(['p1'], {1: {'p2'}})
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from app.rules.errors import IllegalAction
from app.table.casino.messages import CAgree

#: The signing context of a round's digest.
AGREE_CONTEXT = b"blu21/casino-agree"
#: A returning phone is shown the last round's signatures only: older ones are forgotten.
KEEP_SIGNED = 2
#: Rounds whose digests a phone keeps (the newest): a digest is compared, and one that
#: never came is missed, within two rounds; older ones are forgotten, so that what a
#: phone keeps does not grow with the table's life. A digest of a round this many
#: rounds ahead of a phone's own is refused (no honest phone is that far ahead).
KEEP_ROUNDS = 16


def digest_of(body: dict[str, Any]) -> str:
    """The SHA-256 of a round's digest body (canonical JSON).

    >>> digest_of({"b": 1, "a": [2]}) == digest_of({"a": [2], "b": 1})
    True
    """
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Digests:
    """Who sent which digest of which round, and whose matched this phone's."""

    received: dict[int, dict[str, str]] = field(default_factory=dict)  # round -> pid -> digest
    agreed: dict[int, set[str]] = field(default_factory=dict)  # round -> matched mine
    expected: dict[int, set[str]] = field(default_factory=dict)  # round -> must still come
    signed: dict[int, dict[str, str]] = field(default_factory=dict)  # round -> pid -> sig
    #: round -> pid -> (his log, the host's digest he got, the host's signature on it);
    #: the host's own: (its log, its digest, its signature)
    logs: dict[int, dict[str, tuple[str, str, str]]] = field(default_factory=dict)

    def take(self, message: CAgree) -> None:
        """Keep another phone's digest (its signature checked already)."""
        self.received.setdefault(message.round, {})[message.player] = message.digest
        host = (message.digest, message.sig) if message.player == "p0" else None
        hdigest, hsig = host or (message.hdigest, message.hsig)
        self.logs.setdefault(message.round, {})[message.player] = (message.log, hdigest, hsig)
        self.signed.setdefault(message.round, {})[message.player] = message.sig
        for old in [r for r in self.signed if r < message.round - KEEP_SIGNED]:
            del self.signed[old]
        self._trim(message.round)

    def _trim(self, newest: int) -> None:
        for rounds in (self.received, self.agreed, self.expected, self.logs):
            for old in [r for r in rounds if r <= newest - KEEP_ROUNDS]:
                del rounds[old]

    def settled(self, rnd: int, mine: str, expect: Collection[str]) -> None:
        """This phone settled round ``rnd`` with digest ``mine``; ``expect`` must sign it."""
        self.expected[rnd] = set(expect)
        self.compare(rnd, mine)
        self._trim(rnd)

    def compare(self, rnd: int, mine: str) -> None:
        """Mark the digests of ``rnd`` received so far that match ``mine``."""
        for pid, digest in self.received.get(rnd, {}).items():
            if digest == mine:
                self.agreed.setdefault(rnd, set()).add(pid)

    def judge(
        self, rnd: int, mine: str | None, judged: Collection[str] = ()
    ) -> tuple[str, str] | None:
        """What the guests' digests of round ``rnd`` (each carrying the host's signed
        digest and log he got, checked already) prove, against the host's own to this
        phone: ``("two_logs", pid)`` when ``pid``'s carries another host-signed log or
        digest (the host signed two: its fault), ``("disagree", pid)`` when ``pid``'s
        differs from the host's on the very log and digest the host signed for all and
        ``mine`` (this phone's, None while it has not settled) confirms the host's (an
        honest guest signs only on the log the host signed for him: the lie is his);
        None when neither (yet). ``judged``: players already found lying.

        >>> d = Digests()
        >>> d.logs[1] = {"p0": ("L", "D", "s"), "p1": ("L", "D", "s"), "p2": ("L", "D", "s")}
        >>> d.received[1] = {"p0": "D", "p1": "D", "p2": "X"}
        >>> d.judge(1, None), d.judge(1, "D")
        (None, ('disagree', 'p2'))
        >>> d.logs[1]["p1"] = ("M", "E", "t")
        >>> d.judge(1, "D")
        ('two_logs', 'p1')
        """
        logs = self.logs.get(rnd, {})
        host = logs.get("p0")
        if host is None:
            return None
        got = self.received.get(rnd, {})
        for pid in sorted(set(logs) - {"p0"} - set(judged)):
            log, hdigest, _ = logs[pid]
            if (log, hdigest) != host[:2]:
                return "two_logs", pid
        for pid in sorted(set(logs) - {"p0"} - set(judged)):
            if got.get(pid) != host[1] and mine == host[1]:
                return "disagree", pid
        return None

    def disagreeing(self, rnd: int, mine: str) -> list[str]:
        """Players whose digest of round ``rnd`` differs from ``mine``."""
        return [p for p, d in self.received.get(rnd, {}).items() if d != mine]

    def forget(self, pid: str) -> None:
        """The digests ``pid``'s phone still owed died with it (he left): were they kept,
        he would be taken for withholding them once he is back on a new phone."""
        for expected in self.expected.values():
            expected.discard(pid)

    def missing(
        self, present: Collection[str], last_round: int, lag: int = 2
    ) -> dict[int, set[str]]:
        """Players ``present`` whose digest of a round settled ``lag`` or more rounds
        before ``last_round`` has not come (an honest phone sends it as it settles)."""
        out = {}
        for rnd, expected in self.expected.items():
            if rnd > last_round - lag:
                continue
            missing = expected & set(present) - set(self.received.get(rnd, {}))
            if missing:
                out[rnd] = missing
        return out

    def proof(self, rnd: int, body: dict[str, Any]) -> dict[str, Any]:
        """Round ``rnd``'s digest body and the signatures of those whose digest matched."""
        signed = self.signed.get(rnd, {})
        agreed = sorted(self.agreed.get(rnd, set()) & set(signed))
        return {"body": body, "sigs": {p: signed[p] for p in agreed}}


def check_proof(
    proof: Any,
    *,
    round_no: int,
    chips: dict[str, int | str],
    house: Any,
    applied: Any,
    signers: Collection[str],
    signed_by: Callable[[str, CAgree, str], bool],
) -> None:
    """A snapshot's ``proof`` must be round ``round_no``'s digest body with the chips,
    house and log the snapshot claims, signed by every one of ``signers``
    (``signed_by(pid, agreement, sig)``); IllegalAction ``forged_snapshot`` if not."""
    if not isinstance(proof, dict) or not isinstance(proof.get("body"), dict):
        raise IllegalAction("forged_snapshot", "no signed digest of the last round")
    body, sigs = proof["body"], proof.get("sigs")
    if not isinstance(sigs, dict):
        raise IllegalAction("forged_snapshot", "no signatures of the last round")
    if body.get("round") != round_no or body.get("chips") != chips:
        raise IllegalAction("forged_snapshot", "the chips are not the last round's")
    if body.get("house") != house or body.get("log") != applied:
        raise IllegalAction("forged_snapshot", "the house or log is not the last round's")
    digest = digest_of(body)
    for pid in sorted(signers):
        sig = sigs.get(pid)
        # (a player who agreed got the host's digest, equal to his own, with this log)
        signed = CAgree(pid, round_no, digest, log=str(body.get("log")), hdigest=digest)
        if not isinstance(sig, str) or not signed_by(pid, signed, sig):
            raise IllegalAction("forged_snapshot", f"{pid} did not sign that round")
