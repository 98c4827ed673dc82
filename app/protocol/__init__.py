"""SRA mental poker for the dealerless table: the deck is shuffled across the phones.

Modules (small, one concern each):

* :mod:`app.protocol.group` - the fixed RFC 7919 groups (any other prime is refused);
* :mod:`app.protocol.encoding` - the 52 cards as hash-derived squares;
* :mod:`app.protocol.keys` - per-round secrets, Schnorr identities, pairwise keys;
* :mod:`app.protocol.messages` - frozen message dataclasses and their binary frames;
* :mod:`app.protocol.transcript` - one seat's per-round transcript (``Round``, ``Verdict``);
* :mod:`app.protocol.core` - a seat's identity, set-up state, signing and cost;
* :mod:`app.protocol.setup` - the table set-up (keys, table seeds, fingerprint);
* :mod:`app.protocol.shuffle` - seed commitments, the shuffle passes, the locking pass;
* :mod:`app.protocol.deal` - dealt positions, card keys, opening cards, claims, complaints;
* :mod:`app.protocol.escrow` - a held hand escrowed for the showdown (dropouts);
* :mod:`app.protocol.reveal` - the round seeds revealed, the audit run, evidence;
* :mod:`app.protocol.audit` - the audit: a pure function of a transcript and the group;
* :mod:`app.protocol.seat` - the seat (:class:`~app.protocol.seat.Seat`): holds the
  rounds, authenticates and routes frames and background work to the modules above;
* :mod:`app.protocol.harness` - an in-process star table for tests, demos and benchmarks;
* :mod:`app.protocol.errors` - :class:`~app.protocol.errors.ProtocolViolation` and codes.

The specification, threat model and residual risks are in docs/protocol.md.
"""
