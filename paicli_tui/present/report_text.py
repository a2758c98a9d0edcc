"""`paicli report` for people: a table per run, totals, the schedule, a text
timeline of the workers, then each task's full result; the same as
Markdown for a pull request. Both are built from the JSON report
(records/report.py), so the three forms never disagree. With isolation the
table says what each task changed and whether it was merged, and each
task's diff follows its result when the caller read it (a task's ``diff``)."""

from __future__ import annotations

from typing import Iterable

from paicli_tui.present.figures import format_changes, format_cost, format_tokens, merge_word
from paicli_tui.records.sessions import outcome_word

#: Columns of the timeline's bars (the lanes' names come before them).
TIMELINE_COLUMNS = 60
_DESCRIPTION_CHARS = 40


def _seconds(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.1f} s" if value < 60 else f"{int(value // 60)}:{int(value % 60):02d}"


def _cost(value: float, priced: bool) -> str:
    return format_cost(value) if priced else "–"


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _verdicts(task: dict) -> str:
    return " ".join("✓" if v.get("approved") else "✗" for v in task.get("verdicts", [])) or "–"


def _duration(task: dict) -> float | None:
    if task.get("started") is None or task.get("finished") is None:
        return None
    return max(0.0, task["finished"] - task["started"])


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def token_figure(used: int, cached: int, totals: dict) -> str:
    """Tokens as counted: ``≈`` when paicli counted some calls itself (the
    server sent no usage), "unknown" when nobody counted them, never a 0
    that was not measured."""
    calls = int(totals.get("model_calls", 0))
    unreported = int(totals.get("calls_without_usage", 0))
    estimated = int(totals.get("calls_estimated", 0))
    if calls and unreported == calls:
        return f"tokens unknown ({_count(calls, 'call', 'calls')} without usage)"
    figure = f"{format_tokens(used, ' tokens')} ({format_tokens(cached, '')} cached)"
    if estimated:
        figure = f"≈{figure[:-1]}; estimated for {estimated} of {calls} calls)"
    if unreported:
        figure += f", {unreported} more without usage"
    return figure


def headline(report: dict) -> list[str]:
    totals = report.get("totals", {})
    tokens = totals.get("tokens", {})
    used = int(tokens.get("prompt", 0)) + int(tokens.get("completion", 0))
    priced = bool(report.get("prices"))
    exit_code = report.get("exit_code")
    facts = [f"exit {exit_code if exit_code is not None else '–'}: {report.get('exit_reason', '')}",
             _seconds(totals.get("duration_s")),
             token_figure(used, int(tokens.get("cached", 0)), totals),
             f"cost {_cost(float(totals.get('cost', 0.0)), priced)}" + ("" if priced else " (no price known)"),
             _count(int(totals.get("model_calls", 0)), "model call", "model calls"),
             _count(int(totals.get("tool_calls", 0)), "tool call", "tool calls")]
    if report.get("kind") != "react":
        facts += [_count(int(totals.get("retries", 0)), "retry", "retries"),
                  _count(int(totals.get("replans", 0)), "replan", "replans")]
    if totals.get("mean_ttft_s") is not None:
        facts.append(f"first token {totals['mean_ttft_s']:.1f} s")
    if totals.get("mean_tokens_per_s") is not None:
        facts.append(f"{totals['mean_tokens_per_s']:.0f} tok/s")
    lines = [f"run {report.get('run', '?')} · {report.get('kind', '?')} · "
             f"{outcome_word(str(report.get('status', '')))} · {report.get('goal', '')}",
             "  " + " · ".join(facts[:4]), "  " + " · ".join(facts[4:])]
    schedule = report.get("schedule") or {}
    if schedule:
        lines.append(f"  schedule: {schedule.get('policy', '?')} · parallelism {schedule.get('parallelism', '?')} · "
                     f"workers {', '.join(schedule.get('workers', [])) or '–'}")
    return lines


def isolated(report: dict) -> bool:
    """Whether the run's tasks worked in their own trees (they recorded what they changed)."""
    return any(task.get("files") is not None for task in report.get("tasks", []))


def change_cells(task: dict) -> tuple[str, str]:
    """(files and lines changed, merged or not) of one task; "–" when it committed nothing."""
    if task.get("files") is None:
        return "–", "–"
    changed = (int(task["files"]), int(task.get("added") or 0), int(task.get("removed") or 0))
    word = merge_word(changed, bool(task.get("merged")), bool(task.get("conflicts")) and bool(task.get("merged")))
    return format_changes(*changed), {"merged": "yes", "nothing to merge": "–", "not merged": "no"}.get(
        word, "yes, after a conflict")


def task_rows(report: dict) -> list[tuple[str, ...]]:
    priced = bool(report.get("prices"))
    rows = []
    with_changes = isolated(report)
    for task in report.get("tasks", []):
        tokens = task.get("tokens", {})
        rows.append((task["id"], outcome_word(task.get("status", "")) if task.get("status") != "SKIPPED" else "skipped",
                     task.get("worker") or "–", str(task.get("attempts", 0)), _verdicts(task),
                     _seconds(_duration(task)), format_tokens(int(tokens.get("prompt", 0)) + int(tokens.get("completion", 0)), ""),
                     _cost(float(task.get("cost", 0.0)), priced),
                     *(change_cells(task) if with_changes else ()),
                     _cut(task.get("description", ""), _DESCRIPTION_CHARS)))
    return rows


TASK_HEADER = ("TASK", "STATUS", "WORKER", "TRIES", "VERDICTS", "TIME", "TOKENS", "COST", "DESCRIPTION")
CHANGES_HEADER = ("TASK", "STATUS", "WORKER", "TRIES", "VERDICTS", "TIME", "TOKENS", "COST", "CHANGES", "MERGED",
                  "DESCRIPTION")


def header(report: dict) -> tuple[str, ...]:
    return CHANGES_HEADER if isolated(report) else TASK_HEADER


def _table(rows: list[tuple[str, ...]], head: tuple[str, ...] = TASK_HEADER) -> list[str]:
    table = [head, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    right = {3, 5, 6, 7}
    return ["  ".join(cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
                      for i, cell in enumerate(row)).rstrip() for row in table]


def timeline(report: dict, columns: int = TIMELINE_COLUMNS) -> list[str]:
    """One lane per worker; each task a bar from its first dispatch to its
    end, labelled with its id where the bar is long enough."""
    tasks = [t for t in report.get("tasks", []) if t.get("started") is not None]
    if not tasks:
        return []
    start = min(t["started"] for t in tasks)
    end = max((t.get("finished") or t["started"]) for t in tasks)
    span = max(end - start, 1e-6)
    lanes: dict[str, list[str]] = {}
    for task in sorted(tasks, key=lambda t: t["started"]):
        lane = lanes.setdefault(task.get("worker") or "–", [" "] * columns)
        first = min(columns - 1, int((task["started"] - start) / span * columns))
        last = max(first, min(columns - 1, int(((task.get("finished") or end) - start) / span * columns) - 1))
        fill = "█" if task.get("status") == "COMPLETED" else "░"
        if first > 0 and lane[first - 1] != " " and last > first:
            first += 1  # a gap, so two tasks back to back read as two bars
        for col in range(first, last + 1):
            lane[col] = fill
        label = task["id"]
        if last - first + 1 >= len(label) + 2:
            for offset, char in enumerate(label):
                lane[first + 1 + offset] = char
    width = max(len(name) for name in lanes)
    lines = [f"{name.ljust(width)} │{''.join(cells)}│" for name, cells in sorted(lanes.items())]
    lines.append(f"{' ' * width}  0 s{_seconds(span).rjust(columns - 3)}")
    return [f"timeline, {_seconds(span)} from the first dispatch (█ completed, ░ not):", *lines]


def _results(report: dict) -> Iterable[tuple[str, str]]:
    """Each task's result, then the run's answer (a ReAct run: only that)."""
    if report.get("kind") != "react":
        for task in report.get("tasks", []):
            yield task["id"], task.get("result") or task.get("error") or "(no result)"
    answer = report.get("answer") or (report.get("text", "") if report.get("kind") == "react" else "")
    if answer or not report.get("tasks"):
        yield "answer", answer or report.get("text", "")


def _diffs(report: dict) -> Iterable[tuple[str, str]]:
    """(heading, diff) of each task whose diff was read."""
    for task in report.get("tasks", []):
        diff = task.get("diff")
        if diff:
            changed, merged = change_cells(task)
            yield f"{task['id']} diff · {changed} · merged: {merged}", diff


def receipt_lines(task: dict) -> list[str]:
    """A task's evidence, attempt by attempt: its check and its receipts."""
    checks = {c["attempt"]: c for c in task.get("checks") or []}
    receipts = {r["attempt"]: r for r in task.get("receipts") or []}
    lines = []
    for number in sorted({*checks, *receipts}):
        receipt, check = receipts.get(number), checks.get(number)
        parts = [f"attempt {number}"]
        if receipt is not None:
            parts.append(f"{receipt['tool_calls']} tool call{'s' if receipt['tool_calls'] != 1 else ''}")
            parts += [f"⚠ {flag}" for flag in receipt["flags"]]
        lines.append(" · ".join(parts))
        if check is not None:
            state = "passed" if check["passed"] else "FAILED"
            ended = check["stopped"] or f"exit {check['exit_code']}"
            lines.append(f"  check {state}: `{check['command']}` → {ended} in {check['duration_s']:.1f} s")
            if not check["passed"]:
                lines += [f"    {line}" for line in (check["output_tail"] or "(no output)").splitlines()[-10:]]
        for command in (receipt or {}).get("commands", []):
            lines.append(f"  $ {command}")
    return lines


def _receipts(report: dict) -> Iterable[tuple[str, list[str]]]:
    for task in report.get("tasks", []):
        # A task whose evidence is only a tool-call count says nothing the table does not.
        receipts = task.get("receipts") or []
        if not task.get("checks") and not any(r["flags"] or r["commands"] for r in receipts):
            continue
        lines = receipt_lines(task)
        if lines:
            yield f"{task['id']} receipts", lines


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest = current = 0
    for char in text:
        current = current + 1 if char == "`" else 0
        longest = max(longest, current)
    return "`" * max(3, longest + 1)


def render_text(reports: list[dict]) -> list[str]:
    out: list[str] = []
    for report in reports:
        if out:
            out.append("")
        out += headline(report)
        rows = task_rows(report)
        if rows:
            out += ["", *_table(rows, header(report))]
        lanes = timeline(report)
        if lanes:
            out += ["", *lanes]
        for name, text in _results(report):
            out += ["", f"── {name} ──", *(text.rstrip().splitlines() or ["(empty)"])]
        for name, lines in _receipts(report):
            out += ["", f"── {name} ──", *lines]
        for name, diff in _diffs(report):
            out += ["", f"── {name} ──", *diff.rstrip().splitlines()]
    return out


def render_markdown(reports: list[dict]) -> str:
    parts: list[str] = []
    for report in reports:
        head, *facts = headline(report)
        parts.append(f"### {head}\n")
        parts += [f"- {fact.strip()}" for fact in facts]
        rows = task_rows(report)
        if rows:
            head = header(report)
            parts.append("\n| " + " | ".join(head) + " |")
            parts.append("|" + "---|" * len(head))
            parts += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        lanes = timeline(report)
        if lanes:
            parts += ["", lanes[0], "", "```text", *lanes[1:], "```"]
        for name, text in _results(report):
            parts += ["", f"<details><summary>{name}</summary>", "", text.rstrip() or "(empty)", "", "</details>"]
        for name, lines in _receipts(report):
            parts += ["", f"<details><summary>{name}</summary>", "", "```text", *lines, "```", "", "</details>"]
        for name, diff in _diffs(report):
            fence = _fence(diff)
            parts += ["", f"<details><summary>{name}</summary>", "", f"{fence}diff", diff.rstrip(), fence, "",
                      "</details>"]
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"
