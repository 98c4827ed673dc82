"""Hypothesis strategies for hand-history records (shared by the history tests)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from app.history.model import GAMES, MODES, RESULTS, Facts, RoundRecord
from app.rules.money import money_json

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
small = st.integers(0, 40)
floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
money = st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=20).map(
    lambda f: str(money_json(Fraction(f)))
)
json_leaf = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | floats | text
json_value = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text, kids, max_size=4),
    max_leaves=12,
)
facts = st.builds(
    Facts,
    hands=small,
    wins=small,
    pushes=small,
    losses=small,
    blackjacks=small,
    doubles_won=small,
    splits_won=small,
    decisions=small,
    mistakes=small,
    ev_lost=st.floats(0, 1000, allow_nan=False),
    persian=st.integers(0, 1),
    bust=st.integers(0, 1),
    held_total=st.none() | st.integers(2, 21),
    match_end=st.sampled_from([None, "won", "lost"]),
)
records = st.builds(
    RoundRecord,
    game=st.sampled_from(GAMES),
    mode=st.sampled_from(MODES),
    session=st.sampled_from(["s1", "s2", "s3"]) | text,
    number=st.integers(-(2**63), 2**63 - 1),
    started=floats,
    ended=floats,
    player=text,
    result=st.sampled_from(RESULTS),
    score_before=money,
    score_after=money,
    facts=facts,
    detail=st.dictionaries(text, json_value, max_size=5),
)
#: records without detail (statistics read only the fixed part)
summaries = st.builds(
    RoundRecord,
    game=st.sampled_from(GAMES),
    mode=st.sampled_from(MODES),
    session=st.sampled_from(["s1", "s2", "s3", "s4"]),
    number=st.integers(1, 9),
    started=st.floats(0, 2e9),
    ended=st.floats(0, 2e9),
    player=st.just("Ann"),
    result=st.sampled_from(RESULTS),
    score_before=money,
    score_after=money,
    facts=facts,
    detail=st.just({}),
)
