"""``python -m bench.loadtest``: the script's entry point (also how the fresh server is started)."""

import sys

from bench.loadtest.cli import main

sys.exit(main())
