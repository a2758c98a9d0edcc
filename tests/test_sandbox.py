"""Every command runs in the OS sandbox by default (bubblewrap): the
workspace is writable and the rest read-only, credential stores are hidden,
/tmp is private, there is no network and no view of paicli's processes,
and nothing a command starts outlives it. Real commands through the real
registry; nothing is mocked."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.config.settings import Permissions, Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools.trusted_urls import TrustedUrls
from tests.support.procs import alive
from tests.support.sandbox import collector, require_sandbox

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def _sandbox_starts():
    require_sandbox()


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A person's home with credential stores in it."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("SSH-PRIVATE-KEY-MARKER\n")
    (home / ".git-credentials").write_text("https://user:GIT-CRED-MARKER@example.com\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = AWS-MARKER\n")
    (home / ".bashrc").write_text("# rc\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def execute(workspace: Path, settings: Settings | None = None, **args):
    ctx = ToolContext("tester", threading.Event(), TrustedUrls(), AutoApprover())
    registry = ToolRegistry(workspace, settings or Settings(command_timeout=30))
    return registry.execute(ToolCall("x", "execute_command", json.dumps(args)), ctx)


def test_the_sandbox_is_on_by_default(workspace):
    registry = ToolRegistry(workspace, Settings())
    assert registry.sandbox.active, registry.sandbox.describe()
    assert "sandbox" in registry._tool("execute_command").description


def test_the_workspace_is_writable_and_the_rest_read_only(workspace, home):
    result = execute(workspace, command="echo made > made.txt; echo more >> ~/.bashrc; touch /etc/paicli-x; "
                                         "echo rc=$?")
    assert (workspace / "made.txt").read_text() == "made\n"
    assert (home / ".bashrc").read_text() == "# rc\n"
    assert not Path("/etc/paicli-x").exists()
    assert "Read-only file system" in result.content


def test_credential_stores_are_hidden(workspace, home):
    result = execute(workspace, command="cat ~/.ssh/id_ed25519 ~/.git-credentials ~/.aws/credentials; ls -a ~/.ssh")
    for marker in ("SSH-PRIVATE-KEY-MARKER", "GIT-CRED-MARKER", "AWS-MARKER"):
        assert marker not in result.content
    assert (home / ".ssh" / "id_ed25519").read_text() == "SSH-PRIVATE-KEY-MARKER\n"  # hidden, not touched


def test_a_symlinked_credential_dir_is_hidden_too(workspace, home, tmp_path):
    real = tmp_path / "real-docker"
    real.mkdir()
    (real / "config.json").write_text('{"auths": "DOCKER-MARKER"}')
    (home / ".docker").symlink_to(real)
    result = execute(workspace, command="cat ~/.docker/config.json; echo done")
    assert "done" in result.content and "DOCKER-MARKER" not in result.content


def test_capabilities_are_dropped_so_hidden_paths_stay_hidden(workspace, home):
    # As root without a capability-less user namespace, bwrap leaves every
    # capability: umount would uncover ~/.ssh and / could be remounted rw.
    result = execute(workspace, command="umount ~/.ssh; cat ~/.ssh/id_ed25519; mount -o remount,rw,bind /; "
                                         "touch /etc/paicli-cap; grep CapEff /proc/self/status")
    assert "SSH-PRIVATE-KEY-MARKER" not in result.content
    assert not Path("/etc/paicli-cap").exists()
    assert "CapEff:\t0000000000000000" in result.content


def test_tmp_is_private(workspace):
    marker = f"/tmp/paicli-private-{os.getpid()}-{time.monotonic_ns()}"
    result = execute(workspace, command=f"echo x > {marker} && cat {marker}")
    assert result.ok and "x" in result.content
    assert not Path(marker).exists()


def test_no_network_reaches_a_loopback_server(workspace):
    with collector() as seen:
        script = (f"import urllib.request; urllib.request.urlopen('{seen.url}/leak', data=b'SECRET', timeout=5)")
        result = execute(workspace, command=f"python3 -c \"{script}\"")
        assert not result.ok
        assert seen.requests == []
        assert "network is off" in result.content
        # The same command with the network allowed does arrive: the test can tell.
        allowed = execute(workspace, Settings(command_timeout=30,
                                              permissions=Permissions(allow=["network: allow command: python3"])),
                          command=f"python3 -c \"{script}\"")
        assert allowed.ok, allowed.content
        assert seen.requests == ["POST /leak SECRET"]


def test_paicli_s_environment_is_out_of_reach(workspace, monkeypatch):
    monkeypatch.setenv("PAICLI_API_KEY", "sk-ENVIRON-MARKER-123")
    result = execute(workspace, command=f"cat /proc/{os.getpid()}/environ; cat /proc/1/environ; "
                                         "cat /proc/1/cmdline; env; echo end")
    assert "end" in result.content
    assert "ENVIRON-MARKER" not in result.content


def test_paicli_s_processes_are_invisible(workspace):
    result = execute(workspace, command=f"test -e /proc/{os.getpid()} && echo visible || echo invisible")
    assert "invisible" in result.content


@pytest.mark.parametrize("command", [
    "setsid sleep {tag} > /dev/null 2>&1 & echo started",
    "(nohup sleep {tag} > /dev/null 2>&1 &); echo started",
    "setsid sh -c 'sleep {tag}' > /dev/null 2>&1 & disown; echo started",
])
def test_nothing_a_command_starts_outlives_it(workspace, command):
    tag = str(900000 + os.getpid() % 90000)
    result = execute(workspace, command=command.format(tag=tag))
    assert "started" in result.content
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and _sleeping(tag):
        time.sleep(0.05)
    assert _sleeping(tag) == []
    assert "left the command's process group" not in result.content


def test_a_timeout_takes_the_whole_sandbox_down(workspace):
    tag = str(800000 + os.getpid() % 90000)
    result = execute(workspace, command=f"setsid sleep {tag} > /dev/null 2>&1 & sleep 30", timeout=1)
    assert "timed out" in result.content
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and _sleeping(tag):
        time.sleep(0.05)
    assert _sleeping(tag) == []


def test_exit_codes_pass_through(workspace):
    assert "exit code 7" in execute(workspace, command="exit 7").content
    assert "exit code 143" in execute(workspace, command="kill -TERM $$").content


def test_git_works_in_the_workspace(workspace):
    result = execute(workspace, command="git init -q . && git -c user.email=a@b -c user.name=a commit -q "
                                         "--allow-empty -m first && git log --oneline | wc -l")
    assert result.ok and result.content.rstrip().endswith("1"), result.content


def test_required_refuses_to_run_when_the_sandbox_cannot_start(workspace):
    settings = Settings(sandbox="required", sandbox_binary="/bin/false", command_timeout=30)
    registry = ToolRegistry(workspace, settings)
    assert not registry.sandbox.active and "cannot start" in registry.sandbox.warning
    result = execute(workspace, settings, command="touch ran")
    assert not result.ok and 'sandbox = "required"' in result.content
    assert not (workspace / "ran").exists()


def test_auto_falls_back_and_says_so_once(workspace):
    settings = Settings(sandbox="auto", sandbox_binary="/bin/false", command_timeout=30)
    registry = ToolRegistry(workspace, settings)
    assert not registry.sandbox.active
    assert registry.sandbox.warning.startswith("commands run without the OS sandbox")
    result = execute(workspace, settings, command="touch ran")
    assert result.ok and (workspace / "ran").exists()


def _sleeping(tag: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmdline[:2] == [b"sleep", tag.encode()] and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def test_doctor_says_whether_commands_are_confined(workspace, paicli_home):
    from tests.support.cli import paicli_env, run_paicli

    done = run_paicli(["doctor", "--only", "sandbox", "-w", str(workspace)], home=paicli_home, cwd=workspace)
    assert done.returncode == 0 and "sandbox: on" in done.stdout and "bubblewrap 0.11.0" in done.stdout
    broken = run_paicli(["doctor", "--only", "sandbox", "-w", str(workspace)], home=paicli_home, cwd=workspace,
                        env=paicli_env(paicli_home, PAICLI_SANDBOX="required", PAICLI_SANDBOX_BINARY="/bin/false"))
    assert broken.returncode == 1 and 'refused: sandbox = "required"' in broken.stdout
