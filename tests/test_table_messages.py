"""Table control messages (app/table/messages.py): round trips, strict validation."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.table.errors import TableError
from app.table.messages import (
    CONTROL,
    MESSAGES,
    PROTOCOL,
    VOID_REASONS,
    Act,
    Ahead,
    Applied,
    Begin,
    Bye,
    CloseDeal,
    Deal,
    Dealt,
    Drew,
    Go,
    Join,
    Left,
    Lobby,
    NewDeck,
    NextRound,
    Options,
    Ping,
    PlayerInfo,
    Pong,
    ProtocolFrame,
    Ready,
    Refused,
    Rejoin,
    Rekey,
    Resume,
    SetUp,
    Turn,
    Void,
    Welcome,
    clean_name,
    decode,
    encode,
)


def _is_clean(name: str) -> bool:
    try:
        return clean_name(name) == name
    except TableError:
        return False


names = st.text(
    st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")),
    min_size=1,
    max_size=24,
).filter(_is_clean)  # what a sender's clean_name would produce
seats = st.integers(0, 6)
langs = st.sampled_from(["pl", "de", "en", "pt-BR", "zh-Hant"])
players = st.builds(
    PlayerInfo, seat=seats, name=names, lang=langs, ready=st.booleans(), connected=st.booleans()
)
rounds = st.integers(1, 10_000)
decks = st.integers(1, 2**31 - 1)
options = st.builds(Options, rounds=st.integers(1, 99), turn_time=st.integers(5, 600))
messages = st.one_of(
    st.builds(
        Join,
        player_id=st.text("0123456789abcdef", min_size=32, max_size=32),
        name=names,
        lang=langs,
    ),
    st.builds(Ready, ready=st.booleans()),
    st.builds(Act, round=st.integers(1, 10_000), action=st.sampled_from(["draw", "hold"])),
    st.builds(NextRound, round=st.integers(1, 10_000)),
    st.builds(Ping, n=st.integers(0, 2**31 - 1)),
    st.builds(Pong, n=st.integers(0, 2**31 - 1)),
    st.builds(Bye, reason=st.sampled_from(["left", "host_left", "match_over"])),
    st.builds(Refused, code=st.sampled_from(["table_full", "game_running"])),
    options,
    players,
    st.builds(
        Lobby,
        players=st.lists(players, max_size=7, unique_by=lambda p: p.seat).map(tuple),
        options=options,
    ),
    st.builds(Welcome, seat=seats, rejoin=st.booleans()),
    st.builds(Turn, round=st.integers(1, 10_000), seat=seats, ms=st.integers(0, 600_000)),
    st.builds(
        Applied,
        round=st.integers(1, 10_000),
        seat=seats,
        action=st.sampled_from(["draw", "hold", "timeout"]),
    ),
    st.builds(Left, seat=seats, reason=st.sampled_from(["left", "lost", "cheat"])),
    st.builds(Begin, players=st.integers(2, 7), options=options),
    st.builds(SetUp, fingerprint=st.sampled_from(["open", "123456"])),
    st.builds(Go, round=rounds, deck=decks),
    st.builds(Deal, round=rounds, deck=decks),
    st.builds(Dealt, round=rounds, deck=decks, persian=st.booleans()),
    st.builds(CloseDeal, round=rounds, persian=st.lists(seats, unique=True).map(tuple)),
    st.builds(Drew, round=rounds, deck=decks, status=st.sampled_from(["open", "bust", "21"])),
    st.builds(NewDeck, round=rounds, deck=decks),
    st.builds(Ahead, round=rounds, deck=decks),
    st.builds(
        Void,
        round=rounds,
        reason=st.sampled_from(VOID_REASONS),
        seat=st.one_of(st.none(), seats),
    ),
    st.builds(Rejoin, round=rounds, seat=seats),
    st.builds(Rekey, deck=decks, seats=st.lists(seats, unique=True).map(tuple)),
    st.builds(
        Resume,
        options=options,
        snapshot=st.dictionaries(st.text(max_size=5), st.integers(0, 9), max_size=3),
        deck=decks,
        seats=st.lists(seats, unique=True).map(tuple),
    ),
)


@given(messages)
def test_every_message_round_trips(message) -> None:
    frame = encode(message)
    assert frame[:1] == CONTROL
    assert decode(frame) == message


def test_every_message_type_is_covered() -> None:
    # The round-trip strategy above builds each of these; a new type must be added there.
    covered = {Join, Ready, Act, Ping, Pong, Bye, Refused, Options, PlayerInfo, Lobby, Welcome}
    covered |= {Turn, Applied, Left, Begin, SetUp, Go, Deal, Dealt, CloseDeal, Drew, NewDeck}
    covered |= {Rejoin, Rekey, Resume, Void, NextRound, Ahead}
    # (the casino table's messages, "c_...", are covered in tests/test_casino_phone.py)
    assert {m for m in MESSAGES.values() if not m.TYPE.startswith("c_")} == covered


@given(st.binary(max_size=200))
def test_protocol_frames_pass_through_opaque(data: bytes) -> None:
    assert decode(encode(ProtocolFrame(data))) == ProtocolFrame(data)
    assert encode(ProtocolFrame(data))[:1] == PROTOCOL


@given(st.binary(max_size=300))
def test_garbage_is_a_clear_error_never_a_crash(data: bytes) -> None:
    try:
        decode(CONTROL + data)
    except TableError as exc:
        assert exc.code == "bad_message"


def _raw(obj) -> bytes:
    return CONTROL + json.dumps(obj).encode()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
_FIELDS = sorted({f.name for cls in MESSAGES.values() for f in dataclasses.fields(cls)})


@given(
    st.sampled_from(sorted(MESSAGES)) | _JSON,
    st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=5),
)
def test_a_value_of_any_type_in_any_field_is_refused_never_a_crash(kind, body) -> None:
    """Issue 13, finding 6: ``{"t": []}`` raised TypeError (unhashable) out of decode."""
    try:
        decode(_raw({"t": kind, **body}))
    except TableError as exc:
        assert exc.code == "bad_message"


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x09{}",
        _raw([]),
        _raw({"t": "nonsense"}),
        _raw({"t": "act", "round": 1}),
        _raw({"t": "act", "round": 1, "action": "fold"}),
        _raw({"t": "act", "round": True, "action": "draw"}),
        _raw({"t": "act", "round": 0, "action": "draw"}),
        _raw({"t": "act", "round": 1.0, "action": "draw"}),
        _raw({"t": "act", "round": 1, "action": "draw", "extra": 1}),
        _raw({"t": "join", "player_id": "A" * 32, "name": "x", "lang": "pl"}),
        _raw({"t": "join", "player_id": "a" * 32, "name": "", "lang": "pl"}),
        _raw({"t": "join", "player_id": "a" * 32, "name": "x\u0000y", "lang": "pl"}),
        _raw({"t": "join", "player_id": "a" * 32, "name": "x" * 25, "lang": "pl"}),
        _raw({"t": "join", "player_id": "a" * 32, "name": "x", "lang": "Polish"}),
        _raw({"t": "turn", "round": 1, "seat": 7, "ms": 0}),
        _raw({"t": "next_round"}),
        _raw({"t": "next_round", "round": 0}),
        _raw({"t": "next_round", "round": "2"}),
        _raw({"t": "next_round", "round": 2, "ready": True}),
        _raw({"t": "bye", "reason": "Host Left!"}),
        _raw(
            {"t": "lobby", "players": [{"seat": 0, "name": "a", "lang": "pl"}] * 2, "options": {}}
        ),
        _raw({"t": "lobby", "players": [], "options": {"rounds": 100}}),
        CONTROL + b'{"t":"ping","n":1,"n":2}',
        CONTROL + b'{"t":"ping","n":NaN}',
        CONTROL + b"\xff\xfe",
        CONTROL + b"[" * 100_000,
        CONTROL + b" " * 20_000,
    ],
)
def test_malformed_control_messages_are_refused(raw: bytes) -> None:
    with pytest.raises(TableError) as info:
        decode(raw)
    assert info.value.code == "bad_message"


def test_defaults_may_be_omitted() -> None:
    assert decode(_raw({"t": "ready"})) == Ready(True)
    assert decode(_raw({"t": "options"})) == Options(5, 30)


def test_names_are_normalised_and_checked() -> None:
    assert clean_name(" Zoe\u0308 ") == "Zoë"  # NFC
    assert decode(encode(Join(player_id="a" * 32, name=" Ala ", lang="pl"))).name == "Ala"
    for bad in ("", "   ", "x" * 25, "a\nb", "a\u200eb", 7):
        with pytest.raises(TableError) as info:
            clean_name(bad)
        assert info.value.code == "bad_name"
