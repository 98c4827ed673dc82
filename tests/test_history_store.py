"""The hand-history store: round trip, statistics, pruning, corrupt files, migrations."""

from __future__ import annotations

import doctest
import importlib
import sqlite3
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.history import store as store_mod
from app.history.model import Facts, RoundRecord
from app.history.stats import statistics
from app.history.store import HistoryError, HistoryStore, open_store
from tests.history_gen import records, summaries


@pytest.fixture
def tmp_store(tmp_path):
    with open_store(tmp_path) as s:
        yield s


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One store for a property test's examples (opening a file costs more than the
    test): each example starts by deleting every round."""
    with open_store(tmp_path_factory.mktemp("h")) as s:
        yield s


def _fresh(s: HistoryStore) -> HistoryStore:
    s.set_limit(store_mod.DEFAULT_LIMIT)
    s.delete_all()
    return s


@settings(max_examples=20)
@given(rounds=st.lists(records, max_size=12))
def test_rounds_read_back_equal_written(shared, rounds):
    s = _fresh(shared)
    ids = [s.add(r) for r in rounds]
    assert ids == sorted(ids)
    back = s.rounds(newest_first=False)
    assert back == [r.with_id(i) for r, i in zip(rounds, ids, strict=True)]
    assert s.rounds() == back[::-1]
    for r, i in zip(rounds, ids, strict=True):
        assert s.round(i) == r.with_id(i)
    # the summaries carry everything but the detail
    assert s.rounds(newest_first=False, detail=False) == [
        RoundRecord(**{**vars(r), "detail": None}) for r in back
    ]


def _plain_stats(rounds: list[RoundRecord]) -> dict:
    """The statistics recomputed from the rounds with plain loops (the referee)."""
    out: dict = {}
    oz = [r for r in rounds if r.game == "oczko"]
    holds = [r.facts.held_total for r in oz if r.facts.held_total is not None]
    cum, line = 0, []
    for r in oz:
        if r.result == "won":
            cum += 1
        line.append(cum)
    out["oczko"] = {
        "matches": len([r for r in oz if r.facts.match_end in ("won", "lost")]),
        "match_wins": len([r for r in oz if r.facts.match_end == "won"]),
        "rounds": len(oz),
        "rounds_won": len([r for r in oz if r.result == "won"]),
        "persian21s": sum(r.facts.persian for r in oz),
        "busts": sum(r.facts.bust for r in oz),
        "average_hold": round(sum(holds) / len(holds), 2) if holds else None,
        "chart_score": line,
    }
    bj = [r for r in rounds if r.game == "blackjack"]
    nets = [Fraction(r.score_after) - Fraction(r.score_before) for r in bj]
    total, line2 = Fraction(0), []
    for n in nets:
        total += n
        line2.append(total)
    sessions: dict[str, float] = {}
    for r in bj:
        sessions[r.session] = sessions.get(r.session, 0.0) + r.facts.ev_lost
    decided = {r.session for r in bj if r.facts.decisions}
    sessions = {k: v for k, v in sessions.items() if k in decided}
    out["blackjack"] = {
        "rounds": len(bj),
        "hands": sum(r.facts.hands for r in bj),
        "wins": sum(r.facts.wins for r in bj),
        "pushes": sum(r.facts.pushes for r in bj),
        "losses": sum(r.facts.losses for r in bj),
        "blackjacks": sum(r.facts.blackjacks for r in bj),
        "doubles_won": sum(r.facts.doubles_won for r in bj),
        "splits_won": sum(r.facts.splits_won for r in bj),
        "net": total,
        "biggest_win": max([n for n in nets if n > 0], default=None),
        "biggest_loss": min([n for n in nets if n < 0], default=None),
        "mistakes": sum(r.facts.mistakes for r in bj),
        "chart_score": line2,
        "ev_lost_sessions": sessions,
    }
    return out


def _money(v):
    return None if v is None else Fraction(str(v))


@settings(max_examples=30)
@given(rounds=st.lists(summaries, max_size=30))
def test_statistics_from_store_equal_plain_recomputation(shared, rounds):
    s = _fresh(shared)
    for r in rounds:
        s.add(r)
    got = s.stats()  # counted by SQL
    # ... equal to the pure Python statistics of the same rounds (EV sums: float order)
    pure = statistics(rounds)
    for game in ("oczko", "blackjack"):
        for key, value in pure[game].items():
            if key == "ev_lost_sessions":
                assert [x["session"] for x in got[game][key]] == [x["session"] for x in value]
                for a, b in zip(got[game][key], value, strict=True):
                    assert a["ev_lost"] == pytest.approx(b["ev_lost"], abs=1e-3)
            elif key == "ev_lost":
                assert got[game][key] == pytest.approx(value, abs=1e-3)
            else:
                assert got[game][key] == value, (game, key)
    want = _plain_stats(rounds)
    for key, value in want["oczko"].items():
        assert got["oczko"][key] == value, key
    b, w = got["blackjack"], want["blackjack"]
    for key in ("rounds", "hands", "wins", "pushes", "losses", "blackjacks", "doubles_won"):
        assert b[key] == w[key], key
    assert (b["splits_won"], b["mistakes"]) == (w["splits_won"], w["mistakes"])
    assert _money(b["net"]) == w["net"]
    assert _money(b["biggest_win"]) == w["biggest_win"]
    assert _money(b["biggest_loss"]) == w["biggest_loss"]
    assert [_money(x) for x in b["chart_score"]] == w["chart_score"]
    per = {s["session"]: s["ev_lost"] for s in b["ev_lost_sessions"]}
    assert per.keys() == w["ev_lost_sessions"].keys()
    for k, v in w["ev_lost_sessions"].items():
        assert per[k] == pytest.approx(v, abs=1e-3)


@settings(max_examples=30)
@given(n=st.integers(0, 40), limit=st.integers(10, 25), later=st.integers(10, 25))
def test_pruning_keeps_the_newest_n(shared, n, limit, later):
    s = _fresh(shared)
    s.set_limit(limit)
    made = []
    for i in range(n):
        made.append(_record(i).with_id(s.add(_record(i))))
    kept = s.rounds(newest_first=False)
    assert kept == made[-limit:] if made else kept == []
    s.set_limit(later)
    assert s.rounds(newest_first=False) == made[-min(limit, later) :] if made else True
    assert s.limit == later


def _record(i: int, game: str = "oczko") -> RoundRecord:
    return RoundRecord(
        game=game,
        mode="practice" if game == "oczko" else "casino",
        session=f"s{i // 5}",
        number=i % 5 + 1,
        started=1000.0 + i,
        ended=1000.5 + i,
        player="Ann",
        result=("won", "lost", "push")[i % 3],
        score_before=str(i),
        score_after=str(i + 1),
        facts=Facts(held_total=12 + i % 10),
        detail={"events": [{"event": "round_started", "round": i}], "i": i},
    )


def test_default_limit_and_bad_limits(tmp_store):
    assert tmp_store.limit == store_mod.DEFAULT_LIMIT == 10_000
    for bad in (0, 9, 10**7, True, 12.5, "100"):
        with pytest.raises(ValueError):
            tmp_store.set_limit(bad)
    assert tmp_store.limit == 10_000


def test_amend_and_delete_all(tmp_store):
    i = tmp_store.add(_record(1))
    assert tmp_store.amend(i, facts=Facts(match_end="won"), detail={"audits": [1]})
    got = tmp_store.round(i)
    assert got.facts.match_end == "won" and got.detail == {"audits": [1]}
    assert not tmp_store.amend(i + 100, detail={})
    tmp_store.add(_record(2, "blackjack"))
    assert tmp_store.count() == 2 and tmp_store.count("blackjack") == 1
    assert [r.game for r in tmp_store.rounds("blackjack")] == ["blackjack"]
    assert tmp_store.delete_all() == 2
    assert tmp_store.count() == 0 and tmp_store.rounds() == []


@pytest.mark.parametrize(
    "damage",
    [
        b"this is not a database at all" * 100,
        b"SQLite format 3\x00" + b"\xff" * 4000,  # a header, garbage pages
        b"",
    ],
)
def test_corrupt_file_is_moved_aside_and_a_fresh_store_started(tmp_path, damage):
    path = tmp_path / "history.db"
    path.write_bytes(damage)
    with HistoryStore(path) as s:
        if damage == b"":  # an empty file is a valid empty database: nothing is moved
            assert s.moved_aside is None
        else:
            assert s.moved_aside is not None and s.moved_aside.exists()
            assert s.moved_aside.read_bytes() == damage  # kept for whoever wants it
            assert s.moved_aside.name.startswith("history.db.corrupt-")
        assert s.count() == 0
        assert s.round(s.add(_record(3))) is not None


def test_damaged_pages_of_a_real_database_are_detected(tmp_path):
    path = tmp_path / "history.db"
    with HistoryStore(path) as s:
        for i in range(300):
            s.add(_record(i))
    raw = bytearray(path.read_bytes())
    page = 4096
    for p in range(1, len(raw) // page):  # every page but the header: garbage
        raw[p * page + 8 : p * page + 200] = b"\xa5" * 192
    path.write_bytes(bytes(raw))
    with HistoryStore(path) as s:
        assert s.moved_aside is not None
        assert s.count() == 0


def test_the_maintainers_commands_do_not_move_a_damaged_file(tmp_path):
    path = tmp_path / "history.db"
    path.write_bytes(b"garbage" * 500)
    with pytest.raises(HistoryError) as err:
        HistoryStore(path, repair=False)
    assert err.value.code == "history_corrupt"
    assert path.read_bytes() == b"garbage" * 500


def test_a_database_from_a_newer_app_is_moved_aside(tmp_path):
    path = tmp_path / "history.db"
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA user_version = 99")
    with HistoryStore(path) as s:
        assert s.moved_aside is not None
        assert s.count() == 0


def test_migrations_run_in_order_each_in_a_transaction(tmp_path):
    path = tmp_path / "history.db"
    with HistoryStore(path) as s:
        s.add(_record(1))
    done = []

    def v2(con):
        con.execute("ALTER TABLE rounds ADD COLUMN note TEXT")
        done.append(2)

    def v3(con):
        done.append(3)
        raise RuntimeError("a failing step")

    con = sqlite3.connect(path, isolation_level=None)
    assert store_mod.migrate(con, (*store_mod.MIGRATIONS, v2)) == 1
    with pytest.raises(RuntimeError):
        store_mod.migrate(con, (*store_mod.MIGRATIONS, v2, v3))
    assert done == [2, 3]
    assert con.execute("PRAGMA user_version").fetchone()[0] == 2  # v3 rolled back
    con.close()
    with HistoryStore(path) as s:  # today's app reads a v2 file as "newer": moved aside
        assert s.moved_aside is not None


def test_a_locked_file_is_not_treated_as_corrupt(tmp_path):
    path = tmp_path / "history.db"
    with HistoryStore(path) as s:
        s.add(_record(1))
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("PRAGMA locking_mode=EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")
    try:
        s = HistoryStore(path, timeout=0.1)
        with pytest.raises((HistoryError, sqlite3.OperationalError)):
            s.add(_record(2))
    except HistoryError as exc:
        assert exc.code == "history_unavailable"
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert not list(tmp_path.glob("history.db.corrupt-*"))
    with HistoryStore(path) as s:
        assert s.count() == 1


@pytest.mark.parametrize(
    "name", ["model", "stats", "oczko_record", "share", "store", "blackjack_record"]
)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(f"app.history.{name}"))
    assert result.failed == 0
