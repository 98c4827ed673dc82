"""Protocol errors: every violation names the seat to blame and carries a stable code.

A :class:`ProtocolViolation` raised from :meth:`app.protocol.seat.Seat.handle` means the
offending message was *not* applied (the seat's state is unchanged); the caller (the
table) decides what to do with the named seat, e.g. exclude it and continue with a
fresh shuffle among the others. Codes are stable strings for the UI to translate.
"""

from __future__ import annotations

# Stable codes (never shown raw to a user; the UI maps them to translated text).
BAD_FRAME = "bad_frame"  # undecodable bytes, wrong lengths, wrong group id
BAD_SIGNATURE = "bad_signature"  # signature does not verify
REPLAY = "replay"  # a message of an earlier round, or a sequence number seen before
SEQ_GAP = "seq_gap"  # a sender's sequence number skipped (a dropped message)
OUT_OF_ORDER = "out_of_order"  # a message the protocol does not expect now
WRONG_SENDER = "wrong_sender"  # a message from a seat that has no business sending it
NOT_ELEMENT = "not_element"  # a value outside 1 < c < p-1 or with Jacobi symbol != 1
NOT_EXPONENT = "not_exponent"  # a key outside [1, q-1]
DUPLICATE_VALUE = "duplicate_value"  # two equal values within one deck
BAD_LENGTH = "bad_length"  # wrong number of values or positions
COMMIT_MISMATCH = "commit_mismatch"  # a revealed seed does not match its commitment
BAD_SHUFFLE = "bad_shuffle"  # a shuffle pass that is not a re-encryption of its input
BAD_LOCK = "bad_lock"  # a locking step that does not match the revealed keys
BAD_KEY = "bad_key"  # a revealed card key that does not match the transcript
FALSE_CLAIM = "false_claim"  # a claimed card or total that the keys do not open to
FALSE_COMPLAINT = "false_complaint"  # a complaint about a position that opens fine
BAD_AUDIT = "bad_audit"  # an audit message inconsistent with the sender's own messages
TRANSCRIPT_MISMATCH = "transcript_mismatch"  # seats saw different messages from one sender
EQUIVOCATION = "equivocation"  # two different signed messages with one sequence number


class ProtocolViolation(Exception):
    """A message or a revealed value that breaks the protocol.

    ``seat`` is the seat to blame (for a guest, a tampered relay names the host seat),
    ``code`` one of the stable codes above, ``detail`` a short technical note for logs.
    """

    def __init__(self, seat: int, code: str, detail: str = "") -> None:
        super().__init__(f"seat {seat}: {code}" + (f" ({detail})" if detail else ""))
        self.seat = seat
        self.code = code
        self.detail = detail


class ProtocolUsageError(RuntimeError):
    """The local caller used the API wrongly (a bug in the table, not a peer's fault)."""
