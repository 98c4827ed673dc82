"""The history's messages to the player (codes -> translated text), and its figures as
text: the same lines on the statistics screen and from ``blu21 stats``."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from app.i18n import _, decimal_mark
from app.rules.money import money_text, to_money


def notice_text(code: str) -> str:
    """The translated message of a history code (``history_reset``, ...)."""
    if code == "history_reset":
        return _(
            "Your hand history could not be read. It was put aside and a new one started; "
            "your game is not affected."
        )
    if code == "history_corrupt":
        return _("The hand history file is damaged.")
    return _("The hand history cannot be saved on this device right now.")


def number(x: float, places: int = 2) -> str:
    """A decimal number with the language's decimal mark."""
    return f"{x:.{places}f}".replace(".", decimal_mark())


def amount_text(value: Any) -> str:
    """An amount of chips as stored (``15``, ``"37.5"``, ``"-1/3"``) as the player reads
    it: exact, with the language's decimal mark; "none yet" for no amount."""
    if value is None:
        return _("none yet")
    return money_text(to_money(value), decimal_mark())


def stats_lines(game: str, s: Mapping[str, Any]) -> list[str]:
    """The statistics of one game as lines of text."""
    if game == "oczko":
        avg = _("none yet") if s["average_hold"] is None else number(s["average_hold"])
        return [
            _("Matches: {n}, won: {w}").format(n=s["matches"], w=s["match_wins"]),
            _("Rounds: {n}, won: {w}").format(n=s["rounds"], w=s["rounds_won"]),
            _("Persian 21s: {n}").format(n=s["persian21s"]),
            _("Busts: {n}").format(n=s["busts"]),
            _("Average total when holding: {avg}").format(avg=avg),
        ]
    lines = [
        _("Hands: {n} (won {w}, tied {p}, lost {l})").format(
            n=s["hands"], w=s["wins"], p=s["pushes"], l=s["losses"]
        ),
        _("Blackjacks: {n}").format(n=s["blackjacks"]),
        _("Doubles won: {d}, split hands won: {s}").format(d=s["doubles_won"], s=s["splits_won"]),
        _("Net chips: {n}").format(n=amount_text(s["net"])),
        _("Biggest win: {w}, biggest loss: {l}").format(
            w=amount_text(s["biggest_win"]), l=amount_text(s["biggest_loss"])
        ),
        _("Your decisions against best play: {m} of {n} below best, EV lost {ev} chips").format(
            m=s["mistakes"], n=s["decisions"], ev=number(s["ev_lost"])
        ),
    ]
    for sess in s["ev_lost_sessions"][-10:]:
        when = time.strftime("%d.%m.%Y %H:%M", time.localtime(sess["started"]))
        lines.append(
            _("Session {when}: {m} of {n} decisions below best, EV lost {ev}").format(
                when=when, m=sess["mistakes"], n=sess["decisions"], ev=number(sess["ev_lost"])
            )
        )
    return lines
