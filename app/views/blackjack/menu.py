"""Blackjack menu and the table-rule settings (presets + every option, saved)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.lang import Builder
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.gridlayout import GridLayout

from app.i18n import N_, _, localize_decimal
from app.views.base import BaseScreen
from app.views.blackjack.game import saved_rules

if TYPE_CHECKING:
    from app.rules.table_rules import TableRules

Builder.load_file(str(Path(__file__).with_suffix(".kv")))

ON_OFF = ((True, N_("On")), (False, N_("Off")))
#: preset name -> label
PRESET_LABELS = {
    "classic": N_("Classic (American)"),
    "european": N_("European"),
    "german": N_("German casino"),
    "european_restricted": N_("European, restricted"),
}
#: (field, label, ((value, label msgid or None for the value itself), ...))
RULE_OPTIONS: tuple[tuple[str, str, tuple[tuple[Any, str | None], ...]], ...] = (
    ("decks", N_("Decks"), tuple((n, None) for n in (1, 2, 4, 6, 8))),
    (
        "dealer_hits_soft_17",
        N_("Dealer on soft 17"),
        ((False, N_("stands (S17)")), (True, N_("hits (H17)"))),
    ),
    ("blackjack_pays", N_("Blackjack pays"), ((Fraction(3, 2), None), (Fraction(6, 5), None))),
    (
        "hole_card",
        N_("Hole card"),
        (("peek", N_("American peek")), ("enhc", N_("European, no hole card"))),
    ),
    ("enhc_original_bets_only", N_("European: dealer blackjack takes only original bets"), ON_OFF),
    (
        "double_on",
        N_("Double on"),
        (("any", N_("any two cards")), ("9-11", N_("hard 9-11")), ("10-11", N_("hard 10-11"))),
    ),
    ("double_after_split", N_("Double after split"), ON_OFF),
    (
        "max_hands",
        N_("Splitting pairs"),
        (
            (1, N_("no splitting")),
            (2, N_("once (2 hands)")),
            (3, N_("up to 3 hands")),
            (4, N_("up to 4 hands")),
        ),
    ),
    ("split_by", N_("Split pairs of"), (("rank", N_("same rank")), ("value", N_("same value")))),
    ("resplit_aces", N_("Resplit aces"), ON_OFF),
    ("late_surrender", N_("Late surrender"), ON_OFF),
    ("insurance", N_("Insurance and even money"), ON_OFF),
    ("triple_seven", N_("Triple seven pays 3:2"), ON_OFF),
    ("dealer_busts_bet", N_("\u201cDealer busts\u201d side bet"), ON_OFF),
    ("betting_behind", N_("Betting behind"), ON_OFF),
    ("rounds", N_("Rounds per session"), tuple((n, None) for n in (5, 10, 20, 50))),
    ("starting_chips", N_("Chips at the start"), tuple((n, None) for n in (500, 1000, 5000))),
    # the house's limits per box (seed 004); every preset keeps 10 and 500
    ("min_bet", N_("Smallest bet per box"), tuple((n, None) for n in (1, 5, 10, 25))),
    ("max_bet", N_("Limit per box"), tuple((n, None) for n in (100, 250, 500, 1000))),
)


#: one plain sentence per option: what it means for the player
OPTION_HELP: dict[str, str] = {
    "decks": N_("More decks make the game slightly worse for you."),
    "dealer_hits_soft_17": N_(
        "Whether the dealer takes another card at 17 counting an ace as 11 (hitting is"
        " worse for you)."
    ),
    "blackjack_pays": N_("What an ace and a ten-value card as your first two cards win."),
    "hole_card": N_(
        "American: the dealer checks his second card for blackjack at once; European: he"
        " draws it only after the players."
    ),
    "enhc_original_bets_only": N_(
        "If the dealer has blackjack, you lose only your first bet: the chips you added"
        " by doubling or splitting come back."
    ),
    "double_on": N_("Which first two cards let you double your bet for exactly one more card."),
    "double_after_split": N_("Whether you may double on a hand made by splitting a pair."),
    "max_hands": N_("How many hands you may make from one box by splitting pairs."),
    "split_by": N_(
        "Same rank: only two kings make a pair; same value: any two ten-value cards do."
    ),
    "resplit_aces": N_("Whether a split ace that gets another ace may be split again."),
    "late_surrender": N_(
        "Give up a hand after the dealer has checked for blackjack and get half the bet back."
    ),
    "insurance": N_("A side bet against the dealer's ace that pays 2:1 if he has blackjack."),
    "triple_seven": N_("Three sevens in a hand win one and a half times the bet at once."),
    "dealer_busts_bet": N_("A side bet before the deal that pays 5:2 if the dealer goes over 21."),
    "betting_behind": N_(
        "You may also bet on a box another player owns; his decisions then play your bet."
    ),
    "rounds": N_("How many rounds one session lasts."),
    "starting_chips": N_("The free chips you start a session with."),
    "min_bet": N_("The house's smallest bet on a box (and for a side bet)."),
    "max_bet": N_(
        "The house's limit on a box: the owner's bet and all bets behind together (also"
        " the side-bet limit)."
    ),
}


def option_applies(field: str, rules: TableRules) -> bool:
    """False for an option that has no effect under ``rules`` (it is then hidden)."""
    if field == "enhc_original_bets_only":
        return rules.hole_card == "enhc"
    if field == "late_surrender":
        return rules.hole_card == "peek"  # surrender needs the dealer's peek
    if field in ("double_after_split", "split_by"):
        return rules.max_hands >= 2
    if field == "resplit_aces":
        return rules.max_hands >= 3
    return True


def edge_text(edge: float | None) -> str:
    """The house edge line on the table-rules screen (None: still computing)."""
    if edge is None:
        return _("House edge of these rules: computing…")
    percent = localize_decimal(f"{100 * edge:.2f}")
    return _(
        "House edge of these rules: {percent} % (what the casino wins on average per"
        " bet, with the best play)"
    ).format(percent=percent)


#: house edges computed so far, by rule set (shared by the screens of a process)
EDGES: dict[Any, float] = {}


def compute_edge(rules: Any, then: Callable[[Any], Any]) -> None:
    """The house edge of ``rules`` as ``blu21 edge`` computes it, on a worker thread
    (under a second on a phone's core), into :data:`EDGES`; ``then(rules)`` follows on
    the main thread when it is done (not at all when this build cannot compute it)."""
    if rules in EDGES:
        return
    import threading

    def work() -> None:
        try:
            from app.strategy.edge import house_edge

            edge = house_edge(rules, threads=1).house_edge
        except Exception:  # no native analysis in this build: no line
            return
        EDGES[rules] = edge
        Clock.schedule_once(lambda _dt: then(rules), 0)

    threading.Thread(target=work, name="blu21-edge", daemon=True).start()


def option_label(value: Any, msgid: str | None) -> str:
    """Text of a rule choice."""
    if msgid is not None:
        return _(msgid)
    if isinstance(value, Fraction):
        return f"{value.numerator}:{value.denominator}"
    return str(value)


class BlackjackMenuScreen(BaseScreen):
    title = StringProperty(N_("Blackjack"))
    rules_text = StringProperty("")
    #: a session is in progress: the start button continues it
    resumable = BooleanProperty(False)

    def refresh(self) -> None:
        from app.views.blackjack.vm import rules_summary

        rules, _warning = saved_rules(self.app.prefs)
        self.rules_text = rules_summary(rules)
        self.resumable = self.app.screen("bj_table").game_in_progress()

    def start(self) -> None:
        table = self.app.screen("bj_table")
        if not table.game_in_progress():
            table.start_session()
        self.app.go("bj_table")


class TableRulesScreen(BaseScreen):
    title = StringProperty(N_("Table rules"))
    up = StringProperty("bj_menu")

    def refresh(self) -> None:
        rules, warning = saved_rules(self.app.prefs)
        if warning:
            self.app.notify(warning)
        self.rules = rules
        page = self.ids.page
        page.clear_widgets()
        page.add_widget(Factory.Body(text=_("Presets"), bold=True))
        grid = self._grid(2)
        for name, label in PRESET_LABELS.items():
            b = Factory.ChoiceButton(
                text=_(label),
                group="preset",
                state="down" if self.app.prefs.bj_preset == name else "normal",
            )
            b.preset = name
            b.bind(on_release=self._preset)
            grid.add_widget(b)
        page.add_widget(grid)
        self.edge_label = Factory.Body(text=edge_text(self._edges.get(rules)))
        page.add_widget(self.edge_label)
        self._compute_edge(rules)
        for field, label, choices in RULE_OPTIONS:
            if not option_applies(field, rules):
                continue
            page.add_widget(Factory.Body(text=_(label), bold=True))
            if field in OPTION_HELP:
                page.add_widget(Factory.Caption(text=_(OPTION_HELP[field])))
            grid = self._grid(min(3, len(choices)) if len(choices) != 4 else 4)
            for value, msgid in choices:
                b = Factory.ChoiceButton(
                    text=option_label(value, msgid),
                    group=f"rule-{field}",
                    state="down" if getattr(rules, field) == value else "normal",
                )
                b.rule = (field, value)
                b.bind(on_release=self._choose)
                grid.add_widget(b)
            page.add_widget(grid)
        page.add_widget(
            Factory.Caption(
                text=_("The rules are saved on this phone and used for the next session.")
            )
        )

    _edges = EDGES

    def _compute_edge(self, rules: Any) -> None:
        compute_edge(rules, self._show_edge)

    def _show_edge(self, rules: Any) -> None:
        if getattr(self, "rules", None) == rules and self._edges.get(rules) is not None:
            self.edge_label.text = edge_text(self._edges[rules])

    @staticmethod
    def _grid(cols: int) -> GridLayout:
        grid = GridLayout(cols=cols, size_hint_y=None, spacing=4)
        grid.bind(minimum_height=grid.setter("height"))
        return grid

    def _save(self, rules: Any, preset: str) -> None:
        self.app.update_prefs(table_rules=rules.to_json(), bj_preset=preset)
        self.refresh()

    def _preset(self, button: Any) -> None:
        from app.rules.table_rules import PRESETS

        self._save(PRESETS[button.preset], button.preset)

    def _choose(self, button: Any) -> None:
        from app.views.blackjack.vm import rule_change

        field, value = button.rule
        rules, problem = rule_change(self.rules, field, value)
        if problem:
            self.app.notify(problem)  # why these two rules cannot go together
            self.refresh()  # back to the rules in force
            return
        self._save(rules, "custom")
