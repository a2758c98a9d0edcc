"""ReAct, /plan and /team on a real local model, before and after the local
model work (issue 34's "done means"), side by side in one run.

One real llama.cpp server (llama-cpp-python's, tests/real_server/install.sh)
with SmolLM2-135M and its default flags (it cuts a running reply short when
another request arrives). For each goal and mode, `paicli run` runs as a
subprocess once per arm, the arms interleaved so both meet the same server
in the same state, each in a fresh generated package (five modules and a
failing test, under git):

- before: the tree of ``--before-ref`` (default: the commit this work
  started from), extracted with ``git archive``; or, with
  ``--before-ref switches``, this tree with the new behaviour switched off
  (``PAICLI_LOCAL_PROFILE=off PAICLI_TOOL_MODE=native PAICLI_SERVER_SLOTS=0
  PAICLI_PROBE_SERVER=false``);
- after: this tree, defaults.

Both arms get the same bounds: ``--run-seconds`` per run (paicli's own
``--run-max-seconds``; the subprocess is killed 60 s later, counted as
"ended by an outside timeout"), ``--max-turns`` per agent, 1 plan repair.

Measured per arm and mode, from the ledgers: runs ended by their own
outcome; first calls lost to a deadline while queued; interrupted replies
that failed a task; tool-loop replies that made a tool call; worker
reports and review verdicts that could be read; runs reported COMPLETED
with no tool call and no file changed; the worker request size (system
prompt plus tool schemas, characters and the server's token count); mean
wall time, time to first token and tokens/s.

    python bench/local_models.py            # --quick: 2 goals, 45 s runs, ~10 minutes
    python bench/local_models.py --full     # 5 goals, 120 s runs

The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.llama_server import LlamaServer, missing  # noqa: E402

# Raw JSON, not read_ledger: a ledger of the "before" tree may hold fields this
# tree's schema would skip, and the figures must count every line.
from local_plans import before_tree, ledger  # noqa: E402

GOALS = (
    "Rename the function greet in pkg/app.py to welcome",
    "Add a CHANGELOG.md with one entry for version 0.1",
    "Add a docstring to the function add in pkg/util.py",
    "List the TODO comments in the package",
    "Add a test for the function add in tests/test_util.py",
)
PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/app.py": "def greet(name):\n    # TODO: handle empty names\n    return f'hello {name}'\n",
    "pkg/util.py": "def add(a, b):\n    return a + b\n",
    "pkg/io.py": "def read(path):\n    # TODO: close the file\n    return open(path).read()\n",
    "pkg/cli.py": "from pkg.app import greet\n\n\ndef main():\n    print(greet('world'))\n",
    "tests/test_app.py": "from pkg.app import greet\n\n\ndef test_greet():\n    assert greet('x') == 'hi x'\n",
}
SWITCHED_OFF = {"PAICLI_LOCAL_PROFILE": "off", "PAICLI_TOOL_MODE": "native", "PAICLI_SERVER_SLOTS": "0",
                "PAICLI_PROBE_SERVER": "false"}
MODES = ("react", "plan", "team")


@dataclass
class Run:
    own_outcome: bool = False
    completed_nothing_done: bool = False
    queued_deadline: int = 0
    #: Queued calls given up unsent: the time left could not cover one.
    not_started: int = 0
    #: Calls that waited for the slot, were sent, and were then cut by the run's time.
    cut_after_wait: int = 0
    interrupted_failures: int = 0
    tool_replies: int = 0
    tool_calls_made: int = 0
    reports: int = 0
    reports_read: int = 0
    #: Of the reports read, the ones paicli wrote for a worker stopped before it reported.
    reports_by_paicli: int = 0
    verdicts: int = 0
    verdicts_read: int = 0
    seconds: float = 0.0
    ttft: list[float] = field(default_factory=list)
    speed: list[float] = field(default_factory=list)
    exit_code: int = 0


def workspace(path: Path) -> Path:
    for name, text in PACKAGE.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    for command in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "start"]):
        subprocess.run(command, cwd=path, check=True, capture_output=True)
    return path


def run_once(base_url: str, goal: str, mode: str, tree: Path, extra_env: dict, root: Path, args) -> Run:
    home, work = root / "home", root / "ws"
    work.mkdir(parents=True)
    workspace(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_") and not k.endswith("_API_KEY")}
    env.update({"PAICLI_HOME": str(home), "PYTHONPATH": str(tree), "PAICLI_MAX_RETRIES": "0",
                "PAICLI_PLAN_REPAIRS": "1", "PAICLI_REPORT_REPAIRS": "1", "PAICLI_PLANNER_MAX_TOKENS": "600",
                "PAICLI_REPORT_MAX_TOKENS": "400", "PAICLI_TEAM_REVIEW": "false", **extra_env})
    command = [sys.executable, "-m", "paicli_tui", "run", "--mode", mode, "--yes", "--provider", "custom",
               "--base-url", base_url, "--model", "local", "--workspace", str(work),
               "--max-turns", str(args.max_turns), "--run-max-seconds", str(args.run_seconds), goal]
    started = time.monotonic()
    run = Run()
    try:
        proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=args.run_seconds + 60)
        run.exit_code = proc.returncode
    except subprocess.TimeoutExpired:
        run.exit_code = -1
    run.seconds = time.monotonic() - started
    fold(ledger(home), run)
    return run


def fold(lines: list[dict], run: Run) -> None:
    def of(event: str) -> list[dict]:
        return [line for line in lines if line["event"] == event]

    outcomes = of("run_outcome")
    run.own_outcome = run.exit_code != -1 and bool(outcomes)
    tools_offered = {line["payload"]["call_id"] for line in of("model_request") if line["payload"].get("tools")}
    queued = {line["payload"]["call_id"] for line in of("model_queued")}
    for line in of("model_error"):
        payload = line["payload"]
        # Lost while still queued: the gate's own message (a call that got its
        # slot and was sent fails with "its time budget ran out" instead).
        if payload["kind"] == "deadline" and "waiting for the model" in payload["message"]:
            run.queued_deadline += 1
        elif payload["kind"] == "deadline" and payload["call_id"] in queued:
            run.cut_after_wait += 1
        if payload["kind"] == "not_started":
            run.not_started += 1
        if payload["kind"] == "interrupted":
            run.interrupted_failures += 1
    run.interrupted_failures += sum("empty reply" in line["payload"].get("reason", "") for line in of("agent_finished")
                                    if line["payload"]["status"] == "failed")
    for line in of("model_response"):
        payload = line["payload"]
        if payload["call_id"] in tools_offered:
            run.tool_replies += 1
            run.tool_calls_made += bool(payload["tool_calls"])
        if isinstance(payload.get("ttft_s"), (int, float)):
            run.ttft.append(payload["ttft_s"])
        if isinstance(payload.get("tokens_per_s"), (int, float)):
            run.speed.append(payload["tokens_per_s"])
    reports = [line["payload"] for line in of("worker_report")]
    run.reports, run.reports_read = len(reports), sum(r["status"] != "invalid" for r in reports)
    run.reports_by_paicli = sum(r.get("result", "").startswith("report written by paicli") for r in reports)
    verdicts = [line["payload"] for line in of("review_verdict")]
    run.verdicts = len(verdicts)
    run.verdicts_read = sum(not v["feedback"].startswith("Review verdict could not be read") for v in verdicts)
    changed = bool(of("checkpoint"))
    ok = bool(outcomes) and outcomes[-1]["payload"]["ok"]
    run.completed_nothing_done = ok and not of("tool_result") and not changed and lines[0:1] != []


SIZE_CODE = """
import json, pathlib, sys
from paicli_tui.config.settings import Settings
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.prompting.assembler import PromptAssembler
from paicli_tui.prompting.compact import compact_prompt, request_text, tool_view, tools_for
w = pathlib.Path(sys.argv[1])
schemas = ToolRegistry(w, Settings(provider="custom", base_url=sys.argv[2])).schemas()
assembler = PromptAssembler(w)
full = request_text(assembler.system_prompt("team-worker"), schemas)
offered = tool_view(tools_for("team-worker"))(schemas)
compact = request_text(compact_prompt(assembler, "team-worker"), offered)
print(json.dumps({"full": full, "compact": compact}))
"""


def request_size(server: LlamaServer, tree: Path, home: Path) -> dict[str, tuple[int, int | None]]:
    """A team worker's system prompt plus its tool schemas, with the full
    prompt (the before arm's) and the compact profile's (the after arm's),
    in characters and server tokens."""
    proc = subprocess.run([sys.executable, "-c", SIZE_CODE, str(home), server.base_url], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(tree), "PAICLI_HOME": str(home)})
    if proc.returncode != 0:
        print(f"request size not measured: {proc.stderr.strip().splitlines()[-1:]}")
        return {}
    sizes = {}
    for name, text in json.loads(proc.stdout).items():
        try:
            import httpx

            count = httpx.post(server.base_url.removesuffix("/v1") + "/extras/tokenize/count", json={"input": text},
                               timeout=30).json()["count"]
        except Exception:  # noqa: BLE001 - the size in characters still says something
            count = None
        sizes[name] = (len(text), count)
    return sizes


def mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None


def summary(runs: list[Run]) -> dict:
    total = lambda name: sum(getattr(r, name) for r in runs)  # noqa: E731
    return {
        "runs": len(runs), "own_outcome": total("own_outcome"), "queued_deadline": total("queued_deadline"),
        "not_started": total("not_started"), "cut_after_wait": total("cut_after_wait"),
        "interrupted_failures": total("interrupted_failures"),
        "tool_calls": f"{total('tool_calls_made')}/{total('tool_replies')}",
        "reports_read": f"{total('reports_read')}/{total('reports')}",
        "reports_by_paicli": total("reports_by_paicli"),
        "verdicts_read": f"{total('verdicts_read')}/{total('verdicts')}",
        "completed_nothing_done": total("completed_nothing_done"),
        "mean_s": mean([r.seconds for r in runs]),
        "mean_ttft_s": mean([t for r in runs for t in r.ttft]), "mean_tok_s": mean([t for r in runs for t in r.speed]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="5 goals, 120 s a run (default: --quick, 2 goals, 45 s)")
    parser.add_argument("--goals", type=int)
    parser.add_argument("--run-seconds", type=int)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--max-turns", type=int, default=4)
    parser.add_argument("--before-ref", default="e7a252f",
                        help="git ref of the before arm, or 'switches' for this tree with the new behaviour off")
    parser.add_argument("--keep", type=Path, help="keep every run's PAICLI_HOME and workspace under this folder")
    args = parser.parse_args()
    args.goals = args.goals or (5 if args.full else 2)
    args.run_seconds = args.run_seconds or (120 if args.full else 45)
    problem = missing()
    if problem:
        print(f"cannot run: {problem}")
        return 2
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda signum, frame: sys.exit(128 + signum))
    modes = [m for m in args.modes.split(",") if m in MODES]
    results: dict[tuple[str, str], list[Run]] = {}
    with tempfile.TemporaryDirectory(prefix="paicli-local-models-") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        if args.before_ref == "switches":
            arms = {"before": (ROOT, SWITCHED_OFF), "after": (ROOT, {})}
        else:
            arms = {"before": (before_tree(args.before_ref, root), {}), "after": (ROOT, {})}
        with LlamaServer(log=root / "server.log", n_ctx=4096) as server:
            for mode in modes:
                for n, goal in enumerate(GOALS[: args.goals], 1):
                    for arm, (tree, env) in arms.items():
                        run = run_once(server.base_url, goal, mode, tree, env, root / f"{mode}-{n}-{arm}", args)
                        results.setdefault((mode, arm), []).append(run)
                        print(f"{mode:<5} {n} {arm:<6} exit={run.exit_code:<3} {run.seconds:6.1f} s "
                              f"tool calls {run.tool_calls_made}/{run.tool_replies} "
                              f"reports {run.reports_read}/{run.reports} verdicts {run.verdicts_read}/{run.verdicts}"
                              f"{' COMPLETED-with-nothing-done' if run.completed_nothing_done else ''}  {goal}", flush=True)
            (root / "sizes").mkdir(exist_ok=True)
            sizes = request_size(server, ROOT, root / "sizes")
    figures = {f"{mode}/{arm}": summary(runs) for (mode, arm), runs in results.items()}
    columns = ["runs", "own_outcome", "queued_deadline", "not_started", "cut_after_wait", "interrupted_failures", "tool_calls", "reports_read",
               "reports_by_paicli", "verdicts_read", "completed_nothing_done", "mean_s", "mean_ttft_s", "mean_tok_s"]
    print()
    print("| mode/arm | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in figures.items():
        print(f"| {name} | " + " | ".join(str(row[c]) for c in columns) + " |")
    print()
    for name, (chars, tokens) in sizes.items():
        print(f"worker request, {name} profile (system prompt + tool schemas): {chars} characters, "
              f"{tokens if tokens is not None else '?'} tokens")
    figures["worker_request"] = {name: {"chars": c, "tokens": t} for name, (c, t) in sizes.items()}
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
