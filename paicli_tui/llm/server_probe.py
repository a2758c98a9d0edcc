"""Know the model server: what kind it is, its slots and context, whether
it has a tokenizer, whether tool calls reach the model, how fast it is.

Local servers differ in ways that decide whether an agent can work at all
(docs/providers.md, "Local models"): llama-cpp-python has one slot and cuts
a running reply short for any other request, sends no usage when
streaming, and only turns a reply into a tool call when ``tool_choice``
names the tool; llama-server reports its slots and context at ``/props``;
Ollama and LM Studio describe a model's capabilities. Every request of a
probe passes the server's slot gate (llm/slots.py), since on
llama-cpp-python even ``GET /v1/models`` interrupts a running stream.

``describe_server`` only reads information endpoints (cheap, done once per
process on the first call to a local server); ``measure`` adds two tiny
chat calls (speed, tools) for ``paicli doctor``.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace

import httpx

from paicli_tui.llm.slots import gate_for, server_root

#: The context llama-cpp-python loads unless told otherwise (its n_ctx).
LLAMA_CPP_PYTHON_DEFAULT_CTX = 2048
_CONTEXT_ERROR = re.compile(r"maximum context length is (\d+) tokens")


#: The gate's size for a server that reports no slot limit.
UNLIMITED_SLOTS = 64


class ProbeError(Exception):
    """The server could not be reached at all; one line."""


@dataclass(frozen=True)
class ServerInfo:
    base_url: str
    kind: str = "openai-compatible"  # llama-server | llama-cpp-python | ollama | lmstudio | vllm
    slots: int | None = None
    context_tokens: int | None = None
    context_source: str = ""  # reported | assumed | learned
    #: URL of the server's token counter ("" when it has none).
    tokenizer: str = ""
    #: native: the server parses tool calls; forced: only with a named
    #: tool_choice; none: never; unknown: not measured.
    tools: str = "unknown"
    #: The strongest response_format form it takes.
    structured: str = "json_schema"
    ttft_s: float | None = None
    gen_tps: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def llama_family(self) -> bool:
        return self.kind in ("llama-server", "llama-cpp-python")


_known: dict[str, ServerInfo] = {}
_known_lock = threading.Lock()


def known(base_url: str) -> ServerInfo | None:
    with _known_lock:
        return _known.get(server_root(base_url))


def remember(info: ServerInfo) -> ServerInfo:
    with _known_lock:
        _known[server_root(info.base_url)] = info
    return info


def learn_context(base_url: str, error_text: str) -> int | None:
    """The context size a server named in a context-overflow error."""
    match = _CONTEXT_ERROR.search(error_text)
    if match is None:
        return None
    size = int(match.group(1))
    info = known(base_url)
    if info is not None:
        remember(replace(info, context_tokens=size, context_source="learned"))
    return size


def describe_server(base_url: str, model: str, *, api_key: str | None = None, timeout: float = 2.0,
                    transport: httpx.BaseTransport | None = None) -> ServerInfo:
    """What the information endpoints say (see the module doc)."""
    base = base_url.rstrip("/")
    root = server_root(base)
    gate = gate_for(base, 1)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(timeout=timeout, headers=headers, transport=transport) as http:
        def ask(method: str, url: str, body: dict | None = None) -> dict | None:
            with gate:
                try:
                    response = http.request(method, url, json=body)
                except httpx.ConnectError as exc:
                    raise ProbeError(f"cannot connect to {base}: {exc}") from None
                except httpx.HTTPError:
                    return None
            if response.status_code != 200:
                return None
            try:
                data = response.json()
            except ValueError:
                return None
            return data if isinstance(data, dict) else None

        props = ask("GET", f"{root}/props")
        if props and "total_slots" in props:
            settings = props.get("default_generation_settings") or {}
            caps = props.get("chat_template_caps") or {}
            tools = "unknown" if not caps else ("native" if caps.get("supports_tool_calls") else "none")
            return ServerInfo(base, "llama-server", int(props["total_slots"]), _int(settings.get("n_ctx")), "reported",
                              f"{root}/tokenize", tools, "json_object_schema")
        api = ask("GET", f"{root}/openapi.json")
        if api and "llama.cpp python" in str((api.get("info") or {}).get("title", "")).lower():
            tokenizer = f"{root}/extras/tokenize/count" if "/extras/tokenize/count" in (api.get("paths") or {}) else ""
            return ServerInfo(base, "llama-cpp-python", 1, LLAMA_CPP_PYTHON_DEFAULT_CTX, "assumed", tokenizer,
                              "unknown", "json_object_schema",
                              notes=("unless started with --interrupt_requests False it cuts a running reply short "
                                     "whenever another request arrives: paicli sends one request at a time",))
        show = ask("POST", f"{root}/api/show", {"model": model})
        if show and ("capabilities" in show or "model_info" in show):
            match = re.search(r"num_ctx\s+(\d+)", str(show.get("parameters") or ""))
            context, source = (int(match.group(1)), "reported") if match else (4096, "assumed")
            tools = "native" if "tools" in (show.get("capabilities") or ()) else "none"
            return ServerInfo(base, "ollama", 1, context, source, "", tools, "json_schema")
        studio = ask("GET", f"{root}/api/v0/models/{model}")
        if studio and "loaded_context_length" in studio:
            tools = "native" if "tool_use" in (studio.get("capabilities") or ()) else "none"
            return ServerInfo(base, "lmstudio", 1, _int(studio.get("loaded_context_length")), "reported", "", tools)
        models = ask("GET", f"{base}/models")
        if models is None:
            raise ProbeError(f"{base} answers none of /props, /openapi.json, /api/show or /models")
        for entry in models.get("data") or ():
            if isinstance(entry, dict) and entry.get("max_model_len"):
                return ServerInfo(base, "vllm", None, _int(entry["max_model_len"]), "reported")
        return ServerInfo(base, "openai-compatible")


def count_tokens(info: ServerInfo, text: str, *, timeout: float = 5.0) -> int:
    """The server's own token count of ``text`` (through the slot gate)."""
    gate = gate_for(info.base_url, info.slots or 1)
    body = {"input": text} if info.kind == "llama-cpp-python" else {"content": text}
    with gate:
        response = httpx.post(info.tokenizer, json=body, timeout=timeout)
    response.raise_for_status()
    data = response.json()
    return int(data["count"]) if "count" in data else len(data["tokens"])


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


_probing = threading.Lock()


def adopt_probe(client) -> ServerInfo | None:
    """On a client's first call to a local server: describe the server once
    per process and fit the client to it (slots, tokenizer, the structured
    output form llama.cpp takes). A server that answers no information
    endpoint is left as configured."""
    with _probing:
        info = known(client.base_url)
        fresh = info is None
        if fresh:
            try:
                info = remember(describe_server(client.base_url, client.model, api_key=client._api_key))
            except ProbeError:
                return None
    if client.gate is not None and not client.slots_pinned:
        # A server of unknown kind (a proxy, vLLM) serves requests side by
        # side: only a known slot count limits what is in flight.
        client.gate.resize(info.slots or UNLIMITED_SLOTS)
    if info.tokenizer:
        client.token_counter = lambda text: count_tokens(info, text)
    if info.llama_family and client.format_ceiling == "json_schema":
        # llama.cpp's servers take the schema beside json_object, whatever the preset said.
        client.format_ceiling = "json_object_schema"
    if client.tool_mode_auto and info.llama_family and info.tools != "native":
        client.tool_mode = "union"
    if fresh and client.bus is not None:
        from paicli_tui import events as ev

        client.bus.publish(ev.ServerProbed(
            actor="session", kind=info.kind, base_url=info.base_url, slots=info.slots or 0,
            context_tokens=info.context_tokens or 0, context_source=info.context_source,
            tokenizer=bool(info.tokenizer), tools=info.tools, structured=info.structured, tool_mode=client.tool_mode,
        ))
    return info
