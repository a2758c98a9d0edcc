"""The planner agent: goal → plan, amendment → revised plan, failure → replan
(P-4.1, P-4.2, P-4.6).

Every call is two messages (the planner system prompt and one user message
opening with the turn context) and offers no tools. A reply that breaks a
P-3.2 rule is recorded (``plan_rejected``) and sent back to the planner with
the exact error, at most ``repairs`` times, each announced
(``repair_requested``); nothing is ever fixed up by guessing. A reply cut at
the output limit is "truncated", not malformed, and its repair gets twice
the limit once. When no repair is left the last error is raised as
``PlanError`` for the person to see: no fallback to a ReAct turn, because a
guessed plan would run work nobody reviewed.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any, Callable, Protocol

from paicli_tui.events import EventBus, PlanProposed, PlanRejected, RepairRequested
from paicli_tui.llm.role_client import repair_request, truncated
from paicli_tui.llm.structured_output import response_format
from paicli_tui.llm.types import ChatResult
from paicli_tui.plan.executor import Replanner
from paicli_tui.plan.model import Plan, Task, TaskStatus
from paicli_tui.plan.edits import next_free_id
from paicli_tui.plan.parser import PlanError, parse_plan, plan_from_dict
from paicli_tui.plan.ordered_schema import LOCAL_MAX_STEPS, LOCAL_PLAN_FORM, ORDERED_PLAN_SCHEMA, PLAN_FORM
from paicli_tui.plan.schema import PLAN_REPLY_SCHEMA
from paicli_tui.prompting.assembler import with_turn_context
from paicli_tui.prompting.compact import compact_planner_prompt

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings

TOOL_CALL_ERROR = "planner answered with tool calls; this role has no tools; tool call not executed"


class PlannerToolCallError(PlanError):
    """The planner (a tool-less role) answered with tool calls (P-5.3)."""


class PlanTruncatedError(PlanError):
    """The planner's reply stopped at the output limit (finish_reason "length")."""


def planner_options(settings: "Settings") -> dict[str, Any]:
    """The Planner keywords the settings give: output limit, repairs and
    the plan schema as ``response_format`` where the server takes one."""
    kind = settings.response_format_kind()
    compact = settings.compact_profile()
    # The grammar rung sends the form registered under the name (8 steps
    # under the compact profile), also after a step-down from json_schema.
    form = LOCAL_PLAN_FORM if compact else PLAN_FORM
    return {
        "max_tokens": settings.planner_max_tokens,
        "repairs": settings.plan_repairs,
        "response_format": response_format(kind, form, plan_reply_schema(kind)),
        "max_steps": LOCAL_MAX_STEPS if compact else None,
        "compact": compact,
    }


def check_distinct_steps(plan: Plan, max_steps: int | None = None) -> None:
    """A model's plan may not repeat a step (a small model fills the allowed
    steps with three descriptions over and over) nor exceed ``max_steps``:
    PlanError, so the planner repairs it once with the exact error. Plans
    written by hand are not held to this (parse_plan)."""
    if max_steps is not None and len(plan.tasks) > max_steps:
        raise PlanError(f"the plan has {len(plan.tasks)} steps; at most {max_steps} are allowed")
    seen: dict[str, int] = {}
    for index, task in enumerate(plan.tasks):
        key = " ".join(task.description.casefold().split())
        if key in seen:
            first = plan.tasks[seen[key]]
            raise PlanError(f"repeats step {seen[key] + 1} (id {json.dumps(first.original_id)}): "
                            f"{task.description.strip()[:80]}", step_index=index, step_id=task.original_id,
                            field="description")
        seen[key] = index


def plan_reply_schema(kind: str) -> dict:
    """The plan schema for a ``response_format`` kind: the ordered form
    (ordered_schema.py) where the server decodes the schema as a grammar
    (llama.cpp's ``json_object_schema``), the flat one that strict
    json_schema servers take otherwise."""
    return ORDERED_PLAN_SCHEMA if kind == "json_object_schema" else PLAN_REPLY_SCHEMA


class ChatClientLike(Protocol):
    def chat(self, messages: list[dict], *, agent: str, tools: Any = None, cancel: Any = None,
             **options: Any) -> ChatResult: ...


class SystemPrompts(Protocol):
    def system_prompt(self, role: str) -> str: ...

    def prompt_file(self, relative: str) -> str: ...

    def project_text(self) -> str: ...


class Planner:
    def __init__(
        self,
        client: ChatClientLike,
        assembler: SystemPrompts,
        *,
        agent: str = "planner",
        role: str = "planner",
        id_prefix: str = "task",
        bus: EventBus | None = None,
        deadline: Callable[[], float | None] | None = None,
        max_tokens: int | None = None,
        repairs: int = 0,
        response_format: dict | None = None,
        max_steps: int | None = None,
        compact: bool = False,
    ) -> None:
        self.client = client
        #: The compact local profile: the short planner prompt.
        self.compact = compact
        #: The most steps a plan may have (the compact local profile: 8).
        self.max_steps = max_steps
        self.max_tokens = max_tokens
        #: How many times a rejected reply is sent back with its error.
        self.repairs = repairs
        self.response_format = response_format
        #: The run's time limit (``RunBudget.deadline``): a slow planner call
        #: is cut there like any agent's.
        self.deadline = deadline
        self.assembler = assembler
        self.agent = agent
        self.role = role
        self.id_prefix = id_prefix
        self.bus = bus
        #: The number of the last plan version this planner proposed.
        self.version = 0

    def create(self, goal: str, cancel: threading.Event | None = None) -> Plan:
        plan = self._ask(f"Make a plan for: {goal}", "initial", cancel)
        plan.goal = goal
        self._propose(plan, "initial")
        return plan

    def revise(self, plan: Plan, goal: str, amendment: str, cancel: threading.Event | None = None) -> Plan:
        """The full revised plan; its goal becomes ``GOAL\\nAmendment: …``."""
        text = (
            f"Goal: {goal}\n\n"
            f"Current plan (JSON):\n{json.dumps(plan.to_dict(), indent=2, ensure_ascii=False)}\n\n"
            "Change only what the amendment below affects, keep every other task exactly as it is, "
            "keep every task's id, give a new task the next id after the highest, "
            "and return the full revised plan in the same format.\n"
            f"Amendment: {amendment}"
        )
        # Ids stay as the person saw them (a hand-added task_5 stays task_5);
        # renumbering happens once, when the plan runs.
        revised = with_stable_ids(self._ask(text, "amendment", cancel, renumber=False), plan, self.id_prefix)
        revised.goal = f"{goal}\nAmendment: {amendment}"
        self._propose(revised, "amendment")
        return revised

    def replan(
        self, goal: str, plan: Plan, failed_task: Task, reason: str, cancel: threading.Event | None = None
    ) -> Plan:
        """A new plan for the remaining work. Not announced here: the executor
        publishes the replan version when it adopts it."""
        revised = self._ask(replan_message(goal, plan, failed_task, reason), "replan", cancel)
        revised.goal = goal
        return revised

    def replanner(self, goal: str, cancel: threading.Event | None = None) -> Replanner:
        """``replan`` shaped for ``PlanExecutor(replanner=…)``."""

        def replan(plan: Plan, failed_task: Task, reason: str) -> Plan:
            return self.replan(goal, plan, failed_task, reason, cancel)

        return replan

    def _ask(self, text: str, origin: str, cancel: threading.Event | None, *, renumber: bool = True) -> Plan:
        messages = [
            {"role": "system", "content": self._system_prompt()},
            {"role": "user", "content": with_turn_context(text)},
        ]
        limit, doubled = self.max_tokens, False
        for repair in range(1, self.repairs + 2):
            reply = self.client.chat(messages, agent=self.agent, tools=None, cancel=cancel, **self._options(limit))
            try:
                return self._read(reply, limit, renumber)
            except PlanError as exc:
                self._publish(PlanRejected(self.agent, origin, str(exc)))
                # A tool call is refused, not repaired: its history would need
                # tool results for calls that were never run.
                if repair > self.repairs or isinstance(exc, PlannerToolCallError):
                    raise
                if isinstance(exc, PlanTruncatedError) and limit and not doubled:
                    limit, doubled = limit * 2, True
                self._publish(RepairRequested(self.agent, "plan", repair, str(exc)))
                messages = [*messages, {"role": "assistant", "content": reply.content},
                            {"role": "user", "content": repair_request(str(exc))}]
        raise AssertionError("unreachable: the last attempt raises")

    def _system_prompt(self) -> str:
        if self.compact:
            return compact_planner_prompt(self.assembler, self.role)
        return self.assembler.system_prompt(self.role)

    def _options(self, limit: int | None) -> dict[str, Any]:
        """What a call carries besides the messages; only what is set, so a
        client without these keywords still serves a planner without them."""
        ends = self.deadline() if self.deadline is not None else None
        given = {"deadline": ends, "max_tokens": limit, "response_format": self.response_format}
        return {key: value for key, value in given.items() if value is not None}

    def _read(self, reply: ChatResult, limit: int | None, renumber: bool = True) -> Plan:
        if reply.tool_calls:
            raise PlannerToolCallError(TOOL_CALL_ERROR)
        if reply.finish_reason == "length":
            raise PlanTruncatedError(truncated("planner reply", limit or reply.usage.completion_tokens))
        plan = parse_plan(reply.content, self.id_prefix, renumber=renumber)
        check_distinct_steps(plan, self.max_steps)
        return plan

    def _publish(self, event) -> None:
        if self.bus is not None:
            self.bus.publish(event)

    def announce(self, plan: Plan, origin: str) -> None:
        """Publish a plan version this planner did not write itself: a plan
        file (``file``) or a hand edit from the review screen (``edit``)."""
        self._propose(plan, origin)

    def _propose(self, plan: Plan, origin: str) -> None:
        self.version += 1
        if self.bus is not None:
            self.bus.publish(PlanProposed(self.agent, self.version, origin, plan.goal, plan.to_dict()))


def with_stable_ids(revised: Plan, current: Plan, prefix: str) -> Plan:
    """``revised`` with every id of ``current`` kept and each other id (a
    task the planner added, whatever it called it) given the next free
    ``{prefix}_N``, so no new task takes an id the person already knew. A
    reply that kept none of the ids (a planner naming tasks its own way) is
    numbered in order instead."""
    kept = set(current.ids)
    data = revised.to_dict()
    tasks = data["tasks"]
    if not kept & set(revised.ids):
        numbered = plan_from_dict(data, prefix)
        numbered.goal = revised.goal
        return numbered
    renamed: dict[str, str] = {}
    known = {**current.to_dict(), "tasks": [t for t in tasks if t["id"] in kept]}
    for task in tasks:
        if task["id"] not in kept:
            renamed[task["id"]] = next_free_id(known, prefix, [*current.ids, *renamed.values()])
            known["tasks"].append({**task, "id": renamed[task["id"]]})
    if not renamed:
        return revised
    for task in tasks:
        task["id"] = renamed.get(task["id"], task["id"])
        task["dependencies"] = [renamed.get(dep, dep) for dep in task["dependencies"]]
    stable = plan_from_dict(data, prefix, renumber=False)
    stable.goal = revised.goal
    return stable


def replan_message(goal: str, plan: Plan, failed_task: Task, reason: str) -> str:
    """The replan request: the goal, what completed (with full results), what
    failed and why. The new plan cannot depend on old ids, so the planner is
    told to carry what a new task needs into its description."""
    lines = [f"Goal: {goal}", "", f"Executing the plan below, task {failed_task.id} failed.", f"Failure reason: {reason}", ""]
    done = [task for task in plan.tasks if task.status is TaskStatus.COMPLETED]
    lines.append("Completed tasks and their results:" if done else "Completed tasks: none")
    for task in done:
        lines += [f"- {task.id}: {task.description}", "  Result:", task.result or "(no result)"]
    lines += ["", "The plan as it stood (JSON, with statuses):", json.dumps(_with_statuses(plan), indent=2, ensure_ascii=False)]
    lines += [
        "",
        "Make a new plan for the remaining work only. Completed tasks are done: do not repeat them. "
        "A task of the new plan sees only the results of its dependencies in the new plan, so write into "
        "its description whatever it needs from the completed results above. Avoid what made "
        f"{failed_task.id} fail. Return the full new plan in the same format.",
    ]
    return "\n".join(lines)


def _with_statuses(plan: Plan) -> dict:
    data = plan.to_dict()
    for entry, task in zip(data["tasks"], plan.tasks):
        entry["status"] = task.status.value
        if task.error:
            entry["error"] = task.error
    return data
