"""SRA mental poker for the dealerless table: the deck is shuffled across the phones.

Modules (small, one concern each):

* :mod:`app.protocol.group` - the fixed RFC 7919 groups (any other prime is refused);
* :mod:`app.protocol.encoding` - the 52 cards as hash-derived squares;
* :mod:`app.protocol.keys` - per-round secrets, Schnorr identities, pairwise keys;
* :mod:`app.protocol.messages` - frozen message dataclasses and their binary frames;
* :mod:`app.protocol.seat` - the per-seat state machine (:class:`~app.protocol.seat.Seat`);
* :mod:`app.protocol.audit` - the end-of-round audit and the transcript check;
* :mod:`app.protocol.harness` - an in-process star table for tests, demos and benchmarks;
* :mod:`app.protocol.errors` - :class:`~app.protocol.errors.ProtocolViolation` and codes.

The specification, threat model and residual risks are in docs/protocol.md.
"""
