"""Who sits at the table: joining, readiness, leaving and rejoining (no I/O, no clock).

The host keeps one immutable :class:`Seating` and replaces it on every change; each
change is a method returning the new value (or raising
:class:`~app.table.errors.TableError` and changing nothing). Seat 0 is the host.

* Before the match, a guest joins with his app-generated ``player_id``, a name and
  his language; a leaver's seat is freed and the seats behind it move up.
* Once the match runs, nobody new sits down (``game_running``): a new phone can
  never disturb a game. A player whose link dropped keeps his seat, marked
  disconnected; joining again with the same ``player_id`` gives it back to him
  (``rejoin``), to play again from the start of a later round, unless he was named
  for cheating in this match (``ban``: his id is refused, ``banned``).
* The match may start when 2-7 players sit and every guest is connected and ready.

The ``player_id`` is a rejoin credential: the host never tells it to other players.

>>> s = Seating.new("a" * 32, "Ala", "pl")
>>> s, seat, rejoin = s.join("b" * 32, "Bartek", "de")
>>> seat, rejoin, s.can_start()
(1, False, False)
>>> s = s.set_ready(1, True); s.can_start()
True
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.table.errors import TableError
from app.table.messages import (
    MAX_SEATS,
    VERSION,
    Join,
    Lobby,
    Options,
    PlayerInfo,
    check_fields,
    clean_name,
)

MIN_PLAYERS = 2


@dataclass(frozen=True)
class Sitter:
    """One seat: the player's secret id, shown name and language, and his state."""

    player_id: str
    name: str
    lang: str
    ready: bool = False
    connected: bool = True
    #: Dropped during the match and rejoined: plays again from the next round.
    returning: bool = False


@dataclass(frozen=True)
class Seating:
    """The seats of a table (index = seat number; 0 is the host) and its options."""

    sitters: tuple[Sitter, ...]
    options: Options = field(default_factory=Options)
    started: bool = False
    max_players: int = MAX_SEATS
    #: player ids named for cheating in this match: refused for the rest of it
    banned: frozenset[str] = frozenset()

    @classmethod
    def new(
        cls,
        host_id: str,
        host_name: str,
        host_lang: str,
        options: Options | None = None,
        max_players: int = MAX_SEATS,
    ) -> Seating:
        """A table with only its host (always ready)."""
        if not MIN_PLAYERS <= max_players <= MAX_SEATS:
            raise TableError("bad_options", f"a table seats {MIN_PLAYERS}-{MAX_SEATS} players")
        options = _checked(options or Options())
        join = Join(player_id=host_id, name=host_name, lang=host_lang)
        host = Sitter(join.player_id, clean_name(join.name), join.lang, ready=True)
        return cls((host,), options, False, max_players)

    def seat_of(self, player_id: str) -> int | None:
        """The seat of ``player_id``, None if he does not sit here."""
        for seat, sitter in enumerate(self.sitters):
            if sitter.player_id == player_id:
                return seat
        return None

    def _unique_name(self, name: str, seat: int | None) -> str:
        taken = {s.name.casefold() for i, s in enumerate(self.sitters) if i != seat}
        if name.casefold() not in taken:
            return name
        n = 2
        while f"{name} {n}".casefold() in taken:
            n += 1
        return f"{name} {n}"

    def join(
        self, player_id: str, name: str, lang: str, version: int = VERSION
    ) -> tuple[Seating, int, bool]:
        """Seat a guest: ``(seating, seat, rejoin)``; ``table_full``, ``game_running``,
        ``bad_version``, ``bad_name`` ... otherwise."""
        if version != VERSION:
            raise TableError("bad_version", f"table protocol {VERSION}, guest has {version}")
        name = clean_name(name)
        seat = self.seat_of(player_id)
        if seat == 0:
            raise TableError("bad_join", "that is the host's own id")
        if player_id in self.banned:
            raise TableError("banned", "named for cheating: out for the rest of the match")
        if seat is not None:
            old = self.sitters[seat]
            back = replace(
                old,
                name=self._unique_name(name, seat),
                lang=lang,
                connected=True,
                returning=self.started,
            )
            return self._put(seat, back), seat, True
        if self.started:
            raise TableError("game_running", "the match has started; no new players")
        if len(self.sitters) >= self.max_players:
            raise TableError("table_full", f"the table seats {self.max_players}")
        sitter = Sitter(player_id, self._unique_name(name, None), lang)
        return replace(self, sitters=(*self.sitters, sitter)), len(self.sitters), False

    def _put(self, seat: int, sitter: Sitter) -> Seating:
        sitters = list(self.sitters)
        sitters[seat] = sitter
        return replace(self, sitters=tuple(sitters))

    def _check(self, seat: int) -> Sitter:
        if not 0 <= seat < len(self.sitters):
            raise TableError("unknown_seat", f"no seat {seat}", seat=seat)
        return self.sitters[seat]

    def set_ready(self, seat: int, ready: bool) -> Seating:
        """A guest says he is (not) ready."""
        sitter = self._check(seat)
        return self._put(seat, replace(sitter, ready=ready or seat == 0))

    def leave(self, seat: int) -> Seating:
        """A guest's link is gone. Before the match his seat is freed (the seats behind
        move up); during it he stays, disconnected."""
        if seat == 0:
            raise TableError("bad_join", "the host does not leave its own table")
        sitter = self._check(seat)
        if not self.started:
            return replace(self, sitters=self.sitters[:seat] + self.sitters[seat + 1 :])
        return self._put(seat, replace(sitter, connected=False, ready=False, returning=False))

    def ban(self, seat: int) -> Seating:
        """The player of ``seat`` was named for cheating: his id is refused from now on
        (his seat stays, disconnected, with his points: he left the match)."""
        return replace(self, banned=self.banned | {self._check(seat).player_id})

    def back_in_play(self, seat: int) -> Seating:
        """A returning player takes part again (at the start of a round)."""
        return self._put(seat, replace(self._check(seat), returning=False, ready=True))

    def set_options(self, options: Options) -> Seating:
        """The host changes the options (before the match only)."""
        if self.started:
            raise TableError("game_running", "options are fixed once the match runs")
        return replace(self, options=_checked(options))

    def can_start(self) -> bool:
        """2+ players, every one connected and ready, the match not yet started."""
        return (
            not self.started
            and len(self.sitters) >= MIN_PLAYERS
            and all(s.connected and s.ready for s in self.sitters)
        )

    def start(self) -> Seating:
        """Start the match: from now on nobody new sits down."""
        if not self.can_start():
            raise TableError("not_ready", "every player must be connected and ready")
        return replace(self, started=True)

    def lobby(self) -> Lobby:
        """What every phone is told (no player ids)."""
        return Lobby(
            players=tuple(
                PlayerInfo(seat=i, name=s.name, lang=s.lang, ready=s.ready, connected=s.connected)
                for i, s in enumerate(self.sitters)
            ),
            options=self.options,
        )


def _checked(options: Options) -> Options:
    """``options`` if every guest would accept them in the lobby (the guests' own
    checks); else TableError ``bad_options``: the host refuses them at once, rather
    than open a table its guests leave (issue 37)."""
    try:
        check_fields(Options, **{k: v for k, v in options.to_json().items() if k != "t"})
    except ValueError as exc:
        raise TableError("bad_options", str(exc)) from exc
    return options
