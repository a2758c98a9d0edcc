"""`paicli plan check FILE|-` run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PLAN = """```json
{"summary": "Fix the bug ✓", "steps": [
  {"id": "read", "description": "read ```code```", "type": "file_read"},
  {"id": "fix", "description": "fix it", "type": "FILE_WRITE", "dependencies": ["read"]},
  {"id": "docs", "description": "update docs", "dependencies": ["read"], "type": "writing"},
  {"id": "test", "description": "run tests", "type": "command", "dependencies": ["fix", "docs", "fix"]}
]}
```
"""


def check(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "paicli_tui", "plan", "check", *args],
        input=stdin,
        capture_output=True,
        timeout=30,
    )


@pytest.fixture
def plan_file(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(PLAN, encoding="utf-8")
    return path


def test_valid_file_prints_the_normalized_plan(plan_file):
    result = check(str(plan_file))
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout.decode("utf-8"))
    assert output == {
        "summary": "Fix the bug ✓",
        "tasks": [
            {"id": "task_1", "description": "read ```code```", "type": "FILE_READ", "dependencies": []},
            {"id": "task_2", "description": "fix it", "type": "FILE_WRITE", "dependencies": ["task_1"]},
            {"id": "task_3", "description": "update docs", "type": "ANALYSIS", "dependencies": ["task_1"]},
            {"id": "task_4", "description": "run tests", "type": "COMMAND", "dependencies": ["task_2", "task_3"]},
        ],
        "batches": [["task_1"], ["task_2", "task_3"], ["task_4"]],
    }
    assert "✓".encode("utf-8") in result.stdout, "ensure_ascii is off"
    assert result.stdout.startswith(b'{\n  "summary"'), "indented by 2"
    # the unknown type is accepted with a warning on stderr
    assert b'unknown type "writing"' in result.stderr


def test_stdin_and_step_prefix(plan_file):
    result = check("-", "--prefix", "step", stdin=plan_file.read_bytes())
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    assert [t["id"] for t in output["tasks"]] == ["step_1", "step_2", "step_3", "step_4"]
    assert output["batches"][1] == ["step_2", "step_3"]


def test_invalid_plan_names_file_step_and_field_then_counts(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"tasks": [{"id": "fetch", "description": "x"}, {"id": "b", "description": "y", "dependencies": ["fetch", "fetchh"]}]}')
    result = check(str(path))
    assert result.returncode == 1
    assert result.stdout == b""
    lines = result.stderr.decode("utf-8").splitlines()
    assert len(lines) == 2 and lines[1] == f"paicli: {path}: 1 problem"
    assert lines[0].startswith(f'paicli: {path}: task 2 (id "b"): dependencies[1]: unknown id "fetchh"')


def test_every_problem_of_a_plan_file_is_listed_in_document_order(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"tasks": [
        {"id": "a", "description": "x", "dependencies": ["zz"]},
        {"id": "a", "description": "", "dependencies": []},
    ]}))
    result = check(str(path))
    assert result.returncode == 1 and result.stdout == b""
    assert result.stderr.decode("utf-8").splitlines() == [
        f'paicli: {path}: task 1 (id "a"): dependencies[0]: unknown id "zz"',
        f'paicli: {path}: task 2 (id "a"): id: repeated: task 1 already has id "a"',
        f'paicli: {path}: task 2 (id "a"): description: is blank',
        f"paicli: {path}: 3 problems",
    ]


def test_a_file_that_is_not_json_is_named_as_a_file_not_a_reply(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text("just some notes\n")
    result = check(str(path))
    assert result.returncode == 1
    message = result.stderr.decode("utf-8").strip()
    assert message.startswith(f"paicli: {path}: ") and "file" in message and "reply" not in message


def test_cycle_from_stdin_is_rejected():
    text = json.dumps({"tasks": [{"id": "a", "description": "x", "dependencies": ["b"]}, {"id": "b", "description": "y", "dependencies": ["a"]}]})
    result = check("-", stdin=text.encode())
    assert result.returncode == 1
    assert result.stderr.decode("utf-8").splitlines()[0] == 'paicli: <stdin>: task 1 (id "a"): dependencies[0]: dependency cycle "a" → "b" → "a"'


def test_missing_file_and_directory_are_one_line_errors(tmp_path):
    for target in (tmp_path / "nope.json", tmp_path):
        result = check(str(target))
        assert result.returncode == 1 and result.stdout == b""
        stderr = result.stderr.decode()
        assert stderr.startswith(f"paicli: {target}: cannot read") and stderr.count("\n") == 1


def test_non_utf8_and_bom_files_are_rejected(tmp_path):
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"tasks": [{"id": "a", "description": "café"}]}'.encode("latin-1"))
    result = check(str(latin))
    assert result.returncode == 1 and b"not UTF-8" in result.stderr and b"Traceback" not in result.stderr
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"tasks": [{"id": "a", "description": "x"}]}')
    result = check(str(bom))
    assert result.returncode == 1 and b"byte-order mark" in result.stderr


def test_plan_check_imports_neither_textual_nor_the_model_client(plan_file):
    code = (
        "import sys, io\n"
        "from paicli_tui.cli import main\n"
        f"code = main(['plan', 'check', {str(plan_file)!r}])\n"
        "heavy = [m for m in ('textual', 'httpx', 'paicli_tui.llm.client') if m in sys.modules]\n"
        "print('HEAVY', heavy, code, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert b"HEAVY [] 0" in result.stderr, result.stderr
