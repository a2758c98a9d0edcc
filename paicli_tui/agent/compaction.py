"""History compaction: keep the system prompt and recent turns, shrink old
tool results to stubs, and drop the oldest turns only when stubs are not
enough. Tool-call/tool-result pairs are never split."""

from __future__ import annotations

from dataclasses import dataclass

STUB_PREFIX = "[compacted]"


def history_chars(messages: list[dict]) -> int:
    total = 0
    for message in messages:
        total += len(message.get("content") or "")
        for call in message.get("tool_calls") or ():
            total += len(call["function"].get("arguments") or "")
    return total


@dataclass(frozen=True)
class CompactionResult:
    messages: list[dict]
    stubbed: int
    dropped: int


def _turn_starts(messages: list[dict]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.get("role") == "user"]


def compact(messages: list[dict], max_chars: int, keep_recent_turns: int = 2) -> CompactionResult | None:
    """Return a smaller history, or None when it already fits."""
    if history_chars(messages) <= max_chars:
        return None
    starts = _turn_starts(messages)
    # Everything before the last `keep_recent_turns` user turns is "old".
    protect_from = starts[-keep_recent_turns] if len(starts) >= keep_recent_turns else (starts[0] if starts else len(messages))
    result = [dict(m) for m in messages]
    stubbed = 0
    for i in range(len(result)):
        if i >= protect_from:
            break
        message = result[i]
        content = message.get("content") or ""
        if message.get("role") == "tool" and not content.startswith(STUB_PREFIX) and len(content) > 200:
            message["content"] = f"{STUB_PREFIX} old tool result of {len(content):,} characters removed to save space"
            stubbed += 1
    if history_chars(result) > max_chars:
        # One long turn (a task's) has no old turns: stub its own tool
        # results too, all but the last ``keep_recent_turns``.
        tools = [i for i, m in enumerate(result) if m.get("role") == "tool"]
        for i in tools[:-keep_recent_turns] if keep_recent_turns else tools:
            content = result[i].get("content") or ""
            if not content.startswith(STUB_PREFIX) and len(content) > 200:
                result[i]["content"] = f"{STUB_PREFIX} old tool result of {len(content):,} characters removed to save space"
                stubbed += 1
    dropped = 0
    # Still too long: drop whole old turns (system prompt at index 0 stays).
    while history_chars(result) > max_chars:
        starts = _turn_starts(result)
        if len(starts) <= keep_recent_turns:
            break
        first, second = starts[0], starts[1]
        del result[first:second]
        dropped += second - first
    if stubbed == 0 and dropped == 0:
        return None
    return CompactionResult(result, stubbed, dropped)
