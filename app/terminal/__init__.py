"""The terminal tables: ``blu21 table``, ``blu21 casino`` and ``blu21 demo``, one driving
loop and one set of seat arguments (``common``), each game's part, the bot processes."""
