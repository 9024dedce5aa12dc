"""The language server in a 2,250-file tree (bench_core's: 2,000 datasets, 200 rubrics, 50
judges), in git, driven over stdio as an editor drives it.

    python benchmarks/bench_lsp.py [--runs 5] [--edits 50]

- start: from launching `evallint lsp` to the first diagnostics of one opened dataset, against
  the command's full check of the same tree (`check --no-cache`), paired runs;
- an edit of the open dataset: from the change notification to its diagnostics (median and
  spread over --edits edits);
- an edit of a rubric that 5 open datasets name: from the change to the last of their
  diagnostics;
- the server's peak memory after the edits, against the command's peak on the same tree.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from bench_core import generate
from common import evallint_cmd, spread, with_peak_memory

from lsp_client import Client


def _started(root: Path) -> Client:
    client = Client(root)
    client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    return client


def _wait(client: Client, uris: list[str], since: int) -> float:
    """Seconds until each of `uris` has had diagnostics published after message `since`."""
    started = time.perf_counter()
    seen: set[str] = set()
    while not set(uris) <= seen:
        message = client.messages.get(timeout=120)
        if message.get("method") == "textDocument/publishDiagnostics":
            seen.add(unquote(message["params"]["uri"]))
        seen = {u for u in uris if unquote(u) in seen} | seen
    return time.perf_counter() - started


def start_rows(root: Path, runs: int) -> None:
    firsts, checks = [], []
    for _ in range(runs):
        began = time.perf_counter()
        client = _started(root)
        uri = client.open("datasets/set_0.yaml")
        _wait(client, [uri], 0)
        firsts.append(time.perf_counter() - began)
        client.close()
        cmd = [*evallint_cmd(), "check", "--no-cache", "--exit-zero", "."]
        checks.append(with_peak_memory(cmd, root)[0])
    ratios = [a / b for a, b in zip(firsts, checks, strict=True)]
    print(
        f"| start to first diagnostics | {spread(firsts, ' s')} | full check, no cache: "
        f"{spread(checks, ' s')} | {spread(ratios)}x |"
    )


def edit_rows(root: Path, edits: int) -> None:
    client = _started(root)
    dataset = client.open("datasets/set_0.yaml")
    text = (root / "datasets/set_0.yaml").read_text(encoding="utf-8")
    _wait(client, [dataset], 0)
    own = []
    for i in range(edits):
        began = time.perf_counter()
        client.change(dataset, text + f"# edit {i}\n", version=i + 2)
        _wait(client, [dataset], 0)
        own.append(time.perf_counter() - began)
    names = [
        p for p in sorted((root / "datasets").glob("*.yaml")) if "rubric/rubric_0@" in p.read_text()
    ]
    opened = [client.open(p.relative_to(root).as_posix()) for p in names[:5]]
    rubric = client.open("rubrics/rubric_0.yaml")
    _wait(client, [*opened, rubric], 0)
    body = (root / "rubrics/rubric_0.yaml").read_text(encoding="utf-8")
    deps = []
    for i in range(edits):
        began = time.perf_counter()
        client.change(rubric, body + f"# edit {i}\n", version=i + 2)
        _wait(client, opened, 0)
        deps.append(time.perf_counter() - began)
    client.close()
    print(f"| an edit of the open dataset, to its diagnostics | {spread(own, ' s')} | | |")
    if edits >= 100:  # does an edit cost more after many? the first tenth against the last
        tenth = edits // 10
        first, last = spread(own[:tenth], " s"), spread(own[-tenth:], " s")
        print(f"| the last {tenth} of those edits | {last} | the first {tenth}: {first} | |")
    print(
        f"| an edit of a rubric {len(opened)} open datasets name, to their diagnostics | "
        f"{spread(deps, ' s')} | | |"
    )


def memory_row(root: Path, edits: int) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    client = _started(root)
    uri = client.open("datasets/set_0.yaml")
    text = (root / "datasets/set_0.yaml").read_text(encoding="utf-8")
    for i in range(edits):
        client.change(uri, text + f"# edit {i}\n", version=i + 2)
        _wait(client, [uri], 0)
    client.close()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    cmd = [*evallint_cmd(), "check", "--no-cache", "--exit-zero", "."]
    cli = with_peak_memory(cmd, root)[1]
    grew = "" if peak > before / 1024 else " (the probe's own)"
    print(
        f"| peak memory over {edits} edits{grew} | {peak:.1f} MB | the command: {cli:.1f} MB | "
        f"{peak / cli:.2f}x |"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--edits", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        root.mkdir()
        generate(root, 2000, 50, 200, 50)
        for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
            subprocess.run(["git", *cmd], cwd=root, check=True, capture_output=True)
        print(f"language server, 2,250-file tree; median (min to max), {args.runs} runs")
        print("| what | server | against | ratio |\n|---|---|---|---|")
        memory_row(root, args.edits)  # first: a process's peak counts every child waited for
        start_rows(root, args.runs)
        edit_rows(root, args.edits)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
