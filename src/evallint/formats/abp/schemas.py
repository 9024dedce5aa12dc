"""The ai_best_practices schemas (evals.json, static-checks.json). `tools/schemas.py` writes
them to schema/."""

from __future__ import annotations

from evallint.validation.writing import MARKDOWN_RULES, S, integer, root, string, strings


def abp_evals() -> S:
    case: S = {
        "type": "object",
        "description": "One case. Unknown keys are allowed; misspelt known ones are reported.",
        # Both runners read case["id"] and case["prompt"] without a default (a KeyError).
        "required": ["id", "prompt"],
        "properties": {
            "id": {"type": ["string", "integer"], "description": "Case id, unique in the file."},
            "prompt": string("What the skill under test is asked."),
            "expected_output": string("What a good answer does (for people and LLM graders)."),
            "expectations": strings("Statements a grader checks (not run by the text grader)."),
            "files": strings("Input files given with the prompt."),
            "must_contain_any": strings("Passes if any appears (case-insensitive)."),
            "must_not_contain": strings("Fails if any appears (case-insensitive)."),
            "check_php_lint": {"type": "boolean", "description": "Lint fenced PHP blocks."},
            "check_markdown_structure": {
                "type": "object",
                "description": "Markdown rules; the grader ignores unknown rule keys.",
                "additionalProperties": False,
                "properties": MARKDOWN_RULES,
            },
            "mode": {
                "description": "How the case is run.",
                "enum": ["recipe", "execution", "introspection"],
            },
            "difficulty": string("How hard the case is."),
            "persona": string("Who is asking."),
            "source": {
                "type": ["string", "object"],
                "description": "Where the case comes from (text or a provenance record).",
            },
            "setup": string("Script run before the case (path from the repository root)."),
            "reset": string("Script that resets state (path from the repository root)."),
            "verify": string(
                "Script that grades an execution case (path from the repository root)."
            ),
            "cleanup": string("Script run after the case (path from the repository root)."),
        },
    }
    return root(
        "abp-evals",
        "ai_best_practices evals.json",
        "Skill eval cases with inline grading keys (Drupal ai_best_practices).",
        {
            "type": "object",
            "properties": {
                "$schema": string("The schema this file follows."),
                "skill_name": string("Name of the skill under test."),
                "skill_file": string("The skill's SKILL.md, from the repository root."),
                "description": string("What the cases cover."),
                "module": string("Drupal module the cases are about."),
                "version": string("Module version line, such as 1.15.x."),
                "note": string("Free text for people."),
                "evals": {
                    "type": "array",
                    "description": "The cases.",
                    "items": {"$ref": "#/definitions/case"},
                },
                "behavioral_cases": {
                    "type": "array",
                    "description": "The cases under their legacy key (read only without `evals`).",
                    "items": {"$ref": "#/definitions/case"},
                },
            },
            "definitions": {"case": case},
        },
    )


STATIC_CHECKS: dict[str, list[str]] = {
    "file_exists": ["path"],
    "frontmatter_fields": ["fields"],
    "contains": ["text"],
    "order": ["first", "second"],
    "max_lines": ["limit"],
}


def abp_static_checks() -> S:
    assertion: S = {
        "type": "object",
        "description": "One check on the skill file; `check` selects its arguments.",
        # The runner reads a["id"], a["description"] and a["check"] without a default.
        "required": ["id", "description", "check"],
        "properties": {
            "id": string("Assertion id."),
            "description": string("What the assertion is for."),
            "check": {"description": "Kind of check.", "enum": list(STATIC_CHECKS)},
            "path": string("File that must exist (file_exists)."),
            "fields": strings("Frontmatter fields that must be present (frontmatter_fields)."),
            "text": string("Text that must appear (contains)."),
            "first": string("Text that must come first (order)."),
            "second": string("Text that must come after it (order)."),
            "limit": integer("Most lines allowed (max_lines).", 1),
        },
        "allOf": [
            {
                "if": {"properties": {"check": {"const": name}}, "required": ["check"]},
                "then": {"required": args},
            }
            for name, args in STATIC_CHECKS.items()
        ],
    }
    return root(
        "abp-static-checks",
        "ai_best_practices static-checks.json",
        "Static checks on a skill's SKILL.md.",
        {
            "type": "object",
            "required": ["assertions"],
            "properties": {
                "$schema": string("The schema this file follows."),
                "skill_file": string("The skill's SKILL.md, from the repository root."),
                "assertions": {
                    "type": "array",
                    "description": "The checks.",
                    "minItems": 1,
                    "items": {"$ref": "#/definitions/assertion"},
                },
            },
            "definitions": {"assertion": assertion},
        },
    )


SCHEMAS = {
    "abp-evals": abp_evals,
    "abp-static-checks": abp_static_checks,
}
