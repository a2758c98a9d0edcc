"""web_search and its pluggable backends. The tool exists only when a
backend is configured; every result URL becomes trusted in the branch that
searched (P-6.6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural

DEFAULT_LIMIT = 8
MAX_LIMIT = 20


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str
    snippet: str = ""


class SearchError(Exception):
    """The backend failed; ``str()`` is one line."""


class SearchBackend(Protocol):
    def search(self, query: str, limit: int) -> list[SearchHit]: ...


class SearxngBackend:
    """A SearXNG instance's JSON API (``/search?format=json``; the instance
    must have the json format enabled)."""

    def __init__(self, base_url: str, timeout_s: float = 15.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def search(self, query: str, limit: int) -> list[SearchHit]:
        try:
            response = httpx.get(f"{self.base_url}/search", params={"q": query, "format": "json"},
                                 timeout=self.timeout_s, headers={"Accept": "application/json"})
        except httpx.HTTPError as exc:
            raise SearchError(f"search backend {self.base_url} unreachable: {type(exc).__name__}") from None
        if response.status_code != 200:
            raise SearchError(f"search backend {self.base_url} answered HTTP {response.status_code}")
        try:
            results = response.json().get("results", [])
        except (ValueError, AttributeError):
            raise SearchError(f"search backend {self.base_url} did not return JSON results") from None
        hits = []
        for item in results if isinstance(results, list) else []:
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                hits.append(SearchHit(str(item.get("title") or item["url"]), item["url"], str(item.get("content") or "")))
            if len(hits) == limit:
                break
        return hits


class WebSearch(Tool):
    name = "web_search"
    description = ("Search the web. Returns titles, URLs and snippets; the returned URLs may then be opened "
                   "with web_fetch.")
    parameters = object_schema({
        "query": {"type": "string", "minLength": 1, "description": "Search terms."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                  "description": f"Number of results (default {DEFAULT_LIMIT})."},
    }, ["query"])

    def __init__(self, workspace, backend: SearchBackend) -> None:
        super().__init__(workspace)
        self.backend = backend

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        limit = args.get("limit", DEFAULT_LIMIT)
        try:
            hits = self.backend.search(args["query"], limit)[:limit]
        except SearchError as exc:
            raise ToolError(str(exc)) from None
        ctx.trusted_urls.add_search_results(hit.url for hit in hits)
        if not hits:
            return ToolResult(True, f"no results for {args['query']!r}", "0 results")
        lines = []
        for number, hit in enumerate(hits, start=1):
            lines.append(f"{number}. {hit.title}\n   {hit.url}")
            if hit.snippet:
                lines.append(f"   {' '.join(hit.snippet.split())}")
        return ToolResult(True, "\n".join(lines), f"{plural(len(hits), 'result')} for {args['query']}")
