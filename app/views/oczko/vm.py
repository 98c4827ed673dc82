"""Presenter of the Oczko table: the engine's MatchView -> what the table screen shows.

Pure functions returning frozen values with text already translated; no Kivy, so
every state the screen can show is testable headless. The view copies these fields
into widgets and does nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.i18n import _, ngettext
from app.table.progress import progress_text
from app.views.table.fairness import fingerprint_text

if TYPE_CHECKING:
    from app.cards import Card
    from app.rules.oczko.match import RoundResult
    from app.rules.oczko.views import MatchView

BACK = -1  # a face-down card (see app.views.cardtex)


@dataclass(frozen=True)
class SeatVM:
    """Another player as the table shows him."""

    name: str
    cards: tuple[int, ...]  # card codes, BACK for face down
    count_text: str
    status_text: str
    points_text: str
    is_turn: bool
    gone: bool


@dataclass(frozen=True)
class OczkoTableVM:
    """Everything on the Oczko table screen."""

    header: str
    my_cards: tuple[int, ...]
    my_total: str
    my_status: str
    turn_text: str
    my_turn: bool
    can_draw: bool
    can_hold: bool
    timer_fraction: float  # 1.0 full .. 0.0 out of time; 0 when not my turn
    timer_text: str
    seats: tuple[SeatVM, ...]
    scores: str
    my_points: str
    banner: str  # round or match result, '' while playing
    next_text: str  # label of the continue button, '' when hidden
    message: str  # a player left, cheating detected, ...
    shuffle_progress: float | None  # 0..1 while the SRA shuffle runs, else None
    shuffle_text: str  # what the progress bar stands for, and whom it waits for
    match_over: bool
    hint: str = ""
    fingerprint: str = ""  # the SRA table's fingerprint line, '' at a practice table


def status_text(status: str | None, reason: str = "", total: int | None = None) -> str:
    """A hand's status in words, the same about oneself and about others (reason and
    total when known)."""
    if status is None:
        return _("sits out")
    if status == "persian":
        return _("Persian 21!")
    if status == "bust":
        if reason == "disconnect":
            return _("left (bust)")
        return _("bust ({total})").format(total=total) if total else _("bust")
    if status == "held":
        text = _("held: time ran out") if reason == "timeout" else _("held")
        return f"{text} · {total}" if total is not None else text
    return _("playing")


def round_header(view: MatchView, finished: bool = False) -> str:
    """``Round 2 of 5`` or ``Tiebreak round`` (``finished``: of the round just played)."""
    last = view.last_round
    if finished and last is not None:
        if last.tiebreak:
            return _("Tiebreak round")
        return _("Round {number} of {rounds}").format(number=view.played, rounds=view.rounds)
    if view.tiebreak:
        return _("Tiebreak round")
    return _("Round {number} of {rounds}").format(
        number=min(view.played + 1, view.rounds), rounds=view.rounds
    )


def _round_winner_text(result: RoundResult, names: Sequence[str], me: int | None) -> str:
    if result.winner is None:
        if result.reason == "void":
            return _("The round does not count: a player cheated. It is played again.")
        if result.reason == "persian":
            return _("Several Persian 21s: nobody gets the point.")
        return _("Tie at the top or everybody bust: nobody gets the point.")
    mine = result.winner == me
    who = names[result.winner]
    if result.reason == "persian":
        if mine:
            return _("You have a Persian 21 (two aces) and win the round!")
        return _("{name} has a Persian 21 (two aces) and wins the round!").format(name=who)
    if result.reason == "last_player":
        if mine:
            return _("You are the last player left and win the round.")
        return _("{name} is the last player left and wins the round.").format(name=who)
    total = next(h.total for h in result.hands if h.seat == result.winner)
    if mine:
        return _("You win the round with {total}.").format(total=total)
    return _("{name} wins the round with {total}.").format(name=who, total=total)


def round_result_text(
    result: RoundResult, names: Sequence[str], me: int | None = None, hands: bool = True
) -> str:
    """The text of a finished round (the engine's RoundResult): the winner, then (with
    ``hands``) every hand's total and status; ``me`` is the viewer's seat ("you")."""
    lines = [_round_winner_text(result, names, me)]
    for h in result.hands if hands else ():
        total = "?" if h.total is None else str(h.total)
        name = _("You") if h.seat == me else names[h.seat]
        if str(h.status) == "playing":  # the round ended before his turn (a Persian 21)
            lines.append(_("{name}: {total}").format(name=name, total=total))
            continue
        status = status_text(str(h.status), h.reason)
        lines.append(_("{name}: {total} · {status}").format(name=name, total=total, status=status))
    return "\n".join(lines)


def match_result_text(view: MatchView, names: Sequence[str]) -> str:
    """Who won the match, how, and the final score (the viewer addressed as "you")."""
    assert view.winner is not None  # only asked once the match is over
    who = names[view.winner]
    mine = view.winner == view.viewer
    if view.end_reason == "decided":
        head = (
            _("You win the match: nobody can catch up any more.")
            if mine
            else _("{name} wins the match: nobody can catch up any more.").format(name=who)
        )
    elif view.end_reason == "last_player":
        head = (
            _("You win the match as the last player at the table.")
            if mine
            else _("{name} wins the match as the last player at the table.").format(name=who)
        )
    elif view.end_reason == "tiebreak":
        head = (
            _("You win the match in the tiebreak.")
            if mine
            else _("{name} wins the match in the tiebreak.").format(name=who)
        )
    else:
        head = _("You win the match!") if mine else _("{name} wins the match!").format(name=who)
    return head + "\n" + score_line(view, names)


def score_line(view: MatchView, names: Sequence[str]) -> str:
    """``You: 1 point`` / ``Bartek: 3 points``, a line per player (never broken inside)."""
    return "\n".join(
        ngettext("{name}: {n} point", "{name}: {n} points", s.points).format(
            name=_("You") if s.seat == view.viewer else names[s.seat], n=s.points
        )
        for s in view.seats
    )


def _codes(cards: Sequence[Card | None]) -> tuple[int, ...]:
    return tuple(BACK if c is None else c.code for c in cards)


def present(
    view: MatchView,
    names: Sequence[str],
    time_left: float = 0.0,
    turn_time: float = 30.0,
    awaiting_next: bool = False,
    message: str = "",
    shuffle_progress: float | None = None,
    hints: bool = False,
    others_time: tuple[int | None, float] = (None, 0.0),
    fingerprint: str = "",
    shuffle_note: tuple[str, tuple[int, ...]] | None = None,
    reading: tuple[Sequence[str], float] | None = None,
    short: bool = False,
) -> OczkoTableVM:
    """The table screen for this phone's view of the match (``view_for(match, me)``, the
    engine's one projection of what the player may see; this presenter hides nothing);
    ``others_time``: (seat, seconds left) of whoever acts, shown on his tile;
    ``reading``: the player went on and the next deal waits for the others (the names
    of those still reading, when known, and the seconds until it is dealt anyway): the
    last result stays on screen, with who is still reading; ``short``: a crowded short
    screen, whose tiles show every player's points: a match's result without the
    standings, and no blank lines between a result's parts."""
    me = view.viewer
    assert me is not None  # a phone's view: the player's own seat
    mine = view.seats[me]
    # the last round's result stays on screen until the next round is his to play
    showing = awaiting_next or reading is not None
    my_turn = view.to_act == me and view.winner is None and not showing
    last = view.last_round
    over = view.winner is not None
    # between rounds the engine has already opened the next round: show the hands of
    # the round just finished (all open at the showdown) until the player goes on; at
    # the end of the match the round in play is that last round, unless the match ended
    # inside a round (the last player left)
    show_last = last is not None and (
        (showing and not over) or (over and last.number == view.round)
    )
    finished = {h.seat: h for h in last.hands} if last is not None and show_last else {}
    mine_done = finished.get(me)
    my_cards = _codes(mine_done.cards) if mine_done else _codes(mine.cards)
    total = mine_done.total if mine_done else mine.total
    my_total = "" if total is None else _("Total: {total}").format(total=total)
    if mine_done:
        done_status = str(mine_done.status)  # "playing": the round ended before his turn
        my_status = "" if done_status == "playing" else status_text(done_status, mine_done.reason)
    else:
        my_status = "" if mine.status in (None, "playing") else status_text(mine.status)
    seats = []
    for s in view.seats:
        if s.seat == me:
            continue
        done = finished.get(s.seat)
        cards = _codes(done.cards) if done else _codes(s.cards)
        if s.gone:
            status = _("left the table")
        elif done and str(done.status) == "playing":
            # the round ended before his turn (a Persian 21): his total if it is known
            status = "" if done.total is None else str(done.total)
        elif done:
            status = status_text(str(done.status), done.reason, done.total)
        else:
            status = status_text(s.status, "", s.total)
        acting = view.to_act == s.seat and not showing
        if acting and others_time[0] == s.seat:
            status = _("{status} · {seconds} s").format(
                status=status, seconds=int(others_time[1] + 0.999)
            )
        seats.append(
            SeatVM(
                name=names[s.seat],
                cards=cards,
                count_text=ngettext("{n} card", "{n} cards", len(cards)).format(n=len(cards)),
                status_text=status,
                points_text=ngettext("{n} point", "{n} points", s.points).format(n=s.points),
                is_turn=acting,
                gone=s.gone,
            )
        )
    banner = ""
    next_text = ""
    if over:
        parts = [match_result_text(view, names)]  # the most important first: small screens
        if short:  # (the standings are on the tiles)
            parts = [parts[0].split("\n")[0]]
        if last is not None:
            parts.append(round_result_text(last, names, me, hands=False))
        banner = ("\n" if short else "\n\n").join(parts)
        next_text = _("New match")
    elif showing and last is not None:
        # the hands themselves are on screen: every tile shows its cards, total and
        # status, the player's own cards are below
        banner = round_result_text(last, names, me, hands=False)
        if view.tiebreak:
            tied = [names[s.seat] for s in view.seats if s.in_round]
            banner += ("\n" if short else "\n\n") + _(
                "Tie for first place: tiebreak round between {names}."
            ).format(names=", ".join(tied))
        if reading is None:
            next_text = _("Next round")
        else:
            banner += "\n\n" + reading_text(*reading)
    if my_turn:
        turn_text = _("Your turn: draw or hold?")
    elif view.to_act is not None and not showing and not over:
        turn_text = _("{name} is playing…").format(name=names[view.to_act])
    else:
        turn_text = ""
    fraction = max(0.0, min(1.0, time_left / turn_time)) if my_turn and turn_time > 0 else 0.0
    return OczkoTableVM(
        header=round_header(view, finished=bool(finished) or over),
        my_cards=my_cards,
        my_total=my_total,
        my_status=my_status,
        turn_text=turn_text,
        my_turn=my_turn,
        can_draw=my_turn and "draw" in view.legal,
        can_hold=my_turn and "hold" in view.legal,
        timer_fraction=fraction,
        timer_text=_("{seconds} s").format(seconds=int(time_left + 0.999)) if my_turn else "",
        seats=tuple(seats),
        scores=score_line(view, names),
        my_points=ngettext("You: {n} point", "You: {n} points", mine.points).format(n=mine.points),
        banner=banner,
        next_text=next_text,
        message=message,
        shuffle_progress=shuffle_progress,
        shuffle_text=progress_text(shuffle_note, names),
        match_over=over,
        hint=bust_hint(mine.cards) if hints and my_turn else "",
        fingerprint=fingerprint_text(fingerprint),
    )


def reading_text(readers: Sequence[str], seconds: float) -> str:
    """Who the next deal waits for after the player went on, and when it comes anyway.

    >>> reading_text(["Ala", "Celina"], 11.2)
    'Still reading the result: Ala, Celina\\nThe next round starts in 12 s at the latest.'
    """
    who = (
        _("Still reading the result: {names}").format(names=", ".join(readers))
        if readers
        else _("Waiting for the others to read the result…")
    )
    left = _("The next round starts in {seconds} s at the latest.").format(
        seconds=int(seconds + 0.999)
    )
    return who + "\n" + left


def ace_hint() -> str:
    """What a new player is told once, in his first Oczko round: the commonest
    misunderstanding of the game (seed 000)."""
    return _("The ace always counts 11 here, never 1.")


def bust_hint(cards: Sequence[Card | None]) -> str:
    """``Chance to bust with the next card: 32 %`` (over the cards the player has not
    seen: all but his own; the others' cards are face down)."""
    from app.strategy.oczko import bust_probability

    p = bust_probability([c for c in cards if c is not None])
    return _("Chance to bust with the next card: {percent} %").format(percent=round(p * 100))
