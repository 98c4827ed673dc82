"""The end-of-round audit and the full transcript check that names a cheater.

After a round (or when a complaint voids it) every seat reveals its 32-byte round seed,
from which all its keys and its permutation follow (:class:`~app.protocol.keys.RoundSecret`).
Each seat then checks *its own copy* of the signed transcript:

1. Keys: every key a seat broadcast (KEYS, CLAIM) equals the one its seed gives
   (no exponentiation) - else ``bad_key``.
2. The final deck: the last shuffler's output ``F`` (streamed in the round, the rest
   sent with its AUDIT) opened with all shuffle keys and the last seat's card keys
   must give exactly the 52 card encodings (52 exponentiations, one ``pow_many``).
3. The locked cards: each locked position opened with every seat's card key must give
   the same card as ``F`` at that position (one exponentiation per locked position).
4. Claims match the opened deck (``false_claim``); a complaint about a position that
   opens fine is a ``false_complaint``.

The final deck must also hold every card exactly where the revealed permutations
put it (no exponentiation): a pass reordered against its sender's committed seed
fails. Only when 2 or 3 fail does the full transcript check run: each shuffle pass is
recomputed position by position from its input, the revealed key and permutation
(``bad_shuffle``), the last pass through its card keys, and every locking step
(``bad_lock``). Every
check uses only frames signed by their senders and the senders' own revealed seeds, so
the named seat is the one whose signed messages contradict its own keys.

A shoe (a round of ``52 * decks`` cards, :attr:`~app.protocol.transcript.RoundSpec.size`)
skips 2: the last shuffler streams only what gets locked and sends no rest, and 3
compares the locked cards with the committed order directly. The cards never locked
were never in play; the locked ones are exactly where the committed permutations put
them, so the shoe dealt was a uniform shuffle of all its cards if one seat was honest.

Cost on each phone: about ``52 + locked`` exponentiations normally in a 52-card round,
``locked`` in a shoe (whatever its size); ``(n+1) * size + (n-1) * locked`` at most
when a cheater must be found. :func:`audit` is a pure function of one
seat's transcript (:class:`~app.protocol.transcript.Round`) and the group; the seat
runs it as background work (:meth:`app.protocol.seat.Seat.work`) once every seed is
in (:mod:`app.protocol.reveal`: the AUDIT and EVIDENCE frames).
"""

from __future__ import annotations

from app.protocol import errors as E
from app.protocol.encoding import DECK_SIZE
from app.protocol.group import Group
from app.protocol.keys import RoundSecret
from app.protocol.messages import Kind
from app.protocol.transcript import Round, Verdict


def revealed_secrets(rnd: Round, group: Group) -> dict[int, RoundSecret]:
    """Every seat's round secret from the seeds revealed in its AUDIT frame."""
    return {
        s: RoundSecret(group, seed, rnd.round_id, rnd.shuffle_bits)
        for s, (seed, _) in rnd.audits.items()
    }


def audit(rnd: Round, group: Group) -> Verdict:
    """Check a finished (or voided) round's transcript, every seed in; the verdict."""
    order = rnd.order
    rid = rnd.round_id
    secrets = revealed_secrets(rnd, group)
    cheaters: list[tuple[int, str]] = []

    def name(s: int, code: str) -> None:
        if (s, code) not in cheaters:
            cheaters.append((s, code))

    # 1. broadcast keys against the revealed seeds
    troubled: set[int] = set()  # positions with a provable fault
    for pos, keys in rnd.keys.items():
        for s, key in keys.items():
            if key != secrets[s].card_key_inv(pos):
                name(s, E.BAD_KEY)
                troubled.add(pos)

    size = rnd.size
    whole = rnd.spec.whole_deck_audit
    shuffled = all(len(st) == size for st in rnd.stages[:-1])
    last = order[-1]
    full_f = list(rnd.stages[-1]) + list(rnd.audits[last][1])
    deck: list[int | None] | None = None
    need_full = not shuffled  # voided during the shuffle: check the passes that exist
    if shuffled and whole and len(full_f) != size:
        name(last, E.BAD_AUDIT)  # the rest of the deck is missing
    elif shuffled:
        # Every card must sit exactly where the revealed permutations put it: a pass
        # reordered after its sender saw its input (related values tagging cards
        # through an honest pass, then a stacked last pass) fails here.
        committed: list[int | None] = list(dealt_order(secrets, order, size))
        deck = committed
        if whole:
            # 2. open the final deck (a shoe skips this: its cards in play are the
            # locked ones, checked in 3 against the committed order)
            k_inv = group.prod_exp(secrets[s].shuffle_key_inv for s in order[:-1])
            exps = [k_inv * secrets[last].card_key_inv(j) % group.q for j in range(size)]
            deck = [rnd.enc.card_of(v) for v in group.pow_many(full_f, exps)]
            need_full = deck != committed
        # 3. the locked cards open to the same cards
        final = rnd.final
        if final and not need_full:
            exps = [
                group.prod_exp(secrets[s].card_key_inv(j) for s in order) for j in range(len(final))
            ]
            opened = [rnd.enc.card_of(v) for v in group.pow_many(final, exps)]
            if opened != deck[: len(final)]:
                need_full = True
        if not whole:
            deck = deck[: len(final)]  # only the locked positions were checked
    if need_full:
        for s, code in full_transcript_check(rnd, group, secrets, full_f):
            name(s, code)
            troubled.update(range(size))

    # 4. claims and complaints against the opened deck
    if deck is not None and not need_full:
        for claimer, pairs in rnd.claim_log:
            wrong = [p for p, c in pairs if p >= len(deck) or deck[p] != c]
            if wrong:
                name(claimer, E.FALSE_CLAIM)
                troubled.update(wrong)
        for complainer, pos in rnd.complaints:
            if pos not in troubled:
                name(complainer, E.FALSE_COMPLAINT)
    if cheaters or deck is None or need_full:
        return Verdict(rid, False, tuple(cheaters), None)
    return Verdict(rid, True, (), tuple(c for c in deck if c is not None))


def dealt_order(
    secrets: dict[int, RoundSecret], order: tuple[int, ...], size: int = DECK_SIZE
) -> list[int]:
    """The code at each final position as the revealed permutations place it: pass i
    outputs at j its input at ``perm_i[j]``, the first pass's input being the codes in
    order."""
    cards = list(range(size))
    for s in order:
        perm = secrets[s].permutation(size)
        cards = [cards[perm[j]] for j in range(size)]
    return cards


def full_transcript_check(
    rnd: Round, group: Group, secrets: dict[int, RoundSecret], full_f: list[int]
) -> list[tuple[int, str]]:
    """Recompute every pass from the revealed seeds; return ``(seat, code)`` per liar."""
    order = rnd.order
    n = rnd.n
    size = rnd.size
    found: list[tuple[int, str]] = []
    # A pass (or lock) found bad may have reached its successor in another signed
    # version than mine (the host can equivocate on its own frames). Its successor is
    # then cleared if its output fits my copy OR the recomputed honest output;
    # otherwise an honest successor of an equivocating host would be named.
    honest_prev: list[int] | None = None
    # non-last shuffle passes: output multiset == (input ^ k) multiset
    for i in range(n - 1):
        out = rnd.stages[i]
        if len(out) < size:
            break
        inp = rnd.enc.values if i == 0 else rnd.stages[i - 1]
        k = secrets[order[i]].shuffle_key
        perm = secrets[order[i]].permutation(size)

        def passed(values: list[int], k: int = k, perm: tuple[int, ...] = perm) -> list[int]:
            raised = group.pow_batch(values, k)
            return [raised[perm[j]] for j in range(size)]

        if (order[i], Kind.SHUFFLE) in rnd.unjudged:
            honest_prev = None  # computed on another version of the host's pass than mine
            continue
        expect = passed(list(inp))
        if expect != out and (honest_prev is None or passed(honest_prev) != out):
            found.append((order[i], E.BAD_SHUFFLE))
            honest_prev = expect if honest_prev is None else passed(honest_prev)
        else:
            honest_prev = None
    # last pass: each output opened with its card key is one of the inputs, once (in
    # a shoe: the part streamed, all the audit opens)
    m = len(full_f)
    if (order[-1], Kind.SHUFFLE) in rnd.unjudged:
        pass  # its input was another version of the host's pass than mine (attested)
    elif len(rnd.stages[-2]) == size and (m == size or not rnd.spec.whole_deck_audit):
        last = secrets[order[-1]]
        perm = last.permutation(size)
        back = group.pow_many(full_f, [last.card_key_inv(j) for j in range(m)])
        inp = rnd.stages[-2]
        if any(back[j] != inp[perm[j]] for j in range(m)) and (
            honest_prev is None or any(back[j] != honest_prev[perm[j]] for j in range(m))
        ):
            found.append((order[-1], E.BAD_SHUFFLE))
    # locking steps, recomputed exactly
    honest_prev = None
    for u in range(n - 1):
        out = rnd.locks[u]
        inp = rnd.stages[-1] if u == 0 else rnd.locks[u - 1]
        if not out:
            continue
        if (order[u], Kind.LOCK) in rnd.unjudged:
            honest_prev = None  # computed on another version of the host's frames (attested)
            continue
        exps = [secrets[order[u]].lock_exponent(j) for j in range(len(out))]
        expect = group.pow_many(inp[: len(out)], exps)
        if expect != out and (
            honest_prev is None or group.pow_many(honest_prev[: len(out)], exps) != out
        ):
            found.append((order[u], E.BAD_LOCK))
            honest_prev = (
                expect if honest_prev is None else group.pow_many(honest_prev[: len(out)], exps)
            )
        else:
            honest_prev = None
    return found
