"""One module per family of eval formats: detection, identity and references."""
