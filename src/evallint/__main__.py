"""`python -m evallint`."""

from evallint.cli import main

raise SystemExit(main())
