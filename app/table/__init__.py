"""app/table: see docs/architecture.md."""
