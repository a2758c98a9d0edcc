"""The JSON report of a run (`paicli run --json`'s last line, `paicli report`).

Times are epoch seconds from the ledger's ``ts``; tokens count prompt (cached
included), completion and cached tokens; cost uses the prices recorded with
the run (else the configured ones) and is 0.0 when no price is known.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from paicli_tui.records.run_record import RunRecord, build_run
from paicli_tui.records.run_views import TaskView
from paicli_tui.records.runs import load, split_runs

_NOT_DONE = ("FAILED", "BLOCKED", "SKIPPED", "CANCELLED", "PENDING", "RUNNING", "CONFLICT")


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def _verdicts(task: TaskView) -> list[dict]:
    return [{"attempt": a.number, "approved": a.verdict.approved, "feedback": a.verdict.feedback,
             "reviewer": a.verdict.reviewer} for a in task.attempts if a.verdict is not None]


def task_entry(task: TaskView) -> dict:
    return {
        "id": task.id,
        "plan_version": task.version,
        "description": task.description,
        "dependencies": task.dependencies,
        "status": task.status,
        "attempts": max((a.number for a in task.attempts), default=0),
        "verdicts": _verdicts(task),
        "tokens": task.spent.to_dict(),
        "cost": round(task.spent.cost, 6),
        "started": _round(task.started),
        "finished": _round(task.finished),
        "worker": task.worker,
        "result": task.result,
        "error": task.error,
        # With isolation: what the task's last attempt changed and whether it was merged.
        "files": task.changed[0] if task.changed else None,
        "added": task.changed[1] if task.changed else None,
        "removed": task.changed[2] if task.changed else None,
        "merged": task.merged,
        # Commit ids in the session's shadow repository: the task's diff is base..result.
        "base_commit": task.base_commit or None,
        "result_commit": task.result_commit or None,
        "conflicts": task.conflicts,
        "check": task.check or None,
        "checks": [{"attempt": a.number, "command": a.check.command, "exit_code": a.check.exit_code,
                    "passed": a.check.passed, "duration_s": a.check.duration_s, "stopped": a.check.stopped,
                    "output_sha256": a.check.output_sha256, "output_tail": a.check.output_tail}
                   for a in task.attempts if a.check is not None],
        "receipts": [{"attempt": a.number, "reviewer": a.receipts.reviewer, "tool_calls": a.receipts.tool_calls,
                      "commands": list(a.receipts.commands), "check": a.receipts.check,
                      "flags": list(a.receipts.flags)}
                     for a in task.attempts if a.receipts is not None],
    }


def exit_reason(record: RunRecord) -> str:
    outcome = record.outcome
    if outcome is None:
        return "unfinished: the ledger ends before the run did"
    if outcome.get("ok"):
        return "final answer" if record.kind == "react" else "every task completed"
    if record.cancelled or outcome.get("status") in ("cancelled", "CANCELLED"):
        return f"cancelled: {outcome.get('text') or 'by the user'}"
    if record.limit_reason:
        return f"stopped: {record.limit_reason}"
    if record.kind == "react":
        finish = record.last_agent_finish
        detail = finish.get("reason") or outcome.get("text") or ""
        return f"answer {outcome.get('status')}: {detail}".rstrip(": ")
    failed = [t for t in record.tasks.values() if t.status in ("FAILED", "BLOCKED")]
    if failed:
        return "; ".join(f"{t.id} {t.status}: {t.error}".rstrip(": ") for t in failed)
    not_done = [t for t in record.tasks.values() if t.status in _NOT_DONE]
    if not_done:
        return "not every task completed: " + ", ".join(f"{t.id} {t.status}" for t in not_done)
    return str(outcome.get("text") or outcome.get("status") or "failed")


def _answer(record: RunRecord, outcome: Mapping[str, Any]) -> str:
    """The run's answer in full: a ReAct turn's final text, a plan's or
    team's run_finished answer."""
    if record.kind == "react":
        return str(outcome.get("text", "")) if outcome.get("status") in ("final", "partial") else ""
    return str((record.finished or {}).get("answer", ""))


def run_report(record: RunRecord, *, session: str = "", ledger: str = "") -> dict:
    outcome = record.outcome or {}
    totals = record.totals
    counts: dict[str, int] = {}
    for task in record.tasks.values():
        counts[task.status.lower()] = counts.get(task.status.lower(), 0) + 1
    duration = (record.last_ts - record.first_ts) if record.first_ts is not None and record.last_ts is not None else None
    return {
        "event": "report",
        "session": session,
        "ledger": ledger,
        "run": record.index,
        "kind": record.kind,
        "goal": record.goal,
        "ok": bool(outcome.get("ok", False)),
        "status": outcome.get("status", "unfinished"),
        "text": outcome.get("text", ""),
        "exit_code": (0 if outcome.get("ok") else 1) if record.outcome is not None else None,
        "exit_reason": exit_reason(record),
        "limits": record.limits,
        "prices": record.prices,
        "schedule": record.schedule,
        "plan_versions": [
            {"version": v.version, "origin": v.origin, "goal": v.goal, "line": v.line, "plan": v.plan}
            for v in record.versions
        ],
        "tasks": [task_entry(task) for task in record.tasks.values()],
        "agents": {
            name: {**spent.to_dict(), "calls": spent.calls, "cost": round(spent.cost, 6)}
            for name, spent in record.agents.items()
        },
        "summary": (record.finished or {}).get("summary", ""),
        "answer": _answer(record, outcome),
        "totals": {
            "tasks": counts,
            "tokens": totals.to_dict(),
            "cost": round(totals.cost, 6),
            "model_calls": totals.calls,
            "calls_without_usage": totals.unreported,
            "calls_estimated": totals.estimated,
            "mean_ttft_s": round(totals.ttft_s / totals.ttft_calls, 2) if totals.ttft_calls else None,
            "mean_tokens_per_s": round(totals.tokens_per_s / totals.speed_calls, 1) if totals.speed_calls else None,
            "tool_calls": record.tool_calls,
            "replans": record.replans,
            "retries": record.retries,
            "started": _round(record.first_ts),
            "finished": _round(record.last_ts),
            "duration_s": _round(duration),
        },
    }


def session_workspace(path: Path, warnings: list[str] | None = None) -> str:
    """The workspace the session at ``path`` worked in ("" when its ledger
    does not say): `paicli report` reads the tasks' diffs from its shadow."""
    head, _ = split_runs(load(path, warnings))
    return next((str(line.payload.get("workspace") or line.data.get("workspace") or "")
                 for line in head if line.event == "session_started"), "")


def session_reports(path: Path, prices: Mapping[str, Any] | None = None, warnings: list[str] | None = None) -> list[dict]:
    """One report per run in the ledger at ``path``, in order."""
    _, runs = split_runs(load(path, warnings))
    session = path.stem
    return [run_report(build_run(run, prices), session=session, ledger=str(path)) for run in runs]


def final_report(path: Path, outcome: Any, prices: Mapping[str, Any] | None = None) -> dict:
    """`paicli run --json`'s last line: the report of the run just ended,
    built from its ledger like `paicli report`; the outcome's fields win
    if the ledger cannot be read."""
    fields = {"kind": outcome.kind, "ok": outcome.ok, "status": outcome.status, "text": outcome.text,
              "session": path.stem, "ledger": str(path)}
    try:
        reports = session_reports(path, {k: _dump(v) for k, v in (prices or {}).items()})
    except OSError:
        reports = []
    if not reports:
        return {"event": "report", **fields, "exit_code": 0 if outcome.ok else 1}
    return {**reports[-1], **fields}


def _dump(price: Any) -> Any:
    return price.model_dump() if hasattr(price, "model_dump") else price
