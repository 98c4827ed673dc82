"""A networked table's fairness on screen, once for both games: the fingerprint every
honest phone shares (Oczko's deck set-up, the casino's shoe set-up) and the newest
audit's verdict, as the lines the table screens show under their status.

:class:`CasinoFairness` is the adapter that reads the casino phone's record today:
its dealer's ``fingerprint`` and the ``audit`` entries of its log (the phone has no
public fairness record yet). No Kivy import: the tests read it headless.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.i18n import _
from app.table.casino.snapshot import CasinoSnapshot, CasinoTable


@dataclass(frozen=True)
class Audit:
    """One finished deck's or shoe's audit: ``ok``, the seats it named, and which
    shoe (0: Oczko's deck of the last round); ``unaudited``: none could run (a
    shuffler left with his seed)."""

    ok: bool
    cheaters: tuple[str, ...] = ()
    shoe: int = 0
    unaudited: bool = False


@dataclass(frozen=True)
class Fairness:
    """What a table screen shows of the table's fairness: ``fingerprint`` (digits,
    '' until set up) and the newest ``audit`` (None: none finished yet)."""

    fingerprint: str = ""
    audit: Audit | None = None


def fingerprint_text(code: str) -> str:
    """``Table fingerprint: 123 456 (the same on every phone)``; '' for no code."""
    if not code:
        return ""
    spaced = " ".join(code[i : i + 3] for i in range(0, len(code), 3))
    return _("Table fingerprint: {code} (the same on every phone)").format(code=spaced)


def audit_text(audit: Audit | None) -> str:
    """The newest audit's verdict in one line ('' before the first one)."""
    if audit is None:
        return ""
    if audit.ok:
        if audit.shoe:
            return _("Shoe {n} audited: every card was dealt once.").format(n=audit.shoe)
        return _("Audit: every card was dealt once and every claim was true.")
    if audit.unaudited:
        return unaudited_text(audit.shoe)
    names = ", ".join(audit.cheaters) or "?"
    return _("Audit failed: cheating by {names}.").format(names=names)


def unaudited_text(shoe: int) -> str:
    """A shoe no audit could run on, and what that means for its rounds."""
    return _(
        "Shoe {n} could not be audited: a player who shuffled it left before revealing "
        "his keys. Its rounds are unaudited."
    ).format(n=shoe)


def fairness_lines(fairness: Fairness) -> str:
    """The fingerprint line and the audit line, as the table screens show them."""
    lines = (fingerprint_text(fairness.fingerprint), audit_text(fairness.audit))
    return "\n".join(line for line in lines if line)


def fairness_short(fairness: Fairness) -> str:
    """The shoe's fingerprint and the audit's verdict in short, for a short screen at
    the status's end: ``#123 456 ✓`` (✗: the audit failed or could not run; the
    message line says why); '' before the set-up."""
    if not fairness.fingerprint:
        return ""
    code = fairness.fingerprint
    spaced = " ".join(code[i : i + 3] for i in range(0, len(code), 3))
    line = _("#{code}").format(code=spaced)
    audit = fairness.audit
    if audit is None:
        return line
    return f"{line} {'✓' if audit.ok else '✗'}"


def _seat_name(seat: object, names: Mapping[str, str]) -> str:
    pid = f"p{seat}" if isinstance(seat, int) else str(seat)
    return names.get(pid, pid)


class CasinoFairness:
    """Reads the fairness record of the casino phone behind a table (worker thread):
    its shoe dealer's fingerprint and the newest ``audit`` entry of its log, read on
    from where the last call stopped. A table without a phone (a table played on this
    phone) has none."""

    def __init__(self) -> None:
        self._phone: object = None
        self._seen = 0
        self._audit: Audit | None = None

    def read(self, table: CasinoTable, snap: CasinoSnapshot) -> Fairness:
        """The fairness of ``table`` now (``snap``: its snapshot, for the names)."""
        phone = getattr(table, "phone", None)
        if phone is None:
            return Fairness()
        log = getattr(phone, "log", None)
        if phone is not self._phone or not isinstance(log, list) or len(log) < self._seen:
            self._phone, self._seen, self._audit = phone, 0, None
        if isinstance(log, list):
            for entry in log[self._seen :]:
                if isinstance(entry, Mapping) and entry.get("event") == "audit":
                    self._audit = _audit(entry, snap)
            self._seen = len(log)
        code = str(getattr(getattr(phone, "dealer", None), "fingerprint", "") or "")
        return Fairness(code if code.isdigit() else "", self._audit)


def _audit(entry: Mapping[str, object], snap: CasinoSnapshot) -> Audit:
    cheaters = entry.get("cheaters")
    named = tuple(
        _seat_name(s, snap.names) for s in (cheaters if isinstance(cheaters, list) else ())
    )
    shoe = entry.get("shoe")
    unaudited = entry.get("unaudited") is True
    return Audit(bool(entry.get("ok")), named, shoe if isinstance(shoe, int) else 0, unaudited)
