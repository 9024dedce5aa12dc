"""`python -m evallint`."""

from evallint.cli.main import main

raise SystemExit(main())
