"""Plans on a real local model, before and after issue 16 (its "done means").

One run of this bench starts one real llama.cpp server (llama-cpp-python's,
tests/real_server/install.sh) with the SmolLM2-135M GGUF and, for ten fixed
goals, runs `paicli run --mode plan --yes` as a subprocess twice per goal,
the two arms interleaved so both meet the same server in the same state:

- before: ``PAICLI_STRUCTURED_OUTPUT=off PAICLI_PLAN_REPAIRS=0
  PAICLI_REPORT_REPAIRS=0`` (no schema sent, planning fails at the first
  rejection: what the product did when the issue was filed);
- after: the defaults (the llamacpp preset's schema form, one repair).

Both arms share the bounds that keep a run short (the same in both, so
they decide nothing): planner replies at most ``--planner-tokens`` tokens,
task replies ``--task-tokens``, ``--max-turns`` model calls per task and
``--run-seconds`` per run.

Measured per arm: the share of runs whose plan was accepted (a
``plan_version`` line of origin initial: the strict reader took it, after
its repair if one was needed), the share that completed (``run_outcome`` ok), and of those
the ones where no task was cut short by a budget (a task stopped by its
turn or time limit still completes, with a partial result). For each
rejection the ledger's error is kept, and printed with ``--why``.

    python bench/local_plans.py [--goals 10] [--why]

With ``--before-ref REF`` the arms are instead the tree of REF (extracted
with ``git archive``) and this tree, both with their defaults: what a change
of this tree did to planning. ``--plan-only`` stops every run at its plan
(no ``--yes``: the plan review reads the end of its input and cancels), so
only the planner's calls are measured.

The last line is one JSON object with both arms' figures and the ratios.
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

GOALS = (
    "Count the lines in notes.txt",
    "Add a short usage section to README.md",
    "Find every TODO comment in the Python files",
    "Write hello.py that prints hello world, then run it",
    "Rename the function greet in app.py to welcome",
    "List the files in this folder and describe each in one line",
    "Add a test for the add function in app.py",
    "Check whether notes.txt mentions beta",
    "Write a CHANGELOG.md with one entry for version 0.1",
    "Explain what app.py does",
)

WORKSPACE = {
    "notes.txt": "alpha\nbeta\ngamma\n",
    "README.md": "# demo\n\nA tiny project.\n",
    "app.py": "def greet(name):\n    # TODO: handle empty names\n    return f'hello {name}'\n\n\ndef add(a, b):\n    return a + b\n",
}

ARMS = {
    "before": {"PAICLI_STRUCTURED_OUTPUT": "off", "PAICLI_PLAN_REPAIRS": "0", "PAICLI_REPORT_REPAIRS": "0"},
    "after": {},
}


@dataclass
class Outcome:
    accepted: bool
    completed: bool
    #: Completed with no task cut short by a budget (its result partial).
    whole: bool
    seconds: float
    repairs: int
    #: Time to the planner's first token on its first call (None: not recorded).
    planner_ttft: float | None = None
    rejections: list[str] = field(default_factory=list)
    exit_code: int = 0


def before_tree(ref: str, into: Path) -> Path:
    """The files of git ``ref`` of this repository, under ``into``."""
    target = into / "before-tree"
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def run_once(base_url: str, goal: str, arm: str, root: Path, args: argparse.Namespace,
             tree: Path = ROOT, arm_env: dict | None = None) -> Outcome:
    home, workspace = root / "home", root / "ws"
    workspace.mkdir(parents=True)
    for name, text in WORKSPACE.items():
        (workspace / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAICLI_") and not k.endswith("_API_KEY")}
    env.update({
        "PAICLI_HOME": str(home), "PYTHONPATH": str(tree),
        "PAICLI_PLANNER_MAX_TOKENS": str(args.planner_tokens), "PAICLI_TASK_MAX_TOKENS": str(args.task_tokens),
        **(ARMS[arm] if arm_env is None else arm_env),
    })
    approve = [] if args.plan_only else ["--yes"]
    command = [
        sys.executable, "-m", "paicli_tui", "run", "--mode", args.mode, *approve, "--provider", "llamacpp",
        "--base-url", base_url, "--model", "local", "--workspace", str(workspace),
        "--max-turns", str(args.max_turns), "--run-max-seconds", str(args.run_seconds), goal,
    ]
    started = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=workspace, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=args.run_seconds + 120)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        code = -1
    seconds = time.monotonic() - started
    lines = ledger(home)
    named = lambda event: [line["payload"] for line in lines if line["event"] == event]  # noqa: E731
    outcome = named("run_outcome")
    completed = bool(outcome) and bool(outcome[-1]["ok"])
    cut = [line for line in lines if line["event"] == "agent_finished" and line["actor"].startswith("task_")
           and line["payload"]["status"] != "final"]
    return Outcome(
        accepted=any(p["origin"] == "initial" for p in named("plan_version")),
        completed=completed,
        whole=completed and not cut,
        seconds=seconds,
        repairs=len([p for p in named("repair_requested") if p["kind"] == "plan"]),
        planner_ttft=next((line["payload"].get("ttft_s") for line in lines
                           if line["event"] == "model_response" and line["actor"] == "planner"), None),
        rejections=[p["error"] for p in named("plan_rejected")],
        exit_code=code,
    )


def ledger(home: Path) -> list[dict]:
    lines = []
    for path in sorted((home / "history" / "raw").glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            try:
                lines.append(json.loads(raw))
            except json.JSONDecodeError:
                continue
    return lines


def mean_ttft(outcomes: list[Outcome]) -> str:
    values = [o.planner_ttft for o in outcomes if isinstance(o.planner_ttft, (int, float))]
    return f"{sum(values) / len(values):.1f}" if values else "?"


def share(outcomes: list[Outcome], what: str) -> int:
    return sum(getattr(o, what) for o in outcomes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=len(GOALS))
    parser.add_argument("--planner-tokens", type=int, default=1024)
    parser.add_argument("--task-tokens", type=int, default=512)
    parser.add_argument("--max-turns", type=int, default=4)
    parser.add_argument("--run-seconds", type=int, default=180)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--mode", choices=("plan", "team"), default="plan", help="whose planner is measured")
    parser.add_argument("--before-ref", help="compare the tree of this git ref with this tree, both with defaults")
    parser.add_argument("--plan-only", action="store_true", help="stop every run at its plan")
    parser.add_argument("--why", action="store_true", help="print every rejection the ledgers recorded")
    parser.add_argument("--keep", type=Path, help="keep every run's PAICLI_HOME and workspace under this folder")
    args = parser.parse_args()
    problem = missing()
    if problem:
        print(f"cannot run: {problem}")
        return 2
    for number in (signal.SIGTERM, signal.SIGHUP):
        # Unwind, so the server (its own process group) is stopped too.
        signal.signal(number, lambda signum, frame: sys.exit(128 + signum))
    goals = GOALS[: args.goals]
    with tempfile.TemporaryDirectory(prefix="paicli-local-plans-") as tmp:
        root = args.keep or Path(tmp)
        arms = {arm: (ROOT, env) for arm, env in ARMS.items()}
        if args.before_ref:
            arms = {"before": (before_tree(args.before_ref, root), {}), "after": (ROOT, {})}
        results: dict[str, list[Outcome]] = {arm: [] for arm in arms}
        with LlamaServer(log=root / "server.log", n_ctx=args.n_ctx) as server:
            for n, goal in enumerate(goals, 1):
                for arm, (tree, arm_env) in arms.items():
                    outcome = run_once(server.base_url, goal, arm, root / f"{n}-{arm}", args, tree, arm_env)
                    results[arm].append(outcome)
                    print(f"{n:>2} {arm:<6} accepted={'yes' if outcome.accepted else 'no ':<3} "
                          f"completed={'yes' if outcome.completed else 'no ':<3} "
                          f"uncut={'yes' if outcome.whole else 'no ':<3} repairs={outcome.repairs} "
                          f"exit={outcome.exit_code} {outcome.seconds:6.1f} s  {goal}", flush=True)
                    if args.why:
                        for error in outcome.rejections:
                            print(f"      rejected: {error[:300]}", flush=True)
    print()
    print("| arm | plan accepted | run completed | completed, no task cut by a budget | plan repairs asked | mean s/run "
          "| planner's first token, mean s |")
    print("|---|---|---|---|---|---|---|")
    for arm, outcomes in results.items():
        count = len(outcomes)
        print(f"| {arm} | {share(outcomes, 'accepted')}/{count} | {share(outcomes, 'completed')}/{count} | "
              f"{share(outcomes, 'whole')}/{count} | {sum(o.repairs for o in outcomes)} | "
              f"{sum(o.seconds for o in outcomes) / count:.1f} | {mean_ttft(outcomes)} |")
    figures = {arm: {"runs": len(o), "accepted": share(o, "accepted"), "completed": share(o, "completed"),
                     "uncut": share(o, "whole")} for arm, o in results.items()}
    for what in ("accepted", "completed"):
        before, after = figures["before"][what], figures["after"][what]
        figures[f"{what}_ratio"] = round(after / before, 2) if before else None
        print(f"{what}: after/before = {after}/{before}" + (f" = {after / before:.2f}" if before else " (before: none)"))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
