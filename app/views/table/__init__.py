"""What both games' table screens share: the typed bridge to the table's worker, the
fairness lines, the turn watcher and the lobby's player lines."""
