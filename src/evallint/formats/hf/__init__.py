"""Hugging Face Hub eval files: benchmark `eval.yaml`, `.eval_results/`, inspect_evals
metadata."""
