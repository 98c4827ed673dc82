"""The rules of each game as the game menu shows them (source: the German seeds).

Pure data + gettext: ``oczko_rules()`` / ``blackjack_rules()`` return
``[(kind, text), ...]`` with kind ``"h"`` (heading) or ``"p"`` (paragraph),
translated into the current language.
"""

from __future__ import annotations

from app.i18n import N_, _
from app.rules.table_rules import TableRules, networked_rules

OCZKO_RULES: tuple[tuple[str, str], ...] = (
    ("h", N_("Oczko: the rules")),
    (
        "p",
        N_(
            "Collect cards with a total as close to 21 as possible without going over. "
            "You win a round if, among the players who did not bust (did not go over 21), "
            "you have the highest total. A match is a series of rounds: what counts is "
            "your total score over all rounds, not the result of a single round."
        ),
    ),
    (
        "p",
        N_(
            "Number cards (2-10) count their printed value. Court cards count DIFFERENTLY "
            "from classic blackjack: Jack = 2, Queen = 3, King = 4. An ace ALWAYS counts "
            "as 11: it is never reduced to 1, so a hand with an ace can bust too. The "
            "exception is the Persian 21 (two aces as the starting hand): an automatic "
            "round win. This is the most common source of misunderstandings at a table "
            "with players who know a variant with a flexible ace: best settle it before "
            "the first round."
        ),
    ),
    (
        "p",
        N_(
            "Every player starts the round with two cards. On your turn you choose: "
            "\u201cDraw\u201d (take another card) or \u201cHold\u201d (keep your current "
            "total and end your part of this round). Your time to decide is limited: if "
            "it runs out, the game holds for you, so a longer absence from the screen "
            "does not block the rest of the table."
        ),
    ),
    (
        "p",
        N_(
            "Once everyone has drawn or held, the totals of the players who did not bust "
            "are compared: the highest wins the round and its owner gets 1 point. A tie "
            "for the highest total (several players with the same value) does NOT split "
            "the point: the round ends without a winner and nobody gets anything. One "
            "rule stands above all others: two aces as your first two cards are a "
            "Persian 21, an automatic round win regardless of the other players' cards, "
            "even if someone else also has 21."
        ),
    ),
    (
        "p",
        N_(
            "Losing the Bluetooth connection in the middle of a round counts as a bust: a "
            "disconnected player cannot win that round. If he had already held or bust "
            "before the disconnection, that result stands: the disconnection undoes "
            "nothing that was already decided."
        ),
    ),
    (
        "p",
        N_(
            "A match runs over a set number of rounds but can end earlier: when only one "
            "active player is left at the table, or when the result is already "
            "mathematically certain (nobody else could catch up with the leader even by "
            "winning all remaining rounds). After the last round, whoever has the most "
            "points wins. If there is a tie for first place, an extra tiebreak round is "
            "played; if that also ends in a tie, another follows, until the tie is broken."
        ),
    ),
    ("h", N_("In the app")),
    (
        "p",
        N_(
            "The deck is shuffled cryptographically across the players' phones: no single "
            "phone, not even the host's, knows anyone else's cards. Nobody has to be the "
            "dealer. The phones connect directly over Bluetooth: game data never reaches "
            "the internet, and you need no account."
        ),
    ),
)

BLACKJACK_RULES: tuple[tuple[str, str], ...] = (
    ("h", N_("Blackjack: the rules")),
    (
        "p",
        N_(
            "In blackjack you play your hand against the dealer. A high number only helps "
            "as long as it is not over 21; and an initial blackjack is something else "
            "than 21 reached later. Our edition offers several concrete table rules and "
            "uses free chips only."
        ),
    ),
    ("h", N_("Card values and the actual goal")),
    (
        "p",
        N_(
            "Two to nine count their value, tens and court cards ten. An ace counts eleven "
            "or one, as needed not to bust. You win with a higher valid hand than the "
            "dealer, or if the dealer goes over 21 and you do not. If you bust first, a "
            "later dealer bust does not save you."
        ),
    ),
    ("h", N_("Soft and hard hands")),
    (
        "p",
        N_(
            "A soft hand can use at least one ace as eleven. A-6 is soft 17. If a ten "
            "comes, the ace becomes one: the hand is now hard 17 and not yet bust. A-6-5 "
            "is hard 12. The same total shown can therefore come about in different ways."
        ),
    ),
    ("h", N_("The decisions in our edition")),
    (
        "p",
        N_(
            "Hit draws another card, Stand ends your hand. Double doubles the bet and "
            "draws exactly one last card. Double is possible only on two cards and within "
            "the chosen limits. Split separates an allowed pair into two hands for an "
            "additional bet of the same size. Each is settled separately."
        ),
    ),
    (
        "p",
        N_(
            "Split aces get only one more card each. An ace with a ten after a split counts "
            "as 21, not as a natural blackjack that pays a bonus. With late surrender and "
            "the American peek enabled, you can give up the original two-card hand for "
            "half of the bet."
        ),
    ),
    ("h", N_("When the dealer acts")),
    (
        "p",
        N_(
            "After your decisions the dealer plays by his fixed rule. Below 17 he draws; "
            "on hard 17 or more he stands. On soft 17 the chosen S17/H17 setting decides. "
            "The dealer does not choose tactically according to your hand. In peek mode "
            "his possible blackjack is checked before your moves; in European mode his "
            "second card comes later."
        ),
    ),
    ("h", N_("Settling with imaginary chips")),
    (
        "p",
        N_(
            "An ordinary win pays 1:1 net, a push returns the bet. A natural blackjack pays "
            "3:2 or 6:5, depending on the table chosen. With ten chips that is 15 or 12 "
            "won, so 25 or 22 back in total. Your blackjack against the dealer's blackjack "
            "is a push."
        ),
    ),
    (
        "p",
        N_(
            "Insurance is a separate side bet when the dealer shows an ace: at most half of "
            "the base bet, paying 2:1 net if the dealer has blackjack. Without a dealer "
            "blackjack it loses, even if the main hand wins. The insurance win and the "
            "result of the main bet are settled separately."
        ),
    ),
    ("h", N_("Boxes, betting behind and side bets")),
    (
        "p",
        N_(
            "Up to seven boxes are played. Other players may bet behind a box within the "
            "box limit; they have no say and follow the decisions of the box owner. A "
            "hand of exactly three sevens (triple seven, where the table allows it) pays "
            "3:2 at once, whatever the dealer has. A player with blackjack against a "
            "dealer's ace may take even money (1:1) at once. The \u201cdealer busts\u201d "
            "side bet, placed before the deal, pays 5:2 if the dealer goes over 21."
        ),
    ),
    ("h", N_("Start and actual defaults")),
    (
        "p",
        N_(
            "Without saved rule preferences our edition starts with six decks, stand on "
            "soft 17, 3:2, double on any two cards and after split, up to four hands, "
            "splitting by equal rank, peek and no surrender. Insurance is on. The default "
            "is 1,000 chips and twenty rounds."
        ),
    ),
    (
        "p",
        N_(
            "Game chips are free and can neither be bought nor cashed out or exchanged for "
            "real values. A new session starts with the saved preferences. An abandoned "
            "round is not resumed."
        ),
    ),
)


#: What differs for the player at a networked casino table (no phone may look at a
#: hole card; app.rules.table_rules.networked_rules). Keys say when a paragraph applies.
NETWORKED_RULES: dict[str, str] = {
    "heading": N_("At a table across phones"),
    "no_hole_card": N_(
        "No hole card: no phone may look at a hidden card, so the dealer's second card "
        "comes after you play, as at a European table."
    ),
    "original_bets_only": N_(
        "Against a dealer blackjack you lose only your original bet: what you added by "
        "doubling or splitting comes back, even from a hand that went bust. That is "
        "what you would lose at this table with the peek, where the dealer checks for "
        "blackjack before you play, so the house edge stays the same."
    ),
    "surrender": N_(
        "Surrender works as at a peek table: you may give up your first two cards for "
        "half your bet, but if the dealer's second card then makes a blackjack you lose "
        "the whole bet, as if he had checked first."
    ),
    "triple_seven": N_(
        "Three sevens are paid at once, before the dealer's second card, so they win even "
        "against his blackjack: a little better for you than with the peek."
    ),
    "already_european": N_(
        "These rules already have no hole card: nothing else changes across phones."
    ),
}


def networked_differences(rules: TableRules) -> list[tuple[str, str]]:
    """What differs for the player when ``rules`` are played at a networked table
    (:func:`app.rules.table_rules.networked_rules`), translated: a heading, then one
    paragraph per difference."""
    keys = ["heading", "no_hole_card"]
    if rules.hole_card == "enhc":
        keys.append("already_european")
    else:
        keys.append("original_bets_only")
        if networked_rules(rules).enhc_late_surrender:
            keys.append("surrender")
        if rules.triple_seven:
            keys.append("triple_seven")
    return [("h" if k == "heading" else "p", _(NETWORKED_RULES[k])) for k in keys]


def _translate(items: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    return [(kind, _(text)) for kind, text in items]


def oczko_rules() -> list[tuple[str, str]]:
    """The Oczko rules in the current language."""
    return _translate(OCZKO_RULES)


def blackjack_rules(networked: TableRules | None = None) -> list[tuple[str, str]]:
    """The blackjack rules in the current language; with ``networked`` (the rules of a
    networked casino table) first what differs there for the player."""
    extra = [] if networked is None else networked_differences(networked)
    return extra + _translate(BLACKJACK_RULES)
