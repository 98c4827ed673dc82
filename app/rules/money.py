"""Exact money for the casino game: chips are :class:`fractions.Fraction`, never floats.

A 6:5 blackjack on 7 chips wins exactly 42/5 chips:

>>> from fractions import Fraction
>>> to_money(7) * Fraction(6, 5)
Fraction(42, 5)
>>> money_json(Fraction(42, 5))
'8.4'
>>> money_json(Fraction(15))
15
>>> money_json(Fraction(1, 3))
'1/3'
>>> to_money("8.4"), to_money("42/5"), to_money(10)
(Fraction(42, 5), Fraction(42, 5), Fraction(10, 1))

JSON representation (scenario output, saved files): a whole amount is a JSON integer;
any other amount is a string, the exact decimal (``"8.4"``, ``"-2.5"``) when it has
one, else the reduced fraction (``"1/3"``). Input accepts all three forms; a JSON
number with a fraction part (``8.4``) is read as the decimal it shows.

**Amounts that cross a table** (:func:`table_money`): every phone reads a peer's amount
with the same bound, so that no amount is too large to handle or print (a fraction
with a 2,200-digit denominator turned every phone's round digest into an error): text of
at most :data:`MAX_MONEY_TEXT` characters, a denominator of at most
:data:`MAX_DENOMINATOR`, a value of at most :data:`MAX_CHIPS`. Bets are whole chips
and insurance half chips (:data:`STAKE_UNITS`), so a ledger's denominators stay those
of the table's payouts (a half, the blackjack ratio's).

>>> table_money("10"), table_money("21/2")
(Fraction(10, 1), Fraction(21, 2))
>>> table_money("1/1001")
Traceback (most recent call last):
app.rules.money.MoneyError: amount '1/1001' has a denominator above 1000
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

#: Type alias: an exact amount of chips.
Money = Fraction

ZERO = Fraction(0)

_NUMBER = re.compile(r"^\s*-?(\d+(\.\d+)?|\d+\s*/\s*\d+)\s*$")

#: Most chips a player (or the house, either way) can have at a table: far above any
#: session's possible winnings.
MAX_CHIPS = 10**12
#: The largest denominator of an amount at a table: a ledger's denominators come from
#: the payouts (a half, the blackjack ratio's, at most 100), bets are whole chips.
MAX_DENOMINATOR = 1000
#: The longest text of an amount at a table (``"-1000000000000"``, ``"999999999999/1000"``).
MAX_MONEY_TEXT = 32
#: The networked table's grid of stakes: an intent of these kinds is a multiple of
#: ``1 / units`` chips (bets and side bets whole chips, insurance half chips: half of a
#: whole stake); a kind not listed takes no amount.
STAKE_UNITS: dict[str, int] = {"bet": 1, "side_bet": 1, "insure": 2}


class MoneyError(ValueError):
    """A value is not a valid exact amount."""


def to_money(value: Any, what: str = "amount") -> Money:
    """Read an exact amount from an int, Fraction, Decimal, text (``"8.4"``, ``"42/5"``)
    or a JSON number; floats are read as the decimal they print as. Bools are refused."""
    if isinstance(value, bool) or value is None:
        raise MoneyError(f"{what} must be a number, not {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise MoneyError(f"{what} must be finite, not {value!r}")
        return Fraction(repr(value))
    if isinstance(value, str):
        if not _NUMBER.match(value):
            raise MoneyError(f"{what} {value!r} is not a number like '10', '8.4' or '42/5'")
        try:
            return Fraction(value.replace(" ", ""))
        except ZeroDivisionError:
            raise MoneyError(f"{what} {value!r} divides by zero") from None
    try:  # decimal.Decimal and other exact numbers
        return Fraction(value)
    except (TypeError, ValueError):
        raise MoneyError(f"{what} must be a number, not {value!r}") from None


def table_money(value: Any, what: str = "amount", *, signed: bool = False) -> Money:
    """An amount a peer sent (an int or text), with the bound every phone checks
    (:data:`MAX_MONEY_TEXT`, :data:`MAX_DENOMINATOR`, :data:`MAX_CHIPS`; below zero
    only when ``signed``); :class:`MoneyError` otherwise. The text is measured before
    it is parsed, so no amount costs more than a few digits' work."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise MoneyError(f"{what} must be an integer or text such as '8.4'")
    if isinstance(value, str) and len(value) > MAX_MONEY_TEXT:
        raise MoneyError(f"{what} is over {MAX_MONEY_TEXT} characters")
    if isinstance(value, int) and not -MAX_CHIPS <= value <= MAX_CHIPS:
        raise MoneyError(f"{what} is beyond {MAX_CHIPS} chips")
    amount = to_money(value, what)
    if amount.denominator > MAX_DENOMINATOR:
        raise MoneyError(f"{what} {value!r} has a denominator above {MAX_DENOMINATOR}")
    if not (-MAX_CHIPS if signed else 0) <= amount <= MAX_CHIPS:
        low = -MAX_CHIPS if signed else 0
        raise MoneyError(f"{what} must be {low}..{MAX_CHIPS}, not {value!r}")
    return amount


def stake_ok(act: str, amount: Fraction) -> bool:
    """Whether ``amount`` fits an intent ``act`` at a networked table: zero for a kind
    that takes no amount, else a multiple of its :data:`STAKE_UNITS` grid."""
    units = STAKE_UNITS.get(act)
    if units is None:
        return amount == 0
    return (amount * units).denominator == 1


def _terminates(q: Fraction) -> bool:
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def money_text(amount: Fraction, mark: str = ".") -> str:
    """Exact text: ``'15'``, ``'8.4'``, ``'-2.5'``, or ``'1/3'`` when no finite decimal
    exists; ``mark`` is the decimal mark (the player's language's, for display:
    :func:`app.i18n.decimal_mark`).

    >>> money_text(Fraction(75, 2)), money_text(Fraction(-75, 2), ",")
    ('37.5', '-37,5')
    """
    if amount.denominator == 1:
        return str(amount.numerator)
    if not _terminates(amount):
        return f"{amount.numerator}/{amount.denominator}"
    sign = "-" if amount < 0 else ""
    a = abs(amount)
    whole, rest = divmod(a.numerator, a.denominator)
    digits = []
    while rest:
        rest *= 10
        d, rest = divmod(rest, a.denominator)
        digits.append(str(d))
    return f"{sign}{whole}{mark}{''.join(digits)}"


def money_json(amount: Fraction) -> int | str:
    """JSON form: an int for whole amounts, else the exact text (see module doc)."""
    if amount.denominator == 1:
        return amount.numerator
    return money_text(amount)


def ratio_text(ratio: Fraction) -> str:
    """A payout ratio as odds text: ``Fraction(3, 2)`` -> ``'3:2'``."""
    return f"{ratio.numerator}:{ratio.denominator}"
