"""Frames (app/bluetooth/framing.py): any split decodes the same; defects give clear errors."""

from __future__ import annotations

import itertools
import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.bluetooth.errors import FrameError
from app.bluetooth.framing import (
    MAGIC,
    OVERHEAD,
    FrameDecoder,
    byte_width,
    decode_frames,
    encode_frame,
    int_from_bytes,
    int_to_bytes,
    ints_from_bytes,
    ints_to_bytes,
)

payloads = st.lists(st.binary(max_size=300), max_size=12)


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def _reference_frame(payload: bytes) -> bytes:
    # Written from the format description, independently of encode_frame.
    head = MAGIC + len(payload).to_bytes(4, "big")
    return head + payload + zlib.crc32(head + payload).to_bytes(4, "big")


@given(payloads, st.lists(st.integers(min_value=0), max_size=40))
def test_any_split_of_the_stream_decodes_identically(frames: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode_frame(p) for p in frames)
    decoder = FrameDecoder()
    out: list[bytes] = []
    for chunk in _split(stream, cuts):
        decoder.feed(chunk)
        out += decoder.drain()
    decoder.finish()
    assert out == frames
    assert decoder.buffered == 0


@given(st.binary(max_size=2000))
def test_encoding_matches_the_documented_format(payload: bytes) -> None:
    assert encode_frame(payload) == _reference_frame(payload)
    assert len(encode_frame(payload)) == len(payload) + OVERHEAD


@given(payloads)
def test_byte_by_byte_feeding(frames: list[bytes]) -> None:
    stream = b"".join(encode_frame(p) for p in frames)
    decoder = FrameDecoder()
    out = []
    for i in range(len(stream)):
        decoder.feed(stream[i : i + 1])
        if (frame := decoder.next_frame()) is not None:
            out.append(frame)
    assert out == frames


@given(st.lists(st.binary(min_size=1, max_size=100), min_size=1, max_size=5), st.data())
def test_truncated_stream_is_reported(frames: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(p) for p in frames)
    cut = data.draw(st.integers(min_value=1, max_value=len(stream) - 1))
    boundaries = set()
    pos = 0
    for p in frames:
        pos += len(p) + OVERHEAD
        boundaries.add(pos)
    decoder = FrameDecoder()
    decoder.feed(stream[:cut])
    good = decoder.drain()
    assert good == frames[: len(good)]
    if cut in boundaries:
        decoder.finish()  # a clean end between frames
    else:
        with pytest.raises(FrameError) as info:
            decoder.finish()
        assert info.value.code == "frame_truncated"


@given(st.binary(min_size=1, max_size=200), st.data())
def test_any_flipped_bit_is_detected(payload: bytes, data: st.DataObject) -> None:
    frame = bytearray(encode_frame(payload))
    bit = data.draw(st.integers(min_value=0, max_value=8 * len(frame) - 1))
    frame[bit // 8] ^= 1 << (bit % 8)
    decoder = FrameDecoder(max_frame=1000)
    decoder.feed(bytes(frame))
    with pytest.raises(FrameError) as info:
        decoder.drain()
        decoder.finish()  # a length made larger leaves the frame incomplete
    assert info.value.code in {
        "frame_magic",
        "frame_too_large",
        "frame_checksum",
        "frame_truncated",
    }


@given(st.binary(min_size=1, max_size=500))
def test_garbage_never_crashes(garbage: bytes) -> None:
    decoder = FrameDecoder(max_frame=1000)
    try:
        decoder.feed(garbage)
        frames = decoder.drain()
        decoder.finish()
    except FrameError as exc:
        assert exc.code.startswith("frame_")
    else:  # only possible if the garbage happens to be valid frames
        assert b"".join(encode_frame(f) for f in frames) == garbage


def test_good_frames_before_a_bad_one_are_delivered_then_the_decoder_stays_failed() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame(b"one") + encode_frame(b"two") + b"XX" + encode_frame(b"three"))
    assert decoder.next_frame() == b"one"
    assert decoder.next_frame() == b"two"
    with pytest.raises(FrameError) as first:
        decoder.next_frame()
    assert first.value.code == "frame_magic"
    with pytest.raises(FrameError) as again:
        decoder.feed(encode_frame(b"four"))
    assert again.value is first.value
    assert decoder.error is first.value


def test_oversized_frame_is_refused_from_its_header_alone() -> None:
    decoder = FrameDecoder(max_frame=100)
    header = struct.pack(">2sI", MAGIC, 101)
    decoder.feed(header)  # no payload byte has arrived yet
    with pytest.raises(FrameError) as info:
        decoder.next_frame()
    assert info.value.code == "frame_too_large"
    assert info.value.details == {"size": 101, "limit": 100}
    huge = FrameDecoder()
    huge.feed(struct.pack(">2sI", MAGIC, 0xFFFFFFFF))
    with pytest.raises(FrameError, match="limit"):
        huge.next_frame()
    assert huge.buffered == 6  # nothing allocated for the announced 4 GiB


def test_frame_size_limit_is_inclusive_on_both_sides() -> None:
    assert decode_frames(encode_frame(b"x" * 100, max_frame=100), max_frame=100) == [b"x" * 100]
    with pytest.raises(FrameError) as info:
        encode_frame(b"x" * 101, max_frame=100)
    assert info.value.code == "frame_too_large"
    with pytest.raises(FrameError):
        decode_frames(encode_frame(b"x" * 101), max_frame=100)
    with pytest.raises(ValueError):
        FrameDecoder(max_frame=-1)


def test_empty_payloads_are_frames_too() -> None:
    assert decode_frames(encode_frame(b"") * 3) == [b"", b"", b""]


def test_a_lone_wrong_first_byte_fails_at_once() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"{")  # e.g. a peer speaking JSON
    with pytest.raises(FrameError) as info:
        decoder.next_frame()
    assert info.value.code == "frame_magic"


# -- big integers ------------------------------------------------------------------------


@given(st.integers(min_value=2, max_value=1 << 3100))
def test_byte_width_holds_every_residue(modulus: int) -> None:
    width = byte_width(modulus)
    assert modulus - 1 < 256**width  # every residue fits
    assert width == 1 or modulus - 1 >= 256 ** (width - 1)  # and no byte is wasted


@given(st.data(), st.integers(min_value=1, max_value=400))
def test_fixed_width_integers_round_trip(data: st.DataObject, width: int) -> None:
    values = data.draw(
        st.lists(st.integers(min_value=0, max_value=(1 << (8 * width)) - 1), max_size=20)
    )
    packed = ints_to_bytes(values, width)
    assert len(packed) == width * len(values)
    assert ints_from_bytes(packed, width) == values
    assert ints_from_bytes(packed, width, count=len(values)) == values
    for v in values:
        assert int_from_bytes(int_to_bytes(v, width), width) == v


def test_ffdhe2048_values_take_256_bytes() -> None:
    p = (1 << 2048) - 1  # same bit length as the RFC 7919 prime
    assert byte_width(p) == 256
    assert len(int_to_bytes(p - 1, 256)) == 256


@pytest.mark.parametrize(
    ("call", "args"),
    [
        (int_to_bytes, (-1, 4)),
        (int_to_bytes, (1 << 32, 4)),
        (int_from_bytes, (b"\x00" * 3, 4)),
        (ints_from_bytes, (b"\x00" * 7, 4)),
        (ints_from_bytes, (b"\x00" * 8, 4, 3)),
    ],
)
def test_bad_integers_are_clear_errors(call, args) -> None:
    with pytest.raises(FrameError) as info:
        call(*args)
    assert info.value.code == "bad_int"


def test_widths_and_moduli_are_validated() -> None:
    with pytest.raises(ValueError):
        byte_width(1)
    with pytest.raises(ValueError):
        int_to_bytes(1, 0)
    with pytest.raises(ValueError):
        ints_from_bytes(b"", 0)


@pytest.mark.parametrize("wrong", [None, "text", 5, 1.5, [1, 2], {"a": 1}, True])
def test_every_decoder_refuses_a_wrong_type_with_a_coded_error(wrong) -> None:
    """Issue 13: a value of the wrong type is the project's error, never a TypeError."""
    from app.protocol.errors import ProtocolViolation
    from app.protocol.group import unsafe_test_group
    from app.protocol.messages import Message
    from app.table.errors import TableError
    from app.table.messages import decode

    for call in (
        lambda: encode_frame(wrong),
        lambda: FrameDecoder().feed(wrong),
        lambda: int_from_bytes(wrong, 2),
        lambda: ints_from_bytes(wrong, 2),
    ):
        with pytest.raises(FrameError) as info:
            call()
        assert info.value.code == "bad_type"
    if not isinstance(wrong, int):
        with pytest.raises(FrameError):
            int_to_bytes(wrong, 2)
    with pytest.raises(ProtocolViolation):
        Message.decode(wrong, unsafe_test_group())
    with pytest.raises(TableError):
        decode(wrong)
