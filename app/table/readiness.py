"""What still stands between the player and hosting or joining a table over Bluetooth.

A pure function of what the phone reports (:class:`Situation`) gives the next
:class:`Step` the app walks the player through (app/views/setup/permissions.py renders it):
the runtime permissions, Bluetooth's switch, and then for a host the "visible to nearby
phones" dialog, for a guest the search (with its own permission, and on Android 10/11
the Location switch). Order: permissions first (Android 12+ needs BLUETOOTH_CONNECT even
to ask for Bluetooth to be switched on), then the switch, then the rest.

A guest who refuses the search permission (or has Location off) can still join a phone
he has paired with before: that is offered instead of a dead end. A host who refuses to
be visible can still host for phones paired with his.

:func:`read_situation` reads a :class:`Situation` off the transport. This module sits in
the table layer (not in app/bluetooth) so that the set-up screens can ask it without
importing a transport (tests/test_layering.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

#: what each purpose needs before it can start, and what it may do without
REQUIRED = {"host": ("connect", "advertise"), "join": ("connect",)}
OPTIONAL = {"host": (), "join": ("scan",)}
#: what each permission step asks for in one dialog: a guest is asked for the search
#: permission together with connect (Android 12+ shows both as "Nearby devices")
USES_ASKED = {
    ("host", "permissions"): ("connect", "advertise"),
    ("join", "permissions"): ("connect", "scan"),
    ("join", "search_permission"): ("scan",),
}

#: step codes, in the order the player meets them
STEPS = (
    "no_adapter",  # no Bluetooth at all: a dead end, explained
    "permissions",  # ask for the required runtime permissions
    "bluetooth_off",  # ask to switch Bluetooth on
    "search_permission",  # guest: ask for the search permission (or paired phones only)
    "location_off",  # guest on Android 10/11: Location switch off (or paired phones only)
    "visibility",  # host: ask to be visible to nearby phones (or paired phones only)
    "ready",
)


@dataclass(frozen=True)
class Situation:
    """What the phone reports now, and what the player said so far.

    ``missing``: the runtime permissions each use still lacks (``{"connect": (...)}``);
    ``refused``: uses whose permission request the player has refused in this flow;
    ``asked_visible``: the host has answered the visibility dialog (either way);
    ``paired_only``: the guest chose to look among paired phones only.
    """

    purpose: str
    adapter: str = "on"
    missing: tuple[tuple[str, tuple[str, ...]], ...] = ()
    refused: frozenset[str] = frozenset()
    location_blocks_discovery: bool = False
    asked_visible: bool = False
    paired_only: bool = False

    def __post_init__(self) -> None:
        if self.purpose not in REQUIRED:
            raise ValueError(f"unknown purpose {self.purpose!r}; expected host or join")
        if self.adapter not in ("on", "off", "no_adapter"):
            raise ValueError(f"unknown adapter state {self.adapter!r}")

    def lacks(self, *uses: str) -> bool:
        """Is any runtime permission of ``uses`` missing?"""
        table = dict(self.missing)
        return any(table.get(use) for use in uses)


@dataclass(frozen=True)
class Step:
    """The next step: ``code`` (one of :data:`STEPS`); ``retry``: the player refused
    this before (offer the app's settings too); ``can_skip``: the player may go on
    without it (paired phones only)."""

    code: str
    retry: bool = False
    can_skip: bool = False


def next_step(s: Situation) -> Step:
    """The next thing to ask for, or ``ready``.

    >>> next_step(Situation("host", missing=(("connect", ("C",)),))).code
    'permissions'
    >>> next_step(Situation("join", adapter="off")).code
    'bluetooth_off'
    >>> next_step(Situation("join", missing=(("scan", ("S",)),), paired_only=True)).code
    'ready'
    """
    if s.adapter == "no_adapter":
        return Step("no_adapter")
    required = REQUIRED[s.purpose]
    if s.lacks(*required):
        return Step("permissions", retry=bool(s.refused & set(required)))
    if s.adapter == "off":
        return Step("bluetooth_off")
    if s.purpose == "host":
        return Step("ready") if s.asked_visible else Step("visibility", can_skip=True)
    if s.paired_only:
        return Step("ready")
    if s.lacks(*OPTIONAL["join"]):
        return Step("search_permission", retry="scan" in s.refused, can_skip=True)
    if s.location_blocks_discovery:
        return Step("location_off", can_skip=True)
    return Step("ready")


def can_search(s: Situation) -> bool:
    """May a guest run discovery (else he picks among paired phones only)?"""
    return (
        s.purpose == "join"
        and not s.paired_only
        and not s.lacks(*OPTIONAL["join"])
        and not s.location_blocks_discovery
    )


def read_situation(
    transport: Any,
    purpose: str,
    *,
    refused: frozenset[str] = frozenset(),
    asked_visible: bool = False,
    paired_only: bool = False,
) -> Situation:
    """What ``transport`` (the Android transport: ``permissions``, ``state()``,
    ``location_blocks_discovery()``) reports now, with the player's answers so far.

    Never raises: a permission that cannot be checked counts as missing (asking again
    is harmless).
    """
    missing = []
    for use in (*REQUIRED[purpose], *OPTIONAL[purpose]):
        try:
            missing.append((use, tuple(transport.permissions.missing(use))))
        except Exception:  # unsure: treat as missing
            log.debug("cannot check %s", use, exc_info=True)
            missing.append((use, ("?",)))
    return Situation(
        purpose,
        adapter=transport.state(),
        missing=tuple(missing),
        refused=refused,
        location_blocks_discovery=purpose == "join" and transport.location_blocks_discovery(),
        asked_visible=asked_visible,
        paired_only=paired_only,
    )
