"""Drupal ai_eval: datasets of questions, rubrics (versioned compositions of checks) and LLM
judge templates, under `datasets/`, `rubrics/` and `judges/`."""
