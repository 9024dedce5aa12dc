"""`python -m evallint`."""

from evallint.cli.main import entry

entry()
