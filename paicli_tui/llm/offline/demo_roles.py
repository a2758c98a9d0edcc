"""What the demo model answers for each role: the interactive agent, a plan
task, a team worker and a team reviewer. Each answer is built from the request
alone, using what the real tools returned earlier in the conversation."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from paicli_tui.llm.offline.demo_conversation import Conversation, ToolOutcome
from paicli_tui.llm.offline.demo_findings import describe, headline, shorten
from paicli_tui.llm.offline.demo_intent import Intent, match_listing, read_intent
from paicli_tui.llm.offline.demo_tools import Call, Job, next_calls, react_calls

#: Written into a worker's retried result; the demo reviewer approves a result
#: carrying it, so exactly one rejection happens per step.
REVISED_MARKER = "Revised after review"
#: The step whose first attempt the demo reviewer rejects, so a retry is visible.
REJECTED_STEP = "step_2"
#: The only file the demo ever proposes to write, and only in ASK mode.
SCRATCH_FILE = "paicli-demo-scratch.md"

GREETING_REPLY = (
    "Hello! I am the offline demo model: I read your workspace with the real read-only tools and answer from "
    "what they return. Ask about a file (`explain @README.md`), a folder (`what is in tests`) or a name "
    "(`where is main`), or try `/plan` and `/team` to watch planning, parallel workers and review."
)
_STEP_LINE = re.compile(r"^(?:Your step|Current task):\s*\S+[^\n]*\n(.+)$", re.MULTILINE)
_STEP_ID = re.compile(r"\bstep_\d+\b")
_TITLE_FACT = re.compile(r"first heading “(.+?)”")
_DEPENDENCY_HEADER = re.compile(r"^- (?:step|task)_\d+\b")
_RETRY = re.compile(r"rejected by review(?:, reason:)?\s*(.*)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Turn:
    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[Call, ...] = field(default_factory=tuple)


# -- interactive agent ---------------------------------------------------------------


def react_turn(conversation: Conversation) -> Turn:
    question = conversation.last_user
    intent = read_intent(question, conversation.approval_mode)
    if intent.kind == "greeting":
        return Turn(reasoning="A greeting: nothing to look up.", content=GREETING_REPLY)
    calls = react_calls(conversation, intent)
    if calls:
        return Turn(reasoning=_thinking_before_tools(question, calls, conversation), tool_calls=tuple(calls))
    wants_change = intent.kind == "change"
    proposal = _scratch_proposal(conversation) if wants_change else None
    if proposal is not None:
        return Turn(reasoning="You asked for a change, and in ASK mode every write waits for your yes: I propose a "
                              "small one in a scratch file so you can try the approval dialog.",
                    tool_calls=(proposal,))
    written = [o for o in conversation.outcomes_this_turn() if o.name == "write_file"]
    if written:
        return Turn(reasoning="The write came back; I report what happened to it.",
                    content=_scratch_answer(written[-1].content))
    outcomes = [*intent.attached, *(conversation.outcomes_this_turn() or conversation.all_outcomes())]
    parts = []
    if wants_change:
        parts.append(
            "> **The demo model only reads.** It lists, reads and searches files; it never changes your files. "
            f"Switch to ASK mode (Shift+Tab) and ask again: it then proposes a small edit in `{SCRATCH_FILE}`, so "
            "you can try the approval dialog. Start `paicli` with a real provider (for example `--base-url` and "
            "`--model`) to make real changes.\n"
        )
    targeted = _targeted(intent, outcomes)
    if targeted:
        parts.append(_answer_opening(intent, targeted) + "\n")
        parts.extend(describe(outcome) for outcome in targeted)
        parts.append("\n" + _closing(outcomes))
    elif outcomes:
        parts.append((headline(outcomes) or "Here is what I found in the workspace.") + "\n")
        parts.extend(describe(outcome) for outcome in _most_telling_first(outcomes))
        parts.append("\n" + _closing(outcomes))
    else:
        parts.append(
            "I am the offline demo model, and no workspace tools were available for this question, so I have "
            "nothing concrete to report. Try `/plan` or `/team` to see planning, parallel workers and review."
        )
    return Turn(reasoning=_thinking_after_tools(outcomes), content="\n".join(parts))


def _targeted(intent: Intent, outcomes: list[ToolOutcome]) -> list[ToolOutcome]:
    """The results about what the question named (not the first look around)."""
    def target(outcome: ToolOutcome) -> str:
        return str(next(iter(outcome.arguments.values()), "")).rstrip("/") if outcome.arguments else ""

    if intent.kind == "search":
        return [o for o in outcomes if o.name == "grep_code"]
    if intent.kind == "path":
        wanted = {path.rstrip("/") for path in intent.targets}
        return [o for o in outcomes if target(o) in wanted]
    if intent.kind == "words":
        return [o for o in outcomes if target(o) not in ("", ".")
                and match_listing(intent.targets, [target(o).rsplit("/", 1)[-1] + ("/" if o.name == "list_dir" else "")])]
    return []


def _answer_opening(intent: Intent, targeted: list[ToolOutcome]) -> str:
    named = ", ".join(f"`{next(iter(o.arguments.values()), '')}`" for o in targeted)
    if intent.kind == "search":
        return f"I searched the workspace for `{intent.targets[0]}`:"
    return f"Here is what {named} holds:" if named else "Here is what I found:"


def _scratch_proposal(conversation: Conversation) -> Call | None:
    """A write to the demo's scratch file, only where the person will be
    asked first (ASK mode) and only once per turn."""
    if conversation.approval_mode != "ask" or not conversation.offers("write_file"):
        return None
    if any(o.name == "write_file" for o in conversation.outcomes_this_turn()):
        return None
    content = (
        "# paicli demo scratch\n\n"
        f"You asked: {shorten(conversation.last_user, 200)}\n\n"
        "The offline demo model proposed this file so you could try the approval dialog.\n"
        "Delete it whenever you like.\n"
    )
    return "write_file", {"path": SCRATCH_FILE, "content": content}


def _scratch_answer(result: str) -> str:
    last = result.rstrip().rsplit("\n", 1)[-1]
    if last.startswith(("created", "overwrote")):
        how = "with your edits" if result.startswith("[the person edited") else "after you approved it"
        return (f"Done: I wrote `{SCRATCH_FILE}` {how}. That is all the demo model changes; "
                "delete the file whenever you like.")
    return (f"Nothing changed: the write to `{SCRATCH_FILE}` did not happen ({shorten(result, 160)}). "
            "That is the approval dialog doing its job.")


# -- plan tasks and team workers ---------------------------------------------------------


def task_turn(conversation: Conversation) -> Turn:
    step = _step_text(conversation.first_user)
    calls = next_calls(job_for(step), conversation)
    if calls:
        return Turn(reasoning=_thinking_before_tools(step, calls, conversation), tool_calls=tuple(calls))
    return Turn(reasoning=_thinking_after_tools(conversation.all_outcomes()), content=_result_markdown(conversation, step))


def worker_turn(conversation: Conversation) -> Turn:
    step = _step_text(conversation.first_user)
    retry = _RETRY.search(conversation.last_user)
    if not retry:
        calls = next_calls(job_for(step), conversation)
        if calls:
            return Turn(reasoning=_thinking_before_tools(step, calls, conversation), tool_calls=tuple(calls))
    result = _result_markdown(conversation, step)
    reasoning = _thinking_after_tools(conversation.all_outcomes())
    if retry:
        feedback = " ".join(retry.group(1).replace("- ", " ").split()) or "no reason given"
        result = f"{REVISED_MARKER} (feedback: {shorten(feedback, 200)}): every fact below names the file it came from.\n\n{result}"
        reasoning = "The reviewer wants the evidence spelled out; I keep the findings and name each source."
    report = {"status": "completed", "result": result}
    return Turn(reasoning=reasoning, content=json.dumps(report, ensure_ascii=False))


def job_for(step: str) -> Job:
    lowered = step.lower()
    if re.search(r"config|pyproject|package\.json|setup\.cfg", lowered):
        return "config"
    if "readme" in lowered:
        return "readme"
    if re.search(r"summar|overview|purpose|analy", lowered):
        return "summary"
    if re.search(r"source|files|layout|structure|list", lowered):
        return "sources"
    return "survey"


def _step_text(first_user: str) -> str:
    """The task's own description, never the dependencies' (they follow it)."""
    match = _STEP_LINE.search(first_user)
    if match:
        return match.group(1).strip()
    head = re.split(r"^(?:Completed dependencies|Dependencies)\b", first_user, maxsplit=1, flags=re.MULTILINE)[0]
    return " ".join(head.split())


def _result_markdown(conversation: Conversation, step: str) -> str:
    """The task's findings, the most telling first: summary previews show
    only the opening characters."""
    outcomes = _most_telling_first(conversation.all_outcomes())
    lines: list[str] = []
    if job_for(step) == "summary":
        count, carried = _dependency_facts(conversation.first_user)
        title = next((m.group(1) for m in map(_TITLE_FACT.search, carried) if m), None)
        lead = f"**{title}**: " if title else ""
        lines.append(f"{lead}Summary of {count} earlier result(s) and a fresh look at the workspace:")
        lines.extend(carried)
    lines.extend(describe(outcome) for outcome in outcomes)
    if not outcomes:
        lines.append("- No workspace tools were available, so this result rests on the task description alone.")
    lines.extend(["", _closing(outcomes)])
    return "\n".join(lines)


def _dependency_facts(first_user: str) -> tuple[int, list[str]]:
    """How many dependencies the task message lists, and the ``- `` bullets
    their results carried (the demo writes its findings that way), so the
    summary really builds on its inputs."""
    parts = re.split(r"^(?:Completed dependencies|Dependencies):?\s*$", first_user, maxsplit=1, flags=re.MULTILINE)
    if len(parts) < 2:
        return 0, []
    count = 0
    facts: list[str] = []
    for line in parts[1].splitlines():
        line = re.sub(r"^Result:\s*", "", line.strip())
        if _DEPENDENCY_HEADER.match(line):
            count += 1
        elif line.startswith("- ") and line not in facts:
            facts.append(line)
    return count, facts[:8]


# -- team reviewer -------------------------------------------------------------------------


def reviewer_turn(conversation: Conversation) -> Turn:
    message = conversation.last_user
    step = _reviewed_step(conversation.agent, message)
    if step == REJECTED_STEP and REVISED_MARKER not in message:
        verdict = {
            "approved": False,
            "summary": f"The result for {step} lists findings without saying which file each one came from.",
            "issues": [
                "Name the file or tool output behind every finding, so the steps that depend on this one can trust it."
            ],
            "suggestions": ["Keep the list short; the facts themselves were right."],
        }
        reasoning = f"Checking {step}: the findings are plausible, but their sources are not named. Not approved yet."
    else:
        verdict = {
            "approved": True,
            "summary": f"The result for {step or 'this step'} does what the step asks and shows its evidence.",
            "issues": [],
        }
        reasoning = f"Checking {step or 'the step'} against its description: every point is covered."
    return Turn(reasoning=reasoning, content=json.dumps(verdict, ensure_ascii=False))


def _reviewed_step(agent: str, message: str) -> str:
    from_name = _STEP_ID.search(agent)
    if from_name:
        return from_name.group(0)
    stated = re.search(r"^Step (step_\d+)\b", message, re.MULTILINE)
    if stated:
        return stated.group(1)
    mentioned = _STEP_ID.search(message)
    return mentioned.group(0) if mentioned else ""


# -- shared wording ------------------------------------------------------------------------


def _thinking_before_tools(question: str, calls: list[Call], conversation: Conversation) -> str:
    names = ", ".join(f"{name}({next(iter(args.values()), '')})" for name, args in calls)
    if conversation.tool_rounds_this_turn():
        return f"The listing is in. Next I look closer: {names}."
    return f"Request: “{shorten(question, 80)}”. I will look at the workspace before answering: {names}."


def _thinking_after_tools(outcomes: list[ToolOutcome]) -> str:
    if not outcomes:
        return "No tool results to go on; I answer plainly."
    return f"I have {len(outcomes)} tool result(s); I summarise what they actually show."


def _closing(outcomes: list[ToolOutcome]) -> str:
    if not outcomes:
        return "_(offline demo model: read-only, deterministic)_"
    tools = sorted({outcome.name for outcome in outcomes})
    return f"_(offline demo model; evidence from {', '.join(f'`{t}`' for t in tools)})_"


def _most_telling_first(outcomes: list[ToolOutcome]) -> list[ToolOutcome]:
    """Listings last: previews show only a result's opening characters."""
    return sorted(outcomes, key=lambda outcome: outcome.name == "list_dir")
