"""``python -m srcgrad show FILE.py:FUNC [--wrt a,b] [--mode reverse|split|forward]
[--saved] [--html PAGE.html]``: the command line (srcgrad/cli)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
