"""The table set-up: every seat's public keys, then every seat's table seed.

Each seat sends a HELLO (signing and Diffie-Hellman keys, a commitment to a fresh
table seed); once every present seat's keys are in, the table id is their digest and
each seat reveals its seed (SEED); the joint seed of all seeds derives every round's
card encoding, and the 6-digit :func:`fingerprint` of both is shown on every screen.
"""

from __future__ import annotations

from app.protocol import errors as E
from app.protocol.core import SeatCore, TableSetup
from app.protocol.errors import ProtocolUsageError, ProtocolViolation
from app.protocol.keys import digest
from app.protocol.messages import Kind, Message


def present(core: SeatCore) -> list[int]:
    """The seats taking part in the set-up (all but those left out)."""
    return [s for s in range(core.config.n_seats) if s not in core.setup.absent]


def hello(core: SeatCore) -> list[Message]:
    """The set-up message: public keys and a commitment to this seat's table seed."""
    st = core.setup
    st.pubs[core.seat] = (core.identity.sign_pub, core.identity.dh_pub)
    st.commits[core.seat] = digest(st.table_seed)
    values = (core.identity.sign_pub, core.identity.dh_pub)
    return [core.send(Kind.HELLO, 0, values=values, data=st.commits[core.seat])]


def leave_out(core: SeatCore, seat: int) -> list[Message]:
    """``seat`` is gone before the set-up finished (a public event, on every seat):
    set the table up without him; messages to send (my SEED once the others' keys
    are in). A no-op once set up (rounds simply leave him out of their order).

    Whatever of his arrived before (every seat saw the same relayed frames) is used
    the same way everywhere: keys already in the table id stay there, a seed already
    revealed goes into the joint seed; nothing more from him is accepted.
    """
    st = core.setup
    if not 0 <= seat < core.config.n_seats or seat == core.seat:
        raise ProtocolUsageError("not another seat of this table")
    if st.ready or seat in st.absent:
        return []
    st.absent.add(seat)
    if not st.table_id:
        st.pubs.pop(seat, None)
        st.commits.pop(seat, None)
    return _progress(core)


def _progress(core: SeatCore) -> list[Message]:
    """Compute the table id once every present seat's keys are in, then the joint
    seed once every present seat's seed is in."""
    st = core.setup
    seats = present(core)
    if not st.table_id:
        if core.seat not in st.pubs or any(s not in st.pubs for s in seats):
            return []
        members = sorted(st.pubs)
        # The fresh seed commitments make the id unique to this table even for seats
        # that reuse their identities: no frame replays across tables.
        byte_len = core.group.byte_len
        st.table_id = digest(
            b"blu21/table",
            *(v.to_bytes(byte_len, "big") for s in members for v in st.pubs[s]),
            *(st.commits[s] for s in members),
        )
        st.seeds[core.seat] = st.table_seed
        return [core.send(Kind.SEED, 0, data=st.table_seed)]
    if not st.joint_seed and all(s in st.seeds for s in seats):
        st.joint_seed = digest(b"blu21/joint", *(st.seeds[s] for s in sorted(st.seeds)))
    return []


def on_setup(core: SeatCore, msg: Message) -> list[Message]:
    """A HELLO or SEED (authenticated): checked and recorded."""
    st = core.setup
    if msg.sender in st.absent:
        raise ProtocolViolation(msg.sender, E.WRONG_SENDER, "left before the set-up")
    if msg.kind == Kind.HELLO:
        if msg.seq != 0 or len(msg.values) != 2 or len(msg.data) != 32:
            raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "hello")
        if not core.group.is_element(msg.values[1]):
            raise ProtocolViolation(msg.sender, E.NOT_ELEMENT, "hello key")
        if st.table_id:
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "hello after the set-up")
        st.pubs[msg.sender] = (msg.values[0], msg.values[1])
        st.commits[msg.sender] = msg.data
        return _progress(core)
    if msg.kind == Kind.SEED:
        if msg.seq != 1 or msg.sender not in st.commits:
            raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, "seed")
        if digest(msg.data) != st.commits[msg.sender]:
            raise ProtocolViolation(msg.sender, E.COMMIT_MISMATCH, "table seed")
        st.seeds[msg.sender] = msg.data
        return _progress(core)
    raise ProtocolViolation(msg.sender, E.OUT_OF_ORDER, f"{msg.kind.name} during set-up")


def fingerprint(setup: TableSetup) -> int:
    """A 6-digit code of everyone's keys and seeds: equal on all screens, or a relay MITM.

    It covers the table seeds, committed in the HELLOs and revealed only after all
    HELLOs are in. From the table id alone (keys) a man-in-the-middle host could grind
    its fake keys until both victims' 6 digits matched (about 10^6 cheap tries); with
    the seeds it must fix its fake HELLOs before it can compute any victim's code, so
    it matches with probability 10^-6 per attempt.
    """
    if not setup.ready:
        raise ProtocolUsageError("set-up not finished")
    code = digest(b"blu21/fingerprint", setup.table_id, setup.joint_seed)
    return int.from_bytes(code[:8], "big") % 1_000_000


def missing(core: SeatCore) -> set[int]:
    """Whose keys (then seeds) the set-up still lacks (empty once ready)."""
    st = core.setup
    have = st.seeds if st.table_id else st.pubs
    return set() if st.ready else {s for s in present(core) if s not in have}


def progress(core: SeatCore) -> float:
    """How far the set-up has come, 0..1 (keys, then seeds)."""
    st = core.setup
    return min(1.0, (len(st.pubs) + len(st.seeds)) / (2 * len(present(core))))


def cut_card(setup: TableSetup, round_id: int, low: int, high: int) -> int:
    """A position uniform in ``low..high`` from the joint seed and ``round_id`` (a shoe's
    cut card): equal on every seat, chosen by none (every seat's table seed went into
    the joint seed, committed before any was revealed). A 256-bit hash reduced modulo
    a range of at most a few hundred positions: the bias is below 2^-240.
    """
    if not setup.ready:
        raise ProtocolUsageError("set-up not finished")
    if not 0 <= low <= high:
        raise ProtocolUsageError("the cut card needs 0 <= low <= high")
    h = digest(b"blu21/cut-card", setup.joint_seed, round_id.to_bytes(8, "big"))
    return low + int.from_bytes(h, "big") % (high - low + 1)
