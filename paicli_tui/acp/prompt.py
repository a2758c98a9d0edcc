"""An ACP prompt (content blocks) as what a session runs: the text, the
workspace files attached by link, and embedded resources as data."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from acp.schema import (EmbeddedResourceContentBlock, ResourceContentBlock, TextContentBlock,
                        TextResourceContents)

#: Characters of one embedded resource passed on (the rest is cut, and said so).
MAX_EMBEDDED_CHARS = 200_000


@dataclass(frozen=True)
class PromptInput:
    text: str
    attachments: tuple[str, ...] = ()
    """Workspace-relative paths the editor linked (read like ``@path``)."""
    embedded: str = ""
    """Resources the editor sent with their content, each wrapped as data."""
    ignored: tuple[str, ...] = ()
    """What could not be used (an image, a link outside the workspace)."""


def read_prompt(blocks: list, workspace: Path) -> PromptInput:
    texts: list[str] = []
    attachments: list[str] = []
    embedded: list[str] = []
    ignored: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            relative = _workspace_path(block.uri, workspace)
            if relative is None:
                ignored.append(f"{block.uri} (not a file in the workspace)")
            elif relative not in attachments:
                attachments.append(relative)
        elif isinstance(block, EmbeddedResourceContentBlock) and isinstance(block.resource, TextResourceContents):
            text = block.resource.text
            cut = " truncated=\"true\"" if len(text) > MAX_EMBEDDED_CHARS else ""
            embedded.append(f"<attached uri=\"{block.resource.uri}\"{cut}>\n{text[:MAX_EMBEDDED_CHARS]}\n</attached>")
        else:
            ignored.append(f"a {getattr(block, 'type', 'content')} block")
    return PromptInput("".join(texts).strip(), tuple(attachments), "\n".join(embedded), tuple(ignored))


def _workspace_path(uri: str, workspace: Path) -> str | None:
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return None
    path = Path(unquote(parsed.path))
    if not path.is_absolute():
        path = workspace / path
    try:
        return str(path.resolve().relative_to(workspace.resolve()))
    except ValueError:
        return None
