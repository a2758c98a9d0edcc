"""Start-up overhead of a command in the OS sandbox (target: at most 30 ms
over the same command unconfined).

Two measures, each RUNS times per way, alternating sandboxed and unconfined
so that machine load hits both alike; medians and minimums side by side:

1. ``run_command("true")``, the path execute_command takes (process group,
   output pipe; unconfined it also scans for leftover processes, which a
   sandboxed command cannot leave, so that scan is skipped there);
2. the bare start: ``subprocess.run`` of ``bash -c true`` with and without
   bubblewrap around it, no paicli code at all.

Run it on its own, not under xdist. The last line printed is one JSON object.
"""

from __future__ import annotations

import json
import statistics
import subprocess
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
    from paicli_tui.sandbox.os_sandbox import sandbox_for

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
        bare: dict[str, list[float]] = {"bare none": [], "bare sandbox": []}
        argv = ["bash", "-c", "true"]
        for _ in range(RUNS):
            for name, command in (("bare none", argv), ("bare sandbox", sandbox.wrap(argv, network=False))):
                started = time.perf_counter()
                subprocess.run(command, cwd=workspace, env={"PATH": "/usr/bin:/bin"}, check=True)
                bare[name].append((time.perf_counter() - started) * 1000)
    times.update(bare)
    median = {name: statistics.median(values) for name, values in times.items()}
    best = {name: min(values) for name, values in times.items()}
    print(f"{'way':<12} {'median ms':>10} {'min ms':>8}")
    for name in times:
        print(f"{name:<12} {median[name]:>10.1f} {best[name]:>8.1f}")
    overhead = median["sandbox"] - median["none"]
    bare_overhead = median["bare sandbox"] - median["bare none"]
    print(f"overhead (median, sandbox - none): run_command {overhead:.1f} ms, bare start {bare_overhead:.1f} ms; "
          f"target <= {TARGET_MS:g} ms")
    print(json.dumps({"runs": RUNS, "median_ms": median, "min_ms": best, "overhead_ms": round(overhead, 1),
                      "bare_overhead_ms": round(bare_overhead, 1), "target_ms": TARGET_MS}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
