"""`paicli run --executor ray` against one local Ray cluster (127.0.0.1, 2
CPUs) and the scripted loopback server: the same files and statuses as the
local executor, events streamed while a task runs, a killed worker retried
once, and an unreachable cluster refused in one line."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")

from paicli_tui.llm.offline.scripted import Reply, Script  # noqa: E402
from tests.support.cli import events, ledger_lines, run_paicli  # noqa: E402
from tests.support.gitrepo import CALC, make_git_workspace  # noqa: E402
from tests.support.recorder import approve, done, reject, task_plan, team_plan  # noqa: E402
from tests.support.resume_script import ResumeScript  # noqa: E402
from tests.support.server import LoopbackServer, RawReply, tokens_every  # noqa: E402
from tests.support.timing import scaled  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(110), pytest.mark.xdist_group("ray-cluster")]

PORT = 26391


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One local Ray for the module, stopped (all its processes) at the end."""
    temp = tmp_path_factory.mktemp("ray")
    # A token of its own: the machine's ~/.ray/auth_token belongs to whoever made it.
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    saved = {name: os.environ.get(name) for name in auth}
    os.environ.update(auth)  # the paicli subprocesses inherit it
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
    # The cluster gives its workers the model's key (as a KubeRay pod gets a Secret); paicli never sends it.
    key = "sk-ray-" + secrets.token_hex(12)
    env_with_key = dict(env, RAYTEST_API_KEY=key)
    start = subprocess.run(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--node-ip-address", "127.0.0.1",
         "--port", str(PORT), "--num-cpus", "2", "--include-dashboard", "false", "--temp-dir", str(temp),
         "--disable-usage-stats"], env=env_with_key, capture_output=True, text=True, timeout=scaled(90))
    assert start.returncode == 0, start.stderr[-2000:]
    try:
        yield f"127.0.0.1:{PORT}", temp, key
    finally:
        subprocess.run([sys.executable, "-m", "ray.scripts.scripts", "stop", "--force"], env=env,
                       capture_output=True, timeout=scaled(60))
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def paicli(server, workspace, home, mode, goal, *extra):
    return run_paicli(["run", "--mode", mode, "--yes", "--base-url", server.base_url, "--model", "m",
                       "--workspace", str(workspace), *extra, goal], home=home, cwd=workspace, timeout=100)


def ledger_path(home):
    return sorted((home / "history" / "raw").glob("*.jsonl"))[-1]


def final_statuses(lines) -> dict[str, str]:
    statuses = {}
    for line in events(lines, "status"):
        statuses[line["payload"]["task_id"]] = line["payload"]["status"]
    return statuses


def files(workspace) -> dict[str, str]:
    return {p.relative_to(workspace).as_posix(): p.read_text() for p in sorted(workspace.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def diamond() -> Script:
    write = lambda path, text: Reply(tool_calls=[("write_file", {"path": path, "content": text})])  # noqa: E731
    return Script({
        "planner": [task_plan(("top", []), ("left", ["t1"]), ("right", ["t1"]), ("bottom", ["t2", "t3"]),
                              kind="FILE_WRITE")],
        "task_1": [write("top.txt", "top\n"), Reply(content="top done")],
        "task_2": [write("left.txt", "left\n"), Reply(content="left done")],
        "task_3": [write("right.txt", "right\n"), Reply(content="right done")],
        "task_4": [Reply(tool_calls=[("read_file", {"path": "left.txt"})]), write("bottom.txt", "bottom\n"),
                   Reply(content="bottom done")],
    })


def team_with_a_rejection() -> Script:
    fixed = CALC.replace("return a + b", "return a + b  # checked")
    return Script({
        "planner": [team_plan(("fix add", []), ("note", ["s1"]))],
        "worker": [Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": CALC.replace("a + b", "a - b")})]),
                   done("first try"),
                   Reply(tool_calls=[("write_file", {"path": "src/calc.py", "content": fixed})]), done("fixed"),
                   Reply(tool_calls=[("write_file", {"path": "NOTE.md", "content": "noted\n"})]), done("noted")],
        "reviewer": [reject("add must add"), approve(), approve()],
    })


def both_ways(tmp_path, home_factory, mode, goal, script_factory, cluster_address):
    outcomes = {}
    for name, extra in (("local", ()), ("ray", ("--executor", "ray", "--ray-address", cluster_address))):
        workspace = make_git_workspace(tmp_path / name)
        home = home_factory(name)
        with LoopbackServer(script_factory()) as server:
            proc = paicli(server, workspace, home, mode, goal, "--workers", "1", *extra)
        assert proc.returncode == 0, f"{name}: {proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        lines = ledger_lines(home)
        verify = run_paicli(["verify", str(ledger_path(home))], home=home, cwd=workspace)
        outcomes[name] = (proc, files(workspace), final_statuses(lines), lines, verify)
    return outcomes


@pytest.fixture
def home_factory(tmp_path, monkeypatch):
    def make(name):
        home = tmp_path / f"home-{name}"
        home.mkdir()
        return home
    return make


def test_a_diamond_plan_on_ray_ends_like_the_local_run_and_its_ledger_verifies(tmp_path, home_factory, cluster):
    def with_a_tool_hook(name):
        home = home_factory(name)
        (home / "config.toml").write_text('[[hooks.PreToolUse]]\nmatcher = "write_file"\ncommand = "true"\n')
        return home

    out = both_ways(tmp_path, with_a_tool_hook, "plan", "four files", diamond, cluster[0])
    local, remote = out["local"], out["ray"]
    assert local[0].returncode == 0, local[0].stderr
    assert remote[0].returncode == 0, remote[0].stdout[-2000:] + remote[0].stderr[-2000:]
    assert remote[1] == local[1] and "bottom.txt" in remote[1]
    assert remote[2] == local[2] == {f"task_{i}": "COMPLETED" for i in range(1, 5)}
    assert remote[4].returncode == 0, remote[4].stdout + remote[4].stderr
    placed = events(remote[3], "placed")
    assert {p["payload"]["task_id"] for p in placed} == {"task_1", "task_2", "task_3", "task_4"}
    assert all(p["payload"]["node_id"] and p["payload"]["address"] for p in placed)
    assert "task_4 on ray node" in remote[0].stdout and f"tasks run on ray @ {cluster[0]}" in remote[0].stdout
    started = events(remote[3], "run_started")[0]["payload"]
    assert started["executor"] == f"ray @ {cluster[0]}"
    assert events(local[3], "placed") == []
    # The hook is this machine's command: a remote task's calls skip it, and the run says so once.
    hook_notes = [n["payload"]["text"] for n in events(remote[3], "agent_note") if "hooks are not run" in n["payload"]["text"]]
    assert hook_notes == [f"PreToolUse hooks are not run on ray @ {cluster[0]}: tool calls of tasks there run without them"]
    assert not [n for n in events(local[3], "agent_note") if "hooks are not run" in n["payload"]["text"]]
    # report and replay read a Ray ledger as they read a local one.
    reports = {}
    for name in ("local", "ray"):
        home = tmp_path / f"home-{name}"
        report = run_paicli(["report", "--json", str(ledger_path(home))], home=home, cwd=tmp_path)
        assert report.returncode == 0, report.stderr
        tasks = json.loads(report.stdout.strip().splitlines()[-1])["tasks"]
        reports[name] = sorted((t["id"], t["status"]) for t in tasks)
        replay = run_paicli(["replay", "--text", str(ledger_path(home))], home=home, cwd=tmp_path)
        assert replay.returncode == 0 and "task_4" in replay.stdout, replay.stderr
    assert reports["ray"] == reports["local"]


def test_a_team_run_with_one_rejection_on_ray_ends_like_the_local_run(tmp_path, home_factory, cluster):
    out = both_ways(tmp_path, home_factory, "team", "fix add and note it", team_with_a_rejection, cluster[0])
    local, remote = out["local"], out["ray"]
    assert local[0].returncode == 0, local[0].stderr
    assert remote[0].returncode == 0, remote[0].stdout[-2000:] + remote[0].stderr[-2000:]
    assert remote[1] == local[1] and "# checked" in remote[1]["src/calc.py"]
    assert remote[2] == local[2] == {"step_1": "COMPLETED", "step_2": "COMPLETED"}
    verdicts = [v["payload"]["approved"] for v in events(remote[3], "review_verdict")]
    assert verdicts == [False, True, True]
    assert local[4].returncode == 0, local[4].stdout + local[4].stderr
    assert remote[4].returncode == 0, remote[4].stdout + remote[4].stderr


def test_an_unreachable_cluster_is_one_line_and_exit_2(tmp_path, paicli_home):
    workspace = make_git_workspace(tmp_path / "ws")
    with LoopbackServer(Script({})) as server:
        started = time.monotonic()
        proc = paicli(server, workspace, paicli_home, "plan", "anything", "--executor", "ray",
                      "--ray-address", "ray://127.0.0.1:1")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "ray://127.0.0.1:1" in proc.stderr, proc.stderr
    assert time.monotonic() - started < 30


def ledger_events(home, name: str) -> list[dict]:
    """What the running paicli has written so far (a torn last line skipped)."""
    found = []
    for path in (home / "history" / "raw").glob("*.jsonl"):
        for text in path.read_text().splitlines():
            try:
                line = json.loads(text)
            except ValueError:
                continue
            if line.get("event") == name:
                found.append(line)
    return found


def wait_for(check, seconds: float = 20.0):
    deadline = time.monotonic() + scaled(seconds)
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    return None


class HoldsUntilStreamed:
    """task_1's second model call is answered only once its first reply's
    text is in the ledger, which the local bus writes: it got there while
    the task was still running on Ray, not with its result."""

    def __init__(self, script: Script, home) -> None:
        self.script, self.home = script, home
        self.seen_while_running = False

    def __call__(self, request):
        if request.agent == "task_1" and len(request.messages) > 2:
            self.seen_while_running = bool(wait_for(lambda: [
                line for line in ledger_events(self.home, "model_response")
                if line["actor"] == "task_1" and "looking at the notes" in json.dumps(line["payload"])]))
        return self.script(request)


def test_a_pane_gets_a_tasks_text_while_it_runs_on_ray_and_the_key_comes_from_the_workers_own_environment(
        tmp_path, paicli_home, cluster):
    """The key: the remote agent authenticates with it, and neither the
    ledger, paicli's output nor any of Ray's logs holds it (Ray's runtime-env
    agent logs a task's env_vars, so paicli never sends it that way)."""
    from tests.support.cli import paicli_env

    key = cluster[2]
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({"planner": [task_plan(("read", []))],
                     "task_1": [Reply(content="looking at the notes first",
                                      tool_calls=[("read_file", {"path": "src/calc.py"})]),
                                Reply(content="read them")]})
    holder = HoldsUntilStreamed(script, paicli_home)
    with LoopbackServer(holder) as server:
        proc = run_paicli(["run", "--mode", "plan", "--yes", "--base-url", server.base_url, "--model", "m",
                           "--api-key-env", "RAYTEST_API_KEY", "--workspace", str(workspace), "--executor", "ray",
                           "--ray-address", cluster[0], "read"], home=paicli_home, cwd=workspace, timeout=100,
                          env=paicli_env(paicli_home, RAYTEST_API_KEY=key))
        requests = list(server.requests)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert holder.seen_while_running
    remote = [r for r in requests if r.agent == "task_1"]
    assert remote and all(r.headers.get("Authorization", r.headers.get("authorization")) == f"Bearer {key}"
                          for r in remote)
    assert key not in ledger_path(paicli_home).read_text() and key not in proc.stdout + proc.stderr
    ray_logs = [p for p in cluster[1].rglob("*") if p.is_file() and p.suffix in (".log", ".out", ".err", ".txt")]
    assert ray_logs and not [p for p in ray_logs if key in p.read_text(errors="replace")]


class KillsTheWorker:
    """Every model call of task_1 kills the Ray worker process making it
    (its pid is in the ledger's placed record for that turn)."""

    def __init__(self, script: Script, home) -> None:
        self.script, self.home = script, home
        self.killed: list[int] = []

    def __call__(self, request):
        if request.agent == "task_1":
            placed = wait_for(lambda: [line for line in ledger_events(self.home, "placed")
                                       if line["payload"]["pid"] not in self.killed])
            if placed:
                pid = placed[0]["payload"]["pid"]
                self.killed.append(pid)
                os.kill(pid, signal.SIGKILL)
        return self.script(request)


def test_a_killed_ray_worker_is_retried_once_then_the_task_fails_with_one_clear_line(tmp_path, paicli_home, cluster):
    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({"planner": [task_plan(("write", []))],
                     "task_1": [Reply(tool_calls=[("write_file", {"path": "x.txt", "content": "x"})])] * 2})
    killer = KillsTheWorker(script, paicli_home)
    with LoopbackServer(killer) as server:
        proc = paicli(server, workspace, paicli_home, "plan", "write", "--executor", "ray", "--ray-address", cluster[0])
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert len(killer.killed) == 2
    lines = ledger_lines(paicli_home)
    assert len(events(lines, "placed")) == 2
    notes = [n["payload"]["text"] for n in events(lines, "agent_note") if "Ray worker died" in n["payload"]["text"]]
    assert len(notes) == 1 and "once more" in notes[0]
    failed = [s["payload"] for s in events(lines, "status") if s["payload"]["status"] == "FAILED"]
    assert len(failed) == 1 and "Ray worker died" in failed[0]["error"] and "also on the retry" in failed[0]["error"]
    assert "\n" not in failed[0]["error"]
    assert not (workspace / "x.txt").exists()


def test_a_cancel_stops_a_task_blocked_in_a_model_call_on_ray(tmp_path, paicli_home, cluster):
    """``ray.cancel`` alone cannot interrupt a worker blocked in a read: the
    relay's cancel makes the remote agent drop its model call as a local one
    would, so SIGTERM ends the run within its grace, the task cancelled."""
    from tests.support.cli import paicli_env

    workspace = make_git_workspace(tmp_path / "ws")
    script = Script({"planner": [task_plan(("slow", []))], "task_1": [Reply(content="never")]})
    arrived, release = threading.Event(), threading.Event()

    def holds(request):
        if request.agent == "task_1":
            arrived.set()
            release.wait(scaled(60))
        return script(request)

    with LoopbackServer(holds) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli_tui", "run", "--mode", "plan", "--yes", "--base-url", server.base_url,
             "--model", "m", "--workspace", str(workspace), "--executor", "ray", "--ray-address", cluster[0], "slow"],
            env=paicli_env(paicli_home), cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert arrived.wait(scaled(60))
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=scaled(60))
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 143, err
    assert "did not stop within" not in err
    statuses = [s["payload"] for s in events(ledger_lines(paicli_home), "status") if s["payload"]["task_id"] == "task_1"]
    assert statuses[-1]["status"] == "SKIPPED" and statuses[-1]["error"] == "cancelled"


def killed_when(proc: subprocess.Popen, home, check, seconds: float = 60.0) -> None:
    """SIGKILL ``proc`` as soon as its ledger passes ``check``."""
    found = wait_for(lambda: proc.poll() is None and check(), seconds)
    assert proc.poll() is None, "the run ended before its kill point"
    assert found, "the kill point never came"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=scaled(30))


def test_a_ray_run_killed_midway_resumes_on_ray_to_the_same_end(tmp_path, cluster):
    """`paicli resume` goes on where the run's tasks ran (its run_started
    says so): the tasks left over run on the cluster, the completed ones are
    not asked again, and the run ends as an uninterrupted one did."""
    from tests.support.cli import paicli_env

    steps = [("make one", []), ("make two", ["t1"]), ("make three", ["t1"]), ("make four", ["t2", "t3"])]
    flags = ("--workers", "2", "--parallelism", "2")
    ends = {}
    for name in ("uninterrupted", "killed"):
        workspace, home = make_git_workspace(tmp_path / name / "ws"), tmp_path / name / "home"
        home.mkdir()
        (home / "config.toml").write_text('[[hooks.PreToolUse]]\nmatcher = "write_file"\ncommand = "true"\n')
        script = ResumeScript("plan", [], delay=0.2)
        script.plan = task_plan(*steps, kind="FILE_WRITE")  # its tasks write their files
        with LoopbackServer(script) as server:
            if name == "uninterrupted":
                proc = paicli(server, workspace, home, "plan", "make four files", *flags)
                assert proc.returncode == 0, proc.stderr[-2000:]
            else:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "paicli_tui", "run", "--mode", "plan", "--yes", "--base-url",
                     server.base_url, "--model", "m", "--workspace", str(workspace), *flags, "--executor", "ray",
                     "--ray-address", cluster[0], "make four files"],
                    env=paicli_env(home), cwd=workspace, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE)
                killed_when(proc, home, lambda: [s for s in ledger_events(home, "status")
                                                 if s["payload"]["status"] == "COMPLETED"])
                kept = [s["payload"]["task_id"] for s in ledger_events(home, "status")
                        if s["payload"]["status"] == "COMPLETED"]
                assert kept and "task_4" not in kept
                asked_before = len(script.requests)
                resumed = run_paicli(["resume", "--last", "--yes", "--base-url", server.base_url, "--model", "m"],
                                     home=home, cwd=workspace, timeout=100)
                assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
                assert f"its tasks ran on ray @ {cluster[0]}" in resumed.stdout
                for task in kept:
                    assert script.asked_about(task, since=asked_before) == [], f"{task} was asked again"
        lines = ledger_lines(home)
        verify = run_paicli(["verify", str(ledger_path(home))], home=home, cwd=workspace)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        ends[name] = (files(workspace), final_statuses(lines), lines)
    assert ends["killed"][0] == ends["uninterrupted"][0], (sorted(ends["killed"][0]), sorted(ends["uninterrupted"][0]))
    assert "task_4.txt" in ends["killed"][0], sorted(ends["killed"][0])
    assert ends["killed"][1] == ends["uninterrupted"][1] == {f"task_{i}": "COMPLETED" for i in range(1, 5)}
    lines = ends["killed"][2]
    names = [line["event"] for line in lines]
    assert names.count("run_resumed") == 1
    resumed_at = names.index("run_resumed")
    assert lines[resumed_at]["payload"]["executor"] == f"ray @ {cluster[0]}"
    placed_after = {line["payload"]["task_id"] for line in lines[resumed_at:] if line["event"] == "placed"}
    assert placed_after == {f"task_{i}" for i in range(1, 5)} - set(kept)
    # The resumed part says again, once, that the cluster's tool calls skip this machine's hooks.
    hook_notes = [line for line in lines[resumed_at:] if line["event"] == "agent_note"
                  and "hooks are not run on" in line["payload"]["text"]]
    assert len(hook_notes) == 1, hook_notes


def test_a_turns_cost_limit_stops_a_task_on_ray_where_it_stops_it_here(tmp_path, home_factory, cluster):
    """--max-cost is a limit per agent turn: the remote agent prices its
    calls as the local one does and stops at the same limit."""
    def streams_without_end(request):
        if request.agent == "planner":
            return task_plan(("write an essay", []))
        return RawReply(tokens_every(0.002, 20000))

    reasons = {}
    for name, extra in (("local", ()), ("ray", ("--executor", "ray", "--ray-address", cluster[0]))):
        workspace, home = make_git_workspace(tmp_path / name), home_factory(name)
        # A dollar per token, as tests/e2e/test_cost_budget_e2e.py prices it.
        (home / "config.toml").write_text('[prices."m"]\nprompt = 1000.0\ncompletion = 1000.0\n')
        with LoopbackServer(streams_without_end) as server:
            proc = paicli(server, workspace, home, "plan", "an essay", "--max-cost", "9", *extra)
        assert proc.returncode == 1, name + proc.stderr[-2000:]
        finished = [f["payload"] for f in events(ledger_lines(home), "agent_finished") if f["actor"] == "task_1"]
        reasons[name] = [(f["status"], f["reason"]) for f in finished]
    assert reasons["local"] and "stopped at the turn's $9.00 cost limit" in reasons["local"][0][1]
    assert reasons["ray"] == reasons["local"]
