"""Every rule sentence of seed 000 (Oczko) and the design digest's decisions, as tests.

Each test names the rule it checks; the German sentence it comes from is quoted.
"""

from __future__ import annotations

import pytest

import app.rules.oczko as oczko_mod
from app.cards import Card
from app.rules.engine import kinds_of
from app.rules.oczko import (
    Busted,
    CardDealt,
    CardDrawn,
    Event,
    Held,
    Match,
    MatchEnded,
    OczkoOptions,
    Persian21,
    Phase,
    RoundEnded,
    RoundStarted,
    Status,
    TurnStarted,
    redact,
    view,
)


class Table:
    """A match plus the log of its events, for short scripted tests."""

    def __init__(self, players: int = 3, rounds: int = 5) -> None:
        self.m, ev = Match.new(players, OczkoOptions(rounds=rounds))
        self.events: list[Event] = list(ev)

    def do(self, op: str, *args: object) -> tuple[Event, ...]:
        self.m, ev = getattr(self.m, op)(*args)
        self.events += ev
        return ev

    def deal(self, cards: str) -> tuple[Event, ...]:
        out: tuple[Event, ...] = ()
        for text in cards.split():
            out += self.do("deal", Card.parse(text))
        return out

    def draw(self, seat: int, card: str) -> tuple[Event, ...]:
        return self.do("draw", seat, Card.parse(card))

    def of(self, kind: type[Event]) -> list[Event]:
        return [e for e in self.events if isinstance(e, kind)]

    def last_round(self) -> RoundEnded:
        ended = self.of(RoundEnded)
        assert ended, "no round has ended"
        return ended[-1]  # type: ignore[return-value]


# Two-card hands that total 11, and the winner's 19: distinct cards for up to 7 players.
_ELEVENS = ["5s 6s", "5h 6h", "5d 6d", "5c 6c", "2s 9s", "2h 9h", "2d 9d"]


def quick_round(t: Table, winner: int | None) -> None:
    """Deal a round in which everybody holds at once; ``winner`` has 19, the others 11."""
    r = t.m.round
    assert r is not None
    hands = {}
    for i, s in enumerate(r.order):
        hands[s] = (["Tc", "9c"] if s == winner else _ELEVENS[i].split())[:]
    number = r.number
    while t.m.to_deal is not None and t.m.round.number == number:
        t.do("deal", Card.parse(hands[t.m.to_deal].pop(0)))
    while t.m.to_act is not None and t.m.round.number == number:
        t.do("hold", t.m.to_act)


# --- "Sammle Karten ... so nah wie möglich an 21, ohne sie zu überschreiten. Du gewinnst eine
# Runde, wenn du unter den Spielern, die sich nicht überkauft haben, die höchste Summe hast." --


def test_highest_total_among_players_not_bust_wins_the_round() -> None:
    t = Table(3)
    t.deal("Ts 9h 5c 8s 9d 6c")  # seat 0: 18, seat 1: 18, seat 2: 11
    t.draw(0, "4s")  # 22: bust
    t.draw(1, "2h")  # 20
    t.do("hold", 1)
    t.draw(2, "8c")  # 19
    t.do("hold", 2)
    end = t.last_round()
    assert end.winner == 1
    assert dict(end.totals) == {0: 22, 1: 20, 2: 19}
    assert t.m.points == (0, 1, 0)


def test_nobody_wins_when_everybody_is_bust() -> None:
    t = Table(2)
    t.deal("Ts Th 9s 9h")  # 19 and 19
    t.draw(0, "5s")
    t.draw(1, "5h")
    end = t.last_round()
    assert end.winner is None and end.reason == "showdown"
    assert t.m.points == (0, 0)


# --- "Ein Match ist eine Serie von Runden — entscheidend ist deine Gesamtpunktzahl über alle
# Runden hinweg, nicht das Ergebnis einer einzelnen Runde." ----------------------------------


def test_match_winner_is_the_most_points_even_if_he_lost_the_last_round() -> None:
    t = Table(3, rounds=4)
    for w in (0, 1, 0):
        quick_round(t, w)
    assert not t.m.over  # 2:1:0 with a round left: seat 1 could still equal seat 0
    quick_round(t, 2)  # seat 2 wins the last round ...
    assert t.m.over and t.m.winner == 0 and t.m.end_reason == "rounds"  # ... seat 0 the match
    assert t.m.points == (2, 1, 1)


# --- "Zahlenkarten (2–10) zählen mit ihrem aufgedruckten Wert. Bildkarten ...: Bube = 2,
# Dame = 3, König = 4. Ein Ass zählt IMMER fest als 11" ----------------------------------------


@pytest.mark.parametrize(
    ("card", "value"),
    [("2s", 2), ("3s", 3), ("4s", 4), ("5s", 5), ("6s", 6), ("7s", 7), ("8s", 8), ("9s", 9),
     ("Ts", 10), ("Js", 2), ("Qs", 3), ("Ks", 4), ("As", 11)],
)  # fmt: skip
def test_card_values_in_the_engine(card: str, value: int) -> None:
    t = Table(2)
    t.deal("2h 5h 3h 6h")  # seat 0: 5, seat 1: 11
    ev = t.draw(0, card)
    drawn = next(e for e in ev if isinstance(e, CardDrawn))
    assert drawn.total == 5 + value


def test_number_cards_count_their_face_value() -> None:
    t = Table(2)
    t.deal("2h 9h 8c 5c")  # 10 and 14
    assert t.m.round.hand(0).total == 10
    assert t.m.round.hand(1).total == 14


def test_face_cards_count_jack_2_queen_3_king_4() -> None:
    t = Table(2)
    t.deal("Jh Qh Kh Kc")  # J+K = 6, Q+K = 7
    assert t.m.round.hand(0).total == 6
    assert t.m.round.hand(1).total == 7


def test_ace_always_counts_11_so_a_hand_with_an_ace_can_bust() -> None:
    t = Table(2)
    t.deal("Ks Qh 9s 2h")  # 13 and 5
    ev = t.draw(0, "Ad")  # 13 + 11 = 24, never 14
    assert any(isinstance(e, Busted) and e.total == 24 and e.seat == 0 for e in ev)
    assert t.m.round.hand(0).status is Status.BUST


def test_seed_king_and_ace_is_15() -> None:
    t = Table(3)
    t.deal("Qs Kh 2s 7d Ac 3s")
    assert t.m.round.hand(0).total == 10  # "eine Dame und eine 7 (zusammen 10)"
    assert t.m.round.hand(1).total == 15  # "einen König und ein Ass (zusammen 15)"


# --- "Die Ausnahme ist die Persische 21 (zwei Asse als Starthand) — automatischer Rundensieg." --


def test_persian_21_wins_the_round_automatically() -> None:
    t = Table(3)
    ev = t.deal("As 5c 6c Ah 7c 8c")
    assert any(isinstance(e, Persian21) and e.seat == 0 for e in ev)
    end = t.last_round()
    assert end.winner == 0 and end.reason == "persian"
    assert t.m.points == (1, 0, 0)


def test_persian_21_is_decided_before_anyone_draws() -> None:
    t = Table(3)
    t.deal("5c As 6c 7c Ah 8c")
    assert [e for e in t.events if isinstance(e, TurnStarted | CardDrawn)] == []
    assert t.m.round.number == 2  # round 1 is over, round 2 waits for its deal
    assert t.m.phase is Phase.DEAL


def test_two_aces_drawn_later_are_not_persian() -> None:
    t = Table(2)
    t.deal("As 5c 2s 6c")  # seat 0: A+2 = 13
    ev = t.draw(0, "Ah")  # 24: the second ace is not in the starting hand
    assert any(isinstance(e, Busted) for e in ev)
    assert not t.of(Persian21)


# --- "zwei Asse in deinen ersten beiden Karten sind eine Persische 21 — ein automatischer
# Rundensieg, unabhängig von den Karten der anderen Spieler, selbst wenn jemand anderes ebenfalls
# 21 hat." ------------------------------------------------------------------------------------


def test_persian_21_beats_a_dealt_21() -> None:
    t = Table(3)
    t.deal("As Ad 5c Ah Td 6c")  # seat 0: A+A, seat 1: A+10 = 21
    end = t.last_round()
    assert end.winner == 0 and end.reason == "persian"


def test_several_persian_21s_tie_at_the_top_no_point() -> None:
    t = Table(4)
    t.deal("As 5c Ad 6c Ah 7c Ac 8c")  # seats 0 and 2 both A+A
    assert [e.seat for e in t.of(Persian21)] == [0, 2]
    end = t.last_round()
    assert end.winner is None and end.reason == "persian"
    assert t.m.points == (0, 0, 0, 0)


# --- "Jeder Spieler beginnt die Runde mit zwei Karten." + seating (digest) -------------------


def test_each_player_starts_with_two_cards_dealt_one_at_a_time() -> None:
    t = Table(3)
    ev = t.deal("2s 3s 4s 5s 6s 7s")
    assert [e.seat for e in ev if isinstance(e, CardDealt)] == [0, 1, 2, 0, 1, 2]
    assert [len(h.cards) for h in t.m.round.hands] == [2, 2, 2]


def test_first_seat_rotates_each_round_clockwise() -> None:
    t = Table(3, rounds=5)
    orders = []
    for _ in range(4):
        orders.append(t.m.round.order)
        quick_round(t, None)
    assert orders == [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 1, 2)]


def test_deal_of_round_two_starts_with_seat_one() -> None:
    t = Table(3)
    quick_round(t, None)
    ev = t.deal("2s 3s 4s 5s 6s 7s")
    assert [e.seat for e in ev if isinstance(e, CardDealt)] == [1, 2, 0, 1, 2, 0]


def test_rotation_skips_seats_not_playing() -> None:
    t = Table(4, rounds=5)
    t.deal("2s 3s 4s 5s 6s 7s 8s 9s")
    t.do("disconnect", 1)
    while t.m.round.number == 1:
        t.do("hold", t.m.to_act)
    assert t.m.round.order == (2, 3, 0)  # round 2 would start at seat 1, who has left


# --- "In deinem Zug wählst du: „Ziehen“ ... oder „Halten“" -------------------------------------


def test_draw_takes_one_more_card_and_the_turn_stays() -> None:
    t = Table(2)
    t.deal("2s 3s 4s 5s")
    ev = t.draw(0, "6s")
    assert ev == (CardDrawn(1, 0, Card.parse("6s"), 12),)
    assert t.m.to_act == 0
    t.draw(0, "7s")  # a player plays his whole turn: several draws
    assert t.m.round.hand(0).total == 19 and t.m.to_act == 0


def test_hold_keeps_the_total_and_ends_the_turn() -> None:
    t = Table(2)
    t.deal("Ts 3s 9s 5s")
    ev = t.do("hold", 0)
    assert ev == (Held(1, 0, 19, "hold"), TurnStarted(1, 1))
    assert t.m.round.hand(0).status is Status.HELD and t.m.to_act == 1


def test_the_whole_turn_before_the_next_player() -> None:
    t = Table(3)
    t.deal("2s 3s 4s 5s 6s 7s")
    t.draw(0, "2h")
    assert kinds_of(t.m.legal_actions(1)) == {"disconnect"}
    assert kinds_of(t.m.legal_actions(0)) == {"draw", "hold", "timeout", "disconnect"}


def test_a_player_at_21_holds_automatically() -> None:
    t = Table(2)
    t.deal("9s 3s 5s 5h")  # 14 and 8
    ev = t.draw(0, "7d")
    assert Held(1, 0, 21, "21") in ev
    assert t.m.to_act == 1


def test_a_dealt_ace_and_ten_holds_automatically_at_its_turn() -> None:
    t = Table(3)
    ev = t.deal("2s As 3s 4s Td 5s")  # seat 1: A+10
    assert Held(1, 1, 21, "21") not in ev  # not yet: seat 0 plays first
    ev = t.do("hold", 0)
    assert ev == (Held(1, 0, 6, "hold"), Held(1, 1, 21, "21"), TurnStarted(1, 2))


# --- "läuft sie ab, hält das Spiel automatisch für dich" --------------------------------------


def test_timeout_means_hold() -> None:
    t = Table(2)
    t.deal("Ts 3s 8s 5s")
    ev = t.do("timeout", 0)
    assert ev[0] == Held(1, 0, 18, "timeout")
    assert t.m.round.hand(0).status is Status.HELD and t.m.to_act == 1


def test_timeout_after_draws_holds_the_drawn_total() -> None:
    t = Table(2)
    t.deal("2s 3s 4s 5s")
    t.draw(0, "9h")
    t.do("timeout", 0)
    t.do("hold", 1)
    assert t.last_round().winner == 0


# --- "Sobald alle gezogen oder gehalten haben, werden die Summen ... verglichen — die höchste
# gewinnt die Runde, und ihr Besitzer erhält 1 Punkt." ---------------------------------------


def test_round_is_compared_only_when_everyone_is_done() -> None:
    t = Table(3)
    t.deal("Ts 2s 3s 9s 4s 5s")
    t.do("hold", 0)
    t.do("hold", 1)
    assert not t.of(RoundEnded)
    t.do("hold", 2)
    assert t.last_round().winner == 0


def test_round_winner_gets_exactly_one_point() -> None:
    t = Table(3)
    quick_round(t, 2)
    assert t.m.points == (0, 0, 1)


# --- "Ein Gleichstand bei der höchsten Summe ... teilt den Punkt NICHT auf — die Runde endet
# ohne Sieger" -------------------------------------------------------------------------------


def test_tie_at_the_top_gives_no_point() -> None:
    t = Table(3)
    t.deal("Ts Th 8s 9s 9h 9d")  # 19, 19, 17
    for s in (0, 1, 2):
        t.do("hold", s)
    end = t.last_round()
    assert end.winner is None
    assert t.m.points == (0, 0, 0)


def test_tie_below_the_top_does_not_matter() -> None:
    t = Table(3)
    t.deal("Ts 8h 8s Th 9h 9d")  # 20, 17, 17
    for s in (0, 1, 2):
        t.do("hold", s)
    assert t.last_round().winner == 0


def test_seed_hypothetical_tie_of_ala_and_bartek() -> None:
    # "Hätten Ala und Bartek gleichgestanden, wäre die Runde ohne Sieger geendet"
    t = Table(3)
    quick_round(t, 2)  # round 1 (not the point here)
    # Round 2 from Bartek: Bartek Q+9, Celina K+10, Ala J+J; all reach a tie of 20 vs 20.
    t.deal("Qs Kh Jd 9c Th Jc")
    t.draw(1, "8s")
    t.do("hold", 1)  # Bartek 20
    t.draw(2, "Js")
    t.do("hold", 2)  # Celina 16
    for c in ("5d", "3c", "8h"):
        t.draw(0, c)  # Ala 4 + 16 = 20
    t.do("hold", 0)
    assert t.last_round().winner is None


# --- "Der Verlust der Bluetooth-Verbindung mitten in einer Runde zählt als Überkauf — ein
# getrennter Spieler kann diese Runde nicht gewinnen." ---------------------------------------


def test_disconnect_mid_round_counts_as_bust() -> None:
    t = Table(3)
    t.deal("Ts 2s 3s Th 4s 5s")  # seat 0 holds a 20 in hand, still playing
    ev = t.do("disconnect", 0)
    assert Busted(1, 0, None, "disconnect") in ev
    t.do("hold", 1)
    t.do("hold", 2)
    assert t.last_round().winner == 2  # 8 beats 6; the 20 of the dropout does not count


def test_disconnect_before_his_turn_counts_as_bust() -> None:
    t = Table(3)
    t.deal("2s 3s Ts 4s 5s Th")
    t.do("disconnect", 2)
    t.do("hold", 0)
    t.do("hold", 1)
    assert t.last_round().winner == 1
    assert dict(t.last_round().statuses)[2] == "bust"


# --- "Hatte er vor der Trennung bereits gehalten oder sich überkauft, bleibt dieses Ergebnis
# bestehen" -----------------------------------------------------------------------------------


def test_disconnect_after_hold_keeps_the_held_result() -> None:
    t = Table(3)
    t.deal("Ts 2s 3s Th 4s 5s")
    t.do("hold", 0)  # 20
    ev = t.do("disconnect", 0)
    assert not any(isinstance(e, Busted) for e in ev)
    t.do("hold", 1)
    t.do("hold", 2)
    assert t.last_round().winner == 0  # his held 20 stands and wins the round
    assert t.m.points == (1, 0, 0)
    assert not t.m.over and t.m.active == (1, 2)


def test_disconnect_after_bust_stays_bust() -> None:
    t = Table(3)
    t.deal("Ts 2s 3s 9h 4s 5s")
    t.draw(0, "5h")  # 24
    t.do("disconnect", 0)
    h = t.m.round.hand(0)
    assert h.status is Status.BUST and h.reason == "over_21" and h.dropped


# --- "Ein Match läuft über eine festgelegte Anzahl von Runden" --------------------------------


def test_default_match_is_five_rounds() -> None:
    assert OczkoOptions().rounds == 5
    t = Table(3)
    for w in (0, 1, 2, 0, 1):
        quick_round(t, w)
    assert t.m.played == 5
    assert t.m.round.tiebreak  # 2:2:1 -> tiebreak between seats 0 and 1


@pytest.mark.parametrize("rounds", [1, 2, 7])
def test_match_lasts_the_configured_rounds(rounds: int) -> None:
    t = Table(3, rounds=rounds)
    for _ in range(rounds - 1):
        quick_round(t, None)
        assert not t.m.over
    quick_round(t, 1)
    assert t.m.over and t.m.rounds_played == rounds and t.m.winner == 1


# --- "kann aber früher enden — wenn am Tisch nur noch ein aktiver Spieler übrig ist" ----------


def test_match_ends_when_one_active_player_is_left() -> None:
    t = Table(2)
    t.deal("2s 3s 4s 5s")
    ev = t.do("disconnect", 1)
    assert ev[-1] == MatchEnded(0, "last_player", (1, 0))
    assert t.last_round().reason == "last_player" and t.last_round().winner == 0
    assert t.m.over and t.m.winner == 0


def test_last_player_who_busted_does_not_win_the_round_but_wins_the_match() -> None:
    t = Table(2)
    t.deal("Ts 3s 9s 5s")
    t.draw(0, "8h")  # 27: bust
    t.do("disconnect", 1)
    assert t.last_round().winner is None
    assert t.m.winner == 0 and t.m.points == (0, 0)


def test_one_player_left_in_a_round_decides_it_at_once() -> None:
    t = Table(3)
    t.deal("2s 3s 4s 5s 6s 7s")
    t.do("disconnect", 0)
    t.do("disconnect", 1)
    assert t.last_round().winner == 2 and t.m.winner == 2


def test_a_player_who_left_cannot_win_the_match() -> None:
    t = Table(3, rounds=4)
    quick_round(t, 0)
    quick_round(t, 0)
    t.deal("2s 3s 4s 5s 6s 7s")  # round 3 from seat 2: seat 2 7, seat 0 9, seat 1 11
    t.do("disconnect", 0)  # seat 0 leaves with 2 points
    assert not t.m.over
    while t.m.to_act is not None:
        t.do("hold", t.m.to_act)
    assert t.last_round().winner == 1
    quick_round(t, 1)
    assert t.m.points == (2, 2, 0)  # he keeps his points in the results ...
    assert t.m.over and t.m.winner == 1 and t.m.end_reason == "rounds"  # ... but cannot win


def test_a_player_who_left_is_not_counted_for_a_tie_for_first() -> None:
    t = Table(3, rounds=3)
    quick_round(t, 0)
    quick_round(t, 1)
    t.deal("Ts 2s 4s 9s 3s 5s")  # round 3 from seat 2: seat 2 19, seat 0 5, seat 1 9
    t.do("disconnect", 0)
    t.do("hold", 2)
    t.do("hold", 1)
    assert t.m.points == (1, 1, 1) and not t.m.over
    assert t.of(RoundStarted)[-1] == RoundStarted(4, True, (1, 2))  # seat 0 is not in it


# --- "oder wenn das Ergebnis bereits mathematisch feststeht (niemand sonst könnte den
# Spitzenreiter noch einholen, selbst wenn er alle verbleibenden Runden gewinnen würde)" -------


def test_match_ends_early_when_nobody_can_catch_up() -> None:
    t = Table(3, rounds=5)
    for _ in range(3):
        quick_round(t, 1)
    assert t.m.over and t.m.winner == 1 and t.m.end_reason == "decided"
    assert t.m.rounds_played == 3


def test_a_possible_tie_keeps_the_match_going() -> None:
    # reaching = equalling: 2 points with 2 rounds left can still be equalled
    t = Table(3, rounds=5)
    quick_round(t, 1)
    quick_round(t, None)
    quick_round(t, 1)
    assert t.m.points == (0, 2, 0) and not t.m.over
    quick_round(t, 1)
    assert t.m.over and t.m.end_reason == "decided" and t.m.rounds_played == 4


def test_a_disconnect_can_decide_the_match_mid_round() -> None:
    t = Table(3, rounds=5)
    quick_round(t, 0)
    quick_round(t, 0)
    quick_round(t, 1)  # 2:1:0 with 2 rounds left: seat 1 can still equal, seat 2 too
    t.deal("2s 3s 4s 5s 6s 7s")
    ev = t.do("disconnect", 1)  # seat 2 can reach at most 2: that equals seat 0
    assert not t.m.over
    t2 = Table(3, rounds=4)
    for w in (0, 0, 1):
        quick_round(t2, w)  # 2:1:0 with 1 round left: only seat 1 could equal
    t2.deal("2s 3s 4s 5s 6s 7s")
    ev = t2.do("disconnect", 1)
    assert ev[-1] == MatchEnded(0, "decided", (2, 1, 0))


# --- "Nach der letzten Runde gewinnt, wer die meisten Punkte hat. Bei einem Gleichstand um den
# ersten Platz wird eine zusätzliche Stichrunde gespielt — endet auch diese unentschieden, folgt
# eine weitere, bis der Gleichstand aufgelöst ist." -------------------------------------------


def test_most_points_after_the_last_round_win() -> None:
    t = Table(3, rounds=2)
    quick_round(t, 2)
    quick_round(t, None)
    assert t.m.over and t.m.winner == 2 and t.m.end_reason == "rounds"


def test_tie_for_first_goes_to_a_tiebreak_among_the_tied_players_only() -> None:
    t = Table(3, rounds=2)
    quick_round(t, 0)
    quick_round(t, 1)
    assert not t.m.over
    started = t.of(RoundStarted)[-1]
    assert started == RoundStarted(3, True, (0, 1))  # seat 2 is not tied: he sits out
    quick_round(t, 1)
    assert t.m.over and t.m.winner == 1 and t.m.end_reason == "tiebreak"
    assert t.m.points == (1, 2, 0) and t.m.tiebreaks == 1


def test_tiebreak_repeats_until_the_tie_is_resolved() -> None:
    t = Table(3, rounds=2)
    quick_round(t, 0)
    quick_round(t, 1)
    quick_round(t, None)  # tiebreak 1: tie again
    quick_round(t, None)  # tiebreak 2: tie again
    assert not t.m.over and t.m.round.tiebreak and t.m.round.order == (1, 0)  # round 5
    quick_round(t, 0)
    assert t.m.over and t.m.winner == 0 and t.m.tiebreaks == 3


def test_tiebreak_round_rotates_its_first_seat() -> None:
    t = Table(3, rounds=2)
    quick_round(t, 0)
    quick_round(t, 2)
    assert t.m.round.order == (2, 0)  # round 3 starts at seat 2
    quick_round(t, None)
    assert t.m.round.order == (0, 2)  # round 4 starts at seat 0


# --- a dropout brings a fresh deck (digest) --------------------------------------------------


def test_fresh_deck_mid_round_may_repeat_cards() -> None:
    t = Table(3)
    t.deal("2s 3s 4s 5s 6s 7s")
    t.do("disconnect", 2)
    with pytest.raises(oczko_mod.IllegalAction):
        t.draw(0, "2s")  # same deck: 2s is out already
    t.do("new_deck")
    t.draw(0, "2s")  # the fresh deck has all 52 cards
    assert t.m.round.hand(0).cards[-1] == Card.parse("2s")
    assert t.m.round.hand(0).decks == (0, 0, 1)


# --- "each player's view of the state shows other players' card counts and status, never
# their cards, until showdown" (issue 3) ------------------------------------------------------


def test_view_shows_own_cards_and_others_counts_and_status_only() -> None:
    t = Table(3)
    t.deal("Ts 2s 3s 9s 4s 5s")
    t.do("hold", 0)
    t.draw(1, "6h")
    v = view(t.m, 1)
    me, other, third = v.seats[1], v.seats[0], v.seats[2]
    assert me.cards == tuple(Card.parse(c) for c in ("2s", "4s", "6h")) and me.total == 12
    assert other.cards == (None, None) and other.count == 2 and other.status == "held"
    assert other.total is None
    assert third.cards == (None, None) and third.status == "playing"
    assert v.to_act == 1 and v.legal == {"draw", "hold", "timeout", "disconnect"}
    text = str(v.to_json(["Ala", "Bartek", "Celina"]))
    assert "Ts" not in text and "9s" not in text  # Ala's cards
    spectator = view(t.m, None)
    assert all(c is None for s in spectator.seats for c in s.cards) and spectator.legal == set()


def test_view_opens_the_hands_at_the_showdown() -> None:
    t = Table(2)
    t.deal("Ts 2s 9s 4s")
    t.do("hold", 0)
    t.do("hold", 1)
    v = view(t.m, 1)
    last = v.last_round
    assert last is not None and last.winner == 0
    assert [h.cards for h in last.hands] == [
        (Card.parse("Ts"), Card.parse("9s")),
        (Card.parse("2s"), Card.parse("4s")),
    ]


def test_events_are_redacted_for_other_phones() -> None:
    t = Table(2)
    ev = t.deal("Ts 2s 9s 4s") + t.draw(0, "Ah")
    mine = redact(ev, 0)
    theirs = redact(ev, 1)
    assert [e.card for e in mine if isinstance(e, CardDealt)] == [
        Card.parse("Ts"), None, Card.parse("9s"), None,
    ]  # fmt: skip
    drawn = [e for e in theirs if isinstance(e, CardDrawn)]
    assert drawn[0].card is None and drawn[0].total is None
    busted = [e for e in theirs if isinstance(e, Busted)]
    assert busted[0].seat == 0 and busted[0].total is None  # public: he is bust
