"""pytest-benchmark cases: the native analysis and simulator beside the Python reference."""

from types import SimpleNamespace

from app.native import handeval
from app.strategy import reference
from app.strategy.edge import house_edge
from app.strategy.rules import analysis_rules
from app.strategy.sim import simulate

RULES = analysis_rules(SimpleNamespace(decks=6))
REPORT = house_edge(SimpleNamespace(decks=6))
SMALL = [2] * 9 + [6]


def test_bench_game_ev_6_decks_c(benchmark) -> None:
    ev = benchmark(handeval.game_ev, RULES, [24] * 9 + [96], 1)[0]
    assert -0.005 < ev < -0.003


def test_bench_game_ev_small_shoe_c(benchmark) -> None:
    benchmark(handeval.game_ev, RULES, SMALL, 1)


def test_bench_game_ev_small_shoe_python_reference(benchmark) -> None:
    benchmark.pedantic(reference.game_ev, args=(RULES, SMALL), rounds=1, iterations=1)


def test_bench_simulate_1m_hands_1_thread(benchmark) -> None:
    r = benchmark.pedantic(
        simulate,
        args=(SimpleNamespace(decks=6), 1_000_000),
        kwargs={"threads": 1, "report": REPORT},
        rounds=3,
    )
    assert r.hands == 1_000_000
