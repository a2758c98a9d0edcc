"""Team roles and messages (P-5.1) and the structured replies of workers
(P-5.5) and reviewers (P-5.6)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.team import (
    AgentMessage,
    AgentRole,
    MessageType,
    ReviewVerdict,
    StructuredReplyError,
    WorkerReport,
    parse_review_verdict,
    parse_worker_report,
)

UNREADABLE = "Review verdict could not be read: "
DEFAULT = "Review not passed; please improve the result"

# -- roles and messages ------------------------------------------------------------


def test_roles_and_the_seven_message_types():
    assert [r.name for r in AgentRole] == ["PLANNER", "WORKER", "REVIEWER"]
    assert [t.name for t in MessageType] == [
        "TASK", "RESULT", "PARTIAL", "FEEDBACK", "APPROVAL", "REJECTION", "ERROR",
    ]
    assert [r.uses_tools for r in AgentRole] == [False, True, False]
    assert [r.prompt_role for r in AgentRole] == ["team-planner", "team-worker", "team-reviewer"]


def test_agent_message_is_immutable_and_validated():
    message = AgentMessage("worker-1", AgentRole.WORKER, "done", MessageType.RESULT)
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "changed"  # type: ignore[misc]
    assert AgentMessage("reviewer", "REVIEWER", "ok", "APPROVAL") == AgentMessage(
        "reviewer", AgentRole.REVIEWER, "ok", MessageType.APPROVAL
    )
    assert AgentMessage("orchestrator", None, "do it", MessageType.TASK).to_dict() == {
        "from_agent": "orchestrator", "from_role": None, "content": "do it", "type": "TASK",
    }
    with pytest.raises(ValueError):
        AgentMessage("x", "CODER", "c", MessageType.TASK)
    with pytest.raises(ValueError):
        AgentMessage("x", AgentRole.WORKER, "c", "DONE")
    error = AgentMessage.error("planner", AgentRole.PLANNER, "this role has no tools; tool call not executed")
    assert error.is_error and error.type is MessageType.ERROR


# -- worker reports (P-5.5) -----------------------------------------------------------


@pytest.mark.parametrize(
    "reply, expected",
    [
        ('{"status": "completed", "result": "Wrote app.py"}', WorkerReport("completed", "Wrote app.py", None)),
        ('  \n{"status":"completed","result":"x","extra":1}\n ', WorkerReport("completed", "x", None)),
        ('```json\n{"status": "completed", "result": "ok"}\n```', WorkerReport("completed", "ok", None)),
        ('```\n{"status": "completed", "result": "ok"}\n```', WorkerReport("completed", "ok", None)),
        ('{"status": "blocked", "reason": "no config file"}', WorkerReport("blocked", None, "no config file")),
        (
            '{"status": "blocked", "reason": "denied", "result": "half done"}',
            WorkerReport("blocked", "half done", "denied"),
        ),
        ('{"status": "completed", "result": "has ``` inside"}', WorkerReport("completed", "has ``` inside", None)),
        # An absent, null or blank reason is no reason (P-5.5, issue 16 item 7).
        ('{"status": "completed", "result": "ok", "reason": null}', WorkerReport("completed", "ok", None)),
        ('{"status": "completed", "result": "ok", "reason": ""}', WorkerReport("completed", "ok", None)),
        ('{"status": "completed", "result": "ok", "reason": " \\n\\t "}', WorkerReport("completed", "ok", None)),
    ],
)
def test_valid_worker_reports(reply, expected):
    assert parse_worker_report(reply) == expected


@pytest.mark.parametrize(
    "reply, needle",
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("Done! I wrote the file.", "not a JSON object"),
        ('Here it is: {"status": "completed", "result": "x"}', "text before"),
        ('{"status": "completed", "result": "x"} Hope that helps!', "text after"),
        ('{"status": "completed", "result": "x"}\n{"status": "completed", "result": "y"}', "text after"),
        ('{"status": "completed", "status": "blocked", "result": "x"}', "duplicate key"),
        ('{"status": "completed", "result": "x", "meta": {"a": 1, "a": 2}}', "duplicate key"),
        ('[{"status": "completed", "result": "x"}]', "array"),
        ('```python\n{"status": "completed", "result": "x"}\n```', "fence"),
        ('```json\n{"status": "completed", "result": "x"}\n```\nDone.', "fence"),
        ('{"status": "completed", "result": "x",}', "invalid JSON"),
        ('{"status": "completed", "result": NaN}', "NaN"),
        ('{"result": "x"}', 'no "status"'),
        ('{"status": "done", "result": "x"}', '"done"'),
        ('{"status": "Completed", "result": "x"}', '"Completed"'),
        ('{"status": null, "result": "x"}', "null"),
        ('{"status": "completed"}', "missing"),
        ('{"status": "completed", "result": ""}', 'non-empty string "result"'),
        ('{"status": "completed", "result": "  \\n "}', 'non-empty string "result"'),
        ('{"status": "completed", "result": 42}', "got 42"),
        ('{"status": "completed", "result": ["a"]}', 'got ["a"]'),
        ('{"status": "completed", "result": "x", "reason": "also stuck"}', 'must not have a "reason"'),
        ('{"status": "completed", "result": "x", "reason": 0}', 'must not have a "reason" (got 0)'),
        ('{"status": "completed", "result": "x", "reason": ["r"]}', 'must not have a "reason"'),
        ('{"status": "blocked"}', 'non-empty string "reason"'),
        ('{"status": "blocked", "reason": " "}', 'non-empty string "reason"'),
        ('{"status": "blocked", "reason": false}', "got false"),
        ('{"status": "blocked", "reason": "r", "result": null}', '"result" must be a string'),
        ('{"status": "blocked", "reason": "r", "result": {"partial": 1}}', '"result" must be a string'),
    ],
)
def test_invalid_worker_reports_raise_one_line_errors(reply, needle):
    with pytest.raises(StructuredReplyError) as err:
        parse_worker_report(reply)
    message = str(err.value)
    assert needle in message
    assert message.startswith("worker report")
    assert "\n" not in message


def test_worker_report_error_shortens_long_values():
    with pytest.raises(StructuredReplyError) as err:
        parse_worker_report(json.dumps({"status": "x" * 500, "result": "r"}))
    assert len(str(err.value)) < 120


def test_worker_report_rejects_non_text():
    with pytest.raises(StructuredReplyError, match="expected text"):
        parse_worker_report(b'{"status": "completed", "result": "x"}')  # type: ignore[arg-type]


# -- review verdicts (P-5.6) -------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, feedback",
    [
        ('{"approved": true}', ""),
        ('{"approved": true, "summary": "  All files present.  "}', "All files present."),
        ('```json\n{"approved": true, "summary": "ok"}\n```', "ok"),
        ('```JSON\n{"approved": true, "summary": "ok"}\n```', "ok"),
        ('\n  {"approved": true, "summary": "ok"}  \n', "ok"),
    ],
)
def test_approved_only_for_a_boolean_true(reply, feedback):
    assert parse_review_verdict(reply) == ReviewVerdict(True, feedback)


def test_an_approval_keeps_its_issues_and_suggestions_as_notes():
    verdict = parse_review_verdict(
        '{"approved": true, "summary": 7, "issues": ["a typo in README", " ", {"line": 3}], "suggestions": ["add a test"]}'
    )
    assert verdict == ReviewVerdict(True, "", ("a typo in README", '{"line":3}', "add a test"))
    rejected = parse_review_verdict('{"approved": false, "issues": ["broken"]}')
    assert (rejected.approved, rejected.feedback, rejected.notes) == (False, "- broken", ())


@pytest.mark.parametrize(
    "reply, reason",
    [
        ("", "the reply is empty"),
        ("  \n\t", "the reply is empty"),
        (None, "the reply is empty"),
        ("\ufeff" + '{"approved": true}', "byte-order mark"),
        ("Looks good, approved!", "not a JSON object"),
        ('Verdict: {"approved": true}', "text before the JSON object"),
        ('{"approved": true} Great work overall.', "text after the JSON object"),
        ('{"approved": true}\n{"approved": true}', "text after the JSON object"),
        ('{"approved": true, "approved": true}', 'duplicate key "approved"'),
        ('{"approved": false, "approved": true}', 'duplicate key "approved"'),
        ('{"approved": true, "issues": [{"a": 1, "a": 1}]}', "duplicate key"),
        ('{"approved": true, "\\u0061pproved": true}', 'duplicate key "approved"'),
        ('[{"approved": true}]', "array"),
        ("[]", "array"),
        ('{"approved": true,}', "invalid JSON"),
        ('{"approved": true // sure\n}', "invalid JSON"),
        ("{'approved': True}", "invalid JSON"),
        ('{"approved": tru', "invalid JSON"),
        ('```json\n{"approved": true}', "fence"),
        ('```yaml\n{"approved": true}\n```', "fence info string"),
        ('~~~json\n{"approved": true}\n~~~', "~~~"),
        ('```json\n{"approved": true}\n```\nShip it.', "fence"),
        ('{"summary": "fine"}', 'no "approved" field'),
        ('{"approved": "true"}', 'got "true"'),
        ('{"approved": 1}', "got 1"),
        ('{"approved": null}', "got null"),
        ('{"approved": "yes", "issues": ["x"]}', 'got "yes"'),
        ('{"approved": [true]}', "got [true]"),
    ],
)
def test_unreadable_verdicts_are_rejections_that_say_why(reply, reason):
    verdict = parse_review_verdict(reply)
    assert verdict.approved is False
    assert verdict.feedback.startswith(UNREADABLE)
    assert reason in verdict.feedback
    assert "\n" not in verdict.feedback
    assert "review verdict:" not in verdict.feedback  # no doubled prefix


def test_duplicate_approved_feedback_wording():
    assert parse_review_verdict('{"approved": true, "approved": false}').feedback == (
        UNREADABLE + 'duplicate key "approved"'
    )


@pytest.mark.parametrize(
    "verdict, feedback",
    [
        ({"approved": False, "issues": ["Missing test", "Wrong path"]}, "- Missing test\n- Wrong path"),
        (
            {"approved": False, "issues": ["a"], "suggestions": ["s"], "summary": "sum"},
            "- a",
        ),
        ({"approved": False, "issues": [], "suggestions": ["Add docs"], "summary": "sum"}, "- Add docs"),
        ({"approved": False, "issues": "not a list", "suggestions": ["s1", "s2"]}, "- s1\n- s2"),
        ({"approved": False, "issues": [], "suggestions": [], "summary": "Too thin."}, "Too thin."),
        ({"approved": False, "summary": "  padded  "}, "padded"),
        ({"approved": False, "issues": [], "suggestions": [], "summary": "   "}, DEFAULT),
        ({"approved": False}, DEFAULT),
        ({"approved": False, "summary": None, "issues": None, "suggestions": {}}, DEFAULT),
        (
            {"approved": False, "issues": [{"file": "a.py", "line": 3}, 7, None, True, ["x", "é"], 1.5]},
            '- {"file":"a.py","line":3}\n- 7\n- null\n- true\n- ["x","é"]\n- 1.5',
        ),
        ({"approved": False, "issues": ["", "  "], "suggestions": ["s"]}, "- s"),
        ({"approved": False, "issues": ["  keep me  ", ""]}, "- keep me"),
    ],
)
def test_rejection_feedback_priority_and_item_lines(verdict, feedback):
    assert parse_review_verdict(json.dumps(verdict, ensure_ascii=False)) == ReviewVerdict(False, feedback)


def test_non_text_verdict_is_a_rejection():
    verdict = parse_review_verdict(b'{"approved": true}')  # type: ignore[arg-type]
    assert verdict.approved is False and "expected text" in verdict.feedback


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_verdict_never_raises_and_approves_only_a_readable_true(text):
    verdict = parse_review_verdict(text)
    assert isinstance(verdict.approved, bool) and isinstance(verdict.feedback, str)
    if verdict.approved:
        assert json.loads(text.strip().removeprefix("```json").removeprefix("```").removesuffix("```"))[
            "approved"
        ] is True


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=8,
    )
)
def test_any_json_value_as_approved_other_than_true_is_rejected(value):
    verdict = parse_review_verdict(json.dumps({"approved": value}))
    assert verdict.approved is (value is True)
