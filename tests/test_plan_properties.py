"""Property tests: orders and rounds on random DAGs, parse round-trips, and
random hand edits never yielding a plan that validates yet has a cycle."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.plan import StrictJsonError, parse_plan, plan_from_dict, read_json_object, validate_plan_dict
from paicli_tui.plan import edits

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Small alphabets keep generation cheap while still giving spaces, case
# differences, non-ASCII and look-alikes of renumbered ids.
ids_text = st.text(alphabet="abAB _1é✓", min_size=1, max_size=6).filter(str.strip) | st.sampled_from(
    ["task_1", "task_2", "step_1", "a ", " a", "A"]
)
descriptions = st.sampled_from(["read the file", "```bash\nls\n```", "  padded  ", "naïve ✓"]) | st.text(
    alphabet="xy `\n\"{}", min_size=1, max_size=10
).filter(str.strip)


@st.composite
def dag_dicts(draw, max_tasks: int = 25) -> dict:
    """A valid plan dict: a random DAG whose array order is a random
    shuffle of a topological order, so forward references occur."""
    count = draw(st.integers(1, max_tasks))
    names = draw(st.lists(ids_text, min_size=count, max_size=count, unique=True))
    rank = draw(st.permutations(range(count)))  # rank[i]: place of task i in a hidden order
    pairs = draw(st.lists(st.tuples(st.integers(0, count - 1), st.integers(0, count - 1)), max_size=3 * count))
    types = draw(st.lists(st.sampled_from([None, "FILE_READ", "COMMAND", "file_write", "Verification", "odd"]), min_size=count, max_size=count))
    texts = draw(st.lists(descriptions, min_size=count, max_size=count))
    tasks = [{"id": names[i], "description": texts[i]} for i in range(count)]
    for i, j in pairs:
        if rank[j] < rank[i]:  # only edges that follow the hidden order: never a cycle
            tasks[i].setdefault("dependencies", []).append(names[j])
    for task, task_type in zip(tasks, types):
        if task_type is not None:
            task["type"] = task_type
    data = {"tasks": tasks}
    if draw(st.booleans()):
        data["summary"] = draw(descriptions)
    return data


def reference_order(plan) -> list[str]:
    """The definition, computed slowly: repeatedly take the earliest task (in
    array order) whose dependencies are all placed."""
    placed: list[str] = []
    remaining = list(plan.tasks)
    while remaining:
        ready = next(t for t in remaining if all(d in placed for d in t.dependencies))
        placed.append(ready.id)
        remaining.remove(ready)
    return placed


@FAST
@given(dag_dicts())
def test_topological_order_respects_dependencies_and_array_order_ties(data):
    plan = plan_from_dict(data)
    assert plan.topological_order() == reference_order(plan)


@FAST
@given(dag_dicts())
def test_batches_place_every_task_once_strictly_after_its_dependencies(data):
    plan = plan_from_dict(data)
    rounds = plan.batches()
    round_of = {}
    for number, members in enumerate(rounds):
        assert members, "no empty rounds"
        for task_id in members:
            assert task_id not in round_of, "each task appears once"
            round_of[task_id] = number
    assert set(round_of) == set(plan.ids)
    order = plan.topological_order()
    for number, members in enumerate(rounds):
        assert members == sorted(members, key=order.index), "a round is in topological order"
        for task_id in members:
            deps = plan.task(task_id).dependencies
            assert all(round_of[d] < number for d in deps)
            # the batch policy runs a task in the first round it can
            assert number == 0 or any(round_of[d] == number - 1 for d in deps)


@FAST
@given(dag_dicts(), st.sampled_from(["", "json", "JSON", " Json "]), st.sampled_from(["task", "step"]))
def test_parse_round_trips(data, info, prefix):
    plan = parse_plan(f"```{info}\n{json.dumps(data, ensure_ascii=False, indent=1)}\n```", prefix)
    assert [t.original_id for t in plan.tasks] == [t["id"] for t in data["tasks"]]
    assert [t.description for t in plan.tasks] == [t["description"] for t in data["tasks"]]
    again = parse_plan(json.dumps(plan.to_dict()), prefix)
    assert again.to_dict() == plan.to_dict()
    normalized = plan_from_dict(again.to_dict(), prefix)
    assert normalized == again  # ids, descriptions, types, deps, original ids, summary


def is_acyclic(data: dict) -> bool:
    tasks = data["tasks"]
    index = {t["id"]: i for i, t in enumerate(tasks)}
    needs = [len(set(t.get("dependencies") or [])) for t in tasks]
    users: dict[int, list[int]] = {i: [] for i in range(len(tasks))}
    for i, t in enumerate(tasks):
        for dep in set(t.get("dependencies") or []):
            users[index[dep]].append(i)
    ready = [i for i, n in enumerate(needs) if n == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for user in users[node]:
            needs[user] -= 1
            if needs[user] == 0:
                ready.append(user)
    return done == len(tasks)


@st.composite
def edit_steps(draw):
    return draw(
        st.lists(
            st.tuples(
                st.sampled_from(["add_dep", "remove_dep", "add_task", "delete", "move", "type", "describe", "renumber"]),
                st.integers(0, 40),
                st.integers(0, 40),
                st.integers(-3, 3),
            ),
            min_size=1,
            max_size=12,
        )
    )


def apply(plan: dict, action: str, a: int, b: int, offset: int) -> dict:
    tasks = plan["tasks"]
    if not tasks:
        return edits.add_task(plan, None, "fresh")
    first, second = tasks[a % len(tasks)]["id"], tasks[b % len(tasks)]["id"]
    if action == "add_dep":
        return edits.add_dependency(plan, first, second)
    if action == "remove_dep":
        return edits.remove_dependency(plan, first, second)
    if action == "add_task":
        return edits.add_task(plan, first, f"new after {first}", "COMMAND")
    if action == "delete":
        return edits.delete_task(plan, first)
    if action == "move":
        return edits.move_task(plan, first, offset)
    if action == "type":
        return edits.set_type(plan, first, ["command", "VERIFICATION", "odd"][offset % 3])
    if action == "describe":
        return edits.set_description(plan, first, ["", "changed", "  "][offset % 3])
    return edits.renumber(plan)


@FAST
@given(dag_dicts(max_tasks=10), edit_steps())
def test_random_edits_never_give_a_valid_plan_with_a_cycle(data, steps):
    current = plan_from_dict(data).to_dict()
    for action, a, b, offset in steps:
        before = copy.deepcopy(current)
        edited = apply(current, action, a, b, offset)
        assert current == before, "edits never change their input"
        problems = validate_plan_dict(edited)
        if not problems:
            assert is_acyclic(edited)
            assert len(plan_from_dict(edited).topological_order()) == len(edited["tasks"])
        elif edited["tasks"] and not is_acyclic_ignoring_unknown(edited):
            assert any("cycle" in str(p) or "itself" in str(p) for p in problems)
        current = edited


def is_acyclic_ignoring_unknown(data: dict) -> bool:
    known = {t["id"] for t in data["tasks"]}
    pruned = {"tasks": [{**t, "dependencies": [d for d in t.get("dependencies") or [] if d in known]} for t in data["tasks"]]}
    return is_acyclic(pruned)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=8,
)


@FAST
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=5), st.sampled_from(["{}", "```\n{}\n```", "```json\n{}\n```", "  {} \n"]))
def test_strict_reader_reads_back_any_json_object(obj, wrapper):
    text = wrapper.replace("{}", json.dumps(obj, ensure_ascii=False))
    assert read_json_object(text) == obj


@FAST
@given(st.dictionaries(st.text(max_size=5), json_values, min_size=1, max_size=5), st.data())
def test_strict_reader_rejects_a_repeated_key_wherever_it_is_nested(obj, data):
    key = data.draw(st.sampled_from(sorted(obj)))
    # The repeated key goes first at the root, then inside an object nested in an array.
    body = json.dumps(obj)
    repeated = json.dumps(key) + ": null, "
    nested = json.dumps({"wrapper": [obj]})
    for text in ("{" + repeated + body[1:], nested.replace("[{", "[{" + repeated, 1)):
        with pytest.raises(StrictJsonError, match="duplicate key"):
            read_json_object(text)
