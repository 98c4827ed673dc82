"""Lobby presenter and the rules pages (pure, no Kivy)."""

from __future__ import annotations

import pytest

from app import i18n
from app.views.rules_text import BLACKJACK_RULES, OCZKO_RULES, blackjack_rules, oczko_rules
from app.views.table.lobby_lines import present_lobby


@pytest.fixture(autouse=True)
def english():
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def lobby(*ready: bool) -> dict:
    return {"players": [(f"P{i}", r) for i, r in enumerate(ready)], "rounds": 5, "turn_time": 30}


@pytest.mark.parametrize(
    ("state", "hosting", "can_start", "status"),
    [
        (lobby(True), True, False, "Waiting for more players…"),
        (lobby(True, False), True, False, "Waiting until everybody is ready…"),
        (lobby(True, True, True), True, True, "3 players ready. Start when you like."),
        (lobby(True, True), False, False, "Waiting for the host to start…"),
        (lobby(*[True] * 8), True, False, "At most seven players can sit at a table."),
        (None, True, False, "Waiting for the table…"),
    ],
)
def test_lobby_start_only_when_everybody_is_ready(state, hosting, can_start, status) -> None:
    vm = present_lobby(state, hosting)
    assert (vm.can_start, vm.status) == (can_start, status)


def test_lobby_lines_in_polish() -> None:
    i18n.set_language("pl")
    vm = present_lobby(lobby(True, False), True)
    assert vm.players == ("P0  ·  gotowy", "P1  ·  jeszcze niegotowy")
    assert vm.settings == "Rundy: 5, 30 s na decyzję"


@pytest.mark.parametrize("lang", ["en", "de", "pl"])
def test_rules_pages_are_complete_in_every_language(lang: str) -> None:
    i18n.set_language(lang)
    oczko, blackjack = oczko_rules(), blackjack_rules()
    assert len(oczko) == len(OCZKO_RULES) and len(blackjack) == len(BLACKJACK_RULES)
    texts = [t for _k, t in oczko + blackjack]
    assert all(texts)
    if lang != "en":
        assert sum(
            a != b for a, (_k, b) in zip(texts, OCZKO_RULES + BLACKJACK_RULES, strict=True)
        ) == len(texts)


def test_german_oczko_rules_are_the_seed_text() -> None:
    i18n.set_language("de")
    text = " ".join(t for _k, t in oczko_rules())
    assert "Bube = 2, Dame = 3, König = 4" in text
    assert "Persische 21" in text


@pytest.mark.parametrize("lang", ["en", "de", "pl"])
def test_networked_table_rules_say_what_differs(lang: str) -> None:
    from app.rules.table_rules import PRESETS, TableRules
    from app.views.rules_text import NETWORKED_RULES

    i18n.set_language(lang)
    peek = blackjack_rules(TableRules(late_surrender=True))
    assert peek[4:] == blackjack_rules()  # heading, no hole card, original bets, surrender
    assert [k for k, _t in peek[:4]] == ["h", "p", "p", "p"]
    plain = blackjack_rules(TableRules())  # no surrender, no triple seven to mention
    assert len(plain) == len(BLACKJACK_RULES) + 3
    european = blackjack_rules(PRESETS["european"])
    assert european[2][1] == i18n._(NETWORKED_RULES["already_european"])
    assert european[3:] == blackjack_rules()


def test_both_lobbies_keep_a_hosts_visibility_through_one_helper() -> None:
    """The Oczko and casino lobbies show a host's visible time through one helper: a
    guest shows nothing, a transport that cannot tell shows nothing and stops no lobby,
    a host kept visible shows the time left (issue 33)."""
    from app.i18n import set_language
    from app.views.setup.bluetooth import lobby_visible_text

    set_language("en")

    class Visible:
        def visible_left(self) -> float:
            return 125.0

    def broken() -> object:
        raise RuntimeError("no Bluetooth now")

    assert lobby_visible_text(None, False, broken) == ("", None)
    assert lobby_visible_text(None, True, broken) == ("", None)
    text, kept = lobby_visible_text(None, True, Visible)
    assert text == "Visible to nearby phones for 2:05 more" and kept is not None
    again, same = lobby_visible_text(kept, True, broken)  # (kept: not made anew)
    assert again == text and same is kept
