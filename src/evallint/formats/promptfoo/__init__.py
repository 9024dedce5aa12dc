"""promptfoo: configs (`promptfooconfig.yaml`), and the test, prompt and CSV files they name."""
