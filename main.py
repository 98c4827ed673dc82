"""Android entry point (python-for-android runs main.py): the same app as ``blu21``."""

import sys

from app.views.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
