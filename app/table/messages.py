"""Table messages: what phones say to each other besides the SRA protocol.

Every frame on a table link starts with a channel byte:

* :data:`CONTROL` - a table message below, as compact UTF-8 JSON (codes and numbers;
  the only free text is a player's own name);
* :data:`PROTOCOL` - an SRA protocol message (:mod:`app.protocol`), binary, relayed
  by the host unchanged.

Control messages are frozen dataclasses, validated field by field on decode: a
malformed one raises :class:`~app.table.errors.TableError` ``bad_message`` and is not
applied (the table then drops the link that sent it).

>>> frame = encode(Join(player_id="0" * 32, name="Ala", lang="pl"))
>>> frame[:1] == CONTROL
True
>>> decode(frame)
Join(player_id='00000000000000000000000000000000', name='Ala', lang='pl', version=3)
>>> decode(PROTOCOL + b"\\x01\\x02")
ProtocolFrame(data=b'\\x01\\x02')
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, TypeVar

from app.table.errors import TableError

#: Version of the table protocol; a guest with another one is refused (``bad_version``).
#: 2: signatures cover a digest of the message, AUDIT frames carry input attestations
#: (issue 30, docs/protocol.md "Input attestations"). 3: a casino round digest
#: (``c_agree``) carries its log and a guest's the host's signed digest it got (issue 30).
VERSION = 3
CONTROL = b"\x01"
PROTOCOL = b"\x02"
#: Control messages are small; anything longer is refused before parsing.
MAX_CONTROL = 16 * 1024
MAX_NAME = 24
MAX_SEATS = 7
#: seconds a player may take per decision, and rounds per Oczko match: every phone
#: refuses options outside (the host's tools check their options against the same)
TURN_TIME_RANGE = (5, 600)
ROUNDS_RANGE = (1, 99)
ACTIONS = ("draw", "hold")

_LANG = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})?")
_PLAYER_ID = re.compile(r"[0-9a-f]{32}")
_CODE = re.compile(r"[a-z][a-z0-9_]{0,39}")


def clean_name(name: str) -> str:
    """A player's name as shown on every phone: NFC, trimmed, 1-24 characters, no
    control or format characters; ``bad_name`` otherwise.

    >>> clean_name("  Zoë ")
    'Zoë'
    """
    if not isinstance(name, str):
        raise TableError("bad_name", "a name is text")
    name = unicodedata.normalize("NFC", name).strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise TableError("bad_name", f"a name has 1-{MAX_NAME} characters", length=len(name))
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise TableError("bad_name", "a name has no control characters")
    return name


# -- field checks ----------------------------------------------------------------------

Check = Callable[[Any], Any]


def _int(lo: int, hi: int) -> Check:
    def check(v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise ValueError(f"an integer {lo}..{hi}")
        return v

    return check


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("true or false")
    return v


def _match(pattern: re.Pattern[str], what: str) -> Check:
    def check(v: Any) -> str:
        if not isinstance(v, str) or not pattern.fullmatch(v):
            raise ValueError(what)
        return v

    return check


def _object(what: str) -> Check:
    """A check that takes any JSON object (``what``: what it holds); the receiver checks
    the content (a snapshot: ``Match.resume``, ``CasinoPhone.resume``)."""

    def check(v: Any) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise ValueError(f"{what} (an object)")
        return v

    return check


def _one_of(*values: str) -> Check:
    def check(v: Any) -> str:
        if v not in values:
            raise ValueError(f"one of {', '.join(values)}")
        return str(v)

    return check


def _name(v: Any) -> str:
    try:
        return clean_name(v)
    except TableError as exc:
        raise ValueError(str(exc)) from exc


_seat = _int(0, MAX_SEATS - 1)
_code = _match(_CODE, "a code (lower-case letters, digits, _)")


# -- messages --------------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """Base of the control messages; ``TYPE`` is the wire name, ``CHECKS`` the schema."""

    TYPE: ClassVar[str] = ""
    CHECKS: ClassVar[dict[str, Check]] = {}

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, with the type under ``"t"``."""
        body = {f.name: _plain(getattr(self, f.name)) for f in fields(self)}
        return {"t": self.TYPE, **body}


def _plain(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, Message):
        return {k: val for k, val in v.to_json().items() if k != "t"}
    return v


@dataclass(frozen=True)
class Join(Message):
    """Guest -> host: sit me down (or give me back my seat: same ``player_id``)."""

    TYPE = "join"
    CHECKS: ClassVar[dict[str, Check]] = {
        "player_id": _match(_PLAYER_ID, "32 lower-case hex digits"),
        "name": _name,
        "lang": _match(_LANG, "a language code such as pl or pt-BR"),
        "version": _int(1, 255),
    }
    player_id: str
    name: str
    lang: str
    version: int = VERSION


@dataclass(frozen=True)
class Ready(Message):
    """Guest -> host: I am (not) ready to start."""

    TYPE = "ready"
    CHECKS: ClassVar[dict[str, Check]] = {"ready": _bool}
    ready: bool = True


@dataclass(frozen=True)
class Act(Message):
    """Guest -> host: my decision in round ``round`` (the host applies and announces it)."""

    TYPE = "act"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _int(1, 10_000), "action": _one_of(*ACTIONS)}
    round: int
    action: str


@dataclass(frozen=True)
class NextRound(Message):
    """Guest -> host: I have read the last round's result; deal round ``round`` (the
    round waiting for its deal). The host deals once every player still in the match
    said so, or when the pause (at most one turn's time) runs out, whichever is first;
    for any other round it changes nothing."""

    TYPE = "next_round"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _int(1, 10_000)}
    round: int


@dataclass(frozen=True)
class Ping(Message):
    """Either way: are you there? (answered by :class:`Pong` with the same ``n``)."""

    TYPE = "ping"
    CHECKS: ClassVar[dict[str, Check]] = {"n": _int(0, 2**31 - 1)}
    n: int


@dataclass(frozen=True)
class Pong(Message):
    """Answer to :class:`Ping`."""

    TYPE = "pong"
    CHECKS: ClassVar[dict[str, Check]] = {"n": _int(0, 2**31 - 1)}
    n: int


@dataclass(frozen=True)
class Bye(Message):
    """Either way: I am leaving (guest), or the table is closing (host), and why."""

    TYPE = "bye"
    CHECKS: ClassVar[dict[str, Check]] = {"reason": _code}
    reason: str = "left"


@dataclass(frozen=True)
class Refused(Message):
    """Host -> would-be guest: no seat for you (``table_full``, ``game_running`` ...)."""

    TYPE = "refused"
    CHECKS: ClassVar[dict[str, Check]] = {"code": _code}
    code: str


@dataclass(frozen=True)
class Options(Message):
    """The table options: rounds per match, seconds per decision, and whether the cards
    are dealt in secret (``secret``: the SRA dealer; False only when the host chose the
    open test dealer explicitly: every phone then deals openly and says so)."""

    TYPE = "options"
    CHECKS: ClassVar[dict[str, Check]] = {
        "rounds": _int(*ROUNDS_RANGE),
        "turn_time": _int(*TURN_TIME_RANGE),
        "secret": _bool,
    }
    rounds: int = 5
    turn_time: int = 30
    secret: bool = True

    @classmethod
    def checked(cls, rounds: int, turn_time: int) -> Options:
        """Options from user input; ValueError naming the field out of range.

        >>> Options.checked(3, 2)
        Traceback (most recent call last):
        ValueError: options.turn_time: an integer 5..600
        """
        return _build(cls, {"rounds": rounds, "turn_time": turn_time})


@dataclass(frozen=True)
class PlayerInfo(Message):
    """One seat as every phone shows it."""

    TYPE = "player"
    CHECKS: ClassVar[dict[str, Check]] = {
        "seat": _seat,
        "name": _name,
        "lang": _match(_LANG, "a language code"),
        "ready": _bool,
        "connected": _bool,
    }
    seat: int
    name: str
    lang: str
    ready: bool = False
    connected: bool = True


def _players(v: Any) -> tuple[PlayerInfo, ...]:
    if not isinstance(v, list) or len(v) > MAX_SEATS:
        raise ValueError(f"a list of at most {MAX_SEATS} players")
    players = tuple(_build(PlayerInfo, p) for p in v)
    if len({p.seat for p in players}) != len(players):
        raise ValueError("one entry per seat")
    return players


def _options(v: Any) -> Options:
    return _build(Options, v)


@dataclass(frozen=True)
class Lobby(Message):
    """Host -> guests: who sits where, who is ready, the options; sent on every change."""

    TYPE = "lobby"
    CHECKS: ClassVar[dict[str, Check]] = {"players": _players, "options": _options}
    players: tuple[PlayerInfo, ...]
    options: Options


@dataclass(frozen=True)
class Welcome(Message):
    """Host -> guest: your seat (and the lobby follows)."""

    TYPE = "welcome"
    CHECKS: ClassVar[dict[str, Check]] = {"seat": _seat, "rejoin": _bool}
    seat: int
    rejoin: bool = False


@dataclass(frozen=True)
class Turn(Message):
    """Host -> guests: ``seat`` is to act in ``round``; ``ms`` left on his clock."""

    TYPE = "turn"
    CHECKS: ClassVar[dict[str, Check]] = {
        "round": _int(1, 10_000),
        "seat": _seat,
        "ms": _int(0, 600_000),
    }
    round: int
    seat: int
    ms: int


@dataclass(frozen=True)
class Applied(Message):
    """Host -> guests: ``seat`` did ``action`` (``draw``: a card is dealt to him;
    ``drawn``: it is open on his phone and goes into every engine; ``timeout`` when his
    clock ran out,
    ``bust`` / ``21`` (a hold) when he announced his cards took him over / to 21,
    ``forfeit`` when his hand can no longer be opened at the showdown)."""

    TYPE = "applied"
    CHECKS: ClassVar[dict[str, Check]] = {
        "round": _int(1, 10_000),
        "seat": _seat,
        "action": _one_of(*ACTIONS, "drawn", "timeout", "bust", "21", "forfeit"),
    }
    round: int
    seat: int
    action: str


@dataclass(frozen=True)
class Left(Message):
    """Host -> guests: ``seat`` left (``reason``: ``left``, ``lost``, ``timeout``, ``cheat``)."""

    TYPE = "left"
    CHECKS: ClassVar[dict[str, Check]] = {"seat": _seat, "reason": _code}
    seat: int
    reason: str


_deck = _int(1, 2**31 - 1)
_round = _int(1, 10_000)


def _seat_list(v: Any) -> tuple[int, ...]:
    if not isinstance(v, list) or len(v) > MAX_SEATS:
        raise ValueError("a list of seats")
    seats = tuple(_seat(x) for x in v)
    if len(set(seats)) != len(seats):
        raise ValueError("each seat once")
    return seats


@dataclass(frozen=True)
class Begin(Message):
    """Host -> guests: the match starts with ``players`` seats; set the dealer up."""

    TYPE = "begin"
    CHECKS: ClassVar[dict[str, Check]] = {"players": _int(2, MAX_SEATS), "options": _options}
    players: int
    options: Options


@dataclass(frozen=True)
class SetUp(Message):
    """Guest -> host: my dealer is set up; ``fingerprint`` is what my screen shows."""

    TYPE = "setup"
    CHECKS: ClassVar[dict[str, Check]] = {
        "fingerprint": _match(re.compile(r"[0-9a-z]{1,16}"), "a code")
    }
    fingerprint: str


@dataclass(frozen=True)
class Go(Message):
    """Host -> guests: shuffle ``deck`` for ``round`` among the round's players."""

    TYPE = "go"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _round, "deck": _deck}
    round: int
    deck: int


@dataclass(frozen=True)
class Deal(Message):
    """Host -> guests: deal the round's two cards each from ``deck``."""

    TYPE = "deal"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _round, "deck": _deck}
    round: int
    deck: int


@dataclass(frozen=True)
class Dealt(Message):
    """Guest -> host: my dealt cards are open; I (do not) claim a Persian 21."""

    TYPE = "dealt"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _round, "deck": _deck, "persian": _bool}
    round: int
    deck: int
    persian: bool


@dataclass(frozen=True)
class CloseDeal(Message):
    """Host -> guests: everyone has looked at his cards; ``persian`` seats claim a Persian 21."""

    TYPE = "close_deal"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _round, "persian": _seat_list}
    round: int
    persian: tuple[int, ...] = ()


@dataclass(frozen=True)
class Drew(Message):
    """Guest -> host: the card I drew from ``deck`` is open; my hand is now ``open``,
    ``bust`` or ``21`` (also sent for a dealt 21 when my turn starts). The deck tells a
    report on a card a dropout voided from one on the card dealt again."""

    TYPE = "drew"
    CHECKS: ClassVar[dict[str, Check]] = {
        "round": _round,
        "deck": _deck,
        "status": _one_of("open", "bust", "21"),
    }
    round: int
    deck: int
    status: str


@dataclass(frozen=True)
class NewDeck(Message):
    """Host -> guests: a player dropped mid-round; the round goes on with ``deck``."""

    TYPE = "new_deck"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _round, "deck": _deck}
    round: int
    deck: int


@dataclass(frozen=True)
class Ahead(Message):
    """Host -> guests: during ``round``, shuffle ``deck`` in the background among its
    players, for the next round (voided by a dropout or a return)."""

    TYPE = "ahead"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _round, "deck": _deck}
    round: int
    deck: int


#: why a round is void, each a reason every phone checks against what it holds itself
#: (docs/protocol.md 5.1): ``cheat`` - my own phone named ``seat`` (a frame he signed,
#: his proven cards, an audit); ``dispute`` - a deck of the round is disputed on my phone
#: (a signed complaint I received); ``stalled`` - the round's audit on my phone waits
#: for ``seat``'s part (his seed), and his ``Left`` follows
VOID_REASONS = ("cheat", "dispute", "stalled")


def _seat_or_none(v: Any) -> int | None:
    return None if v is None else _seat(v)


@dataclass(frozen=True)
class Void(Message):
    """Host -> guests: ``round`` does not count; it is played again. ``reason`` (one of
    :data:`VOID_REASONS`) and ``seat`` (whom it is charged to; None: a disputed deck
    whose audit names nobody still at the table) say why: a guest that cannot check
    the reason against what its own phone holds names the host (``unjustified_void``).
    The cheater's ``Left`` follows."""

    TYPE = "void"
    CHECKS: ClassVar[dict[str, Check]] = {
        "round": _round,
        "reason": _one_of(*VOID_REASONS),
        "seat": _seat_or_none,
    }
    round: int
    reason: str
    seat: int | None = None


@dataclass(frozen=True)
class Rejoin(Message):
    """Host -> guests: ``seat``, who left, plays again from ``round`` (his points kept)."""

    TYPE = "rejoin"
    CHECKS: ClassVar[dict[str, Check]] = {"round": _round, "seat": _seat}
    round: int
    seat: int


@dataclass(frozen=True)
class Rekey(Message):
    """Host -> guests: set the dealer up anew among ``seats`` for decks from ``deck`` on
    (a player is back: his keys died with his old phone)."""

    TYPE = "rekey"
    CHECKS: ClassVar[dict[str, Check]] = {"deck": _deck, "seats": _seat_list}
    deck: int
    seats: tuple[int, ...]


_snapshot = _object("a match snapshot")


@dataclass(frozen=True)
class Resume(Message):
    """Host -> a returning guest: the match between rounds (``Match.snapshot``), set up anew."""

    TYPE = "resume"
    CHECKS: ClassVar[dict[str, Check]] = {
        "options": _options,
        "snapshot": _snapshot,
        "deck": _deck,
        "seats": _seat_list,
    }
    options: Options
    snapshot: dict[str, Any]
    deck: int  # the first deck he is dealt from
    seats: tuple[int, ...]  # who sets the dealer up anew (see Rekey)


@dataclass(frozen=True)
class ProtocolFrame:
    """An SRA protocol message, opaque to the table layer."""

    data: bytes


_M = TypeVar("_M", bound="Message")

MESSAGES: dict[str, type[Message]] = {
    cls.TYPE: cls
    for cls in (
        Join,
        Ready,
        Act,
        NextRound,
        Ping,
        Pong,
        Bye,
        Refused,
        Options,
        PlayerInfo,
        Lobby,
        Welcome,
        Turn,
        Applied,
        Left,
        Begin,
        SetUp,
        Go,
        Deal,
        Dealt,
        CloseDeal,
        Drew,
        NewDeck,
        Ahead,
        Void,
        Rejoin,
        Rekey,
        Resume,
    )
}


def register(*classes: type[Message]) -> None:
    """Add another game's control messages (e.g. the casino table's) to :func:`decode`;
    their wire names must be new."""
    for cls in classes:
        if MESSAGES.get(cls.TYPE, cls) is not cls:
            raise ValueError(f"message type {cls.TYPE!r} is taken")
        MESSAGES[cls.TYPE] = cls


def build(cls: type[_M], body: Any) -> _M:
    """``cls`` from a JSON object, checked field by field (ValueError naming the field)."""
    return _build(cls, body)


def check_fields(cls: type[Message], **values: Any) -> None:
    """Check ``values`` for fields of ``cls`` with the checks every receiver applies
    (ValueError ``type.field: ...``): a host refuses at once what its guests would
    refuse in its message (issue 37)."""
    for name, value in values.items():
        try:
            cls.CHECKS[name](value)
        except ValueError as exc:
            raise ValueError(f"{cls.TYPE}.{name}: {exc}") from exc


def _build(cls: type[_M], body: Any) -> _M:
    if not isinstance(body, dict):
        raise ValueError(f"{cls.TYPE}: an object")
    names = {f.name for f in fields(cls)}
    unknown = set(body) - names
    if unknown:
        raise ValueError(f"{cls.TYPE}: unknown fields {sorted(unknown)}")
    values = {}
    for f in fields(cls):
        if f.name not in body:
            if f.default is not MISSING:
                continue
            raise ValueError(f"{cls.TYPE}: {f.name} missing")
        try:
            values[f.name] = cls.CHECKS[f.name](body[f.name])
        except ValueError as exc:
            raise ValueError(f"{cls.TYPE}.{f.name}: {exc}") from exc
    return cls(**values)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate keys")
    return dict(pairs)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a number here")


def encode(message: Message | ProtocolFrame) -> bytes:
    """One frame payload for ``message``."""
    if isinstance(message, ProtocolFrame):
        return PROTOCOL + message.data
    text = json.dumps(message.to_json(), separators=(",", ":"), ensure_ascii=False)
    return CONTROL + text.encode("utf-8")


def decode(frame: bytes) -> Message | ProtocolFrame:
    """Parse one frame payload; :class:`TableError` ``bad_message`` if malformed."""
    if not isinstance(frame, bytes | bytearray | memoryview):
        raise TableError("bad_message", f"bytes expected, not {type(frame).__name__}")
    frame = bytes(frame)
    channel, body = frame[:1], frame[1:]
    if channel == PROTOCOL:
        return ProtocolFrame(bytes(body))
    if channel != CONTROL:
        raise TableError("bad_message", "unknown channel", channel=frame[:1].hex())
    if len(body) > MAX_CONTROL:
        raise TableError("bad_message", f"control message over {MAX_CONTROL} bytes")
    try:
        data = json.loads(
            body.decode("utf-8"),
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constants,
        )
        kind = data.get("t") if isinstance(data, dict) else None
        # (a type that is not text, e.g. a list, must not reach the dict lookup: unhashable)
        if not isinstance(kind, str) or kind not in MESSAGES:
            raise ValueError("no known message type")
        del data["t"]
        return _build(MESSAGES[kind], data)
    except (UnicodeDecodeError, ValueError, TypeError, RecursionError) as exc:
        raise TableError("bad_message", f"malformed control message: {exc}") from exc
