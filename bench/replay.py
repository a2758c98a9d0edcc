"""Replay bench (issue 8): `replay --instant` of a 200-step team run must
take under 5 % of the run's recorded duration.

The ledger is recorded by the real engine: a Session runs a 200-step team
plan (4 workers; step i depends on step i-4) against a scripted model behind
the real HTTP client code path (ScriptedTransport). Each step is three model
calls with per-call delays: the worker reads a file (50 ms), reports (50 ms),
the reviewer approves (20 ms). Then the whole ledger is replayed instantly
through the same path as `paicli replay SESSION --text --instant` (rebuilt
events, re-streamed deltas, a fresh bus, the headless TextPrinter) into a
null sink, best of three; the CLI subprocess is timed once for reference.

The last line is one JSON object: {"replay_instant_ratio": …, …}.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEPS = 200
WORKERS = 4
WORKER_DELAY_S = 0.05
REVIEW_DELAY_S = 0.02
LIMIT = 0.05


def _plan_reply():
    from paicli_tui.llm.offline.scripted import Reply

    steps = [{"id": f"s{i}", "description": f"step number {i}: look at notes.txt and report line {i}",
              "dependencies": [f"s{i - WORKERS}"] if i > WORKERS else []} for i in range(1, STEPS + 1)]
    return Reply(content=json.dumps({"summary": "a long chain of small steps", "steps": steps}))


class Responder:
    """Worker: a read_file call, then a completed report; reviewer: approve."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.turn: dict[str, int] = {}

    def __call__(self, request):
        from paicli_tui.llm.offline.scripted import Reply

        if request.agent.startswith("reviewer"):
            return Reply(content='{"approved": true, "summary": "looks right", "issues": []}', delay=REVIEW_DELAY_S)
        text = str(request.messages[-1].get("content", ""))
        if "Your step:" in text:
            step = re.search(r"Your step: (step_\d+)", text).group(1)
            return Reply(tool_calls=[("read_file", {"path": "notes.txt"})], delay=WORKER_DELAY_S,
                         content=f"Reading the notes for {step} first.")
        report = {"status": "completed", "result": "the notes say alpha; " * 3}
        return Reply(content=json.dumps(report), delay=WORKER_DELAY_S)


def record(home: Path) -> Path:
    from paicli_tui.config.settings import Settings
    from paicli_tui.llm.offline.scripted import Script, ScriptedTransport
    from paicli_tui.session.live import Session
    from paicli_tui.policy.approval import AutoApprover

    workspace = home / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    settings = Settings(provider="custom", base_url="http://scripted.invalid/v1", model="m", max_retries=0,
                        workers=WORKERS)
    script = Script({"planner": [_plan_reply()]}, default=Responder())
    session = Session(settings, workspace, approver=AutoApprover(), transport=ScriptedTransport(script))
    try:
        outcome = session.start_team("read the notes in many small steps").result(timeout=600)
    finally:
        session.close()
    if not outcome.ok:
        raise SystemExit(f"recording failed: {outcome.status}: {outcome.text[:300]}")
    return session.ledger.path


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="paicli-replay-bench-"))
    os.environ["PAICLI_HOME"] = str(home)
    from paicli_tui.records.ledger import read_ledger
    from paicli_tui.records.player import timeline
    from paicli_tui.present.text_replay import replay_text
    from paicli_tui.records.verify import verify_ledger

    print(f"recording {STEPS} team steps on {WORKERS} workers …", flush=True)
    path = record(home)
    lines = list(read_ledger(path))
    recorded = lines[-1].data["ts"] - lines[0].data["ts"]
    played = len(timeline(lines))
    print(f"ledger: {path.name}: {len(lines)} lines, {path.stat().st_size / 1e6:.2f} MB, recorded duration {recorded:.2f} s")
    print(f"replay events (with re-streamed deltas): {played}")

    runs = []
    for _ in range(3):
        out = io.StringIO()
        started = time.perf_counter()
        replay_text(path, out, io.StringIO(), speed=None)
        runs.append(time.perf_counter() - started)
    replay_s = min(runs)
    print(f"replay --instant in process: best {replay_s:.3f} s of {[round(r, 3) for r in runs]} ({len(out.getvalue().splitlines())} lines printed)")

    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "paicli_tui", "replay", path.stem, "--text", "--instant"],
                          capture_output=True, text=True, env=dict(os.environ), timeout=300, cwd=ROOT)
    cli_s = time.perf_counter() - started
    print(f"`paicli replay {path.stem} --text --instant` subprocess: {cli_s:.3f} s (exit {proc.returncode}, interpreter start included)")

    verification = verify_ledger(path)
    print(f"verify: {'clean' if verification.ok else [str(v) for v in verification.violations[:5]]}")

    ratio = replay_s / recorded
    verdict = "PASS" if ratio < LIMIT else "FAIL"
    print(f"{verdict}: replay/recorded = {ratio:.4f} (limit {LIMIT})")
    print(json.dumps({"replay_instant_ratio": round(ratio, 5), "cli_replay_ratio": round(cli_s / recorded, 5),
                      "recorded_s": round(recorded, 3), "replay_s": round(replay_s, 4), "ledger_lines": len(lines),
                      "replayed_events": played, "steps": STEPS}))


if __name__ == "__main__":
    main()
