"""Run the real `paicli` as a subprocess against a loopback server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from paicli_tui.ledger import read_ledger


def paicli_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PAICLI_HOME": str(home), "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def run_paicli(
    args: list[str],
    *,
    home: Path,
    cwd: Path,
    stdin: str | None = None,
    timeout: float = 30,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "paicli_tui", *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env or paicli_env(home),
    )


def ledger_lines(home: Path) -> list[dict]:
    """Every line of the only ledger written under ``home``."""
    files = sorted((home / "history" / "raw").glob("*.jsonl"))
    assert len(files) == 1, f"expected one ledger, found {files}"
    return [line.data for line in read_ledger(files[0])]


def events(lines: list[dict], name: str) -> list[dict]:
    return [line for line in lines if line["event"] == name]


def dumps(value) -> str:
    return json.dumps(value, sort_keys=True)
