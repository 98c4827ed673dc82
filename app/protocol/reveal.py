"""The end of a round: every seat reveals its round seed (AUDIT), the audit runs, and
frames that contradict their sender's seed are published (EVIDENCE).

The audit itself is :func:`app.protocol.audit.audit`, a pure function of the
transcript; this module holds when a seat may reveal, the frames, and what a verdict
changes on this seat (its accusations).
"""

from __future__ import annotations

from app.protocol import errors as E
from app.protocol.audit import audit
from app.protocol.core import SeatCore
from app.protocol.errors import ProtocolViolation
from app.protocol.keys import (
    CHALLENGE_BYTES,
    RoundSecret,
    message_digest,
    signature_len,
    verify,
    verify_digest,
)
from app.protocol.messages import Kind, Message
from app.protocol.shuffle import check_elements, last_pass
from app.protocol.transcript import Round, Verdict, seed_commitment


def reveal_due(rnd: Round) -> bool:
    """May this seat reveal its round seed (all its keys, hence every hand) now?

    Yes when the table ended the round here (``finish_round``) or this seat complained;
    after another seat's complaint only once that complainer revealed its own seed, and
    never in a suspended round, whose dealt cards stay in play.
    """
    if rnd.audit_wanted:
        return True
    return not rnd.suspended and any(c in rnd.audits for c, _ in rnd.complaints)


def audit_owed(rnd: Round) -> set[int]:
    """Whose round seed the audit of a void or finished round still lacks.

    After a complaint the complainer reveals first (the others only then): while no
    complainer has, the complainers owe it; then every seat that has not. The seat that
    keeps its seed is named, never the seats waiting for it.
    """
    complainers = {c for c, _ in rnd.complaints}
    if complainers and not complainers & set(rnd.audits):
        return complainers
    return {s for s in rnd.order if s not in rnd.audits}


_SEQ = 2
#: A frame's data is at most this long (its length is a u16)
_MAX_DATA = 0xFFFF


def attest_len(core: SeatCore) -> int:
    """Bytes of one input attestation: sequence number, digest, the host's signature."""
    return _SEQ + 32 + signature_len(core.group)


def max_attested(core: SeatCore) -> int:
    """Input attestations one AUDIT may carry, as many as its data holds after the seed
    (214 on ffdhe2048, 150 on ffdhe3072: the data's length is a u16; a round of one
    deck needs a handful). A shoe locked a card at a time can take more frames of the
    host than that: the first ones are attested (docs/protocol.md, section 5)."""
    return (_MAX_DATA - 32) // attest_len(core)


def max_audit_data(element: int, host_frames: int) -> int:
    """Bytes of an honest AUDIT's data at most, in a group of ``element``-byte values,
    for a round in which the host sends at most ``host_frames`` passes and locks: the
    seed and an attestation of each (within :func:`max_attested`). What the table's
    frame budgets must let through (app/table/frame_budget.py).

    >>> max_audit_data(256, 2), max_audit_data(256, 10_000)
    (644, 65516)
    """
    one = _SEQ + 32 + CHALLENGE_BYTES + element
    return 32 + min(host_frames, (_MAX_DATA - 32) // one) * one


def host_inputs(rnd: Round, seat: int, host: int) -> dict[int, int]:
    """The kinds of the host's frames ``seat`` computes on in ``rnd`` -> the kind of
    ``seat``'s step that takes them (its pass or its locks); empty if none."""
    if seat == host or seat not in rnd.order or host not in rnd.order:
        return {}
    me, h, n = rnd.order.index(seat), rnd.order.index(host), rnd.n
    steps: dict[int, int] = {}
    if me == h + 1:
        steps[Kind.SHUFFLE] = Kind.SHUFFLE  # the host's pass is my input
        if me < n - 1:
            steps[Kind.LOCK] = Kind.LOCK  # the host's locks too
    if me == 0 and h == n - 1:
        steps[Kind.SHUFFLE] = Kind.LOCK  # the last shuffler's stream: my first lock
    return steps


def frame_digest(core: SeatCore, msg: Message) -> bytes:
    """The digest its sender's signature covers (:func:`app.protocol.keys.message_digest`)."""
    return message_digest(msg.body(core.group))


def attestations(core: SeatCore, rnd: Round) -> bytes:
    """What I attest in my AUDIT: every frame of the host I computed on, as I got it.

    Only the host can send two seats two signed versions of one frame (it relays
    everything; a guest's second version is a replay at the host). With these, every
    seat judges my pass and locks on the version I received, and a host that gave the
    others another version is named by each of them (:func:`check_attestations`)."""
    kinds = host_inputs(rnd, core.seat, core.config.host)
    out = [
        seq.to_bytes(_SEQ, "big") + frame_digest(core, msg) + msg.sig
        for (sender, seq), msg in sorted(rnd.frames.items())
        if sender == core.config.host and msg.kind in kinds and msg.withheld is None
    ]
    return b"".join(out[: max_attested(core)])


def send_audit(core: SeatCore, rnd: Round) -> list[Message]:
    """Reveal my round seed (the last shuffler adds the rest of its pass where the
    audit opens the whole deck: a 52-card round) and attest my inputs from the host."""
    assert rnd.secret is not None
    rnd.audit_sent = True
    rest: tuple[int, ...] = ()
    start = 0
    if core.seat == rnd.order[-1] and len(rnd.stages[-2]) == rnd.size:
        start = len(rnd.stages[-1])
        if rnd.spec.whole_deck_audit:
            rest = tuple(last_pass(core, rnd, start, rnd.size))
    rnd.audits[core.seat] = (rnd.secret.seed, rest)
    data = rnd.secret.seed + attestations(core, rnd)
    return [core.send(Kind.AUDIT, rnd.round_id, start=start, values=rest, data=data)]


def on_audit(core: SeatCore, rnd: Round, msg: Message) -> None:
    """A seat's revealed round seed (checked against its commitment)."""
    size = attest_len(core)
    extra = len(msg.data) - 32
    if msg.sender in rnd.audits or extra < 0 or extra % size:
        raise ProtocolViolation(msg.sender, E.BAD_LENGTH, "audit")
    seed, rest = msg.data[:32], msg.data[32:]
    if seed_commitment(seed) != rnd.commits.get(msg.sender):
        # not the seed it bound itself to before the shuffle (or none was bound)
        raise ProtocolViolation(msg.sender, E.COMMIT_MISMATCH, "round seed")
    last = rnd.order[-1]
    if msg.sender != last and msg.values:
        raise ProtocolViolation(msg.sender, E.BAD_AUDIT, "only the last shuffler sends cards")
    if msg.sender == last:
        stage = rnd.stages[-1]
        whole = rnd.size if rnd.spec.whole_deck_audit else len(stage)
        if msg.start != len(stage) or len(stage) + len(msg.values) != whole:
            if len(rnd.stages[-2]) == rnd.size or msg.values:
                raise ProtocolViolation(msg.sender, E.BAD_AUDIT, "rest of the deck")
        elif msg.values:
            check_elements(core, rnd, msg.sender, msg.values, stage)
    # Another seat's AUDIT never makes this seat reveal: an early AUDIT would otherwise
    # open every hand (and the undealt deck) in the middle of a round.
    rnd.audits[msg.sender] = (seed, msg.values)
    rnd.attested[msg.sender] = tuple(
        (
            int.from_bytes(rest[a : a + _SEQ], "big"),
            rest[a + _SEQ : a + _SEQ + 32],
            rest[a + _SEQ + 32 : a + size],
        )
        for a in range(0, len(rest), size)
    )


def check_attestations(core: SeatCore, rnd: Round) -> None:
    """Each seat's attested inputs against my copies of the host's frames.

    The same digest: it computed on what I hold, and the audit judges it on that. A
    different one (or a sequence number I never got) that the host signed: the host
    gave it another version than me, which only the host can do: the host is named
    (``equivocation``) and that seat's step is not judged on my copy, which it never
    had. A digest the host did not sign: the attesting seat lied (``bad_audit``).
    Costs a hash per attested frame, and a signature check only where they differ."""
    host = core.config.host
    pub = core.setup.pubs.get(host)
    if core.is_host or pub is None:
        return  # (the host knows what it sent; an honest one sent one version)
    for seat, atts in rnd.attested.items():
        steps = host_inputs(rnd, seat, host)
        for seq, dig, sig in atts:
            mine = rnd.frames.get((host, seq))
            if mine is not None and mine.withheld is None and frame_digest(core, mine) == dig:
                continue
            core.count([core.group.q, 1 << 128])
            if not verify_digest(
                core.group, pub[0], core.setup.table_id, dig, sig, check_pub=False
            ):
                rnd.false_attesters.add(seat)
                break
            rnd.equivocators.add(host)
            rnd.unjudged.update((seat, step) for step in steps.values())


def run_audit(core: SeatCore, rnd: Round) -> list[Message]:
    """Every seed is in: the verdict (cheaters become accusations), then the evidence."""
    check_attestations(core, rnd)
    rnd.verdict = with_evidence(rnd, audit(rnd, core.group))
    for seat, code in rnd.verdict.cheaters:
        core.accusations.append(ProtocolViolation(seat, code, f"round {rnd.round_id}"))
    return evidence_for(core, rnd)


def evidence_for(core: SeatCore, rnd: Round) -> list[Message]:
    """Publish the signed frames that contradict their sender's revealed seed.

    The others may hold a different (consistent) version of such a frame if its sender
    equivocated (only the host can: it delivers its own frames); with the evidence
    every seat sees two signed versions and names it.
    """
    assert rnd.verdict is not None
    out = []
    # Shuffle and lock frames too: a host that sent its victim another version of its
    # own locks got the victim named for a false complaint on every other seat.
    kinds = {
        E.BAD_KEY: (Kind.KEYS, Kind.CLAIM),
        E.BAD_LOCK: (Kind.LOCK,),
        E.BAD_SHUFFLE: (Kind.SHUFFLE,),
    }
    for x, code in rnd.verdict.cheaters:
        if code not in kinds or x not in rnd.audits:
            continue
        sec = RoundSecret(core.group, rnd.audits[x][0], rnd.round_id, None)
        for (sender, _), msg in sorted(rnd.frames.items(), key=lambda kv: kv[0]):
            if sender != x or msg.kind not in kinds[code]:
                continue
            positions = list(msg.data) if msg.kind == Kind.KEYS else list(msg.data[2::2])
            if msg.kind in (Kind.LOCK, Kind.SHUFFLE) or any(
                k != sec.card_key_inv(p) for p, k in zip(positions, msg.values, strict=False)
            ):
                frame = msg.encode(core.group)
                out.append(core.send(Kind.EVIDENCE, rnd.round_id, data=frame))
    return out


def with_evidence(rnd: Round, verdict: Verdict) -> Verdict:
    """The audit's verdict after equivocation proven by EVIDENCE or by an attestation
    before it ran (and a seat that attested a frame the host never signed)."""
    liars = tuple((s, E.BAD_AUDIT) for s in sorted(rnd.false_attesters))
    if liars:
        cheaters = tuple(dict.fromkeys(verdict.cheaters + liars))
        verdict = Verdict(verdict.round_id, False, cheaters, None)
    if not rnd.equivocators:
        return verdict
    cheaters = tuple(
        c for c in verdict.cheaters if not (c[1] == E.FALSE_COMPLAINT and c[0] in rnd.excused)
    )
    cheaters += tuple((x, E.EQUIVOCATION) for x in sorted(rnd.equivocators))
    return Verdict(verdict.round_id, False, tuple(dict.fromkeys(cheaters)), None)


def on_evidence(core: SeatCore, rnd: Round, msg: Message) -> None:
    """Another seat's copy of a frame: a second signed version proves equivocation."""
    try:
        shown = Message.decode(msg.data, core.group)
    except ProtocolViolation:
        raise ProtocolViolation(msg.sender, E.BAD_FRAME, "evidence") from None
    pub = core.setup.pubs.get(shown.sender)
    body = shown.body(core.group)
    if (
        shown.round_id != rnd.round_id
        or pub is None
        or not verify(core.group, pub[0], core.setup.table_id, body, shown.sig, check_pub=False)
    ):
        raise ProtocolViolation(msg.sender, E.BAD_FRAME, "evidence not signed")
    core.count([core.group.q, 1 << 128])
    mine = rnd.frames.get((shown.sender, shown.seq))
    if mine is None or mine == shown:
        return  # nothing I did not see myself: my own audit has judged it
    # Two different signed frames with one sequence number: proven equivocation.
    # Whoever complained because of the version he got is excused.
    exc = ProtocolViolation(shown.sender, E.EQUIVOCATION, f"seq {shown.seq}")
    rnd.equivocators.add(shown.sender)
    rnd.excused.add(msg.sender)  # also for an audit that has not run yet
    core.accusations[:] = [
        a for a in core.accusations if not (a.seat == msg.sender and a.code == E.FALSE_COMPLAINT)
    ]
    core.accusations.append(exc)
    if rnd.verdict is not None:
        cheaters = tuple(c for c in rnd.verdict.cheaters if c != (msg.sender, E.FALSE_COMPLAINT))
        if (shown.sender, E.EQUIVOCATION) not in cheaters:
            cheaters += ((shown.sender, E.EQUIVOCATION),)
        rnd.verdict = Verdict(rnd.round_id, False, cheaters, None)
