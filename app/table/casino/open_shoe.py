"""A TEST-ONLY shoe for the casino table: the host shuffles and opens cards in the open.

:class:`OpenShoe` implements :class:`~app.table.casino.shoe_dealer.ShoeDealer` without any
secrecy, like :class:`~app.table.dealer.OpenDealer` for Oczko: the host's phone
shuffles every shoe with its own random source and announces each opened card in a
frame every phone receives. The host knows the whole order and could stack it; it is
for tests of the table flow and for a table whose host explicitly chose open dealing
(every phone then says so). The real shoe is ``app/table/casino/sra_shoe.py``.

Frames (JSON): ``{"k": "shoe", "sh": id}`` (the host shuffled shoe ``id``) and
``{"k": "open", "sh": id, "p": [positions], "c": [codes]}``. Only the host sends
frames; a guest's frame is a violation of that guest.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Any

from app.table.dealer import DealerViolation, DeckVerdict, OpenSetup


class OpenShoe(OpenSetup):
    """Test shoe dealer: the host shuffles and announces every opened card. NOT secret."""

    def __init__(self, seat: int, host: int = 0, rng: random.Random | None = None) -> None:
        super().__init__(seat, host, rng)
        self._orders: dict[int, list[int]] = {}  # host: shoe -> card codes
        self._shuffled: set[int] = set()
        self._cards: dict[tuple[int, int], int] = {}
        self._wanted: dict[int, set[int]] = {}  # shoe -> positions opened but not in

    def _parse(self, frame: bytes, sender: int) -> dict[str, Any]:
        try:
            data = json.loads(frame)
            if not isinstance(data, dict) or data.get("k") not in ("shoe", "open"):
                raise ValueError("unknown frame")
            shoe = data.get("sh")
            if not isinstance(shoe, int) or isinstance(shoe, bool) or shoe < 1:
                raise ValueError("bad shoe id")
            if data["k"] == "open":
                p, c = data.get("p"), data.get("c")
                if not isinstance(p, list) or not isinstance(c, list) or len(p) != len(c):
                    raise ValueError("positions and cards do not match")
                for v, hi in [(x, 8 * 52) for x in p] + [(x, 52) for x in c]:
                    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < hi:
                        raise ValueError(f"value {v!r} out of range")
            return data
        except (ValueError, TypeError) as exc:
            raise DealerViolation(sender, "bad_frame", str(exc)) from exc

    def authenticate(self, frame: bytes) -> None:
        # Only the host's phone opens cards here: any frame from a guest is his cheat.
        raise DealerViolation(-1, "not_the_dealer", "only the host opens cards at this table")

    def handle(self, frame: bytes) -> list[bytes]:
        data = self._parse(frame, self.host)
        shoe = data["sh"]
        if data["k"] == "shoe":
            self._shuffled.add(shoe)
        else:
            for p, c in zip(data["p"], data["c"], strict=True):
                self._cards[(shoe, p)] = c
                self._wanted.get(shoe, set()).discard(p)
        return []

    def start_shoe(self, shoe: int, order: Sequence[int], decks: int) -> list[bytes]:
        if self.seat != self.host:
            return []
        cards = [c % 52 for c in range(52 * decks)]
        self._rng.shuffle(cards)
        self._orders[shoe] = cards
        self._shuffled.add(shoe)
        return [self._frame(k="shoe", sh=shoe)]

    def shuffled(self, shoe: int) -> bool:
        return shoe in self._shuffled

    def cut(self, shoe: int, low: int, high: int) -> int:
        # Public and equal everywhere (no joint seed here: the host knows the order anyway).
        digest = hashlib.sha256(f"blu21/open-cut/{shoe}".encode()).digest()
        return low + int.from_bytes(digest[:8], "big") % (high - low + 1)

    def open(self, shoe: int, positions: Sequence[int]) -> list[bytes]:
        if self.seat != self.host:
            self._wanted.setdefault(shoe, set()).update(
                p for p in positions if (shoe, p) not in self._cards
            )
            return []
        order = self._orders[shoe]
        codes = [order[p] for p in positions]
        for p, c in zip(positions, codes, strict=True):
            self._cards[(shoe, p)] = c
        return [self._frame(k="open", sh=shoe, p=list(positions), c=codes)]

    def card(self, shoe: int, position: int) -> int | None:
        return self._cards.get((shoe, position))

    def key_in(self, shoe: int, position: int, seat: int) -> bool:
        return (shoe, position) in self._cards  # (only the host's part opens a card)

    def progress(self, shoe: int) -> float:
        return 1.0 if shoe == 0 or shoe in self._shuffled else 0.0

    def keys_owed(self, shoe: int) -> set[int]:
        return set()  # (the host opens every card itself)

    def waiting_for(self, shoe: int) -> set[int]:
        if shoe == 0:
            return set()
        if shoe not in self._shuffled or self._wanted.get(shoe):
            return {self.host}
        return set()

    def disputed(self, shoe: int) -> bool:
        return False

    def dropped(self, seat: int) -> None:
        pass  # only the host's parts matter at this table

    def finish_shoe(self, shoe: int) -> list[bytes]:
        return []

    def verdict(self, shoe: int) -> DeckVerdict | None:
        return DeckVerdict(True)
