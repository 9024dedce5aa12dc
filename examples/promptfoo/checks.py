"""Assertions promptfoo calls by name (`file://checks.py:no_gift_card_refund`)."""


def no_gift_card_refund(output: str, context: dict) -> bool:
    """Gift cards are not refundable: the answer must not promise a refund."""
    text = output.lower()
    return "gift card" in text and "not" in text
