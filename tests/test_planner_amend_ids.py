"""An amendment keeps the ids the person saw (hand-added task_5 stays
task_5; a deleted task's id is not handed to a new task): real Planner and
ChatClient against the loopback scripted server."""

from __future__ import annotations

import json

import pytest

from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.plan.model import Plan, Task, TaskType
from paicli_tui.plan.planner import Planner
from paicli_tui.prompting.assembler import PromptAssembler
from tests.support.server import LoopbackServer

pytestmark = pytest.mark.timeout(60)


def edited_plan() -> Plan:
    """task_1 and task_4 were deleted by hand, task_5 added."""
    return Plan(goal="ship it", tasks=[
        Task("task_2", "read the code", TaskType.FILE_READ),
        Task("task_3", "check the tests", TaskType.ANALYSIS, ["task_2"]),
        Task("task_5", "write the notes", TaskType.ANALYSIS, ["task_3"]),
    ])


def revise_with(reply: dict, tmp_path) -> Plan:
    with LoopbackServer(Script({"planner": [Reply(content=json.dumps(reply))]})) as server:
        client = ChatClient(base_url=server.base_url, model="m", max_retries=0)
        try:
            planner = Planner(client, PromptAssembler(tmp_path), role="planner")
            revised = planner.revise(edited_plan(), "ship it", "also run the linter")
            [request] = server.requests
            assert "keep every task's id" in request.body["messages"][-1]["content"]
            return revised
        finally:
            client.close()


def test_a_revision_keeps_the_ids_the_person_saw(tmp_path):
    tasks = [*edited_plan().to_dict()["tasks"],
             {"id": "task_6", "description": "run the linter", "type": "VERIFICATION", "dependencies": ["task_5"]}]
    revised = revise_with({"summary": "s", "tasks": tasks}, tmp_path)
    assert revised.ids == ["task_2", "task_3", "task_5", "task_6"]
    assert revised.task("task_6").dependencies == ["task_5"]


def test_a_new_task_the_planner_names_like_a_deleted_one_gets_a_fresh_id(tmp_path):
    tasks = [{"id": "task_1", "description": "run the linter", "type": "VERIFICATION", "dependencies": []},
             *edited_plan().to_dict()["tasks"]]
    tasks[-1] = {**tasks[-1], "dependencies": ["task_3", "task_1"]}
    revised = revise_with({"tasks": tasks}, tmp_path)
    assert revised.ids == ["task_6", "task_2", "task_3", "task_5"]
    assert revised.task("task_5").dependencies == ["task_3", "task_6"]
