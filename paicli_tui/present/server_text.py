"""The model server as people read it (`paicli doctor`, `/model`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paicli_tui.config.settings import Settings
    from paicli_tui.llm.server_probe import ServerInfo

_TOOLS_WORDS = {
    "native": "the server turns the model's tool calls into calls",
    "forced": "turned into calls only when tool_choice names the tool: paicli constrains replies to a tool call or an answer",
    "none": "never turned into calls by the server: paicli constrains replies to a tool call or an answer where it takes a schema",
    "unknown": "not measured",
}


def server_lines(info: "ServerInfo", settings: "Settings") -> list[str]:
    """What `paicli doctor` and `/model` say about the model server."""
    slots = f"{info.slots} slot{'' if info.slots == 1 else 's'}" if info.slots else "slots unknown"
    context = f"context {info.context_tokens} {info.context_source}" if info.context_tokens else "context unknown"
    rows = [f"server   {info.kind} at {info.base_url} ({slots}, {context})",
            f"tools    {_TOOLS_WORDS.get(info.tools, info.tools)}",
            f"format   {info.structured}",
            "tokens   " + ("counted with the server's tokenizer" if info.tokenizer
                           else "estimated from characters when the server sends no usage")]
    if info.ttft_s is not None:
        speed = f"{info.gen_tps:.0f} tok/s" if info.gen_tps else "too short to tell"
        rows.append(f"speed    first token {info.ttft_s:.2f} s · generation {speed}")
    if settings.compact_profile():
        limit = settings.task_max_tokens or settings.local_max_tokens
        rows.append(f"profile  compact (local server): short prompts with a task type's tools, "
                    f"{limit} tokens a tool-loop call, plans of at most 8 steps")
    rows += [f"note     {note}" for note in info.notes]
    return rows
