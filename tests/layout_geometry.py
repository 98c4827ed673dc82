"""Geometry checks over the live widget tree (runs inside a Kivy driver process).

What a player sees must fit: every visible button is at least 48 dp in both directions,
no text is wider (or taller) than its box, no word is broken inside or cut off (the
rendered lines of the label's texture are compared with its text), and no widget lies
outside the window (inside a vertical scroll view only the horizontal extent counts,
inside a row that scrolls sideways only the vertical one: the rest is reached by
scrolling). On the blackjack and casino tables no text is drawn under 12 sp (the
lines beside a hand's cards not yet), and on every screen each card's rank corner
shows beside the next card.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

#: pixels of slack for rounding in the layouts
SLACK = 1.0
#: a card drawn narrower than this (dp) has an index too small to read
MIN_CARD_WIDTH = 34
#: and it may be squeezed to no less than this share of the height its screen asks for
MIN_CARD_SHARE = 0.5
#: no text on a table screen (one-phone blackjack, the casino) is drawn smaller (sp)
MIN_TEXT_SP = 12
#: the screens whose every label keeps :data:`MIN_TEXT_SP`
TABLE_SCREENS = ("BlackjackTableScreen", "CasinoTableScreen")


def _visible_children(widget: Any, clip: tuple | None) -> Iterator[tuple[Any, tuple | None]]:
    """(widget, clip) for every widget drawn on screen; ``clip`` is the window rect of the
    innermost scroll view around it (or None)."""
    from kivy.uix.scrollview import ScrollView

    if widget.opacity <= 0.01 or widget.width <= 0.5 or widget.height <= 0.5:
        return
    yield widget, clip
    if isinstance(widget, ScrollView):
        x, y = widget.to_window(widget.x, widget.y)
        # (a row that scrolls sideways: its fifth item tells which way it is clipped)
        clip = (x, y, x + widget.width, y + widget.height, not widget.do_scroll_y)
    for child in widget.children:
        yield from _visible_children(child, clip)


def _rendered_lines(label: Any) -> list[str]:
    """The lines of text the label's texture shows (after wrapping and shortening)."""
    core = label._label
    lines = getattr(core, "_cached_lines", None) or []
    return ["".join(word.text for word in line.words) for line in lines]


def _text_problems(label: Any, where: str) -> list[str]:
    text = label.text
    if not text.strip() or label.markup:
        return []
    label.texture_update()
    problems = []
    tw, th = label.texture_size
    if tw > label.width + SLACK:
        problems.append(f"{where}: text {text!r} is {tw:.0f} px wide in a {label.width:.0f} px box")
    if th > label.height + SLACK:
        problems.append(
            f"{where}: text {text!r} is {th:.0f} px tall in a {label.height:.0f} px box"
        )
    lines = _rendered_lines(label)
    if lines:
        shown = "\n".join(lines)
        for word in re.split(r"\s+", text.strip()):
            if word and not any(word in line for line in lines):
                problems.append(
                    f"{where}: the word {word!r} is broken or cut off; shown as {shown!r}"
                )
                break
    return problems


def small_text(label: Any, where: str) -> list[str]:
    """A label with text drawn under :data:`MIN_TEXT_SP` (in sp, whatever shrank it)."""
    from kivy.metrics import sp

    size = label.font_size / sp(1)
    if label.text.strip() and size < MIN_TEXT_SP - 0.05:
        return [f"{where}: text {label.text!r} is {size:.1f} sp, under {MIN_TEXT_SP} sp"]
    return []


def covered_cards(hand: Any, where: str) -> list[str]:
    """Cards of a HandView whose rank corner the next card covers: the corner's width
    is measured here from the face's own recipe (rank in bold at 24 % of the card's
    height, 6 % of its width from the edge), the cards' places from what is drawn."""
    from kivy.core.text import Label as CoreLabel
    from kivy.graphics import Rectangle

    from app.cards import Card
    from app.views.cardtex import BACK, FONT_BOLD, rank_text

    drawn = [i for i in hand.canvas.children if isinstance(i, Rectangle)]
    problems = []
    for code, card, after in zip(hand.cards, drawn, drawn[1:], strict=False):
        if int(code) == BACK:
            continue
        w, h = card.size
        core = CoreLabel(
            text=rank_text(Card.from_code(int(code)).rank), font_size=h * 0.24, font_name=FONT_BOLD
        )
        core.refresh()
        corner = w * 0.06 + core.texture.width
        shown = after.pos[0] - card.pos[0]
        if shown < corner - SLACK:
            problems.append(
                f"{where}: card {Card.from_code(int(code))} shows {shown:.0f} px of its"
                f" {corner:.0f} px rank corner beside the next card"
            )
    return problems


def check_tree(root: Any, where: str, window_size: tuple[float, float]) -> list[str]:
    """Every geometry problem under ``root`` (a list of readable sentences)."""
    from kivy.graphics import Rectangle
    from kivy.metrics import dp
    from kivy.uix.button import Button
    from kivy.uix.label import Label
    from kivy.uix.textinput import TextInput

    from app.views.cardtex import CARD_RATIO, HandView

    ww, wh = window_size
    minimum = dp(48) - SLACK
    problems: list[str] = []
    on_table = {id(x) for t in root.walk() if type(t).__name__ in TABLE_SCREENS for x in t.walk()}
    # (not yet the three lines beside a hand's cards, which still shrink in a narrow
    # row: issue 37, item 6)
    on_table -= {id(x) for t in root.walk() if type(t).__name__ == "BjHandRow" for x in t.walk()}
    for w, clip in _visible_children(root, None):
        name = f"{where}:{type(w).__name__}"
        x0, y0 = w.to_window(w.x, w.y)
        x1, y1 = x0 + w.width, y0 + w.height
        sideways = clip is not None and clip[4]
        if not sideways and (x0 < -SLACK or x1 > ww + SLACK):
            problems.append(f"{name} {getattr(w, 'text', '')!r} is outside the window in x")
        elif clip is None and (y0 < -SLACK or y1 > wh + SLACK):
            problems.append(f"{name} {getattr(w, 'text', '')!r} is outside the window in y")
        elif sideways and (y0 < clip[1] - SLACK or y1 > clip[3] + SLACK):
            problems.append(f"{name} {getattr(w, 'text', '')!r} sticks out of its row")
        elif clip is not None and not sideways and (x0 < clip[0] - SLACK or x1 > clip[2] + SLACK):
            problems.append(f"{name} {getattr(w, 'text', '')!r} sticks out of its scroll view")
        if isinstance(w, Button) and (w.width < minimum or w.height < minimum):
            problems.append(f"{name} {w.text!r} is {w.width:.0f}x{w.height:.0f} px, under 48 dp")
        if isinstance(w, TextInput) and w.height < minimum:
            problems.append(f"{name} is {w.height:.0f} px tall, under 48 dp")
        if isinstance(w, Label):
            problems.extend(_text_problems(w, name))
            if id(w) in on_table:
                problems.extend(small_text(w, name))
        if isinstance(w, HandView) and w.cards:
            # (the height drawn: HandView makes a long hand's cards smaller to fit)
            faces = [i.size[1] for i in w.canvas.children if isinstance(i, Rectangle)]
            drawn = min([w.card_height, w.height, *faces])
            if drawn < MIN_CARD_SHARE * w.card_height or drawn * CARD_RATIO < dp(MIN_CARD_WIDTH):
                problems.append(
                    f"{name}: cards drawn {drawn * CARD_RATIO:.0f}x{drawn:.0f} px"
                    f" (asked for {w.card_height:.0f} px tall; {len(w.cards)} cards in"
                    f" {w.width:.0f}x{w.height:.0f} px)"
                )
            problems.extend(covered_cards(w, name))
    return problems


def check_window(app: Any, where: str) -> list[str]:
    """Geometry problems of everything on screen: the app's root and any open dialog
    or message on the window."""
    from kivy.core.window import Window

    size = tuple(Window.size)
    problems = check_tree(app.root_widget, where, size)
    for child in Window.children:
        if child is not app.root_widget:
            problems.extend(check_tree(child, where + ":overlay", size))
    return problems
