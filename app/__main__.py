"""``python -m app`` is the ``blu21`` command."""

import sys

from app.cli import main

sys.exit(main())
