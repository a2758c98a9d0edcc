"""Knowing the model server: each kind recognised from what it answers
(the loopback server stands in for each through canned routes), the
client fitted to it, and `paicli doctor`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.events import EventBus, ServerProbed
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.offline.scripted import Reply, Script
from paicli_tui.llm.server_probe import ProbeError, describe_server, learn_context, remember
from paicli_tui.llm.structured_output import response_format
from paicli_tui.llm.slots import known_gate
from tests.support.cli import paicli_env
from tests.support.server import LoopbackServer

LLAMA_CPP_PYTHON = {
    ("GET", "/openapi.json"): {"info": {"title": "🦙 llama.cpp Python API"}, "paths": {"/extras/tokenize/count": {}}},
    ("POST", "/extras/tokenize/count"): lambda body: (200, {"count": len(body["input"].split())}),
}
LLAMA_SERVER = {("GET", "/props"): {"total_slots": 3, "default_generation_settings": {"n_ctx": 8192},
                                    "chat_template_caps": {"supports_tool_calls": False}}}
OLLAMA = {("POST", "/api/show"): {"capabilities": ["completion", "tools"], "parameters": "num_ctx 16384"}}
LMSTUDIO = {("GET", "/api/v0/models/m"): {"loaded_context_length": 4096, "capabilities": ["tool_use"]}}


@pytest.mark.parametrize("routes, kind, slots, context, tools, tokenizer", [
    (LLAMA_CPP_PYTHON, "llama-cpp-python", 1, (2048, "assumed"), "unknown", True),
    (LLAMA_SERVER, "llama-server", 3, (8192, "reported"), "none", True),
    (OLLAMA, "ollama", 1, (16384, "reported"), "native", False),
    (LMSTUDIO, "lmstudio", 1, (4096, "reported"), "native", False),
    ({}, "openai-compatible", None, (None, ""), "unknown", False),
])
def test_each_server_kind_is_recognised(routes, kind, slots, context, tools, tokenizer):
    with LoopbackServer(Script(), routes=routes) as server:
        info = describe_server(server.base_url, "m")
    assert (info.kind, info.slots, (info.context_tokens, info.context_source), info.tools, bool(info.tokenizer)) == (
        kind, slots, context, tools, tokenizer)


def test_an_unreachable_server_is_one_clear_error():
    with LoopbackServer(Script()) as server:
        url = server.base_url
    with pytest.raises(ProbeError, match="cannot connect to"):
        describe_server(url, "m", timeout=0.5)


def test_a_context_overflow_error_teaches_the_context_size():
    with LoopbackServer(Script(), routes=LLAMA_CPP_PYTHON) as server:
        info = remember(describe_server(server.base_url, "m"))
        assert learn_context(server.base_url, "This model's maximum context length is 4096 tokens. However …") == 4096
    assert info.context_source == "assumed"


def test_the_first_call_fits_the_client_to_the_server():
    """llama-cpp-python without --provider llamacpp: the schema goes beside
    json_object (its json_schema form is an HTTP 500), and the tokens of a
    reply without usage are counted by the server's tokenizer."""
    script = Script({"planner": [Reply(content='{"a": 1}', usage=None)]})
    bus = EventBus("s")
    seen = []
    bus.subscribe(seen.append)
    with LoopbackServer(script, routes=LLAMA_CPP_PYTHON) as server:
        settings = Settings(provider="custom", base_url=server.base_url, model="m")
        with ChatClient.from_settings(settings, session_id="s", bus=bus) as client:
            result = client.chat([{"role": "user", "content": "one two three"}], agent="planner",
                                 response_format=response_format("json_schema", "a_reply", {"type": "object"}))
        body = server.requests[0].body
    assert body["response_format"] == {"type": "json_object", "schema": {"type": "object"}}
    assert result.usage.estimated and result.usage.prompt_tokens == 3 + 5 + 4  # tokenizer words + template
    [probed] = [e for e in seen if isinstance(e, ServerProbed)]
    assert (probed.kind, probed.slots, probed.tokenizer) == ("llama-cpp-python", 1, True)


def test_a_probe_resizes_the_slot_gate():
    with LoopbackServer(Script({"*": [Reply(content="ok")]}), routes=LLAMA_SERVER) as server:
        with ChatClient.from_settings(Settings(provider="custom", base_url=server.base_url), session_id="s") as client:
            client.chat([], agent="react")
        assert known_gate(server.base_url).slots == 3


@pytest.fixture
def run_doctor(tmp_path):
    def run(server, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "paicli_tui", "doctor", "--base-url", server.base_url, "--model", "m",
                               *extra], env=paicli_env(tmp_path / "home"), capture_output=True, text=True, timeout=60)

    return run


def test_doctor_prints_what_the_server_offers(run_doctor):
    script = Script({"probe": [Reply(content="OK", usage=None, chunk_chars=1),
                               Reply(tool_calls=[("paicli_probe", {"ok": True})], usage=None)]})
    with LoopbackServer(script, routes=LLAMA_CPP_PYTHON) as server:
        done = run_doctor(server)
        tools_request = server.requests[1].body
    assert done.returncode == 0, done.stderr
    assert f"server   llama-cpp-python at {server.base_url} (1 slot, context 2048 assumed)" in done.stdout
    assert "tools    turned into calls only when tool_choice names the tool" in done.stdout
    assert "tokens   counted with the server's tokenizer" in done.stdout
    assert "speed    first token" in done.stdout and "profile  compact" in done.stdout
    assert tools_request["tool_choice"] == {"type": "function", "function": {"name": "paicli_probe"}}


def test_doctor_says_when_tools_never_reach_the_model(run_doctor):
    script = Script({"probe": [Reply(content="OK"), Reply(content="I cannot call tools")]})
    with LoopbackServer(script, routes=LLAMA_CPP_PYTHON) as server:
        done = run_doctor(server, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tools"] == "none"


def test_doctor_on_an_unreachable_server_exits_1_with_one_line(run_doctor):
    with LoopbackServer(Script()) as server:
        pass
    done = run_doctor(server, "--no-calls")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("paicli: cannot connect to")
