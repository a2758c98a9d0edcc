"""What the review screen writes, built as ``Content`` (never markup: a key
hint like ``[Enter]`` would be eaten as a tag): the key hints, the collapsed
summary, the problem panel, the selected task's details and the line that
says how ids change when the plan runs. Pure functions of the edit state, so
each is easy to test and the screen module only lays things out."""

from __future__ import annotations

from textual.content import Content

from paicli_tui.plan.model import Plan
from paicli_tui.ui.common.task_tree import GLYPHS
from paicli_tui.ui.review.plan_edit_state import PlanEditState

KEY_STYLE = "bold $accent"
WHAT_STYLE = "$text-muted"
SEPARATOR = Content.styled(" · ", WHAT_STYLE)


def key_hints(pairs: list[tuple[str, str]], width: int | None = None) -> Content:
    """``key what · key what …``: keys stand out, what they do is muted.
    With ``width`` the pairs are packed into lines of that many cells,
    breaking only between pairs (a key is never parted from what it does)."""
    parts = [Content.assemble((key, KEY_STYLE), (f" {what}", WHAT_STYLE)) for key, what in pairs]
    if width is None:
        return SEPARATOR.join(parts)
    lines: list[list[Content]] = [[]]
    used = 0
    for part in parts:
        extra = part.cell_length + (SEPARATOR.cell_length if lines[-1] else 0)
        if lines[-1] and used + extra > width:
            lines.append([])
            used, extra = 0, part.cell_length
        lines[-1].append(part)
        used += extra
    return Content("\n").join(SEPARATOR.join(line) for line in lines)


def hint_pairs(*, expanded: bool, can_undo: bool, noun: str) -> list[tuple[str, str]]:
    """The keys that work in this view, in the order a person needs them."""
    if not expanded:
        pairs = [("Enter", "run"), ("Ctrl+O/v", "graph and edits"), ("I", "amend")]
        if can_undo:
            pairs.append(("u", "undo"))
        return pairs + [("s", "save"), ("Esc", "cancel")]
    pairs = [
        ("Enter", "run"),
        ("Esc", "collapse"),
        ("I", "amend"),
        ("e", "description"),
        ("t", "type"),
        ("d", "dependencies"),
        ("c", "check"),
        ("a", f"add {noun}"),
        ("x", "delete"),
        ("K/J", "move"),
    ]
    if can_undo:
        pairs.append(("u", "undo"))
    return pairs + [("s", "save")]


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary_content(state: PlanEditState, goal: str) -> Content:
    """Collapsed view (P-4.2): goal, count, rounds and the first round; an
    invalid plan lists its problems instead of rounds it cannot have."""
    parts: list[Content | str | tuple[str, str]] = [("Goal: ", "bold"), goal]
    summary = state.plan_dict.get("summary")
    if isinstance(summary, str) and summary:
        parts += ["\n", ("Plan: ", "bold"), summary]
    count = plural(len(state.entries), state.noun)
    if not state.valid:
        parts += ["\n", (f"{count} · this plan cannot run:", "bold $error")]
        parts += ["\n", problem_lines(state)]
        parts += ["\n", Content.styled("Ctrl+O shows each problem beside its task (u undoes the last edit)", WHAT_STYLE)]
        return Content.assemble(*parts)
    plan = state.to_plan()
    rounds = plan.batches()
    parts += ["\n", (f"{count} in {plural(len(rounds), 'parallel round')}", "bold")]
    if rounds:
        parts.append("\nFirst round:")
        # The id the person edits (not the run's), its type and description, in aligned columns.
        rows = [(state.ids[plan.ids.index(run_id)], plan.task(run_id)) for run_id in rounds[0]]
        id_width = max(len(shown) for shown, _ in rows)
        type_width = max(len(task.type.value) for _, task in rows)
        for shown, task in rows:
            parts += [f"\n  {GLYPHS['PENDING']} {shown.ljust(id_width)} ", (task.type.value.ljust(type_width), "dim"),
                      f"  {task.description}"]
            if task.check:
                parts += ["\n      ", (f"check: {task.check}", WHAT_STYLE)]
    parts += [_type_warnings(plan, state)]
    return Content.assemble(*parts)


def _type_warnings(plan: Plan, state: PlanEditState) -> Content:
    lines = [
        Content.styled(f"\nWarning: {state.ids[index]}: {warning}", "italic")
        for index, task in enumerate(plan.tasks)
        for warning in (task.type_warning, task.check_warning)
        if warning
    ]
    return Content("").join(lines)


def problem_lines(state: PlanEditState) -> Content:
    """One ``⚠ id field: detail`` line per problem, in document order."""
    by_task, general = state.problems_by_task()
    lines = [Content.styled(f"⚠ {text}", "$error") for text in general]
    for task_id, problems in by_task.items():
        for problem in problems:
            lines.append(Content.assemble(("⚠ ", "$error"), (task_id, "bold $error"), (f" {problem}", "$error")))
    return Content("\n").join(lines)


def problems_content(state: PlanEditState, *, refused: bool) -> Content:
    """The problem panel beside the tree. After a refused Enter the heading
    says so; it goes away with the last problem."""
    count = plural(len(state.problems), "problem")
    heading = f"Cannot run: fix {count} first" if refused else f"{count} (the plan cannot run)"
    return Content.assemble(
        (heading, "bold $error"),
        "\n",
        problem_lines(state),
        "\n",
        Content.styled("u undoes the last edit", WHAT_STYLE),
    )


def details_content(state: PlanEditState, task_id: str | None) -> Content:
    """The selected task in full: the row in the tree may be shortened."""
    if task_id is None or task_id not in state.ids:
        return Content.styled(f"No {state.noun} selected (↑/↓ choose one)", WHAT_STYLE)
    task = state.task(task_id)
    dependents = [other.id for other in state.tasks() if task_id in other.dependencies]
    needs = ", ".join(task.dependencies) or "nothing"
    needed_by = ", ".join(dependents) or "nothing"
    check: list = [("check: ", "bold"), task.check, "\n"] if task.check else []
    return Content.assemble(
        (task.id, "bold"),
        (f" {task.type}", WHAT_STYLE),
        "\n",
        task.description or "(no description)",
        "\n",
        *check,
        (f"needs {needs} · needed by {needed_by}", WHAT_STYLE),
    )


def renumber_content(state: PlanEditState) -> Content:
    """One muted line naming each id that running renumbers (empty when none)."""
    changes = state.renumbering()
    if not changes:
        return Content("")
    mapping = " · ".join(f"{old} → {new}" for old, new in changes)
    return Content.styled(f"When it runs, {state.noun}s are renumbered in order: {mapping}", WHAT_STYLE)
