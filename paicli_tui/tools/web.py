"""web_fetch: GET a trusted URL and return readable text (P-6.6)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

import httpx

from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema
from paicli_tui.tools.htmltext import html_to_text
from paicli_tui.tools.trusted_urls import normalize_url

FETCH_TIMEOUT_S = 20.0
MAX_DOWNLOAD_BYTES = 2 * 1024 * 1024
MAX_TEXT_CHARS = 100_000
MAX_REDIRECTS = 5
NOT_TRUSTED = "refused: URL not provided by the user or a web_search result in this branch"
_TEXTUAL_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "application/javascript",
                  "application/x-yaml", "application/yaml", "application/toml")


class WebFetch(Tool):
    name = "web_fetch"
    description = ("Fetch a web page or text document and return it as plain text. Only URLs the person gave "
                   "in this conversation turn or URLs returned by web_search may be fetched.")
    parameters = object_schema({
        "url": {"type": "string", "minLength": 1, "description": "An http(s) URL."},
    }, ["url"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        url = args["url"].strip()
        if normalize_url(url) is None:
            raise ToolError(f"refused: {url!r} is not an http(s) URL")
        if not ctx.trusted_urls.allows(url):
            raise ToolError(f"{NOT_TRUSTED}: {url}")
        with httpx.Client(timeout=FETCH_TIMEOUT_S, follow_redirects=False,
                          headers={"User-Agent": "paicli/0.1 (+web_fetch)"}) as client:
            final_url, content_type, raw, truncated = _download(client, url, ctx)
        text = raw.decode(_charset(content_type), errors="replace")
        if "html" in content_type or (not content_type and text.lstrip()[:15].lower().startswith(("<!doctype", "<html"))):
            text = html_to_text(text)
        if len(text) > MAX_TEXT_CHARS:
            text, truncated = text[:MAX_TEXT_CHARS], True
        header = f"URL: {final_url}\n" + (f"[content truncated to the first {MAX_TEXT_CHARS // 1000}k characters]\n" if truncated else "")
        return ToolResult(True, f"{header}\n{text}", f"fetched {final_url} ({len(text)} chars)")


def _download(client: httpx.Client, url: str, ctx: ToolContext) -> tuple[str, str, bytes, bool]:
    """Follow redirects that stay on the same origin or lead to a trusted
    URL; read at most MAX_DOWNLOAD_BYTES."""
    for _hop in range(MAX_REDIRECTS + 1):
        try:
            with client.stream("GET", url) as response:
                if response.is_redirect:
                    target = urljoin(url, response.headers.get("location", ""))
                    if not (_same_origin(url, target) or ctx.trusted_urls.allows(target)):
                        raise ToolError(f"refused: {url} redirects to {target}, which is not a trusted URL")
                    url = target
                    continue
                if response.status_code >= 400:
                    raise ToolError(f"{url} answered HTTP {response.status_code}")
                content_type = response.headers.get("content-type", "").lower()
                if content_type and not content_type.startswith(_TEXTUAL_TYPES):
                    raise ToolError(f"{url} is {content_type.split(';')[0]}, not text; web_fetch reads text only")
                body = bytearray()
                for chunk in response.iter_bytes():
                    if ctx.cancel.is_set():
                        raise ToolError("cancelled")
                    body += chunk
                    if len(body) > MAX_DOWNLOAD_BYTES:
                        return url, content_type, bytes(body[:MAX_DOWNLOAD_BYTES]), True
                return url, content_type, bytes(body), False
        except httpx.TimeoutException:
            raise ToolError(f"{url} timed out after {FETCH_TIMEOUT_S:g} s") from None
        except httpx.HTTPError as exc:
            raise ToolError(f"fetching {url} failed: {type(exc).__name__}: {exc}") from None
    raise ToolError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _same_origin(a: str, b: str) -> bool:
    first, second = normalize_url(a), normalize_url(b)
    if first is None or second is None:
        return False
    return first.split("/", 3)[:3] == second.split("/", 3)[:3]


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            candidate = value.strip("\"' ")
            try:
                "".encode(candidate)
            except LookupError:
                break
            return candidate
    return "utf-8"
