__version__ = "0.1.0"
__url__ = "https://github.com/evallint/evallint"
