"""Runaway guard (P-6.7) and budgets."""

from paicli_tui.agent.budget import Budget
from paicli_tui.agent.guard import RunawayGuard, call_signature, error_family


def test_signature_ignores_key_order_and_spacing():
    assert call_signature("read_file", '{"path": "a", "start_line": 1}') == call_signature(
        "read_file", '{"start_line":1,"path":"a"}'
    )
    assert call_signature("read_file", '{"path": "a"}') != call_signature("read_file", '{"path": "b"}')


def test_signature_of_unparsable_arguments_is_the_raw_text():
    assert call_signature("x", "{not json") == "x:{not json"


def test_note_on_third_identical_call_and_stop_on_fifth():
    guard = RunawayGuard()
    verdicts = [guard.observe("list_dir", '{"path": "."}', True, "a\nb") for _ in range(5)]
    assert [v.note is not None for v in verdicts] == [False, False, True, False, False]
    assert "[runaway guard]" in verdicts[2].note
    assert [v.stop for v in verdicts] == [False, False, False, False, True]


def test_a_different_call_resets_the_streak():
    guard = RunawayGuard()
    for _ in range(2):
        guard.observe("list_dir", '{"path": "."}', True, "")
    guard.observe("read_file", '{"path": "x"}', True, "")
    verdicts = [guard.observe("list_dir", '{"path": "."}', True, "") for _ in range(3)]
    assert [v.note is not None for v in verdicts] == [False, False, True]


def test_same_error_family_three_times_adds_a_note_even_with_different_arguments():
    guard = RunawayGuard()
    verdicts = [
        guard.observe("read_file", f'{{"path": "missing{i}.txt"}}', False, f"no such file at line {i}")
        for i in range(3)
    ]
    assert verdicts[2].note is not None and "failed the same way" in verdicts[2].note
    assert not any(v.stop for v in verdicts)


def test_error_family_blanks_numbers():
    assert error_family("t", "line 12 bad") == error_family("t", "line 40 bad")
    assert error_family("t", "line 12 bad") != error_family("t", "other")


def test_budget_limits_name_the_limit():
    budget = Budget(max_turns=2)
    assert budget.exceeded() is None
    budget.charge(10)
    budget.charge(10)
    assert "turn limit" in budget.exceeded()
    tokens = Budget(max_tokens=100)
    tokens.charge(150)
    assert "token limit" in tokens.exceeded()
    clock = Budget(max_seconds=0.001)
    clock.started -= 1
    assert "time limit" in clock.exceeded()
