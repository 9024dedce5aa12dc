"""What evallint says about itself (its version, its home): plain data every stage may read."""

__version__ = "0.2.0"
__url__ = "https://github.com/evallint/evallint"
