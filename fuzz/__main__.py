"""``python -m fuzz``: see fuzz/README.md."""

import sys

from fuzz.run import main

sys.exit(main())
