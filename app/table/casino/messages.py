"""The casino table's control messages, validated field by field like the Oczko ones.

They travel on the table's control channel (:mod:`app.table.messages`, which decodes
them once this module is imported) beside the lobby's messages and the shoe's frames.

* A player's intents (a bet, a decision, taking a box) are :class:`CIntent` values
  *signed* by his phone's key (a Schnorr signature, :mod:`app.protocol.keys`), over
  the table id, his player id, a counter and the intent: the host relays them
  unchanged, so no phone (the host's included) can forge or alter another player's
  bet or decision without every phone noticing.
* The host's announcements (:class:`CBegin`, :class:`CShoe`, :class:`COpenBets`,
  :class:`CDeal`, :class:`CTimeout`, :class:`CLeft`, :class:`CBack`, :class:`CResume`)
  and the relayed intents form the table's log, which every phone applies in order to
  its own engine copy and hashes into a chain.
* After each round every phone signs a :class:`CAgree`: the round, and a digest of its
  log chain, the cards the round used and every chip count. The host relays them; a
  phone whose digest differs is caught (see docs/protocol.md, "The casino table").

A malformed message raises :class:`~app.table.errors.TableError` ``bad_message`` from
:func:`app.table.messages.decode`; the lobby drops the link that sent it.

>>> from app.table.messages import decode, encode
>>> decode(encode(COpenBets(round=3)))
COpenBets(round=3)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from app.rules.blackjack.actions import ActionKind
from app.rules.money import MAX_CHIPS, ZERO, Money, MoneyError, table_money
from app.rules.table_rules import RulesError, TableRules
from app.table.messages import (
    MAX_SEATS,
    TURN_TIME_RANGE,
    Check,
    Message,
    _bool,
    _code,
    _int,
    _match,
    _name,
    _object,
    _one_of,
    _seat,
    _seat_list,
    build,
    register,
)

#: What a player may ask for: the engine's actions but the table's deal and card (the
#: cards come from the shoe on every phone, never in a frame), and the boxes.
INTENTS: tuple[str, ...] = (
    *(k.value for k in ActionKind if k not in (ActionKind.DEAL, ActionKind.CARD)),
    "take_box",
    "leave_box",
    "done",  # my bets are in: deal as soon as everybody said so
)
#: seconds the players may take to bet: every guest refuses a table outside (issue 37)
BET_TIME_RANGE = (5, 600)
#: Reasons a player leaves the table (``CLeft``).
LEFT_REASONS = (
    "left",
    "lost",
    "silent",
    "stalled",
    "cheat",
    "disagree",
    "bad_message",
    "flood",  # over his budget of frames or refused intents (app/table/frame_budget.py)
    "ahead",  # frames for a shoe the table has not started
)

_PID = re.compile(r"p[0-6]")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_TABLE = re.compile(r"[0-9a-f]{32}")
_KEY = re.compile(r"[0-9a-f]{1,1024}")
_SIG = re.compile(r"[0-9a-f]{32,1100}")

_pid = _match(_PID, "a player id p0-p6")
_round = _int(0, 1_000_000)
_shoe = _int(1, 2**31 - 1)


def _money(v: Any) -> Money:
    # (the one bound of every amount at the table: app.rules.money.table_money)
    try:
        return table_money(v)
    except MoneyError as exc:
        raise ValueError(str(exc)) from exc


def _signed_money(v: Any) -> Money:
    try:
        return table_money(v, signed=True)
    except MoneyError as exc:
        raise ValueError(str(exc)) from exc


def money_wire(m: Money) -> int | str:
    """An exact amount as it travels: an integer, or ``"n/d"``."""
    return m.numerator if m.denominator == 1 else f"{m.numerator}/{m.denominator}"


@dataclass(frozen=True)
class CKey(Message):
    """Guest -> host, once seated: the public key my intents are signed with, and a
    signature by it on my seat's table id (proof that I hold it)."""

    TYPE = "c_key"
    CHECKS: ClassVar[dict[str, Check]] = {
        "key": _match(_KEY, "a public key (hex)"),
        "sig": _match(_SIG, "a signature (hex)"),
    }
    key: str
    sig: str


@dataclass(frozen=True)
class CIntent(Message):
    """A player's signed intent (guest -> host, then relayed to every phone)."""

    TYPE = "c_intent"
    CHECKS: ClassVar[dict[str, Check]] = {
        "player": _pid,
        "n": _int(1, 2**31 - 1),
        "round": _round,
        "act": _one_of(*INTENTS),
        "box": _int(0, MAX_SEATS),
        "amount": _money,
        "sig": _match(_SIG, "a signature (hex)"),
    }
    player: str
    n: int  # this player's intent counter: strictly increasing (no replay)
    round: int  # the round it is meant for (0: the lobby)
    act: str
    box: int = 0  # 0: none
    amount: Money = ZERO  # 0: none
    sig: str = ""

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["amount"] = money_wire(self.amount)
        return out

    def signed_bytes(self, table: str) -> bytes:
        """What the signature covers: the table id and every field but the signature."""
        return (
            f"{table}|{self.player}|{self.n}|{self.round}|{self.act}|{self.box}|"
            f"{money_wire(self.amount)}"
        ).encode()


def _opt(check: Check) -> Check:
    """``check``, or the empty string (a field an older message may leave out)."""
    return lambda v: "" if v == "" else check(v)


@dataclass(frozen=True)
class CAgree(Message):
    """A phone's signed digest of the table after ``round`` (log, cards, chips).

    ``log`` is the sender's log chain at the round's end (the digest's ``log``). The
    host signs its own; a guest's carries the host's ``CAgree`` of the round as it
    reached him (``hdigest`` and the host's signature ``hsig`` on it, with this
    ``log``): every phone can check it, so a host that signed another log (or digest)
    for one guest than for the others is caught by everybody (``two_logs``), and a
    guest whose digest differs from the host's on the same log is the liar (issue 30).
    """

    TYPE = "c_agree"
    CHECKS: ClassVar[dict[str, Check]] = {
        "player": _pid,
        "round": _int(1, 1_000_000),
        "digest": _match(_HEX64, "64 hex digits"),
        "sig": _match(_SIG, "a signature (hex)"),
        "log": _opt(_match(_HEX64, "64 hex digits")),
        "hdigest": _opt(_match(_HEX64, "64 hex digits")),
        "hsig": _opt(_match(_SIG, "a signature (hex)")),
    }
    player: str
    round: int
    digest: str
    sig: str = ""
    log: str = ""  # the sender's log chain at the round's end
    hdigest: str = ""  # a guest's: the digest of the host's CAgree he got ...
    hsig: str = ""  # ... and the host's signature on it (with ``log``)

    def signed_bytes(self, table: str) -> bytes:
        return (
            f"{table}|agree|{self.player}|{self.round}|{self.digest}|{self.log}|{self.hdigest}"
        ).encode()

    def host_part(self) -> CAgree:
        """The host's ``CAgree`` this guest's one carries (its signature: ``hsig``)."""
        return CAgree("p0", self.round, self.hdigest, self.hsig, self.log)


@dataclass(frozen=True)
class CPlayer(Message):
    """One player as every phone knows him."""

    TYPE = "c_player"
    CHECKS: ClassVar[dict[str, Check]] = {
        "pid": _pid,
        "seat": _seat,
        "name": _name,
        "key": _match(_KEY, "a public key (hex)"),
        "chips": _money,
        "present": _bool,
    }
    pid: str
    seat: int
    name: str
    key: str
    chips: Money
    present: bool = True

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["chips"] = money_wire(self.chips)
        return out


def _players(v: Any) -> tuple[CPlayer, ...]:
    if not isinstance(v, list) or not 1 <= len(v) <= MAX_SEATS:
        raise ValueError(f"a list of 1-{MAX_SEATS} players")
    out = tuple(build(CPlayer, p) for p in v)
    if len({p.pid for p in out}) != len(out) or len({p.seat for p in out}) != len(out):
        raise ValueError("each player and seat once")
    return out


def _rules(v: Any) -> TableRules:
    if not isinstance(v, dict):
        raise ValueError("table rules (an object)")
    try:
        return TableRules.from_json(v)
    except (RulesError, TypeError) as exc:
        raise ValueError(str(exc)) from exc


def _boxes(v: Any) -> tuple[tuple[int, str], ...]:
    if not isinstance(v, list) or len(v) > MAX_SEATS:
        raise ValueError("a list of [box, player] pairs")
    out = []
    for item in v:
        if not isinstance(item, list) or len(item) != 2:
            raise ValueError("a [box, player] pair")
        out.append((_int(1, MAX_SEATS)(item[0]), _pid(item[1])))
    if len({b for b, _ in out}) != len(out):
        raise ValueError("each box once")
    return tuple(out)


@dataclass(frozen=True)
class CBegin(Message):
    """Host -> guests: the table starts: its id, rules, time limits and players."""

    TYPE = "c_begin"
    CHECKS: ClassVar[dict[str, Check]] = {
        "table": _match(_TABLE, "32 hex digits"),
        "rules": _rules,
        "players": _players,
        "boxes": _boxes,
        "bet_time": _int(*BET_TIME_RANGE),
        "turn_time": _int(*TURN_TIME_RANGE),
        "secret": _bool,
    }
    table: str
    rules: TableRules
    players: tuple[CPlayer, ...]
    boxes: tuple[tuple[int, str], ...] = ()
    bet_time: int = 30
    turn_time: int = 30
    secret: bool = True

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["rules"] = self.rules.to_json()
        return out


@dataclass(frozen=True)
class CShoe(Message):
    """Host -> guests: shoe ``shoe`` of ``decks`` decks is shuffled among ``order``."""

    TYPE = "c_shoe"
    CHECKS: ClassVar[dict[str, Check]] = {
        "shoe": _shoe,
        "order": _seat_list,
        "decks": _int(1, 8),
    }
    shoe: int
    order: tuple[int, ...]
    decks: int


@dataclass(frozen=True)
class COpenBets(Message):
    """Host -> guests: round ``round`` takes bets (until the betting time runs out)."""

    TYPE = "c_open_bets"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _int(1, 1_000_000)}
    round: int


@dataclass(frozen=True)
class CDeal(Message):
    """Host -> guests: bets are closed; deal round ``round``."""

    TYPE = "c_deal"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _int(1, 1_000_000)}
    round: int


@dataclass(frozen=True)
class CTimeout(Message):
    """Host -> guests: ``player``'s time ran out (or he is gone): his pending decisions
    take their default (stand, no insurance, no double)."""

    TYPE = "c_timeout"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _int(1, 1_000_000), "player": _pid}
    round: int
    player: str


def _dead(v: Any) -> tuple[tuple[int, int], ...]:
    if not isinstance(v, list) or len(v) > 8:
        raise ValueError("a list of [shoe, positions] pairs")
    out = []
    for item in v:
        if not isinstance(item, list) or len(item) != 2:
            raise ValueError("a [shoe, positions] pair")
        out.append((_shoe(item[0]), _int(0, 8 * 52)(item[1])))
    return tuple(out)


@dataclass(frozen=True)
class CLeft(Message):
    """Host -> guests: ``player`` left (``reason``). ``dead`` lists the shoes he
    shuffled that can no longer be dealt from, each with how many of its positions
    opened before he left (those stand; nothing after them is dealt)."""

    TYPE = "c_left"
    CHECKS: ClassVar[dict[str, Check]] = {
        "player": _pid,
        "reason": _one_of(*LEFT_REASONS),
        "dead": _dead,
    }
    player: str
    reason: str
    dead: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class CBack(Message):
    """Host -> guests: ``player`` is back (same lobby id, a new phone state) and plays
    from the next round: his intents are signed with ``key`` from now on, and every
    phone sets its shoe dealer up anew for the shoes from ``shoe`` on (the older shoes
    are dealt no further)."""

    TYPE = "c_back"
    CHECKS: ClassVar[dict[str, Check]] = {
        "player": _pid,
        "key": _match(_KEY, "a public key (hex)"),
        "shoe": _shoe,
    }
    player: str
    key: str
    shoe: int


_snapshot = _object("a table snapshot")


@dataclass(frozen=True)
class CResume(Message):
    """Host -> a returning guest: the table as it stands between two rounds
    (:meth:`app.table.casino.phone.CasinoPhone.snapshot`); the ``CBack`` follows."""

    TYPE = "c_resume"
    CHECKS: ClassVar[dict[str, Check]] = {"begin": lambda v: build(CBegin, v), "state": _snapshot}
    begin: CBegin
    state: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        body = self.begin.to_json()
        del body["t"]
        return {"t": self.TYPE, "begin": body, "state": self.state}


@dataclass(frozen=True)
class CNo(Message):
    """Host -> one guest: your intent ``n`` was not relayed (``code``: why, e.g. the bets
    closed meanwhile); nothing changed."""

    TYPE = "c_no"
    CHECKS: ClassVar[dict[str, Check]] = {"n": _int(1, 2**31 - 1), "code": _code}
    n: int
    code: str


register(
    CKey,
    CIntent,
    CAgree,
    CPlayer,
    CBegin,
    CShoe,
    COpenBets,
    CDeal,
    CTimeout,
    CLeft,
    CBack,
    CNo,
    CResume,
)

#: The host's announcements that enter every phone's log (with the relayed intents).
Announcement = CBegin | CShoe | COpenBets | CDeal | CTimeout | CLeft | CBack | CIntent

__all__ = [
    "INTENTS",
    "LEFT_REASONS",
    "MAX_CHIPS",
    "Announcement",
    "CAgree",
    "CBack",
    "CBegin",
    "CDeal",
    "CIntent",
    "CKey",
    "CLeft",
    "CNo",
    "COpenBets",
    "CPlayer",
    "CResume",
    "CShoe",
    "CTimeout",
    "money_wire",
    "signed_bytes_of_key",
]


def signed_bytes_of_key(table_hint: str, key: str) -> bytes:
    """What a :class:`CKey`'s proof of possession signs (the key itself, bound to the
    casino table's context)."""
    return f"blu21/casino-key|{table_hint}|{key}".encode()
