"""Oczko (seed 000): the rules engine the table, the bots and the UI all drive.

One immutable :class:`Match` holds everything (points, who left, the round in play,
finished rounds). Every action is a method returning ``(new_match, events)``: the old
state is untouched, and an illegal action raises
:class:`~app.rules.errors.IllegalAction` (a stable ``.code``) and changes nothing.
Events (:mod:`app.rules.oczko_events`) are small frozen records with ``to_json()``.
Rule options are an :class:`OczkoOptions` value (``rounds``, default 5); 2-7 players.

A short round, two players, one round, seat 0 deals first:

>>> from app.cards import Card
>>> m, ev = Match.new(2, OczkoOptions(rounds=1))
>>> for text in ["Qs", "Kh", "7s", "9h"]:    # Q+7 = 10 for seat 0, K+9 = 13 for seat 1
...     m, ev = m.deal(Card.parse(text))
>>> m.to_act, sorted(m.legal_actions(0))
(0, ['disconnect', 'draw', 'hold', 'timeout'])
>>> m, ev = m.draw(0, Card.parse("Td"))       # 20
>>> m, ev = m.hold(0)
>>> [e.to_json()["event"] for e in ev]
['held', 'turn_started']
>>> m, ev = m.draw(1, Card.parse("Ac"))       # 13 + 11: the ace always counts 11
>>> [e.to_json(["Ala", "Bartek"]) for e in ev][1:3]  # doctest: +NORMALIZE_WHITESPACE
[{'event': 'busted', 'round': 1, 'player': 'Bartek', 'total': 24, 'reason': 'over_21'},
 {'event': 'round_ended', 'round': 1, 'tiebreak': False, 'winner': 'Ala',
  'reason': 'showdown', 'totals': {'Ala': 20, 'Bartek': 24},
  'statuses': {'Ala': 'held', 'Bartek': 'bust'}, 'points': {'Ala': 1, 'Bartek': 0}}]
>>> m.over, m.winner, m.points
(True, 0, (1, 0))

Flow of a round
---------------
``Match.new`` starts round 1 in the ``deal`` phase. Round *k* is dealt and played
clockwise starting with seat ``(k-1) mod N``, skipping seats not in the round (gone,
or not tied in a tiebreak). :meth:`Match.deal` gives the next card of the deal to
:attr:`Match.to_deal` (two passes, one card at a time). Right after the deal, Persian
21s (two aces) are decided: one wins the round at once, several tie (no point).
Otherwise each player in turn (:attr:`Match.to_act`) draws (:meth:`Match.draw`) until
he holds (:meth:`Match.hold`, or :meth:`Match.timeout`: the engine has no clock),
goes over 21 (bust at once) or reaches 21 (held automatically; a dealt ace + ten too).
When all are done the single highest total not over 21 wins 1 point; a tie at the
top gives none. :meth:`Match.legal_actions` tells the UI which buttons to enable.

The deck is an input: the engine never shuffles. Each deal or draw carries its card;
in the networked game the SRA protocol supplies it, in a scenario the file does. A
card may not come twice from one deck (``duplicate_card``). A dropout mid-round
brings a fresh deck (:meth:`Match.new_deck`), whose cards may repeat earlier ones.

Dropouts: :meth:`Match.disconnect` makes the seat bust for the round unless his
result was already decided (held, bust or a Persian 21 stand) and removes him for
the rest of the match: he keeps his points in the results but counts for nothing
else (lead, early end, tie for first) and cannot win. When one player is left in a
round, the round is decided at once (he wins it unless he is bust); when one player
is left at the table, he wins the match.

The match lasts ``options.rounds`` rounds and ends early once
:func:`decided_leader` names a winner (no other active player can reach the leader's
points even by winning every remaining round; reaching means equalling). After the
last round the most points win; a tie for first is played off in tiebreak rounds by
the tied players only, until one wins.

Hidden cards: one engine for the host, the scenario runner and every phone
--------------------------------------------------------------------------
A phone knows only its own cards until the showdown, so a card is a ``Card`` or
``None`` (hidden): each hand is a tuple of ``Card | None``. The engine decides from
what it can see and waits for the rest:

* a hand whose cards are known busts or holds at 21 by itself, and its owner's
  table layer announces that to the others;
* on the other phones the same player's hand is hidden: they apply the announced
  :meth:`Match.hold` or :meth:`Match.bust` (``bust`` is a claim, only accepted for a
  hand this engine cannot see);
* after the deal, if any hand is hidden the round waits in the ``deal_check`` phase:
  a Persian 21 is proven by :meth:`Match.reveal` of its two aces, and
  :meth:`Match.close_deal` (every phone has said whether it has one) decides;
* when everyone is done and a hand that counts is hidden, the round waits in the
  ``showdown`` phase until :meth:`Match.reveal` opens it (:attr:`Match.to_reveal`). A
  reveal is checked against everything known: known cards, cards already out of the
  deck, and the claims made (a held hand over 21, a bust claim at 21 or less, a draw
  at 21 or more, a concealed Persian 21 raise ``false_claim`` / ``inconsistent_hand``,
  naming the cheater). A bust hand of a player who left need not be opened.

With every card known (the host's simulation, bots, scenarios, tests) the engine
never waits. :func:`view` projects a full-information match for one seat (others'
cards face down until the showdown), and :func:`redact` does the same for events.
"""

from __future__ import annotations

from app.rules.errors import IllegalAction
from app.rules.oczko_events import (
    Busted,
    CardDealt,
    CardDrawn,
    DeckReplaced,
    Disconnected,
    Event,
    Held,
    MatchEnded,
    Persian21,
    Revealed,
    RoundEnded,
    RoundStarted,
    TurnStarted,
    redact,
)
from app.rules.oczko_match import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    SEAT_ACTIONS,
    TABLE_ACTIONS,
    Action,
    Match,
    OczkoOptions,
    RoundResult,
    decided_leader,
)
from app.rules.oczko_round import Hand, Phase, Round, Status, total_of
from app.rules.oczko_views import MatchView, SeatView, view

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "SEAT_ACTIONS",
    "TABLE_ACTIONS",
    "Action",
    "Busted",
    "CardDealt",
    "CardDrawn",
    "DeckReplaced",
    "Disconnected",
    "Event",
    "Hand",
    "Held",
    "IllegalAction",
    "Match",
    "MatchEnded",
    "MatchView",
    "OczkoOptions",
    "Persian21",
    "Phase",
    "Revealed",
    "Round",
    "RoundEnded",
    "RoundResult",
    "RoundStarted",
    "SeatView",
    "Status",
    "TurnStarted",
    "decided_leader",
    "redact",
    "total_of",
    "view",
]
