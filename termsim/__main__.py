"""``python -m termsim``: the same as the ``termsim`` command."""

import sys

from .cli import main

sys.exit(main())
