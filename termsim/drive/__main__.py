"""``python -m termsim.drive ARGS``: the same as ``termsim drive ARGS``."""

import sys

from .cli import main

sys.exit(main())
