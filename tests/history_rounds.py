"""The rounds the killed writer of tests/test_history_kill.py stores (no test imports:
the writer process starts fast)."""

from __future__ import annotations

from app.history.model import Facts, RoundRecord


def record(run: int, i: int) -> RoundRecord:
    """The round a writer stores as its ``i``-th of ``run`` (the check rebuilds it)."""
    events = [{"event": "card_drawn", "seat": s % 3, "card": "As", "t": s * 0.5} for s in range(40)]
    return RoundRecord(
        game="oczko" if i % 2 else "blackjack",
        mode="practice" if i % 2 else "casino",
        session=f"run-{run}",
        number=i,
        started=float(i),
        ended=i + 0.5,
        player="Ann",
        result="won",
        score_before=str(i),
        score_after=str(i + 1),
        facts=Facts(hands=i % 4, held_total=i % 21),
        detail={"run": run, "i": i, "events": events, "pad": "x" * (i % 500)},
    )
