"""The editor's full parity over the largest corpora: every file of the EEE, OpenAI evals and
lm-evaluation-harness trees opened one by one in the language server and compared with
`evallint check` (CI opens a seeded sample of each; this opens them all, 15 to 30 minutes).

    python benchmarks/bench_lsp_parity.py [CORPUS ...]

CORPUS is a test id of `tests/test_lsp.py::test_the_servers_findings_are_the_commands` (`eee`,
`other/openai-evals`, `other/lm-eval-harness`; all three by default). Needs `../shared`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEST = "tests/test_lsp.py::test_the_servers_findings_are_the_commands"


def main() -> int:
    corpora = sys.argv[1:] or ["eee", "other/openai-evals", "other/lm-eval-harness"]
    env = {**os.environ, "EVALLINT_LSP_LARGE": "1"}
    for corpus in corpora:
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-n",
                "0",
                "-p",
                "no:cacheprovider",
                f"{TEST}[{corpus}]",
            ],
            cwd=REPO,
            env=env,
            check=False,
        )
        took = time.perf_counter() - started
        print(f"{corpus}: {'agrees' if done.returncode == 0 else 'DIFFERS'}, {took:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
