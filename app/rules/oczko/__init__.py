"""Oczko (seed 000): the rules engine the table, the bots and the UI all drive.

One immutable :class:`Match` holds everything (points, who left, the round in play,
finished rounds). It implements the engine contract (:mod:`app.rules.engine`):
``match.apply(action)`` returns ``(new_match, events)``, ``match.legal_actions(seat)``
lists :class:`~app.rules.engine.LegalAction` values from the same checks ``apply``
runs (:meth:`Match.verify`), action kinds are the :class:`ActionKind` enum. The old
state is untouched, and an illegal action raises :class:`~app.rules.errors.IllegalAction`
(a stable ``.code``) and changes nothing. The methods ``deal``, ``draw``, ``hold``, ...
are shorthands for ``apply``. Events (:mod:`app.rules.oczko.events`) derive from the
one :class:`~app.rules.engine.Event` base. What a player may see is
:func:`view_for`.
Rule options are an :class:`OczkoOptions` value (``rounds``, default 5); 2-7 players.

A short round, two players, one round, seat 0 deals first:

>>> from app.cards import Card
>>> m, ev = Match.new(2, OczkoOptions(rounds=1))
>>> for text in ["Qs", "Kh", "7s", "9h"]:    # Q+7 = 10 for seat 0, K+9 = 13 for seat 1
...     m, ev = m.deal(Card.parse(text))
>>> m.to_act, sorted(kinds_of(m.legal_actions(0)))
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
goes over 21 (bust at once) or reaches 21 (held automatically; a dealt ace + ten too;
on a phone these are announced, see below).
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

Hidden cards: one engine for every phone
----------------------------------------
In the networked game no phone knows another player's cards until the showdown, so
the same engine runs in two modes:

* **Full information** (``Match.new(n)``): every card is known. Busts, holds at 21
  and Persian 21s happen by themselves and the round never waits. Scenarios, bots,
  simulations and tests use it; :func:`view_for` projects it for one
  seat (others' cards face down until the showdown).
* **A phone** (``Match.new(n, me=seat)``): a card is a ``Card`` for its own hand and
  ``None`` (hidden) for the others, so each hand is a tuple of ``Card | None``
  (``hidden_card`` if a card is on the wrong side). Nothing happens by itself: every
  change of status is an action of the table's common message stream, which every
  phone applies in the same order, so all phones stay in the same public state. Its
  own cards only restrict what the phone itself may claim, and :meth:`Match.claim_due`
  tells the table layer what it must announce:

  - after the deal the round waits in the ``deal_check`` phase: a Persian 21 is
    proven by :meth:`Match.reveal` of its two aces (the owner's own included), then
    :meth:`Match.close_deal` (everyone has spoken) decides;
  - over 21 the owner announces :meth:`Match.bust`, at 21 :meth:`Match.hold`
    (``legal_actions`` offers nothing else); for another seat ``bust`` is a claim
    checked later; a timeout is the table's and always taken;
  - when everyone is done the round waits in the ``showdown`` phase until every hand
    that counts is opened (:attr:`Match.to_reveal`, own hand included; a bust hand of a
    player who left is not needed). An opening is checked against everything known:
    known cards, cards already out of the deck, and the claims made: a hand held over
    21, a bust claim at 21 or less, a draw at 21 or more or a concealed Persian 21 raise
    ``false_claim`` / ``inconsistent_hand``, naming the cheater (a hand held over 21 by
    a timeout just counts as bust). :meth:`Match.forfeit` gives up on a hand that can
    no longer be opened (it counts as bust). A dropout during the showdown does not
    cut it short: the results are in and only wait to be opened.

The phone of seat 1 in a two-player round:

>>> p, _ = Match.new(2, me=1)
>>> for card in [None, Card.parse("9h"), None, Card.parse("Kd")]:
...     p, _ = p.deal(card)
>>> str(p.phase), p.round.hand(0).cards, p.round.hand(1).total
('deal_check', (None, None), 13)
>>> p, _ = p.close_deal()                     # nobody proved a Persian 21
>>> p, _ = p.hold(0)                          # relayed from seat 0
>>> p, _ = p.draw(1, Card.parse("8c"))        # 9 + 4 + 8 = 21
>>> p.claim_due(1), sorted(kinds_of(p.legal_actions(1)))
('hold', ['disconnect', 'hold', 'timeout'])
>>> p, _ = p.hold(1)                          # announced to all, applied by all
>>> str(p.phase), p.to_reveal
('showdown', (0, 1))
>>> p, _ = p.reveal(1, p.round.hand(1).cards)
>>> p, ev = p.reveal(0, [Card.parse("Ts"), Card.parse("9s")])
>>> ev[-2].to_json()["winner"], p.points
(1, (0, 1))
"""

from __future__ import annotations

from app.rules.engine import kinds_of
from app.rules.errors import IllegalAction
from app.rules.oczko.actions import SEAT_ACTIONS, TABLE_ACTIONS, Action, ActionKind
from app.rules.oczko.events import (
    Busted,
    CardDealt,
    CardDrawn,
    DeckReplaced,
    Disconnected,
    Event,
    Held,
    MatchEnded,
    Persian21,
    Rejoined,
    Revealed,
    RoundEnded,
    RoundStarted,
    TurnStarted,
)
from app.rules.oczko.match import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Match,
    OczkoOptions,
    RoundResult,
    decided_leader,
)
from app.rules.oczko.round import Hand, Phase, Round, Status, total_of
from app.rules.oczko.views import MatchView, SeatView, redact, view, view_events, view_for

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "SEAT_ACTIONS",
    "TABLE_ACTIONS",
    "Action",
    "ActionKind",
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
    "Rejoined",
    "Revealed",
    "Round",
    "RoundEnded",
    "RoundResult",
    "RoundStarted",
    "SeatView",
    "Status",
    "TurnStarted",
    "decided_leader",
    "kinds_of",
    "redact",
    "total_of",
    "view",
    "view_events",
    "view_for",
]
