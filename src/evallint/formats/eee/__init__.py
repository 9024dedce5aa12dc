"""Every Eval Ever: aggregate result records and their instance-level JSONL."""
