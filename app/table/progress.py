"""The progress line of a networked table, once for both games: what the table waits
for while the cards are prepared across the phones (the dealers' set-up, a shuffle,
the opening of a card), whose part this phone still lacks, and how far along the
shuffle's chain of phones that part is.

A phone's copy gives a note ``(stage, seats)`` (Oczko's ``PhoneMatch.shuffle_note``,
the casino's ``CasinoPhone.shuffle_note``) and, where the chain is known, the step
``(k, n)``: the first phone waited for is the k-th of the n that shuffle and lock the
deck or shoe. :func:`progress_text` is the line every screen and the terminal show.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.i18n import _

#: (stage, seats): ``setup``, ``shuffle`` (Oczko's deck), ``ahead`` (Oczko: a deck
#: shuffled during the last round), ``shoe`` (the casino's shoe) or ``card`` (a card's
#: keys), and the seats whose part this phone lacks
Note = tuple[str, tuple[int, ...]]


def progress_text(
    note: Note | None, names: Sequence[str], step: tuple[int, int] | None = None
) -> str:
    """The line over the shuffle's progress bar: what runs, then the players whose phones
    the table waits for (a slow phone, a phone paused in the background) and, with
    ``step``, how far along the chain of phones the first of them is.

    >>> progress_text(("shuffle", (2,)), ["Ala", "Bogdan", "Celina"])
    'Shuffling the deck across the phones…\\nWaiting for Celina'
    >>> progress_text(("shuffle", (2,)), ["Ala", "Bogdan", "Celina"], (3, 3))
    'Shuffling the deck across the phones…\\nWaiting for Celina · step 3 of 3'
    """
    stage, lacking = note if note is not None else ("shuffle", ())
    if stage == "setup":
        text = _("Setting up the table's keys across the phones…")
    elif stage == "ahead":
        text = _("Dealing from the deck shuffled during the last round…")
    elif stage == "shoe":
        text = _("Shuffling the shoe across the phones…")
    elif stage == "card":
        text = _("Opening the card across the phones…")
    else:
        text = _("Shuffling the deck across the phones…")
    who = [names[s] for s in lacking if 0 <= s < len(names)]
    if who:
        text += "\n" + _("Waiting for {names}").format(names=", ".join(who))
        if step is not None and 0 < step[0] <= step[1]:
            text += " · " + _("step {step} of {steps}").format(step=step[0], steps=step[1])
    return text


def chain_step(order: Sequence[int], lacking: Sequence[int]) -> tuple[int, int] | None:
    """Where the first of the ``lacking`` seats is in a deck's or shoe's chain of
    phones (``order``: who shuffles and locks, in turn): step k of n, 1-based; None
    when none of them is in the chain.

    >>> chain_step((0, 1, 2), (2,)), chain_step((0, 2), (1,))
    ((3, 3), None)
    """
    steps = [order.index(s) for s in lacking if s in order]
    return (min(steps) + 1, len(order)) if steps else None


__all__ = ["Note", "chain_step", "progress_text"]
