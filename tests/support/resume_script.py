"""A scripted model for the crash-safety tests: every answer decided by the
request's content, never by arrival order, so a run killed anywhere and
resumed ends in the same state as one that was not.

A worker (or /plan task agent) writes ``<id>.txt`` with a fixed content and
then reports; a reviewer rejects the first review of ``reject`` and approves
everything else. Each reply waits ``delay`` seconds, so a kill lands in the
middle of things. ``requests`` records (agent, task id) per model call."""

from __future__ import annotations

import json
import re
import threading

from paicli_tui.llm.offline.scripted import RecordedRequest, Reply

OWN_ID = re.compile(r"(?:Your step|Current task): ((?:step|task)_\d+)")
REVIEWED = re.compile(r"^Step (step_\d+) ", re.M)


def content_of(task_id: str) -> str:
    return f"written by {task_id}\n" + "".join(f"line {i} of {task_id}\n" for i in range(5))


def plan_reply(kind: str, steps: list[tuple[str, list[int]]]) -> Reply:
    key, prefix = ("steps", "s") if kind == "team" else ("tasks", "t")
    entries = [{"id": f"{prefix}{i}", "description": d, "dependencies": [f"{prefix}{n}" for n in deps],
                **({"type": "ANALYSIS"} if kind == "plan" else {})} for i, (d, deps) in enumerate(steps, 1)]
    return Reply(content=json.dumps({"summary": "the plan", key: entries}))


class ResumeScript:
    def __init__(self, kind: str, steps: list[tuple[str, list[int]]], *, reject: str = "", delay: float = 0.15):
        self.kind = kind
        self.plan = plan_reply(kind, steps)
        self.reject = reject
        self.delay = delay
        self.reviews: dict[str, int] = {}
        self.requests: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Reply:
        agent = request.agent
        messages = request.messages
        if agent == "planner":
            with self._lock:
                self.requests.append((agent, ""))
            return self.plan
        if agent.startswith("reviewer"):
            text = str(messages[-1].get("content", "")) if messages else ""
            found = REVIEWED.search(text)
            step = found.group(1) if found else "?"
            with self._lock:
                self.requests.append((agent, step))
                self.reviews[step] = self.reviews.get(step, 0) + 1
                first = self.reviews[step] == 1
            if step == self.reject and first:
                return Reply(content=json.dumps({"approved": False, "issues": ["try again"]}), delay=self.delay)
            return Reply(content='{"approved": true, "summary": "good", "issues": []}', delay=self.delay)
        first_user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        found = OWN_ID.search(first_user)
        own = found.group(1) if found else "?"
        with self._lock:
            self.requests.append((agent, own))
        last = messages[-1] if messages else {}
        if last.get("role") != "tool" and request.tools:
            return Reply(tool_calls=[("write_file", {"path": f"{own}.txt", "content": content_of(own)})],
                         delay=self.delay)
        if self.kind == "team":
            return Reply(content=json.dumps({"status": "completed", "result": f"{own} written"}), delay=self.delay)
        return Reply(content=f"{own} written", delay=self.delay)

    def asked_about(self, task_id: str, since: int = 0) -> list[str]:
        """Agents asked about ``task_id`` from request number ``since`` on."""
        with self._lock:
            return [agent for agent, task in self.requests[since:] if task == task_id]
