"""A peek table and its networked equivalent (``networked_rules``) pay the same money.

The networked table has no hole card: the dealer's second card comes after the players.
Its card is the peek table's hole card moved behind the players' cards.  For a deck
order D' played at the networked table, let j be where its dealer's second card is
drawn (after the 2n cards of the deal, the up card and the players' k cards); D is D'
with the card at j moved to 2n + 1, the peek table's hole card.  Both tables then deal
the players the same cards, the peek table's hole card is the networked dealer's
second card, and the dealer draws the same cards after it.  D' -> D is a bijection of
deck orders (k is read from the play, which sees the same cards at both tables), so a
uniformly shuffled shoe stays uniform: exact equality of every round's money under this
coupling is equality of the money's law, hence of the house edge.

With the same deck order and no card moved, the two tables deal the players different
cards (the peek table's hole card is the networked table's first hit), so they agree
only in expectation; that is what ``blu21 edge --networked`` and
tests/test_networked_edge.py show.

What must hold, round by round, when the players decide the same on the same cards:
every bettor's net result is the same at both tables, insurance and dealer-busts bets
included.  The one exception is the triple seven: at a networked table three sevens
made before the dealer's blackjack are paid (seed 004), at a peek table they could not
be made (the peek ends the round); so there a bettor gets at least as much.
"""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.cards import Card, Rank, parse_cards
from app.cards import shoe as full_shoe
from app.rules.blackjack import Round
from app.rules.blackjack.deal import ShoeRound
from app.rules.shoe import Shoe
from app.rules.table_rules import TableRules, networked_rules

PLAYERS = {"ann": 1000, "bob": 1000, "cy": 40}
#: cards that make the interesting cases likely: dealer aces and tens, pairs, sevens
SPICY = ["As", "Ah", "Ad", "7s", "7h", "7d", "8s", "8h", "Ts", "Kh", "Qd", "Jc", "6d", "5c"]


@st.composite
def peek_rules(draw: st.DrawFn) -> TableRules:
    hands = draw(st.integers(1, 4))
    return TableRules(
        decks=draw(st.integers(1, 2)),
        dealer_hits_soft_17=draw(st.booleans()),
        blackjack_pays=draw(st.sampled_from([Fraction(3, 2), Fraction(6, 5)])),
        double_on=draw(st.sampled_from(["any", "9-11", "10-11"])),
        double_after_split=draw(st.booleans()),
        max_hands=hands,
        split_by=draw(st.sampled_from(["rank", "value"])),
        resplit_aces=hands >= 3 and draw(st.booleans()),
        hit_split_aces=draw(st.booleans()),
        late_surrender=draw(st.booleans()),
        insurance=draw(st.booleans()),
        triple_seven=draw(st.booleans()),
        dealer_busts_bet=draw(st.booleans()),
        betting_behind=True,
        boxes=3,
        min_bet=10,
        max_bet=100,
    )


def decide(r: Round, seed: int) -> Round:
    """One decision by a policy that sees what a player sees at both tables: the up
    card, the hands' cards, whose decision it is and what is allowed (never the hole
    card), so equal situations get equal decisions."""
    legal = r.legal_actions()
    hands = tuple((h.box, h.number, tuple(str(c) for c in h.cards)) for h in r.hands)
    allowed = tuple(sorted((a.kind.value, a.player or "", a.box or 0) for a in legal))
    rng = random.Random(repr((seed, str(r.up_card), r.phase.value, r.turn, hands, allowed)))
    pick = rng.choice(legal)
    amount = None
    if pick.max_amount is not None:
        low = pick.min_amount if pick.min_amount is not None else pick.max_amount / 2
        amount = rng.choice([low, pick.max_amount])
    return r.apply(pick.action(amount))[0]


def play(rules: TableRules, order: list[Card], seed: int, side_bet: bool) -> Round:
    r = ShoeRound.new(rules, Shoe.scripted(order, rules.decks), PLAYERS)
    r = r.act("bet", "ann", 1, 20).act("bet", "cy", 1, 10).act("bet", "bob", 2, 10)
    r = r.act("bet", "cy", 3, 10)
    if side_bet and rules.dealer_busts_bet:
        r = r.act("side_bet", "bob", None, 10)
    r = r.act("deal")
    while not r.settled:
        r = decide(r, seed)
    return r


def peek_order(networked: Round, order: list[Card], boxes: int) -> list[Card]:
    """The deck order on which the peek table sees what ``networked`` saw: its dealer's
    second card moved to the hole card's place."""
    dealt = sum(len(h.cards) for h in networked.hands) + 1  # the up card included
    j = dealt  # the first card nobody at the networked table took before the dealer
    if len(networked.dealer) >= 2:
        assert networked.dealer[1] == order[j]
    out = list(order)
    out.insert(2 * boxes + 1, out.pop(j))
    return out


@settings(max_examples=500, deadline=None)
@given(
    rules=peek_rules(),
    prefix=st.lists(st.sampled_from(SPICY), max_size=14),
    shuffle=st.integers(0, 2**32),
    seed=st.integers(0, 2**16),
    side_bet=st.booleans(),
    up=st.sampled_from(["As", "Td", "Kc", None]),
    pair=st.sampled_from(["7", "8", "A", None]),
)
def test_same_money_round_by_round_on_coupled_shoes(
    rules: TableRules,
    prefix: list[str],
    shuffle: int,
    seed: int,
    side_bet: bool,
    up: str | None,
    pair: str | None,
) -> None:
    cards = [Card.parse(c) for c in prefix]
    head = [c for i, c in enumerate(cards) if cards[: i + 1].count(c) <= rules.decks]
    rest = list(full_shoe(rules.decks))
    for c in head:
        rest.remove(c)
    random.Random(shuffle).shuffle(rest)
    order = head + rest
    first, second = (None, None) if pair is None else (pair + "c", pair + "d")
    for at, card in ((3, up), (0, first), (4, second)):  # up card; box 1's two cards
        if card is not None:  # (three boxes, the dealer, three boxes)
            order.remove(Card.parse(card))
            order.insert(at, Card.parse(card))
    net_rules = networked_rules(rules)
    assert net_rules.hole_card == "enhc"
    networked = play(net_rules, order, seed, side_bet)
    peek = play(rules, peek_order(networked, order, 3), seed, side_bet)
    # the same cards in every hand that the peek table let play
    if not any(e.kind == "peek" and e.to_json()["blackjack"] for e in peek.events):
        assert [h.cards for h in peek.hands] == [h.cards for h in networked.hands]
        assert peek.dealer == networked.dealer[: len(peek.dealer)] or len(networked.dealer) < 2
    sevens_paid = {
        s.player
        for h in networked.hands
        for s in h.stakes
        if s.outcome is not None and s.outcome.value == "triple_seven"
    }
    dealer_bj = len(peek.dealer) == 2 and peek.dealer_total() == 21
    for player, money in networked.results().items():
        if rules.triple_seven and dealer_bj and player in sevens_paid:
            assert money >= peek.results()[player]
        else:
            assert money == peek.results()[player], (player, order[:12])
    assert sum(networked.results().values()) + networked.house_result() == 0


def test_coupling_example_split_hand_busts_before_a_dealer_blackjack() -> None:
    # ann splits eights against a ten; her second hand busts; the dealer's second card
    # (the peek table's hole card) is an ace: at the peek table she loses her bet at
    # the peek, at the networked table the same 20 after playing
    rules = TableRules(boxes=1, late_surrender=True)
    order = list(parse_cards("8s Td 8h 9c 5d Kc As 2c 3c 4c"))
    networked = ShoeRound.new(networked_rules(rules), Shoe.scripted(order), {"ann": 100})
    networked = networked.act("bet", "ann", 1, 20).act("deal").act("split", "ann")
    networked = networked.act("stand", "ann").act("hit", "ann")
    assert networked.settled and networked.results() == {"ann": -20}
    peek = ShoeRound.new(rules, Shoe.scripted(peek_order(networked, order, 1)), {"ann": 100})
    peek = peek.act("bet", "ann", 1, 20).act("deal")
    assert peek.settled and peek.results() == {"ann": -20}
    assert peek.dealer[1].rank == Rank.ACE


def test_triple_seven_before_the_dealer_blackjack_is_paid_only_at_the_networked_table() -> None:
    # seed 004: three sevens win 3:2 at once, "unabhängig von der Karte des Croupiers";
    # at the peek table the dealer's blackjack ends the round before a third card
    rules = TableRules(boxes=1, triple_seven=True, insurance=False)
    order = list(parse_cards("7s Ad 7h 7c Kd 2c 3c 4c"))
    networked = ShoeRound.new(networked_rules(rules), Shoe.scripted(order), {"ann": 100})
    networked = networked.act("bet", "ann", 1, 10).act("deal").act("hit", "ann")
    assert networked.settled and networked.results() == {"ann": 15}
    peek = ShoeRound.new(rules, Shoe.scripted(peek_order(networked, order, 1)), {"ann": 100})
    peek = peek.act("bet", "ann", 1, 10).act("deal")
    assert peek.settled and peek.results() == {"ann": -10}
