"""Start-up overhead of a command in the OS sandbox (target: at most 30 ms
over the same command unconfined).

Runs ``true`` through the real ``run_command`` (the path execute_command
takes: a process group, the output pipe, the leftover check) RUNS times
each way, alternating sandboxed and unconfined so that machine load hits
both alike, and prints the medians and the minimums side by side. Run it on
its own, not under xdist. The last line printed is one JSON object.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUNS = 40
TARGET_MS = 30.0


def main() -> int:
    from paicli_tui.config.settings import Settings
    from paicli_tui.tools.process import run_command
    from paicli_tui.workspace.sandbox import sandbox_for

    with tempfile.TemporaryDirectory(prefix="paicli-bench-") as scratch:
        workspace = Path(scratch)
        sandbox = sandbox_for(Settings(sandbox="required"), workspace)
        if not sandbox.active:
            print(f"the sandbox cannot start: {sandbox.refusal}")
            return 1
        ways = {"none": None, "sandbox": lambda argv: sandbox.wrap(argv, network=False),
                "sandbox+net": lambda argv: sandbox.wrap(argv, network=True)}
        times: dict[str, list[float]] = {name: [] for name in ways}
        cancel = threading.Event()
        for _ in range(RUNS):
            for name, wrap in ways.items():
                started = time.perf_counter()
                outcome = run_command("true", workspace, 30, cancel, {"PATH": "/usr/bin:/bin"}, wrap)
                times[name].append((time.perf_counter() - started) * 1000)
                assert outcome.exit_code == 0, outcome
    median = {name: statistics.median(values) for name, values in times.items()}
    best = {name: min(values) for name, values in times.items()}
    print(f"{'way':<12} {'median ms':>10} {'min ms':>8}")
    for name in ways:
        print(f"{name:<12} {median[name]:>10.1f} {best[name]:>8.1f}")
    overhead = median["sandbox"] - median["none"]
    print(f"overhead (median, sandbox - none): {overhead:.1f} ms; target <= {TARGET_MS:g} ms")
    print(json.dumps({"runs": RUNS, "median_ms": median, "min_ms": best, "overhead_ms": round(overhead, 1),
                      "overhead_min_ms": round(best["sandbox"] - best["none"], 1), "target_ms": TARGET_MS}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
