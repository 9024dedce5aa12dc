"""The commands besides `check`: bump, init, rules and schema."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_FINDINGS = 1  # as `check`: what the rules report is still there


def run_bump(args: argparse.Namespace) -> int:
    from evallint.cli.bump import settle
    from evallint.io import discover
    from evallint.session.settings import load_config, today

    cwd = Path.cwd()
    root, in_git = discover.project_root(args.paths, cwd)
    config = load_config(root, Path(args.config) if args.config else None)
    if args.diff is None and args.base is None:
        args.diff = ""  # bumping needs a base to compare with: the default one
    edits, left, note = settle(
        args.paths,
        cwd,
        root,
        in_git,
        config,
        diff=args.diff,
        base=args.base,
        today=today(args.today, os.environ),
        update_refs=args.update_refs,
    )
    print(note)  # which base the versions were compared with, as `check` says
    for line in edits:
        print(line)
    print(
        f"{len(edits)} change{'' if len(edits) == 1 else 's'} written"
        if edits
        else "nothing to bump"
    )
    for line in left:  # the version rules still fail on these, or pins dangle: so does the command
        print(line)
    return EXIT_FINDINGS if left else EXIT_OK


def run_init(args: argparse.Namespace) -> int:
    from evallint.cli.init_vscode import init_vscode
    from evallint.io.discover import find_root
    from evallint.session.settings import load_config

    root, in_git = find_root(Path.cwd())
    written, snippet = init_vscode(root, args.schemas, load_config(root), in_git)
    for path in written:
        print(f"wrote {path}")
    if snippet is not None:
        print(
            ".vscode/settings.json holds comments or trailing commas, which a rewrite would "
            "lose, or is no regular file: it was left as it is. Add these two settings to it:"
            f"\n{snippet}"
        )
    return EXIT_OK


def run_rules(args: argparse.Namespace) -> int:
    from evallint.output.docs import render_rules, rules_listing

    if args.format == "markdown" or args.long:
        sys.stdout.write(render_rules(markdown=args.format == "markdown"))
    else:
        sys.stdout.write(rules_listing())
    return EXIT_OK


def run_rule(args: argparse.Namespace) -> int:
    from evallint.errors import EvallintError
    from evallint.output.docs import render_rule
    from evallint.rules import BY_ID
    from evallint.suggest import suggest

    found = BY_ID.get(args.id)
    if found is None:
        hint = suggest(args.id, sorted(BY_ID))
        tail = f"; did you mean {hint!r}?" if hint else "; `evallint rules` lists them"
        raise EvallintError(f"no rule {args.id!r}{tail}")
    sys.stdout.write(render_rule(found, markdown=args.format == "markdown"))
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    from evallint.validation.schemas import load_schema, schema_dir, schema_names

    if args.export:
        out = Path(args.export)
        out.mkdir(parents=True, exist_ok=True)
        for path in sorted(schema_dir().rglob("*.schema.json")):
            target = out / path.relative_to(schema_dir())
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
            print(target.as_posix())
        return EXIT_OK
    if not args.name:
        print("\n".join(schema_names()))
        return EXIT_OK
    sys.stdout.write(json.dumps(load_schema(args.name), indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK


def run_lsp(args: argparse.Namespace) -> int:
    """The language server, when the `lsp` extra (pygls) is installed."""
    from evallint.errors import EvallintError

    try:
        from evallint.lsp.server import serve
    except ImportError as exc:
        raise EvallintError(
            f"evallint lsp needs the lsp extra ({exc.name or 'pygls'} is not installed): "
            "pip install 'evallint-git[lsp]'"
        ) from None
    return serve()
