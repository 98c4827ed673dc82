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
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

#: Type alias: an exact amount of chips.
Money = Fraction

ZERO = Fraction(0)

_NUMBER = re.compile(r"^\s*-?(\d+(\.\d+)?|\d+\s*/\s*\d+)\s*$")


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
