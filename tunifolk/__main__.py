"""``python -m tunifolk``: the same program as the ``tunifolk`` command."""

import sys

from tunifolk.cli import main

sys.exit(main())
