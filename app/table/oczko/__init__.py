"""Oczko's part of the networked table: its book and pure sequencer, the host, the guest,
the phone's copy of the match (``phone``) and the SRA deck dealer; the shared table
core is one folder up (docs/architecture.md)."""
