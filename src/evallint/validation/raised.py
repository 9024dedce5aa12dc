"""What the generated validators raise: our own classes, so that validating (and passing) a
file never imports fastjsonschema (~4 ms of a one-file run's start). `codegen.tune` points the
generated code at them; they take the arguments that code passes."""

from __future__ import annotations

from typing import Any


class SchemaFailure(ValueError):
    """One way a value fails its schema: `rule` is the keyword, `definition` the schema
    object holding it, `name` where the value is (`data.a[0]`)."""

    def __init__(
        self,
        message: str,
        value: Any = None,
        name: str | None = None,
        definition: Any = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.value, self.name, self.definition, self.rule = value, name, definition, rule

    @property
    def rule_definition(self) -> Any:
        """The keyword's argument, such as the `enum` list."""
        if not self.rule or not isinstance(self.definition, dict):
            return None
        return self.definition.get(self.rule)


class SchemaFailures(ValueError):
    """Every failure of a document (validators are generated with fast_fail off)."""

    def __init__(self, errors: list[SchemaFailure]) -> None:
        super().__init__(f"{len(errors)} schema failures")
        self.errors = errors
