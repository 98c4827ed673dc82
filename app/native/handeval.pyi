"""Types of the compiled ``app.native.handeval`` (source: native/handeval.pyx; keep the two
in step).

``tests/test_native_stubs.py`` runs mypy's stubtest against the built module, so a
signature changed in the ``.pyx`` and not here fails the suite. Card codes are ints 0-51;
compositions (``counts``, ``unseen``, ``shoe``) are 10 counts by value index (ace, 2-9,
ten-valued); ``rules`` is the 13-value tuple named by :data:`RULE_FIELDS`.
"""

from collections.abc import Iterable, Sequence

def oczko_total(hand: Iterable[int]) -> int:
    """Oczko total: aces always count 11, J 2, Q 3, K 4."""

def is_persian(hand: Iterable[int]) -> bool:
    """Exactly two cards, both aces."""

def bj_total(hand: Iterable[int]) -> tuple[int, bool]:
    """Casino total and softness ``(total, soft)``; one ace counts 11 if that does not bust."""

def is_blackjack(hand: Sequence[int]) -> bool:
    """Two cards totalling 21."""

def is_triple_seven(hand: Iterable[int]) -> bool:
    """Exactly three sevens."""

#: Order of the values in a rules tuple.
RULE_FIELDS: tuple[str, ...]

def dealer_probs(
    up: int,
    counts: Sequence[float],
    h17: bool = False,
    peek: bool = False,
    infinite: bool = False,
) -> tuple[float, float, float, float, float, float, float]:
    """Dealer's final (17, 18, 19, 20, 21, bust, blackjack) probabilities."""

def hand_evs(
    rules: Sequence[float],
    up: int,
    unseen: Sequence[float],
    hand: Sequence[int],
    hands_now: int = 1,
    split_rank: int = -1,
    pair_ok: bool = True,
) -> tuple[float, float, float, float, float]:
    """EV of (stand, hit, double, split, surrender) for ``hand`` (10 counts); NaN = illegal."""

def game_ev(
    rules: Sequence[float], shoe: Sequence[float], threads: int = 1
) -> tuple[float, list[float], list[float], list[float], tuple[float, float, float, float]]:
    """Expected return with composition-dependent optimal play: ``(ev, evs, probs, multi,
    parts)``."""

def simulate(
    rules: Sequence[float],
    decks: int,
    penetration: float,
    act2: bytes,
    multi: bytes,
    hands: int,
    seed: int = 1,
    threads: int = 1,
) -> dict[str, float]:
    """Play ``hands`` rounds through a shuffled shoe with the given strategy tables: the
    totals ``hands``, ``rounds``, ``total``, ``total_sq``, ``seconds``, ``insurance_total``,
    ``bust_bet_total``."""
