"""Property: over any sequence of approvals and rejections, the integration
ref holds the start state plus exactly the approved attempts' changes, and no
rejected attempt's change is reachable from it."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paicli_tui.workspace import IsolatedRun
from tests.support.gitrepo import make_git_workspace

# Per task: the verdicts of its attempts, ending at the first approval or after three rejections.
verdicts = st.lists(st.booleans(), min_size=1, max_size=3).map(
    lambda vs: vs[: vs.index(True) + 1] if True in vs else vs)
#: Each step names the task whose next attempt runs now.
schedules = st.lists(verdicts, min_size=1, max_size=4).flatmap(
    lambda tasks: st.tuples(st.just(tasks), st.permutations(
        [i for i, vs in enumerate(tasks) for _ in vs])))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedules, st.booleans())
def test_a_rejected_attempt_never_reaches_the_integration_ref(schedule, shared_file):
    tasks, order = schedule
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        run = IsolatedRun.begin_run(make_git_workspace(root / "ws"), "prop", root / "isolation")
        done = [0] * len(tasks)
        approved, rejected = {}, []
        for index in order:
            number = done[index]
            done[index] += 1
            attempt = run.attempt(f"task_{index}", f"slot-{index % 2}")
            marker = f"MARK-{index}-{number}"
            (attempt.path / f"t{index}.txt").write_text(marker + "\n")
            if shared_file:  # every attempt also appends to one file at its own line
                (attempt.path / f"shared-{index}.txt").write_text(marker + "\n")
            result = run.commit(attempt)
            if tasks[index][number]:
                outcome = run.merge(attempt, result)
                assert outcome.status == "merged"
                approved[index] = marker
            else:
                rejected.append(marker)
        git = run.repo.git()
        for index, marker in approved.items():
            assert git.run("show", f"{run.head}:t{index}.txt") == marker
        merged_files = {p for p in git.run("ls-tree", "--name-only", run.head).splitlines() if p.startswith("t")}
        assert merged_files == {f"t{index}.txt" for index in approved}
        run.flush_refs()
        reachable = git.run("rev-list", run.integration_ref).split()
        for marker in rejected:
            code, out = git.run_bytes("grep", "-l", marker, *reachable, ok=(0, 1))
            assert code == 1, f"{marker} reached the integration ref: {out[:200]!r}"
        run.close()
