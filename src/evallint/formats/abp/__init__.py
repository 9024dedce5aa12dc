"""ai_best_practices skill evals: `evals/<skill>/evals.json` and its static checks."""
