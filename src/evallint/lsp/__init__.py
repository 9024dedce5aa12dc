"""`evallint lsp`: the findings in the editor, live, from the same engine (the `lsp` extra)."""
