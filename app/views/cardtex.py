"""Playing cards drawn by the app: each face rendered once into a texture, then reused.

No artwork is shipped: a face is a rounded white card with the rank and the suit
symbol (from the DejaVu Sans font that Kivy bundles) drawn with Kivy graphics
instructions into an off-screen framebuffer. Textures are cached per (card, pixel
size, deck colours), so a table screen re-rendered every timer tick creates no new
textures, and the hand widgets only place rectangles.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.graphics import (
    ClearBuffers,
    ClearColor,
    Color,
    Fbo,
    Line,
    Rectangle,
    RoundedRectangle,
)
from kivy.graphics.texture import Texture
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty
from kivy.uix.widget import Widget

from app.cards import Card, Rank, Suit

FONT = "data/fonts/DejaVuSans.ttf"  # bundled with Kivy, has the suit symbols
FONT_BOLD = "data/fonts/Roboto-Bold.ttf"
BACK = -1  # code of a face-down card
SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
RANK_TEXT = {Rank.ACE: "A", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K"}
CARD_RATIO = 0.7  # width / height
#: the closest HandView overlaps cards: each card shows this share of its width beside
#: the next, enough for its whole rank corner (pad and a bold "10": 0.42-0.46 of the width)
CLOSEST_STEP = 0.48
#: an RGBA colour, each part 0-1
Colour = tuple[float, float, float, float]

_TWO_COLOURS: dict[Suit, Colour] = {
    Suit.SPADES: (0.08, 0.08, 0.1, 1),
    Suit.CLUBS: (0.08, 0.08, 0.1, 1),
    Suit.HEARTS: (0.8, 0.05, 0.1, 1),
    Suit.DIAMONDS: (0.8, 0.05, 0.1, 1),
}
_FOUR_COLOURS: dict[Suit, Colour] = {
    Suit.SPADES: (0.08, 0.08, 0.1, 1),
    Suit.HEARTS: (0.8, 0.05, 0.1, 1),
    Suit.DIAMONDS: (0.05, 0.3, 0.8, 1),
    Suit.CLUBS: (0.05, 0.5, 0.15, 1),
}


def suit_colour(suit: Suit, four_colour: bool) -> Colour:
    """Ink colour of a suit (four-colour deck: diamonds blue, clubs green)."""
    return (_FOUR_COLOURS if four_colour else _TWO_COLOURS)[suit]


def rank_text(rank: Rank) -> str:
    """The index printed on a card: A, 2-10, J, Q, K."""
    return RANK_TEXT.get(rank, str(int(rank)))


def _text(text: str, size: float, colour: Colour, font: str = FONT) -> Texture:
    label = CoreLabel(text=text, font_size=max(6, size), font_name=font, color=colour)
    label.refresh()
    texture: Texture = label.texture
    return texture


class CardTextures:
    """LRU cache of rendered card textures."""

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self._cache: OrderedDict[tuple[int, int, int, bool], Texture] = OrderedDict()
        self.rendered = 0  # how many textures were drawn (tests check reuse)

    def get(self, code: int, width: int, height: int, four_colour: bool = False) -> Texture:
        """The texture of card ``code`` (or :data:`BACK`) at ``width`` x ``height`` pixels."""
        key = (code, max(8, int(width)), max(12, int(height)), four_colour)
        tex = self._cache.get(key)
        if tex is None:
            tex = self._render(*key)
            self.rendered += 1
            self._cache[key] = tex
            if len(self._cache) > self.limit:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return tex

    def _render(self, code: int, w: int, h: int, four_colour: bool) -> Texture:
        fbo = Fbo(size=(w, h), with_stencilbuffer=False)
        radius = max(2.0, w * 0.08)
        with fbo:
            ClearColor(0, 0, 0, 0)
            ClearBuffers()
            Color(0.35, 0.35, 0.35, 1)
            RoundedRectangle(pos=(0, 0), size=(w, h), radius=[radius])
            if code == BACK:
                self._draw_back(w, h, radius)
            else:
                self._draw_face(Card.from_code(code), w, h, radius, four_colour)
        fbo.draw()
        return fbo.texture

    @staticmethod
    def _draw_back(w: int, h: int, radius: float) -> None:
        Color(0.62, 0.1, 0.14, 1)
        RoundedRectangle(pos=(1, 1), size=(w - 2, h - 2), radius=[radius])
        Color(0.95, 0.85, 0.6, 1)
        m = max(3.0, w * 0.09)
        Line(rounded_rectangle=(m, m, w - 2 * m, h - 2 * m, radius * 0.6), width=1.2)
        # a lattice of small diamonds inside the frame (no stencil needed)
        step = max(5.0, (w - 2 * m) / 5)
        d = step * 0.3
        y = m + step / 2
        row = 0
        while y < h - m - d:
            x = m + step / 2 + (step / 2 if row % 2 else 0)
            while x < w - m - d:
                Line(points=[x - d, y, x, y + d, x + d, y, x, y - d], close=True, width=1)
                x += step
            y += step / 2
            row += 1

    @staticmethod
    def _draw_face(card: Card, w: int, h: int, radius: float, four_colour: bool) -> None:
        Color(1, 1, 1, 1)
        RoundedRectangle(pos=(1, 1), size=(w - 2, h - 2), radius=[radius])
        ink = suit_colour(card.suit, four_colour)
        symbol = SUIT_SYMBOLS[card.suit]
        index = rank_text(card.rank)
        Color(1, 1, 1, 1)
        # corner index: rank above suit, large enough to read when cards overlap
        rank_tex = _text(index, h * 0.24, ink, FONT_BOLD)
        suit_tex = _text(symbol, h * 0.2, ink)
        pad = w * 0.06
        top = h - pad
        Rectangle(texture=rank_tex, pos=(pad, top - rank_tex.height), size=rank_tex.size)
        top -= rank_tex.height * 0.9
        sx = pad + (rank_tex.width - suit_tex.width) / 2
        Rectangle(texture=suit_tex, pos=(sx, top - suit_tex.height), size=suit_tex.size)
        # centre: a big suit for numbers and aces, a framed letter for the court cards
        if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
            Color(*ink[:3], 0.12)
            fw, fh = w * 0.5, h * 0.5
            RoundedRectangle(pos=(w * 0.42 - fw / 2 + w * 0.08, h * 0.12), size=(fw, fh))
            Color(1, 1, 1, 1)
            big = _text(index, h * 0.42, ink, FONT_BOLD)
            Rectangle(
                texture=big,
                pos=(w * 0.5 + w * 0.08 - big.width / 2, h * 0.12 + (fh - big.height) / 2),
                size=big.size,
            )
        else:
            big = _text(symbol, h * 0.5, ink)
            Rectangle(
                texture=big,
                pos=(w * 0.58 - big.width / 2, h * 0.08),
                size=big.size,
            )


textures = CardTextures()


class HandView(Widget):
    """A row of cards (codes; :data:`BACK` for face down), overlapped to fit the width.

    A card added at the end slides in (dealt), a face-down card turned face up flips;
    both take ``theme.anim_seconds`` (the animation-speed setting; 0 = at once)."""

    cards = ListProperty([])
    card_height = NumericProperty(dp(96))
    four_colour = BooleanProperty(False)
    align = NumericProperty(0.5)  # 0 left, 0.5 centre, 1 right
    #: 0 -> 1 while the latest change is animated
    progress = NumericProperty(1.0)

    def __init__(self, **kwargs: Any) -> None:
        self._shown: list[int] = []
        self._moving: dict[int, str] = {}  # card index -> "deal" | "flip"
        self._anim: Any = None  # a kivy Animation while one runs
        super().__init__(**kwargs)
        self.bind(
            size=self._redraw,
            pos=self._redraw,
            card_height=self._redraw,
            four_colour=self._redraw,
            progress=self._redraw,
        )
        self.bind(cards=self._changed)

    def _changed(self, *_args: object) -> None:
        from kivy.animation import Animation

        from app.views.theme import theme

        old, new = self._shown, [int(c) for c in self.cards]
        self._shown = new
        moving: dict[int, str] = {}
        # the same hand, grown or turned over (not a new hand: that is drawn at once)
        if len(new) >= len(old) and all(o in (n, BACK) for o, n in zip(old, new, strict=False)):
            for i, code in enumerate(new):
                if i >= len(old):
                    moving[i] = "deal"
                elif old[i] == BACK and code != BACK:
                    moving[i] = "flip"
        self._moving = moving
        if self._anim is not None:
            self._anim.cancel(self)
            self._anim = None
        seconds = theme.anim_seconds
        if moving and seconds > 0 and old:
            self.progress = 0.0
            self._anim = Animation(progress=1.0, d=seconds, t="out_quad")
            self._anim.start(self)
        else:
            self.progress = 1.0
        self._redraw()

    def _redraw(self, *_args: object) -> None:
        self.canvas.clear()
        n = len(self.cards)
        if not n or self.width <= 0:
            return
        ch = min(self.card_height, self.height)
        if n > 1:
            # smaller cards rather than a rank corner covered by the next card
            ch = min(ch, self.width / (CARD_RATIO * (1 + CLOSEST_STEP * (n - 1))))
        cw = ch * CARD_RATIO
        gap = dp(4)
        step = cw + gap
        if n > 1 and cw + step * (n - 1) > self.width:
            step = max(cw * CLOSEST_STEP, (self.width - cw) / (n - 1))
        total = cw + step * (n - 1)
        x0 = self.x + max(0, (self.width - total) * self.align)
        y = self.y + (self.height - ch) / 2
        p = self.progress
        with self.canvas:
            for i, code in enumerate(self.cards):
                x, w, alpha, shown = x0 + i * step, cw, 1.0, int(code)
                how = self._moving.get(i) if p < 1 else None
                if how == "deal":
                    x += (1 - p) * dp(48)
                    alpha = p
                elif how == "flip":
                    half = abs(1 - 2 * p)  # the card turns edge-on half way
                    w = max(1.0, cw * half)
                    x += (cw - w) / 2
                    shown = BACK if p < 0.5 else shown
                Color(1, 1, 1, alpha)
                tex = textures.get(shown, round(cw), round(ch), self.four_colour)
                Rectangle(texture=tex, pos=(x, y), size=(w, ch))
