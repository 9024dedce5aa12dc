"""Problems the engine finds itself in reading a file; these entries document them."""

from __future__ import annotations

from evallint.model import Severity
from evallint.rules.base import builtin

PARSE_ERROR = builtin(
    "parse-error",
    Severity.ERROR,
    """
    The file cannot be read as data: invalid UTF-8, YAML or JSON, or a hostile shape.

    Reported at the first position the parser could not accept. Also covers `NaN`/`Infinity` and
    trailing commas in JSON, YAML files with several documents, unsupported YAML tags, aliases that
    expand past a budget (alias bombs), nesting deeper than 200 levels, integers of more than
    4,000 digits, a top level that is empty, a list or a scalar where the kind is a mapping, files
    that are not regular files, and files over the size limit (`max-file-size`). Every file a
    kind claims (by its path, its declaration or the markers in its text) is reported when it
    cannot be read. It cannot be turned off, down or ignored: nothing else can be checked in
    such a file.

    Bad (rubrics/tone.yaml):
        id: tone
        checks: [
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
""",
    always_on=True,
)

PATH_OUTSIDE_REPO = builtin(
    "path-outside-repo",
    Severity.ERROR,
    """
    A file evallint would check is a symlink that leads out of the repository: it is not read.

    The Action runs on pull requests from anyone, and a link can point anywhere on the runner
    (`/etc`, another checkout, a device). A file that leads out of the repository is never read,
    whatever route brought it to the run (the tree, a name on the command line, a folder named
    through a link); where a kind claims its path it is this error, since the file would be
    checked if it were there, and elsewhere it is counted as not read. A link that stays inside
    the repository is followed (a linked folder is checked once, under its own path). It cannot
    be turned off, down or ignored.

    Bad (rubrics/tone.yaml):
        # symlink -> ../../elsewhere/tone.yaml
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
""",
    always_on=True,
)

GIT_LFS_POINTER = builtin(
    "git-lfs-pointer",
    Severity.WARNING,
    """
    The file is a Git LFS pointer, not its content: the checkout did not fetch it.

    A repository that keeps large files in Git LFS holds, in git, a small text that names the
    content (`version https://git-lfs.github.com/spec/v1`, an `oid`, a `size`); GitHub's
    checkout leaves that text in place unless it is asked for LFS content. evallint reads what
    the checkout holds, so it cannot check the file, and says so once per file rather than
    report the pointer as broken data or pass it in silence. Fetch the content (`git lfs
    pull`; in a workflow, `lfs: true` on `actions/checkout`). A repository whose eval files
    must be there makes it an error (`[tool.evallint.rules] git-lfs-pointer = "error"`).

    Bad (data/refunds/samples.jsonl):
        version https://git-lfs.github.com/spec/v1
        oid sha256:8d2599ae3a6c1008a4091b67335cd7f9ca9301a49ddb842d5ffebf46b1245160
        size 3852
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
""",
)

DUPLICATE_KEY = builtin(
    "duplicate-key",
    Severity.ERROR,
    """
    A key appears twice in one mapping.

    YAML loaders such as AgentV's reject the file; PyYAML and Python's json keep only the last
    value. In JSON, a key repeated with the same value reads the same to every runner evallint
    checks for (Python's json, JavaScript's JSON.parse), so it is a warning that says so (strict
    parsers still reject it); a different value is an error, since one of them is lost.
    Reported on the second key, naming the line of the first.

    Bad (judges/accuracy.yaml):
        id: accuracy
        version: "1.0.0"
        template: "Grade {{ output }}"
        template: "Score {{ output }}"
    Good (judges/accuracy.yaml):
        id: accuracy
        version: "1.0.0"
        template: "Score {{ output }}"
""",
)
