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


#: Each test's time limit as written (its ``timeout`` marker, else the ini's).
BASE_LIMIT = pytest.StashKey[float]()
#: The load factor its limit was last stretched by.
STRETCHED_BY = pytest.StashKey[float]()


def pytest_collection_modifyitems(config, items) -> None:
    """Every test's time limit stretched by the machine's load
    (tests/support/timing.py): a loaded machine makes a test slower, not
    wrong."""
    from tests.support.timing import SCALE

    default = float(config.getini("timeout") or 0)
    for item in items:
        marker = item.get_closest_marker("timeout")
        limit = float(marker.args[0]) if marker and marker.args else float(marker.kwargs.get("timeout", default)) if marker else default
        item.stash[BASE_LIMIT] = limit
        _stretch(item, SCALE)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """Stretched again when the test starts if the load grew since
    collection: busy loops started just before the suite show in the load
    average only a minute later. (Runs before pytest-timeout reads the limit.)"""
    from tests.support.timing import current_scale

    _stretch(item, current_scale())
    yield


def _stretch(item, scale: float) -> None:
    limit = item.stash.get(BASE_LIMIT, 0.0)
    if limit <= 0 or scale <= item.stash.get(STRETCHED_BY, 1.0):
        return
    item.stash[STRETCHED_BY] = scale
    item.add_marker(pytest.mark.timeout(limit * scale), append=False)  # the closest marker wins


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
