"""AgentV and the agentevals spec: `EVAL.yaml` suites in four dialects, and their case files."""
