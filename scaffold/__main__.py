import sys

from scaffold.cli import main

sys.exit(main())
