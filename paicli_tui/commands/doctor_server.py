"""`paicli doctor`'s server lines: what the configured model server is and
offers (kind, slots, context, tokenizer, whether tool calls reach the
model, speed). 1, with one line, when it cannot be reached."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace

from paicli_tui.commands.common import fail
from paicli_tui.present.server_text import server_lines

#: A tool the model is told to call, to see whether the server turns the
#: reply into a real tool call.
PROBE_TOOL = {"type": "function", "function": {
    "name": "paicli_probe", "description": "Report that you can call tools.",
    "parameters": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}}


def measure(client, info):
    """Two tiny calls: speed ("Say OK"), then tools (one tool, named in
    ``tool_choice``). Through the client, so they queue for the slot."""
    from paicli_tui.llm.types import ModelError

    speed = client.chat([{"role": "user", "content": "Say OK."}], agent="probe", max_tokens=8)
    client.tool_mode = "native"  # what the server itself does with tools is the question
    try:
        called = client.chat([{"role": "user", "content": "Call paicli_probe with ok true."}], agent="probe",
                             tools=[PROBE_TOOL], max_tokens=24,
                             tool_choice={"type": "function", "function": {"name": "paicli_probe"}})
        reached = any(call.name == "paicli_probe" for call in called.tool_calls)
    except ModelError:
        reached = False
    tools = info.tools if info.tools == "native" else ("forced" if reached else "none")
    return replace(info, ttft_s=speed.ttft_s, gen_tps=speed.tokens_per_s, tools=tools)


def server_report(args: argparse.Namespace, settings) -> int:
    from paicli_tui.llm.client import ChatClient
    from paicli_tui.llm.server_probe import ProbeError, describe_server, remember
    from paicli_tui.llm.types import ModelError

    resolved = settings.resolved()
    try:
        info = describe_server(resolved.base_url, resolved.model, api_key=resolved.api_key())
    except ProbeError as exc:
        return fail(str(exc), 1)
    remember(info)
    if not args.no_calls:
        with ChatClient.from_settings(settings.model_copy(update={"max_retries": 0}), session_id="doctor") as client:
            try:
                info = measure(client, info)
            except ModelError as exc:
                return fail(f"{resolved.base_url} did not answer a chat call: {exc}", 1)
    if args.json:
        print(json.dumps(asdict(info)))
    else:
        print("\n".join(server_lines(info, settings)))
    return 0
