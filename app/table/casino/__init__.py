"""The casino's part of the networked table: its book and pure sequencer, the host, the
guest, the phone's copy of the table, its messages, the SRA shoe and the open test shoe,
the bot; the shared table core is one folder up (docs/architecture.md)."""
