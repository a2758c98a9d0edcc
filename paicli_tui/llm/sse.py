"""Server-sent events: raw bytes → event data → chat-completion deltas.

Both classes are pure (no I/O) so every quirk is unit-testable. The decoder
works on bytes and splits with C-level ``bytes`` methods: the per-chunk cost
is what bounds streaming throughput (bench/client_stream.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paicli_tui.llm.completion import arguments_text, error_text, parse_usage
from paicli_tui.llm.markup import find_unexecuted_markup
from paicli_tui.llm.think import ThinkSplitter
from paicli_tui.llm.types import ChatResult, Delta, ModelStreamError, ToolCall, Usage

_STRAY_LIMIT = 4096
#: Longest SSE line, and longest event, the decoder holds (a server bug or
#: an attack otherwise grows one buffer without end).
MAX_EVENT_BYTES = 8 * 1024 * 1024


class SSELimitError(ModelStreamError):
    """One line or event of the stream is longer than MAX_EVENT_BYTES."""


class SSEDecoder:
    """Feed network reads; get back the ``data`` of each complete event.

    Handles events split across reads, LF / CRLF / CR line ends (also a CRLF
    split between two reads), comment lines such as ``: ping``, and several
    ``data:`` lines in one event (joined with ``\\n``). Other fields (``event``,
    ``id``, ``retry``) carry nothing for chat completions and are ignored.
    Lines that are not SSE at all are kept in ``stray`` (up to 4 KiB) so a
    caller can explain a server that answered with plain JSON.

    An unfinished line is kept as a list of reads, joined once its line end
    arrives: joining on every read made a long line cost quadratic time. A
    line or event longer than ``limit`` bytes raises SSELimitError.
    """

    __slots__ = ("_pending", "_pending_len", "_data", "stray", "limit")

    def __init__(self, limit: int = MAX_EVENT_BYTES) -> None:
        self._pending: list[bytes] = []
        self._pending_len = 0
        self._data: list[bytes] = []
        self.stray = b""
        self.limit = limit

    def feed(self, chunk: bytes) -> list[str]:
        pending = self._pending
        if pending:
            # Still inside one line (and no CR waiting to be read as a line
            # end): just hold the piece.
            if b"\n" not in chunk and b"\r" not in chunk and pending[-1][-1:] != b"\r":
                pending.append(chunk)
                self._hold(len(chunk))
                return []
            pending.append(chunk)
            buffer = b"".join(pending)
            pending.clear()
            self._pending_len = 0
        else:
            buffer = chunk
        held = b""
        if b"\r" in buffer:
            if buffer.endswith(b"\r"):
                # Maybe the first half of a CRLF: decide on the next read.
                buffer, held = buffer[:-1], b"\r"
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = buffer.split(b"\n")
        rest = lines.pop() + held
        if rest:
            pending.append(rest)
            self._hold(len(rest))
        return self._lines(lines) if lines else []

    def _hold(self, size: int) -> None:
        self._pending_len += size
        if self._pending_len > self.limit:
            self._pending.clear()
            self._pending_len = 0
            raise SSELimitError(f"a line of the event stream is longer than {self.limit // 1048576} MiB")

    def close(self) -> list[str]:
        """End of stream: a last line without its newline and an event
        without its blank line still count (servers are sloppy here)."""
        rest = b"".join(self._pending)
        self._pending.clear()
        self._pending_len = 0
        lines = rest.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n") if rest else []
        lines.append(b"")
        return self._lines(lines)

    def _lines(self, lines: list[bytes]) -> list[str]:
        events: list[str] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    payload = data[0] if len(data) == 1 else b"\n".join(data)
                    events.append(payload.decode("utf-8", "replace"))
                    data.clear()
            elif line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value[:1] == b" " else value)
                # One line is bounded by feed; an event of many lines here.
                if len(data) > 1 and sum(map(len, data)) > self.limit:
                    data.clear()
                    raise SSELimitError(f"an event of the event stream is longer than {self.limit // 1048576} MiB")
            elif line[0] != 0x3A and not line.startswith((b"event:", b"id:", b"retry:")):
                if len(self.stray) < _STRAY_LIMIT:
                    self.stray = (self.stray + line + b"\n")[:_STRAY_LIMIT]
        return events


@dataclass(eq=False)
class _PartialCall:
    position: int
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def _merged_name(stored: str, incoming: str) -> str:
    # llama.cpp repeats the whole name in every chunk; a few servers send it
    # cumulatively; the rest send it once (or, rarely, in fragments).
    if not stored or incoming == stored or incoming.startswith(stored):
        return incoming
    return stored + incoming


_NO_DELTAS: list[Delta] = []


class StreamAccumulator:
    """Assembles ``chat.completion.chunk`` objects into one ChatResult and
    returns the deltas each chunk carried.

    Tool calls are keyed by ``index``; ids and names may come once or in
    every chunk; argument fragments are concatenated. ``reasoning_content``
    (or ``reasoning``) is kept apart from content, and so is a
    ``<think>`` block that opens the content (llm/think.py): its deltas are
    reasoning deltas. Usage may arrive in any chunk (usually a last one with
    empty ``choices``) or never. Call ``flush`` at the end of the stream for
    the deltas of text held back while it might still have been a tag.
    """

    def __init__(self) -> None:
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[_PartialCall] = []
        self._by_index: dict[Any, _PartialCall] = {}
        #: None once the content is known to be plain: the hot path then
        #: skips it with one check.
        self._think: ThinkSplitter | None = ThinkSplitter()
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.chunks = 0

    def add(self, chunk: Any) -> list[Delta]:
        if not isinstance(chunk, dict):
            raise ModelStreamError(f"unexpected stream chunk: {str(chunk)[:200]}")
        self.chunks += 1
        if chunk.get("error") is not None:
            raise ModelStreamError(error_text(chunk["error"])[:200])
        usage = chunk.get("usage")
        if usage:
            self.usage = parse_usage(usage)
        choices = chunk.get("choices")
        if not choices:
            return _NO_DELTAS
        choice = choices[0]
        reason = choice.get("finish_reason")
        if reason:
            self.finish_reason = reason
        delta = choice.get("delta")
        if not delta:
            return _NO_DELTAS
        if len(delta) == 1:
            # The common case, one token of plain content, takes one lookup.
            text = delta.get("content")
            if text and isinstance(text, str):
                if self._think is None:
                    self._content.append(text)
                    return [Delta("content", text)]
                deltas = []
                self._split(text, deltas)
                return deltas
        deltas: list[Delta] = []
        text = delta.get("reasoning_content") or delta.get("reasoning")
        if text and isinstance(text, str):
            self._reasoning.append(text)
            deltas.append(Delta("reasoning", text))
        text = delta.get("content")
        if text and isinstance(text, str):
            if self._think is None:
                self._content.append(text)
                deltas.append(Delta("content", text))
            else:
                self._split(text, deltas)
        calls = delta.get("tool_calls")
        if calls:
            for call in calls:
                self._add_call(call, deltas)
        elif delta.get("function_call"):
            self._add_call({"index": 0, "function": delta["function_call"]}, deltas)
        return deltas

    def _split(self, text: str, deltas: list[Delta]) -> None:
        splitter = self._think
        assert splitter is not None
        self._keep(splitter.feed(text), deltas)
        if splitter.passing:
            self._think = None

    def _keep(self, pieces: list[tuple[str, str]], deltas: list[Delta]) -> None:
        for kind, piece in pieces:
            (self._reasoning if kind == "reasoning" else self._content).append(piece)
            deltas.append(Delta("reasoning" if kind == "reasoning" else "content", piece))

    def flush(self) -> list[Delta]:
        """The end of the stream: deltas for text the think splitter held
        back (a lone "<thi", whitespace, an unclosed block's last bytes)."""
        splitter, self._think = self._think, None
        deltas: list[Delta] = []
        if splitter is not None:
            self._keep(splitter.finish(), deltas)
        return deltas

    def _add_call(self, call: dict, deltas: list[Delta]) -> None:
        function = call.get("function") or {}
        call_id = call.get("id") or ""
        name = function.get("name") or ""
        index = call.get("index")
        if index is None:
            # No index at all: a new id starts a new call, else continue the last.
            last = self._calls[-1] if self._calls else None
            index = len(self._calls) if last is None or (call_id and call_id != last.id) else self._index_of(last)
        slot = self._by_index.get(index)
        if slot is None or (call_id and name and slot.id and call_id != slot.id):
            # Some servers reuse index 0 for every call; a new id with a
            # name is then the start of a new call.
            slot = _PartialCall(len(self._calls))
            self._by_index[index] = slot
            self._calls.append(slot)
        if call_id and not slot.id:
            slot.id = call_id
        if name:
            slot.name = _merged_name(slot.name, name)
        arguments = arguments_text(function.get("arguments"))
        if arguments:
            slot.arguments.append(arguments)
            deltas.append(Delta("tool_call", arguments, slot.position, slot.name))

    def _index_of(self, slot: _PartialCall) -> Any:
        for index, candidate in self._by_index.items():
            if candidate is slot:
                return index
        return slot.position

    @property
    def content(self) -> str:
        return "".join(self._content)

    @property
    def has_output(self) -> bool:
        return bool(self._content or self._reasoning or self._calls)

    def result(self) -> ChatResult:
        self.flush()
        calls = tuple(
            ToolCall(slot.id or f"call_{n}", slot.name, "".join(slot.arguments))
            for n, slot in enumerate(self._calls)
            if slot.name or slot.arguments
        )
        content = self.content
        return ChatResult(
            content=content,
            reasoning="".join(self._reasoning),
            tool_calls=calls,
            finish_reason=self.finish_reason,
            usage=self.usage or Usage(),
            usage_reported=self.usage is not None,
            unexecuted_markup=find_unexecuted_markup(content),
        )
