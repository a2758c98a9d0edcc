"""Apply-time conflicts: the person edited a file during the run that the
run's result changes too. Each decision, over real git; the headless
default keeps the person's file."""

from __future__ import annotations

import threading

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus
from paicli_tui.workspace.apply import apply_run
from paicli_tui.workspace.merge import OURS, THEIRS
from paicli_tui.workspace.resolver import APPLY, Decision, HeadlessResolver
from tests.support.apply_conflict import MINE, RUNS, apply_outcome, run_with_an_edit_during_it


def test_the_person_is_asked_once_with_the_conflicting_file_and_both_sides(tmp_path):
    workspace, run = run_with_an_edit_during_it(tmp_path)
    asked = []
    apply_run(run, "tree", decide=lambda outcome: asked.append(outcome) or {})
    assert len(asked) == 1 and asked[0].paths == ["src/calc.py"]
    marked = asked[0].conflicts[0].marked
    assert "<<<<<<< workspace" in marked and ">>>>>>> run" in marked
    assert "b + a  # mine" in marked and "a + b + 0" in marked


@pytest.mark.parametrize("choice, expected, settled", [
    (OURS, MINE, ()),
    (THEIRS, RUNS, (("src/calc.py", "run"),)),
    (b"def add(a, b):\n    return sum((a, b))\n", "def add(a, b):\n    return sum((a, b))\n",
     (("src/calc.py", "edited"),)),
])
def test_each_decision_is_written_and_the_rest_of_the_run_lands(tmp_path, choice, expected, settled):
    workspace, run = run_with_an_edit_during_it(tmp_path)
    report = apply_run(run, "tree", decide=lambda outcome: {"src/calc.py": choice})
    assert (workspace / "src" / "calc.py").read_text() == expected
    assert (workspace / "other.py").exists()
    assert report.settled == settled
    assert [c.path for c in report.kept] == (["src/calc.py"] if choice == OURS else [])


def test_keeping_both_writes_the_file_with_conflict_markers(tmp_path):
    workspace, run = run_with_an_edit_during_it(tmp_path)
    report = apply_run(run, "tree", decide=lambda outcome: {"src/calc.py": outcome.conflicts[0].marked.encode()})
    text = (workspace / "src" / "calc.py").read_text()
    assert text.count("<<<<<<< workspace") == 1 and "=======" in text and ">>>>>>> run" in text
    assert report.settled == (("src/calc.py", "both"),)


@pytest.mark.parametrize("on_conflict", ["rerun", "drop", "fail"])
def test_headless_keeps_the_persons_file_whatever_on_conflict_says(tmp_path, on_conflict):
    from paicli_tui.session.run_isolation import RunIsolation, describe

    workspace, run = run_with_an_edit_during_it(tmp_path)
    isolation = RunIsolation(workspace, Settings(on_conflict=on_conflict), EventBus("s"), checkpoints=None)
    files = isolation._decide_apply(apply_outcome(run))
    assert files == {"src/calc.py": OURS}
    report = apply_run(run, "tree", decide=isolation._decide_apply)
    assert (workspace / "src" / "calc.py").read_text() == MINE
    assert "kept your own edits to src/calc.py" in describe(report)


def test_the_sessions_resolver_is_asked_at_the_apply_and_its_choice_is_said(tmp_path):
    from paicli_tui.session.run_isolation import RunIsolation, describe

    workspace, run = run_with_an_edit_during_it(tmp_path)
    isolation = RunIsolation(workspace, Settings(), EventBus("s"), checkpoints=None)
    seen = []

    class Resolver:
        def decide(self, conflict, cancel: threading.Event) -> Decision:
            seen.append(conflict)
            return Decision("resolve", {"src/calc.py": THEIRS})

    isolation.resolver = Resolver()
    report = apply_run(run, "tree", decide=isolation._decide_apply)
    assert [c.stage for c in seen] == [APPLY] and seen[0].attempt is None
    assert (workspace / "src" / "calc.py").read_text() == RUNS
    assert "took the run's version of src/calc.py" in describe(report)


def test_headless_resolver_never_reruns_at_the_apply():
    from paicli_tui.workspace.merge import MergeOutcome
    from paicli_tui.workspace.resolver import Conflict

    conflict = Conflict("run", "apply", None, MergeOutcome("t"), stage=APPLY)
    assert HeadlessResolver("rerun").decide(conflict, threading.Event()).choice == "drop"
