"""Write the docs the code owns: RULES.md, and the generated tables of README.md and docs/
(rules, kinds, markers). Run it after adding a rule or a kind; a test fails while one is stale.

    python3 tools/docs.py
"""

from __future__ import annotations

from pathlib import Path

from evallint.output.docs import fill, render_rules

REPO = Path(__file__).resolve().parent.parent
FILLED = ("README.md", "docs/checks.md")


def main() -> None:
    for name in FILLED:
        path = REPO / name
        text = path.read_text(encoding="utf-8")
        if fill(text) != text:
            path.write_text(fill(text), encoding="utf-8")
            print(f"wrote {name}")
    rules = render_rules(markdown=True)
    if (REPO / "RULES.md").read_text(encoding="utf-8") != rules:
        (REPO / "RULES.md").write_text(rules, encoding="utf-8")
        print("wrote RULES.md")


if __name__ == "__main__":
    main()
