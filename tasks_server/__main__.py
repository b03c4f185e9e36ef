"""`python -m tasks_server` is the `tasks-server` command."""

import sys

from tasks_server.cli import main

sys.exit(main())
