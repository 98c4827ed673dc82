"""Blackjack numbers: exact house edge, best play, hints, simulation; Oczko bust odds.

The heavy lifting is in :mod:`app.native.handeval` (C, GIL released); the plain-Python
reference of the same algorithms is :mod:`app.strategy.reference`.
"""
