"""Casino blackjack table rules: one immutable, validated value.

>>> r = TableRules()                      # the seed 001 defaults (= preset "classic")
>>> r.decks, r.dealer_hits_soft_17, r.blackjack_pays
(6, False, Fraction(3, 2))
>>> TableRules.preset("european").hole_card
'enhc'
>>> try:
...     TableRules(late_surrender=True, hole_card="enhc")
... except RulesError as exc:
...     print(exc.fields)
('late_surrender', 'hole_card')
>>> TableRules.from_json(TableRules(blackjack_pays=Fraction(6, 5)).to_json()).blackjack_pays
Fraction(6, 5)

Change a field with :meth:`TableRules.replace` (validated again). JSON form:
:meth:`to_json` / :meth:`from_json`; fractions are written ``"3/2"`` and read from
``"3/2"``, ``"1.5"``, ints or JSON numbers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from app.rules.money import MoneyError, to_money

HOLE_CARD_RULES = ("peek", "enhc")
DOUBLE_RULES = ("any", "9-11", "10-11")
SPLIT_RULES = ("rank", "value")


class RulesError(ValueError):
    """Table rules that are invalid or contradict each other.

    ``fields`` names the offending fields; ``code`` is a stable identifier for the UI:
    ``invalid_rules`` for a value out of range, and for two rules that contradict each
    other the reason (``surrender_needs_peek``, ``original_bets_need_enhc`` ...), which
    the app and the terminal tools both show translated (app.i18n.codes).
    """

    def __init__(self, message: str, *fields: str, code: str = "invalid_rules") -> None:
        super().__init__(message)
        self.fields = tuple(fields)
        self.code = code


@dataclass(frozen=True)
class TableRules:
    """Every table option of seeds 001 and 004. Defaults = seed 001 (preset ``classic``).

    Fractions (``penetration``, ``blackjack_pays``) may be given as ``Fraction``, int
    or text (``"3/2"``); they are stored as ``Fraction``.
    """

    #: Number of 52-card decks in the shoe (1-8).
    decks: int = 6
    #: Share of the shoe dealt before the cut card; reshuffle between rounds after it.
    penetration: Fraction = Fraction(3, 4)
    #: True: dealer hits soft 17 (H17); False: dealer stands on all 17s (S17).
    dealer_hits_soft_17: bool = False
    #: Net payout of a natural blackjack per chip staked (3:2 or 6:5).
    blackjack_pays: Fraction = Fraction(3, 2)
    #: "peek" (American hole card, dealer checks on ace/ten) or "enhc" (European).
    hole_card: str = "peek"
    #: ENHC only: a dealer blackjack takes only the original stakes (doubles/splits back).
    enhc_original_bets_only: bool = False
    #: Which two-card hands may double: "any", "9-11" or "10-11" (hard totals only).
    double_on: str = "any"
    #: Double allowed on a hand made by splitting.
    double_after_split: bool = True
    #: Most hands a box may have after splitting (1 = no splitting).
    max_hands: int = 4
    #: Pairs that may split: same "rank" (K+K) or same "value" (J+Q).
    split_by: str = "rank"
    #: A split ace that draws another ace may be split again.
    resplit_aces: bool = False
    #: Split aces may draw more than one card.
    hit_split_aces: bool = False
    #: Late surrender (half the stake back) on the original two-card hand; needs peek.
    late_surrender: bool = False
    #: ENHC with original bets only: late surrender on the original two-card hand before
    #: the dealer's second card, settled as if it came after the peek: half the stake
    #: back, unless the dealer's second card makes a blackjack; then the hand loses its
    #: original stake, as at a peek table, where surrender is offered only when the
    #: dealer has no blackjack (the networked table's surrender; docs/scenarios.md).
    enhc_late_surrender: bool = False
    #: Insurance (and even money) offered when the dealer shows an ace.
    insurance: bool = True
    #: Three sevens pay 3:2 on the whole stake at once (Austrian rule).
    triple_seven: bool = False
    #: The "dealer busts" side bet (pays 5:2) is offered.
    dealer_busts_bet: bool = False
    #: Number of boxes (seats) at the table (1-7).
    boxes: int = 7
    #: Smallest bet on a box (also per bettor behind, and for the side bet).
    min_bet: int = 10
    #: Limit per box: the owner's and all bets behind together (also the side-bet limit).
    max_bet: int = 500
    #: Other players may bet behind on a box within the box limit.
    betting_behind: bool = False
    #: Chips each player starts a session with.
    starting_chips: int = 1000
    #: Rounds in a session.
    rounds: int = 20

    #: Fixed payouts (net per chip) of the rules not configurable by seed.
    TRIPLE_SEVEN_PAYS: ClassVar[Fraction] = Fraction(3, 2)
    DEALER_BUSTS_PAYS: ClassVar[Fraction] = Fraction(5, 2)
    INSURANCE_PAYS: ClassVar[Fraction] = Fraction(2)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise RulesError(f"{f.name} must be true or false, not {value!r}", f.name)
            elif f.type in ("int", int):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise RulesError(f"{f.name} must be a whole number, not {value!r}", f.name)
            elif f.type in ("Fraction", Fraction):
                try:
                    object.__setattr__(self, f.name, to_money(value, f.name))
                except MoneyError as exc:
                    raise RulesError(str(exc), f.name) from None
            elif f.type in ("str", str) and not isinstance(value, str):
                raise RulesError(f"{f.name} must be text, not {value!r}", f.name)
        self._validate()

    def _validate(self) -> None:
        def need(ok: bool, message: str, *names: str, code: str = "invalid_rules") -> None:
            if not ok:
                raise RulesError(message, *names, code=code)

        need(1 <= self.decks <= 8, f"decks must be 1-8, not {self.decks}", "decks")
        need(
            0 < self.penetration <= 1,
            f"penetration must be above 0 and at most 1, not {self.penetration}",
            "penetration",
        )
        need(
            0 < self.blackjack_pays <= 2,
            f"blackjack_pays must be above 0 and at most 2 (3/2 or 6/5), not {self.blackjack_pays}",
            "blackjack_pays",
        )
        need(  # (a ledger's denominators are the payouts': bounded, app.rules.money)
            self.blackjack_pays.denominator <= 100,
            f"blackjack_pays must be a ratio of small numbers, not {self.blackjack_pays}",
            "blackjack_pays",
        )
        need(
            self.hole_card in HOLE_CARD_RULES,
            f"hole_card must be one of {HOLE_CARD_RULES}, not {self.hole_card!r}",
            "hole_card",
        )
        need(
            self.double_on in DOUBLE_RULES,
            f"double_on must be one of {DOUBLE_RULES}, not {self.double_on!r}",
            "double_on",
        )
        need(
            self.split_by in SPLIT_RULES,
            f"split_by must be one of {SPLIT_RULES}, not {self.split_by!r}",
            "split_by",
        )
        need(1 <= self.max_hands <= 8, f"max_hands must be 1-8, not {self.max_hands}", "max_hands")
        need(1 <= self.boxes <= 7, f"boxes must be 1-7, not {self.boxes}", "boxes")
        need(self.min_bet >= 1, f"min_bet must be at least 1, not {self.min_bet}", "min_bet")
        need(self.rounds >= 1, f"rounds must be at least 1, not {self.rounds}", "rounds")
        # Contradictions between fields.
        need(
            not (self.late_surrender and self.hole_card != "peek"),
            "late_surrender needs hole_card 'peek': without a hole card the dealer cannot "
            "check for blackjack before the players act",
            "late_surrender",
            "hole_card",
            code="surrender_needs_peek",
        )
        need(
            not (self.enhc_original_bets_only and self.hole_card != "enhc"),
            "enhc_original_bets_only needs hole_card 'enhc' (with peek only original bets "
            "can lose to a dealer blackjack anyway)",
            "enhc_original_bets_only",
            "hole_card",
            code="original_bets_need_enhc",
        )
        need(
            not (self.enhc_late_surrender and not self.enhc_original_bets_only),
            "enhc_late_surrender needs hole_card 'enhc' with enhc_original_bets_only: "
            "a surrender settled as if after the peek needs a dealer blackjack that takes "
            "only original bets",
            "enhc_late_surrender",
            "enhc_original_bets_only",
            code="enhc_surrender_needs_original_bets",
        )
        need(
            self.min_bet <= self.max_bet,
            f"min_bet ({self.min_bet}) is above max_bet ({self.max_bet})",
            "min_bet",
            "max_bet",
            code="min_bet_above_max",
        )
        need(
            not (self.resplit_aces and self.max_hands < 3),
            f"resplit_aces needs max_hands of at least 3, not {self.max_hands}",
            "resplit_aces",
            "max_hands",
            code="resplit_aces_needs_hands",
        )
        need(
            self.starting_chips >= self.min_bet,
            f"starting_chips ({self.starting_chips}) is below min_bet ({self.min_bet}): "
            "nobody could bet",
            "starting_chips",
            "min_bet",
            code="chips_below_min_bet",
        )

    # -- construction helpers --------------------------------------------------------

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> TableRules:
        """A named preset (see :data:`PRESETS`), optionally with fields changed."""
        if name not in PRESETS:
            raise RulesError(
                f"unknown preset {name!r}; presets are {sorted(PRESETS)}",
                "preset",
                code="unknown_preset",
            )
        return PRESETS[name].replace(**overrides) if overrides else PRESETS[name]

    def replace(self, **changes: Any) -> TableRules:
        """A copy with ``changes`` applied and validated; unknown fields are an error."""
        _check_names(changes)
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict of every field; fractions as text ``"3/2"``."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = f"{v.numerator}/{v.denominator}" if isinstance(v, Fraction) else v
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], base: TableRules | None = None) -> TableRules:
        """Rules from a JSON dict; missing fields come from ``base`` (default: classic).

        Unknown fields and bad values raise :class:`RulesError` naming them.
        """
        if not isinstance(data, Mapping):
            raise RulesError("table rules must be a JSON object", "rules")
        _check_names(data)
        return (base or cls()).replace(**dict(data))

    def describe(self) -> dict[str, Any]:
        """Short stable codes for the rule summary the UI shows (translated there)."""
        return {
            "decks": self.decks,
            "dealer": "H17" if self.dealer_hits_soft_17 else "S17",
            "blackjack_pays": f"{self.blackjack_pays.numerator}:{self.blackjack_pays.denominator}",
            "hole_card": self.hole_card,
            "double_on": self.double_on,
            "max_hands": self.max_hands,
        }


def networked_rules(rules: TableRules) -> TableRules:
    """The rules a networked table plays for ``rules``: no phone may look at a hole card.

    A peek table becomes its no-hole-card equivalent with the same money: the dealer's
    second card comes after the players (ENHC), a dealer blackjack takes only original
    bets, and late surrender becomes surrender as if after the peek
    (``enhc_late_surrender``). Every other field is kept; ENHC tables are returned as
    they are. The house edge is the same unless ``triple_seven`` is on (a triple seven
    made before the dealer's blackjack is paid at a networked table; docs/scenarios.md).

    >>> n = networked_rules(TableRules(late_surrender=True))
    >>> n.hole_card, n.enhc_original_bets_only, n.late_surrender, n.enhc_late_surrender
    ('enhc', True, False, True)
    >>> networked_rules(EUROPEAN) is EUROPEAN
    True
    """
    if rules.hole_card == "enhc":
        return rules
    return rules.replace(
        hole_card="enhc",
        enhc_original_bets_only=True,
        late_surrender=False,
        enhc_late_surrender=rules.late_surrender,
    )


def _check_names(names: Mapping[str, Any]) -> None:
    known = {f.name for f in dataclasses.fields(TableRules)}
    unknown = sorted(set(names) - known)
    if unknown:
        raise RulesError(
            f"unknown table rule field(s) {unknown}; known fields are {sorted(known)}",
            *unknown,
            code="unknown_field",
        )


#: Seed 001: the app's defaults without saved preferences.
CLASSIC = TableRules()

#: Seed 004's main text: European no hole card (dealer blackjack takes every bet in
#: play), pairs by value, resplitting incl. aces (one card each), double on any two and
#: after a split, triple seven, the dealer-busts bet, betting behind, S17, 3:2.
EUROPEAN = TableRules(
    hole_card="enhc",
    split_by="value",
    resplit_aces=True,
    triple_seven=True,
    dealer_busts_bet=True,
    betting_behind=True,
)

#: Seed 004 on German casinos: no resplitting ("in deutschen Spielbanken ist das
#: mehrfache Teilen i. d. R. nicht zulässig"), otherwise as European, without the
#: Austrian triple seven.
GERMAN = EUROPEAN.replace(max_hands=2, resplit_aces=False, triple_seven=False)

#: Seed 004's "Regel-Varianten": double only on 9-11, resplit but no double after split.
EUROPEAN_RESTRICTED = EUROPEAN.replace(double_on="9-11", double_after_split=False)

#: Named presets.
PRESETS: dict[str, TableRules] = {
    "classic": CLASSIC,
    "european": EUROPEAN,
    "german": GERMAN,
    "european_restricted": EUROPEAN_RESTRICTED,
}
