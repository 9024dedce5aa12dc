"""lm-evaluation-harness task configs: tasks, groups, includes, `!function` references."""
