"""The `class:` of OpenAI evals registry specs: against the repository's own modules (parsed,
never imported) where it holds them, else against what evals 3.0.1 ships, and that list against
the package itself where `EVALLINT_EVALS_PYTHON` names a Python that has it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import lint_files, shared_or_skip
from evallint.formats.oaievals.kinds_classes import MODULES
from evallint.formats.oaievals.rules_classes import classes
from test_oaievals_conformance import ORACLE, _oracle_python

DATA = {"registry/data/arith/samples.jsonl": '{"input": [], "ideal": "2"}\n'}
OURS = {"myevals/__init__.py": "", "myevals/arith.py": "class ArithEval:\n    pass\n"}


def _eval(cls: str) -> str:
    return f"arith.dev.v0:\n  class: {cls}\n  args: {{samples_jsonl: arith/samples.jsonl}}\n"


def _found(files: dict[str, str]) -> list[tuple[str, int, int, str, str]]:
    return sorted(
        (d.path, d.span.line, d.span.column, d.rule, d.message)
        for d in lint_files({**files, **DATA})
        if d.rule.startswith("oaieval-class")
    )


def test_a_class_of_the_repositorys_own_package_is_read_from_its_module() -> None:
    for written, message in (
        ("myevals.arith:ArithEval", None),
        ("myevals.arith:ArithEvals", "myevals/arith.py defines no 'ArithEvals'; did you mean "),
        ("myevals.arithm:ArithEval", "this repository holds the package 'myevals' but no module"),
    ):
        found = _found({**OURS, "registry/evals/arith.yaml": _eval(written)})
        if message is None:
            assert found == []
        else:
            ((path, line, column, rule, text),) = found
            assert (path, line, column, rule) == (
                "registry/evals/arith.yaml",
                2,
                10,
                "oaieval-class",
            )
            assert message in text


def test_a_src_layout_and_a_fork_of_evals_are_the_repositorys_own() -> None:
    src = {f"src/{p}": t for p, t in OURS.items()}
    assert _found({**src, "registry/evals/arith.yaml": _eval("myevals.arith:ArithEval")}) == []
    fork = {
        "evals/__init__.py": "",
        "evals/elsuite/__init__.py": "",
        "evals/elsuite/basic/__init__.py": "",
        "evals/elsuite/basic/match.py": "class Match:\n    pass\n",
        "evals/registry/evals/arith.yaml": _eval("evals.elsuite.basic.includes:Includes"),
        "evals/registry/data/arith/samples.jsonl": DATA["registry/data/arith/samples.jsonl"],
    }
    # In a fork the checkout's own modules decide: 3.0.1 ships `includes`, this one does not.
    ((*where, text),) = _found(fork)
    assert where == ["evals/registry/evals/arith.yaml", 2, 10, "oaieval-class"]
    assert "no module 'evals.elsuite.basic.includes'" in text


def test_a_class_evals_3_0_1_lacks_is_a_warning_naming_the_release() -> None:
    solver = (
        "cot/gpt-4:\n  class: evals.solvers.nested.cot_solver:CoTSolver\n  args:\n"
        "    cot_solver:\n      class: evals.solvers.providers.openai.openai_solver:OpenAISolvr\n"
    )
    files = {
        "registry/evals/arith.yaml": _eval("evals.elsuite.basic.mach:Match"),
        "registry/solvers/cot.yaml": solver,
    }
    found = lint_files({**files, **DATA})
    assert sorted(
        (d.path, d.span.line, d.span.column, d.rule, d.severity.label)
        for d in found
        if d.rule.startswith("oaieval-class")
    ) == [
        ("registry/evals/arith.yaml", 2, 10, "oaieval-class-unconfirmed", "warning"),
        ("registry/solvers/cot.yaml", 5, 14, "oaieval-class-unconfirmed", "warning"),
    ]
    messages = sorted(d.message for d in found if d.rule == "oaieval-class-unconfirmed")
    assert "evals 3.0.1 ships no module" in messages[0]
    assert "did you mean 'evals.elsuite.basic.match'?" in messages[0]
    assert messages[1].endswith(
        "has no class 'OpenAISolvr'; did you mean 'OpenAISolver'? (a registry that goes with "
        "another release of evals may have it)"
    )


def test_another_packages_module_and_a_module_making_names_are_not_guessed() -> None:
    dynamic = {"myevals/__init__.py": "", "myevals/arith.py": "globals()['ArithEval'] = 1\n"}
    for files in (
        {"registry/evals/arith.yaml": _eval("thirdparty.evals:Arith")},
        {**dynamic, "registry/evals/arith.yaml": _eval("myevals.arith:ArithEval")},
    ):
        assert _found(files) == []


def test_classes_are_found_at_any_depth() -> None:
    data = {"a": {"class": "m:A", "args": {"inner": {"class": "n:B"}, "list": [{"class": "o:C"}]}}}
    assert list(classes(data)) == [
        (("a", "class"), "m:A"),
        (("a", "args", "inner", "class"), "n:B"),
        (("a", "args", "list", 0, "class"), "o:C"),
    ]


# Slips the oracle must call absent, and one it finds, beside the upstream registry's classes.
PLANTED = (
    "evals.elsuite.basic.match:Mach",
    "evals.elsuite.basic.mach:Match",
    "evals.solvers.nested.cot_solver:CotSolver",
    "evals.completion_fns.openai:OpenAIChatCompletionFn",
)


def _texts() -> list[str]:
    corpus = shared_or_skip("corpus", "other", "openai-evals")
    found = {
        m.group(1)
        for path in corpus.rglob("registry/*/*.yaml")
        for m in re.finditer(r"^\s*class:\s*(\S+)\s*$", path.read_text(encoding="utf-8"), re.M)
    }
    return sorted(found | set(PLANTED))


def test_the_release_list_agrees_with_the_package_where_it_can_be_imported(tmp_path: Path) -> None:
    texts = _texts()
    done = subprocess.run(
        [_oracle_python(), str(ORACLE), "--classes", *texts],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    verdicts: dict[str, str] = json.loads(done.stdout)
    told = {t: v for t, v in verdicts.items() if not v.startswith("unknown")}
    for text, verdict in told.items():
        module, _, name = text.partition(":")
        mine = (
            "no module" if module not in MODULES else "ok" if name in MODULES[module] else "no name"
        )
        assert mine == verdict, text
    # Most of the package imports with numpy alone; the slips always do.
    assert len(told) >= len(texts) // 2, verdicts
    assert set(PLANTED) <= set(told)


def test_a_module_that_cannot_be_read_is_never_passed_in_silence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module that does not parse cannot be imported: an error. One over the size evallint
    parses is not read: a warning saying so."""
    import evallint.parse.python

    files = {
        "myevals/__init__.py": "",
        "myevals/bad.py": "def (:\n",
        "myevals/big.py": "class Thing:\n    pass\n" + "x = 1\n" * 50,
        "registry/evals/a.yaml": _eval("myevals.bad:Thing")
        + _eval("myevals.big:Thing").replace("arith.dev.v0", "arith.test.v0"),
    }
    monkeypatch.setattr(evallint.parse.python, "PARSE_LIMIT", 200)
    found = [(line, rule, text) for _, line, _, rule, text in _found(files)]
    assert [f[:2] for f in found] == [(2, "oaieval-class"), (5, "oaieval-class-unconfirmed")]
    assert found[0][2] == (
        "'myevals.bad:Thing': myevals/bad.py does not parse (line 1: invalid syntax), so the "
        "registry cannot import it"
    )
    assert "over the 200-byte limit for parsing Python; 'Thing' was not checked" in found[1][2]
