"""``python -m fuzz``: see fuzz/README.md."""

import sys

from .run import main

sys.exit(main())
