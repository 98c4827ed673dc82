"""Hand history: every finished round kept in one local SQLite store, for both games.

``model`` (the record), ``stats`` (pure statistics over records), ``oczko_record`` and
``blackjack_record`` (records built from the engines' events), ``store`` (SQLite, the
only I/O), ``live`` (the app's hooks where rounds end), ``export`` (JSON/CSV),
``cli`` (``blu21 history`` / ``blu21 stats``). See docs/history.md.
"""
