"""``python -m app.loadtest``: the script's entry point (also how the fresh server is started)."""

import sys

from app.loadtest.cli import main

sys.exit(main())
