"""What evallint says about itself (its version, its home): plain data every stage may read."""

__version__ = "0.8.10"
# The distribution's name: "evallint" on the package index is another project, so
# `--version` names this one by what pip installs.
DISTRIBUTION = "evallint-git"
__url__ = "https://github.com/evallint/evallint"
