"""The casino table's screens: lobby, table, view-model, the networked and local tables."""
