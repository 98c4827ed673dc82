"""The Oczko screens: menu, table, practice, the networked table's bridge part, view-models."""
