"""Shared fixtures. Every test gets its own PAICLI_HOME so nothing touches the
real config or data directories."""

from __future__ import annotations

import os
import sys

import pytest

# The suite starts hundreds of interpreters (xdist workers, `paicli`
# subprocesses, MCP fixture servers). With PYTHONDONTWRITEBYTECODE set, as on
# some machines, every one of them compiles paicli and the test modules
# afresh: 8.5 s of CPU per worker for collection instead of 3.4 s. The caches
# go to __pycache__ folders that git ignores.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_xdist_auto_num_workers(config) -> int:
    """Two workers a core for ``-n auto``: a UI or e2e test spends about a
    third of its time waiting (Pilot pauses, subprocesses starting, loopback
    servers answering), and a second worker on each core fills that time."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 2 * cores


def pytest_collection_modifyitems(config, items) -> None:
    """Every test's time limit (its ``timeout`` marker, else the ini's)
    stretched by the machine's load (tests/support/timing.py): a loaded
    machine makes a test slower, not wrong."""
    from tests.support.timing import SCALE

    if SCALE <= 1.0:
        return
    default = float(config.getini("timeout") or 0)
    for item in items:
        marker = item.get_closest_marker("timeout")
        limit = float(marker.args[0]) if marker and marker.args else float(marker.kwargs.get("timeout", default)) if marker else default
        if limit > 0:
            item.add_marker(pytest.mark.timeout(limit * SCALE), append=False)  # the closest marker wins


@pytest.fixture(autouse=True)
def paicli_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("paicli-home")
    monkeypatch.setenv("PAICLI_HOME", str(home))
    for var in ("OPENAI_API_KEY", "DEEPSEEK_API_KEY", "ZHIPUAI_API_KEY", "PAICLI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    from paicli_tui.config import secret_store

    secret_store.forget_all()
    return home


@pytest.fixture
def script():
    """An empty scripted model; tests add replies per agent."""
    from paicli_tui.llm.offline.scripted import Script

    return Script()


@pytest.fixture
def server(script):
    """A loopback OpenAI-compatible server answering from ``script``."""
    from tests.support.server import LoopbackServer

    with LoopbackServer(script) as running:
        yield running
