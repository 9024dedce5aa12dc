"""A run's set-up and flow, below the command line, the Python API and the language server:
settings, what a run selects, and the one function that runs a check (`session.check`)."""
