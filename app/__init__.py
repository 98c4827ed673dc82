"""blu21: blackjack-family card games for Android phones.

Two games share this package: dealerless *Oczko* over Bluetooth, whose deck is
shuffled across the phones with the SRA mental-poker protocol (``app.protocol``),
and casino blackjack against an automatic dealer (``app.rules.blackjack``).
The hot loops live in the compiled modules ``app.native.sra`` and
``app.native.handeval``.
"""

__version__ = "0.1.0"
