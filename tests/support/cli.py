"""Run the real `paicli` as a subprocess against a loopback server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from paicli_tui.records.ledger import read_ledger
from tests.support.timing import scaled


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
        timeout=scaled(timeout),  # a loaded machine starts and runs paicli several times slower
        env=env or paicli_env(home),
    )


def start_paicli(args: list[str], *, home: Path, cwd: Path) -> subprocess.Popen:
    """Start `paicli` for a test that signals it; stdout and stderr piped as text.

    The child gets SIGINT at its default, as a terminal's foreground job has
    it. A suite started as a script's background job (``cmd &``) inherits
    SIGINT ignored, and a Python started that way keeps ignoring it, so a
    test's SIGINT would do nothing. A Python-level handler in this process
    becomes the default disposition in the child once it execs.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "paicli_tui", *args], cwd=cwd, env=paicli_env(home), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
    finally:
        signal.signal(signal.SIGINT, previous)


def ledger_lines(home: Path) -> list[dict]:
    """Every line of the only ledger written under ``home``."""
    files = sorted((home / "history" / "raw").glob("*.jsonl"))
    assert len(files) == 1, f"expected one ledger, found {files}"
    return [line.data for line in read_ledger(files[0])]


def events(lines: list[dict], name: str) -> list[dict]:
    return [line for line in lines if line["event"] == name]


def dumps(value) -> str:
    return json.dumps(value, sort_keys=True)
