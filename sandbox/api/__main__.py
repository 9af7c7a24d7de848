"""``python -m flowui_sandbox``: the same as the ``flowui-sandbox`` command."""

import sys

from flowui_sandbox.sandbox.cli import main

sys.exit(main())
