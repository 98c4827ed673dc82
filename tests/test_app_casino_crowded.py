"""The crowded casino table's pure parts (issue 19): which boxes stay big, what a chip
of another box says, where the row of chips scrolls, a box button while the bets are
made. The live screens are driven in tests/test_app_casino.py."""

from __future__ import annotations

from fractions import Fraction

import pytest

# The screens' helpers live in Kivy modules; without Kivy (an optional package on a
# machine that only runs the engines) the module is skipped with the reason, not an error.
pytest.importorskip("kivy", reason="Kivy is not installed: the casino screens cannot load")

from app.cards import Card
from app.i18n import set_language
from app.views.blackjack.vm import HandVM
from app.views.casino.table import (
    box_button_text,
    cards_text,
    chip_lines,
    focus_boxes,
    paired,
    scroll_to_chip,
)
from app.views.casino.vm import CasinoBoxVM


@pytest.fixture(autouse=True)
def english() -> None:
    set_language("en")


def hand(cards: str, total: str = "17", current: bool = False, **kw: str) -> HandVM:
    codes = tuple(Card.parse(c).code for c in cards.split())
    return HandVM(
        1, codes, total, kw.get("status", ""), kw.get("stakes", ""), kw.get("result", ""), current
    )


def box(
    number: int,
    *hands: HandVM,
    mine: bool = False,
    stake: int = 0,
    in_play: bool = False,
    owner: str = "Ola",
) -> CasinoBoxVM:
    return CasinoBoxVM(
        number,
        "You" if mine else owner,
        mine,
        hands,
        "",
        Fraction(10),
        Fraction(stake),
        None,
        not mine,
        False,
        False,
        in_play,
    )


def numbers(parts: tuple[tuple[CasinoBoxVM, ...], tuple[CasinoBoxVM, ...]]) -> list[list[int]]:
    return [[b.number for b in part] for part in parts]


TEN_SEVEN = hand("Td 7c")


def test_every_box_is_big_while_all_fit_and_free_boxes_are_not_shown() -> None:
    boxes = (box(1, TEN_SEVEN, mine=True), box(2), box(3, TEN_SEVEN))
    assert numbers(focus_boxes(boxes, lambda n, crowded: n <= 3)) == [[1, 3], []]


def test_a_crowded_table_keeps_own_boxes_then_stakes_then_the_box_in_play() -> None:
    def tight(n: int, crowded: bool) -> bool:
        return crowded and n <= 2

    own = (box(1, TEN_SEVEN, mine=True), box(2, TEN_SEVEN), box(3, TEN_SEVEN, stake=5))
    assert numbers(focus_boxes(own, tight)) == [[1], [2, 3]]
    behind = (box(1, TEN_SEVEN), box(2, TEN_SEVEN, stake=5), box(3, TEN_SEVEN, in_play=True))
    assert numbers(focus_boxes(behind, tight)) == [[2], [1, 3]]
    watching = (box(1, TEN_SEVEN), box(2, TEN_SEVEN, in_play=True), box(3, TEN_SEVEN))
    assert numbers(focus_boxes(watching, tight)) == [[2], [1, 3]]


def test_when_own_boxes_do_not_fit_the_one_in_play_else_the_preferred_stays() -> None:
    split = (TEN_SEVEN, TEN_SEVEN)
    boxes = (box(1, *split, mine=True), box(2, TEN_SEVEN), box(3, *split, mine=True))
    assert numbers(focus_boxes(boxes, lambda n, c: n <= 2, prefer=3)) == [[3], [1, 2]]
    playing = (
        box(1, *split, mine=True, in_play=True),
        box(2, TEN_SEVEN),
        box(3, *split, mine=True),
    )
    assert numbers(focus_boxes(playing, lambda n, c: n <= 2, prefer=3)) == [[1], [2, 3]]


def test_a_crowded_round_stays_crowded() -> None:
    boxes = (box(1, TEN_SEVEN, mine=True), box(2, TEN_SEVEN))
    assert numbers(focus_boxes(boxes, lambda n, c: True, crowded=True)) == [[1], [2]]


def test_a_chip_shows_cards_totals_the_hand_in_play_and_everybody_s_stakes() -> None:
    b = box(2, hand("Ah 7s", "soft 18", True, stakes="Ola 10 · You 5"), stake=5)
    assert chip_lines(b) == ("Box 2 · Ola", ("▶ A♥ 7♠ · soft 18",), "Ola 10 · You 5")
    assert cards_text((Card.parse("Tc").code, 52)) == "10♣ ?"  # a face-down card


def test_a_settled_chip_says_each_hand_s_result_and_a_name_once() -> None:
    lost = hand("9c 2c", "11", result="Ola: lost (-10)\nYou: lost (-10)")
    won = hand("9d Ts", "19", result="Ola: won (+10)\nYou: won (+10)")
    _title, hands, detail = chip_lines(box(3, lost, won, stake=10))
    assert hands == ("9♣ 2♣ · 11", "9♦ 10♠ · 19")
    # two hands of the same result are both said, not merged into one
    assert detail == "You: lost (-10) · won (+10)"
    same = chip_lines(box(3, lost, lost, stake=10))[2]
    assert same == "You: lost (-10) · lost (-10)"


def test_a_chip_numbers_the_hands_of_a_box_split_into_more_than_two() -> None:
    hands = tuple(hand("8s 8h", "16") for _ in range(4))
    assert chip_lines(box(1, *hands, mine=True))[1][3] == "4: 8♠ 8♥ · 16"
    # the hands a chip shows beside the big rows keep their numbers
    assert chip_lines(box(1, *hands[:2], mine=True), (1, 4))[1] == (
        "1: 8♠ 8♥ · 16",
        "4: 8♠ 8♥ · 16",
    )
    assert paired(("1", "2", "3", "4")) == ("1   2", "3   4")


def test_the_row_of_chips_scrolls_to_a_chip_from_the_widths() -> None:
    chips = [(2, 116.0), (4, 116.0), (5, 150.0), (6, 116.0), (7, 116.0)]
    assert scroll_to_chip(chips, 2, 308, 4) == 0.0
    assert scroll_to_chip(chips, 7, 308, 4) == 1.0
    middle = scroll_to_chip(chips, 5, 308, 4)
    content = 614 + 16
    left = middle * (content - 308)  # the chip (at 240 .. 390) lies in the view
    assert left <= 240 and left + 308 >= 390
    assert scroll_to_chip([(2, 116.0)], 2, 308, 4) == 0.0  # nothing to scroll


def test_a_box_button_shows_the_owner_s_bet_and_the_bets_behind() -> None:
    b = CasinoBoxVM(
        4,
        "Jürgen",
        False,
        (),
        "You 10",
        Fraction(25),
        Fraction(10),
        None,
        True,
        False,
        False,
        False,
        behind_staked=Fraction(15),
    )
    assert box_button_text(b) == "Box 4\nJürgen\n10 + 15"
