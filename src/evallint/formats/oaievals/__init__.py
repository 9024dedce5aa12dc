"""The OpenAI evals registry: `registry/evals/*.yaml`, eval sets, model-graded specs, samples."""
