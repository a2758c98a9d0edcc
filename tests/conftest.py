"""Shared fixtures. Every test gets its own PAICLI_HOME so nothing touches the
real config or data directories."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def paicli_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("paicli-home")
    monkeypatch.setenv("PAICLI_HOME", str(home))
    for var in ("OPENAI_API_KEY", "DEEPSEEK_API_KEY", "ZHIPUAI_API_KEY", "PAICLI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def script():
    """An empty scripted model; tests add replies per agent."""
    from paicli_tui.llm.scripted import Script

    return Script()


@pytest.fixture
def server(script):
    """A loopback OpenAI-compatible server answering from ``script``."""
    from tests.support.server import LoopbackServer

    with LoopbackServer(script) as running:
        yield running
