"""The networked table as the screens use it: host, join, find tables, Bluetooth set-up.

The app builds one :class:`TableService` (app/views/app.py) from a transport factory
(Bluetooth RFCOMM on Android, TCP on the desktop: :func:`platform_service`) and a dealer
choice (the SRA dealer: :func:`default_dealer`), and hands it to its screens. The screens
never import a transport or a command-line front end (tests/test_layering.py); a test
passes a service over fake or loopback transports instead.

No silent fall-back to the open dealer (no card secrecy): without the SRA dealer's
native module :func:`default_dealer` raises :class:`TableError` ``no_secure_dealer``
before anything listens or connects, so no table opens and the screen shows the
translated message of that code.
"""

from __future__ import annotations

import importlib
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from app.bluetooth.ids import new_player_id
from app.rules.table_rules import TableRules
from app.table.casino.guest import CasinoGuest
from app.table.casino.host import CasinoHost, ShoeFactory
from app.table.casino.side import CasinoBot
from app.table.clock import Clock, SystemClock
from app.table.dealer import OpenDealer
from app.table.errors import TableError
from app.table.lobby import Notice
from app.table.messages import Options
from app.table.oczko.guest import DealerFactory, GuestTable, HostTable
from app.table.readiness import Situation, can_search

#: a transport: ``listen()`` / ``connect(address, ...)`` (app.bluetooth.link.Transport);
#: on Android also the set-up calls (permissions, ``state()``, ``paired_devices()``, ...)
Transport = Any


class Sitter(TypedDict):
    """The keywords every table shell takes for the phone's own player."""

    player_id: str
    name: str
    lang: str
    clock: Clock


TransportFactory = Callable[[], Transport]
OnMain = Callable[[Callable[[], object]], object]
#: the dealer kinds: ``sra`` (mental poker, the default) and ``open`` (no card secrecy;
#: only when chosen, and then announced to every phone)
DEALERS = ("sra", "open")


# -- the dealer ------------------------------------------------------------------------


def dealer_factory(kind: str, seed: int | None = None) -> DealerFactory:
    """``sra``: the SRA mental-poker dealer (when app.protocol is available); ``open``:
    the test dealer (no secrecy; shuffled from ``secrets`` unless ``seed`` is given)."""
    if kind == "sra":
        from app.table.oczko.sra_deck import sra_dealer_factory  # needs app.protocol

        factory: DealerFactory = sra_dealer_factory()
        return factory
    if kind == "open":
        rng = random.SystemRandom() if seed is None else random.Random(seed)
        return lambda seat, players: OpenDealer(seat, rng=rng)
    raise ValueError(f"unknown dealer {kind!r}")


def default_dealer() -> str:
    """``sra``: the only dealer a table uses unless told otherwise. Without its native
    module there is no silent fall-back to the open dealer (no card secrecy): a
    :class:`TableError` ``no_secure_dealer``, so that no networked table opens."""
    try:
        import app.native.sra
        import app.table.oczko.sra_deck  # noqa: F401
    except ImportError as exc:
        raise TableError(
            "no_secure_dealer", f"the SRA dealer cannot load ({exc}); no table without it"
        ) from exc
    return "sra"


def table_options(options: Options, kind: str) -> Options:
    """The options a host announces for dealer ``kind`` (open dealing is shown everywhere)."""
    return replace(options, secret=kind != "open")


# -- transports ------------------------------------------------------------------------


def tcp_transport() -> Transport:
    """TCP, listening on loopback: the desktop's transport."""
    from app.bluetooth.tcp import TcpTransport

    return TcpTransport()


def lan_transport() -> Transport:
    """TCP listening on every network of this computer: a desktop host that lets the
    computers of its local network join (the default stays loopback only)."""
    from app.bluetooth.tcp import TcpTransport

    return TcpTransport(host="0.0.0.0")


def android_transport() -> Transport:
    """Bluetooth RFCOMM through Android's API (create it on the main thread: it looks
    Java classes up)."""
    from app.bluetooth.android import AndroidTransport

    return AndroidTransport()


def run_on_main(fn: Callable[[], object]) -> None:
    """Run ``fn`` on the app's main thread (at once if this is it, else next frame)."""
    from app.bluetooth.android import run_on_main as on_main

    def call() -> None:
        fn()

    on_main(call)


# -- finding a table -------------------------------------------------------------------


@dataclass(frozen=True)
class FoundTable:
    """A phone that may host a table: ``name`` ('' when it has none yet), ``address``
    (what :meth:`TableService.join` takes), ``paired`` with this phone."""

    name: str
    address: str
    paired: bool


class TableSearch:
    """The host list of a guest: paired phones first, then what discovery finds.

    ``on_change()`` is called (on the transport's thread: Android's broadcast thread)
    whenever the list grows or a device's name arrives.
    """

    def __init__(self, transport: Transport, on_change: Callable[[], None]) -> None:
        self._transport = transport
        self._on_change = on_change
        self._paired: list[Any] = []
        self._found: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.discovering = False
        #: why discovery could not start (a code), the paired phones still listed
        self.error: str | None = None

    def start(self, discover: bool) -> None:
        """List the paired phones (raises the transport's
        :class:`~app.bluetooth.errors.TransportError`, e.g. Bluetooth off); then search
        nearby when ``discover`` (a failure there is kept in :attr:`error`)."""
        self._paired = list(self._transport.paired_devices())
        if discover:
            try:
                self._transport.discover(self._on_found)
            except Exception as exc:  # no scan permission after all, adapter busy
                self.error = str(getattr(exc, "code", "bluetooth_unavailable"))
                return
            self.discovering = True

    def _on_found(self, device: Any) -> None:
        with self._lock:  # a device comes again when its name arrives later
            self._found[device.address] = device
        self._on_change()

    def tables(self) -> list[FoundTable]:
        """Paired phones first, then discovered ones; no headphones, cars or watches."""
        from app.bluetooth.android import merge_devices

        with self._lock:
            found = list(self._found.values())
        return [
            FoundTable(d.name or "", d.address, d.paired)
            for d in merge_devices(self._paired, found)
            if d.likely_host
        ]

    def stop(self) -> None:
        """Stop discovery (it slows every connection down)."""
        if self.discovering:
            self.discovering = False
            self._transport.stop_discovery()


# -- the service -----------------------------------------------------------------------


class TableService:
    """Opens tables for the screens.

    ``transports()`` makes the transport (called once, on the main thread, and shared:
    Android's binds the activity's results); ``bluetooth``: the transport needs the
    set-up flow (permissions, Bluetooth on, visibility) and a guest picks the host from a
    list of phones, else he types the host's address. ``dealer()`` names the dealer of a
    table this phone hosts or joins (:func:`default_dealer`: raises without the SRA
    dealer). ``player_id``, ``clock`` and ``on_main`` are injected for tests.
    """

    def __init__(
        self,
        transports: TransportFactory,
        *,
        bluetooth: bool = False,
        dealer: Callable[[], str] = default_dealer,
        player_id: Callable[[], str] = new_player_id,
        clock: Callable[[], Clock] = SystemClock,
        on_main: OnMain = run_on_main,
    ) -> None:
        self._transports = transports
        self.bluetooth = bluetooth
        self._dealer = dealer
        self._player_id = player_id
        self._clock = clock
        self.on_main = on_main
        self._transport: Transport | None = None

    def transport(self) -> Transport:
        """The app's transport, made on first use (call on the main thread)."""
        if self._transport is None:
            self._transport = self._transports()
        return self._transport

    def dealer(self) -> str:
        """The dealer a table opened now would use; :class:`TableError`
        ``no_secure_dealer`` when there is none (ask before showing a lobby)."""
        return self._dealer()

    def _listener(self, transport: Transport, listen: Callable[[Transport], Any] | None) -> Any:
        """Listen on ``transport`` (the service's by default) or through ``listen``."""
        transport = transport or self.transport()
        return listen(transport) if listen is not None else transport.listen()

    def _sitter(self, name: str, lang: str) -> Sitter:
        """Who sits down at a table this phone opens or joins (a new player id each
        time) and the clock the table runs on."""
        return Sitter(player_id=self._player_id(), name=name, lang=lang, clock=self._clock())

    # -- finding, hosting, joining -----------------------------------------------------
    def find_tables(
        self, situation: Situation, on_change: Callable[[], None], transport: Transport = None
    ) -> TableSearch:
        """Start a guest's host list: paired phones at once, discovery when
        ``situation`` allows it (:func:`~app.table.readiness.can_search`). Bluetooth
        only: over TCP the guest types the host's address (:class:`TableError`
        ``bluetooth_unavailable`` here)."""
        if not self.bluetooth:
            raise TableError("bluetooth_unavailable", "a TCP guest joins by address")
        search = TableSearch(transport or self.transport(), on_change)
        search.start(discover=can_search(situation))
        return search

    def host(
        self,
        *,
        name: str,
        lang: str,
        rounds: int,
        turn_time: int,
        on_notice: Callable[[Notice], None] | None = None,
        round_pause: float = 0.0,
        transport: Transport = None,
        dealer: str | None = None,
        listen: Callable[[Transport], Any] | None = None,
    ) -> HostTable:
        """Open a table on this phone (blocking: call from a worker thread).

        ``dealer`` overrides the service's dealer (``open`` for a chosen table without
        card secrecy, announced to every phone); ``listen(transport)`` replaces
        ``transport.listen()`` (tests). Raises ``no_secure_dealer`` before listening.
        """
        kind = dealer or self._dealer()
        factory = dealer_factory(kind)
        return HostTable(
            self._listener(transport, listen),
            **self._sitter(name, lang),
            dealer_factory=factory,
            options=table_options(Options(rounds=rounds, turn_time=turn_time), kind),
            on_notice=on_notice,
            round_pause=round_pause,
        )

    def join(
        self,
        address: str,
        *,
        name: str,
        lang: str,
        on_notice: Callable[[Notice], None] | None = None,
        transport: Transport = None,
        dealer: str | None = None,
        timeout: float = 15.0,
    ) -> GuestTable:
        """Sit down at the table at ``address`` (blocking: call from a worker thread).
        Raises ``no_secure_dealer`` before connecting."""
        factory = dealer_factory(dealer or self._dealer())
        return GuestTable.join(
            transport or self.transport(),
            address,
            timeout=timeout,
            **self._sitter(name, lang),
            dealer_factory=factory,
            on_notice=on_notice,
        )

    # -- the casino table ------------------------------------------------------------------

    def host_casino(
        self,
        *,
        name: str,
        lang: str,
        rules: TableRules,
        on_change: Callable[[], None] | None = None,
        bet_time: int = 30,
        turn_time: int = 30,
        round_pause: float = 0.0,
        transport: Transport = None,
        dealer: str | None = None,
        listen: Callable[[Transport], Any] | None = None,
        bot: CasinoBot | None = None,
    ) -> CasinoHost:
        """Open a casino table on this phone (blocking: call from a worker thread).

        ``rules``: the table's rules (every phone plays them without a private peek:
        :func:`app.rules.table_rules.networked_rules`); ``on_change()`` is called from
        the table's thread after every change; ``bet_time`` / ``turn_time`` in seconds;
        ``transport``, ``dealer``, ``listen`` as for :meth:`host`. Raises
        ``no_secure_dealer`` before listening."""
        kind = dealer or self.dealer()
        factory = shoe_factory(kind)
        return CasinoHost(
            self._listener(transport, listen),
            **self._sitter(name, lang),
            shoe_factory=factory,
            rules=rules,
            bet_time=bet_time,
            turn_time=turn_time,
            secret=kind != "open",
            bot=bot,
            on_change=on_change,
            round_pause=round_pause,
        )

    def join_casino(
        self,
        address: str,
        *,
        name: str,
        lang: str,
        on_change: Callable[[], None] | None = None,
        transport: Transport = None,
        dealer: str | None = None,
        timeout: float = 15.0,
        bot: CasinoBot | None = None,
    ) -> CasinoGuest:
        """Sit down at the casino table at ``address`` (blocking: call from a worker
        thread). Raises ``no_secure_dealer`` before connecting."""
        factory = shoe_factory(dealer or self.dealer())
        return CasinoGuest.join(
            transport or self.transport(),
            address,
            timeout=timeout,
            **self._sitter(name, lang),
            shoe_factory=factory,
            bot=bot,
            on_change=on_change,
        )


def shoe_factory(kind: str, seed: int | None = None) -> ShoeFactory:
    """Every phone's shoe at a casino table: ``sra`` (the SRA shoe, once
    ``app/table/casino/sra_shoe.py`` is there) or ``open`` (the test shoe: no secrecy)."""
    if kind == "sra":
        try:  # (helper "shoe" of issue 19 brings it; no silent fall-back without it)
            module = importlib.import_module("app.table.casino.sra_shoe")
        except ImportError as exc:
            raise TableError(
                "no_secure_dealer", f"the SRA shoe cannot load ({exc}); no table without it"
            ) from exc
        factory: ShoeFactory = module.sra_shoe_factory()
        return factory
    if kind == "open":
        from app.table.casino.open_shoe import OpenShoe

        rng = random.SystemRandom() if seed is None else random.Random(seed)
        return lambda seat, players: OpenShoe(seat, rng=rng)
    raise ValueError(f"unknown dealer {kind!r}")


def platform_service(android: bool, dealer: Callable[[], str] = default_dealer) -> TableService:
    """The app's service: Bluetooth RFCOMM on Android, TCP on loopback elsewhere."""
    if android:
        return TableService(android_transport, bluetooth=True, dealer=dealer)
    return TableService(tcp_transport, dealer=dealer)


def tcp_service(dealer: Callable[[], str] = default_dealer) -> TableService:
    """A desktop service over TCP (the terminal demos and tests)."""
    return platform_service(False, dealer)
