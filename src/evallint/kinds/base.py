"""What a file kind is, and the small helpers format modules describe kinds with."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator
from typing import Literal

from evallint.model import JSON, Pointer
from evallint.records import field, record

PathTest = Callable[[str], bool]
ContentTest = Callable[[str, JSON], bool]  # (path, data): the file name may count too
Defines = Callable[[JSON], tuple[str, str] | None]  # (id, version) this file defines
References = Callable[[JSON], Iterator[tuple[Pointer, str]]]  # (where, reference text)


# How a runner looks for a file an eval names:
# "folder": from the eval file's folder (a leading `/`: from the repository root);
# "ancestors": AgentV's search roots: the eval's folder, then each parent up to the repository
#     root (a leading `/` is stripped first), so `../AGENTS.md` may be found further up;
# "site": from the root of the project the runner works in, which may be the folder that holds
#     the repository (ai_best_practices runs from a Drupal site root), so a path may start with
#     the repository's own folder name, or point beside the repository.
Search = Literal["folder", "ancestors", "site"]


@record
class FileRef:
    """A file a document names, and how its runner looks for it."""

    pointer: Pointer
    path: str  # as written
    search: Search = "folder"
    also: tuple[str, ...] = ()  # project-relative paths the runner tries after the others
    glob: bool = False  # a pattern: found when it matches a file of the project
    note: str = ""  # what the runner does when it finds nothing, said with the finding
    function: str | None = None  # the function a script reference names (`checks.py:grade`)


def _inside(path: str) -> str | None:
    """The normalised project-relative path, or None when it leaves the project."""
    if not (path.startswith(".") or "/." in path or "//" in path):
        return path  # nothing to normalise: the common case costs no posixpath call
    normal = posixpath.normpath(path) if path else "."
    if normal == ".." or normal.startswith("../") or posixpath.isabs(normal):
        return None
    return normal


def candidates(doc_path: str, ref: FileRef, root_name: str = "") -> list[str]:
    """Where the runner looks for the file, in order, as project-relative paths; empty when
    every place it would look lies outside the project."""
    text = ref.path.removeprefix("file://")
    here = doc_path.rpartition("/")[0]
    if ref.search == "site" or (ref.search == "folder" and text.startswith("/")):
        tried = [text.lstrip("/")]
        first, _, rest = tried[0].partition("/")
        if ref.search == "site" and root_name and first == root_name and rest:
            tried.append(rest)  # written from the site root that holds the repository
    elif ref.search == "folder":
        tried = [f"{here}/{text}" if here else text]
    else:
        bare, folder, tried = text.lstrip("/\\"), here, []
        while folder:  # the eval's folder, then each parent
            tried.append(f"{folder}/{bare}")
            folder = folder.rpartition("/")[0]
        tried.append(bare)  # and the repository root
    if not ref.also and _inside(text) == text:
        return tried  # built from normal parts: each is normal, inside, and distinct
    found = [p for p in map(_inside, [*tried, *ref.also]) if p is not None]
    return list(dict.fromkeys(found)) if len(found) > 1 else found


Digest = dict[str, list[str]]


@record(kw_only=True)
class Item:
    """One item of a dataset as the hygiene rules see it, whatever its format: its input as
    text, and what it expects (texts), each with where it is written. `exact`: the grader
    compares the output with the expectation whole (one input, two expectations: one of them
    is scored wrong whatever the model says); otherwise an expectation is a fact or a
    description a grader looks for."""

    at: Pointer
    input: str
    input_at: Pointer
    ident: str | None = None
    expected: tuple[str, ...] | None = None  # None: nothing is expected of this item
    expected_at: tuple[Pointer, ...] = ()  # where each expected text is written
    exact: bool = False
    # The choices a multiple-choice item offers; its expected answers must be among them.
    choices: tuple[str, ...] | None = None
    # Whether a grader looks for the expectation in the answer, so that an answer repeating
    # the input passes where the input states it. False where the grader is not known (a
    # result record), and for a multiple-choice item, whose input lists its answer.
    echo: bool = True
    # How the item is graded: its keys but `own` (its input and id) and provenance. Two items
    # with one input and one grading are one question counted twice. Kept as the item itself,
    # and written out (`grading`) only for the items whose inputs meet.
    whole: JSON = None
    own: tuple[str, ...] = ()


def grading(item: Item) -> str:
    """An item's keys but its own (input, id) and provenance (`metadata`, `source`), as
    canonical text."""
    import json

    if not isinstance(item.whole, dict):
        return ""
    skipped = {*item.own, "metadata", "source"}
    kept = {k: v for k, v in item.whole.items() if k not in skipped}
    return json.dumps(kept, sort_keys=True, ensure_ascii=False, default=str)


@record(kw_only=True)
class Pattern:
    """A regular expression a file holds: where, its text, the engine its runner compiles it
    with (ai_eval's PHP: PCRE, read by Python's `re`; AgentV: JavaScript's RegExp), and for
    PCRE its flag letters and where they are written."""

    at: Pointer
    text: str
    engine: Literal["pcre", "javascript"]
    flags: JSON = ""
    flags_at: Pointer = ()


CaseIds = Callable[[JSON], Iterator[tuple[Pointer, JSON]]]
FileRefs = Callable[[JSON], Iterator[FileRef]]


@record(kw_only=True)
class Kind:
    """One kind of eval file: how it is recognised, validated and cross-referenced. Built with
    keywords: a new kind says what it has, and every hook it lacks is off."""

    name: str
    title: str
    formats: frozenset[str]
    schema: str | None = None
    # How a file is recognised, for the docs' table of kinds (one sentence, Markdown).
    about: str = ""
    # The schema file, for the docs, when it is not `schema/<schema>.schema.json`.
    schema_docs: str = ""
    # What a file holds at its top level: a mapping of keys, or a list of entries.
    top_level: Literal["mapping", "list"] = "mapping"
    by_path: PathTest | None = None  # path evidence, strongest after config and $schema
    by_content: ContentTest | None = None  # top-level keys, for files the path does not place
    # Path evidence weaker than the content (which may name another kind of the family) that
    # still claims the file before it is parsed: a claimed file that cannot be read is reported.
    claim: PathTest | None = None
    # For a parsed file its path gives this kind (`by_path`, `claim`): whether its keys are
    # this format's (a misspelt file of ours still is). Another tool's file in a folder of the
    # same name (a project's own `rubrics/`) is then left alone, with the reason.
    weighs: Callable[[JSON], bool] | None = None
    # Parts of a declared `$schema` (or modeline) that name this kind in another tool's words
    # (promptfoo's own schema address).
    declared_by: tuple[str, ...] = ()
    # Sets of keys whose presence in a file's raw text marks this kind, for files that do not
    # parse (a set matches when all its keys are there); also matched with one key misspelt.
    markers: tuple[tuple[str, ...], ...] = ()
    namespace: str | None = None  # what references call it: rubric/{id}, judge/{id}
    defines: Defines | None = None
    versioned: Defines | None = None  # (id, version) for version rules; may differ from defines
    version_at: Pointer = ("version",)  # where a file of this kind writes its version
    references: References | None = None
    schema_of: Callable[[JSON], str | None] | None = None  # the schema by content (versions)
    per_record: bool = False  # JSONL: each record is validated on its own
    forced_schema: Callable[[str], str | None] | None = None  # --eee-version: schema by version
    case_ids: CaseIds | None = None  # (where, id) of each case/test, for uniqueness
    file_refs: FileRefs | None = None  # files the format reads at run time
    # Bytes that any file of this kind found only by content must contain; lets a partial run
    # index the rest of the tree without parsing every YAML file in it.
    needles: tuple[bytes, ...] = ()
    # Top-level keys rules of other files read through the project (a split run sends only
    # these between the worker processes).
    shared: tuple[str, ...] = ()
    # Top-level keys the project also keeps of every file of the run, for rules of other files
    # that read them where the project holds the file; unlike `shared`, a partial run does not
    # look files up by their values.
    held: tuple[str, ...] = ()
    # Top-level keys whose values other files name a file of this kind by, not by its path (a
    # harness config's `task`, `group` and `tag`, which groups list): a change that deletes
    # the file checks the files that hold those names.
    named_by: tuple[str, ...] = ()
    # Where editors find files of this kind that carry no modeline (`evallint init vscode`).
    editor_globs: tuple[str, ...] = ()
    # What rules of other files read of a definer, as names to lists of strings: kept in its
    # summary, so that a partial run need not parse it for them.
    digest: Callable[[JSON], Digest] | None = None
    # References (`namespace/id@version`) a file of this kind holds in forms that a search of
    # its bytes for `namespace/id` does not see (EEE's version maps), and bytes that every
    # file holding one contains: a partial run parses those files to keep the references in
    # their summaries.
    mentions: Callable[[JSON], Iterable[str]] | None = None
    mention_needles: tuple[bytes, ...] = ()
    # A definer of this kind may be composed of others of its namespace, and then asks of the
    # files that refer to it what they ask (rubric composites): a partial run follows a change
    # up the chain of composers.
    composes: bool = False
    # The file a file of this kind reads beside it, from its path (EEE's aggregate and its
    # instance records): a change to either is checked in the other. None: not such a path.
    companion: Callable[[str], str | None] | None = None
    # The project files a file of this kind loads at run time whose content decides its findings
    # (lm-evaluation-harness's includes and `!function` modules), from its path and data: a
    # change to one is checked in the files that read it, through files that read those.
    reads: Callable[[str, JSON], Iterable[str]] | None = None
    # Whether a changed file of the tree can be one such files read, from its path, its data
    # when it parses (else None) and the tree's files: a partial run searches the tree for its
    # readers only then (a search reads every file; a rubric edit in a large tree needs none).
    readable: Callable[[str, JSON, frozenset[str]], bool] | None = None
    # Custom YAML tags its runner's loader constructs (`!function`): read as `Tagged` text. In a
    # file of any other kind such a tag is a parse-error, as every unknown tag is.
    tags: frozenset[str] = frozenset()
    # Parse problems its runner's loader accepts (`flow-indent`: libyaml's leniency), which are
    # then no finding; elsewhere they are parse-errors.
    lenient: frozenset[str] = frozenset()
    # A rule of its own family reports the keys its runner does not read, with the runner's
    # own severities (promptfoo drops most silently, but not all to the same effect); the
    # generic key rules leave its files alone.
    own_keys: bool = False
    # Rules whose findings are warnings at most in files of this kind, where its runner only warns
    # (unless the configuration sets their level).
    warns: frozenset[str] = frozenset()
    # Claims a file only when no other kind's evidence does (its evidence is common).
    fallback: bool = False
    # Files its runner owns whatever keys they share with other formats' (a promptfoo config
    # holds `tests` and `prompts` as AgentV suites do): no other format claims them by content.
    # It holds of every file `by_content` claims (so a file it does not own is not asked that).
    owns: ContentTest | None = None
    # Why a parsed file no kind claims is plainly another tool's, though its name is this
    # kind's (`eval.yaml` of Hugging Face): said in the list of skipped files.
    disowns: Callable[[str, JSON], str | None] | None = None
    # The items of a dataset (questions, cases, samples), for the hygiene rules.
    item_view: Callable[[JSON], Iterator[Item]] | None = None
    # Its files record a run's results, not a dataset: each run's records repeat the items of
    # the benchmark, so no two files' items are held against each other (`shared-item`).
    results: bool = False
    # Bytes every file of this kind that has an item holds (its item's keys, its items' key):
    # a partial run parses the tree's files that hold them for their items' digests.
    item_needles: tuple[bytes, ...] = ()
    # The regular expressions a file holds, for `invalid-regex`.
    patterns: Callable[[JSON], Iterator[Pattern]] | None = None
    # The `type:` values its graders take, offered by the editor's completion.
    grader_types: frozenset[str] = frozenset()
    # Hidden folders its format keeps eval files in (a model repository's `.eval_results`):
    # walked where other hidden folders are not.
    folders: frozenset[str] = frozenset()
    # The releases of its format a run may be told to check against (`--eee-version`).
    releases: tuple[str, ...] = ()

    # The top-level keys the project keeps of a file of this kind (`shared`, `held`): made
    # once, as rules ask it of each of a large tree's files.
    kept_keys: tuple[str, ...] = field(init=False, default_factory=tuple, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kept_keys", self.shared + self.held)

    def schema_for(self, data: JSON) -> str | None:
        """The bundled schema a file of this kind is checked against (some depend on a version)."""
        return self.schema_of(data) if self.schema_of is not None else self.schema


def in_dir(name: str) -> PathTest:
    """A file in a folder named `name`, at any depth."""
    first, inner = f"{name}/", f"/{name}/"

    def test(path: str) -> bool:
        # A folder of the path is `name` where the path starts with it or holds it between
        # slashes (asked of every file of a run: no list made).
        return path.startswith(first) or inner in path

    return test


def named(*names: str) -> PathTest:
    """A file name (any case) among `names`."""

    def test(path: str) -> bool:
        return path.rsplit("/", 1)[-1].lower() in names

    return test


def has_keys(*keys: str) -> ContentTest:
    wanted = frozenset(keys)

    def test(path: str, data: JSON) -> bool:
        # The keys view's test at C speed, in the wanted keys' count: asked of every file no
        # path places.
        return isinstance(data, dict) and data.keys() >= wanted

    return test


def items(data: JSON, key: str) -> Iterator[tuple[int, dict[str, JSON]]]:
    """(index, object) for each object in the list under `key`; nothing if it is not a list."""
    found = data.get(key) if isinstance(data, dict) else None
    if isinstance(found, list):
        for i, item in enumerate(found):
            if isinstance(item, dict):
                yield i, item


def weighs_for(
    data: dict[str, JSON],
    ours: frozenset[str],
    theirs: frozenset[str],
    *,
    near: tuple[str, ...] = (),
) -> bool:
    """Whether a file whose name several tools share is ours, by the weight of its top-level
    keys: those only our format uses against those only the others use. A misspelling of one
    of `near` (our required keys) counts for us, so a broken file of ours is still claimed and
    gets its findings; a file of another tool is left alone. Kinds whose file names are shared
    (`eval.yaml`; promptfoo's and lm-evaluation-harness's YAML) claim by this one rule."""
    from evallint.suggest import suggest

    mine = sum(1 for k in data if k in ours)
    other = sum(1 for k in data if k in theirs)
    if near and not any(k in data for k in near):
        mine += any(suggest(k, list(near)) for k in data if k not in ours and k not in theirs)
    return mine > other
