"""What the person asked the demo model for: a greeting, one file, one
folder, a search, a change, or an overview of the workspace.

Read from the turn's own words only (P-1.7: same request, same reply), so the
demo answers the question it was asked instead of summarising the README every
time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from paicli_tui.llm.offline.demo_conversation import ToolOutcome

Kind = Literal["greeting", "path", "words", "search", "change", "overview"]

#: Where ``attach.user_message`` starts the attached files' blocks.
ATTACHED_HEADER = "\n\nFiles the user attached to this message"

_GREETING = re.compile(
    r"^\s*(hi|hello|hey|hallo|howdy|yo|thanks|thank you|thx|good (morning|afternoon|evening))\b[\s!.,:)]*"
    r"(there|paicli|demo)?[\s!.,:)]*$",
    re.IGNORECASE,
)
CHANGE_WORDS = re.compile(
    r"\b(write|edit|change|modify|create|delete|remove|fix|run|execute|install|commit|refactor|add|rename|update|"
    r"implement|replace|insert|rewrite|move|bump|format|append|introduce|support|convert|drop|patch|migrate)\b",
    re.IGNORECASE,
)
# First words of a question or a reading request: a sentence that starts
# otherwise is an instruction, which in ASK mode is a change request.
_READING_WORDS = {
    "what", "whats", "what's", "where", "why", "how", "who", "which", "when", "is", "are", "does", "do", "did",
    "can", "could", "would", "should", "explain", "show", "list", "describe", "summarise", "summarize", "tell",
    "find", "search", "look", "read", "give", "help", "please", "i", "is there", "any", "overview", "open",
}
_MENTION = re.compile(r"(?<![\w@])@([\w./\-]+[\w/])")
_PATH_TOKEN = re.compile(r"(?<![\w@/])((?:[\w\-]+/)+[\w.\-]*|[\w\-]+\.(?:py|md|toml|txt|json|ya?ml|cfg|ini|js|ts|rs|go|sh|rst))(?![\w/])")
_SEARCH = re.compile(r"\b(?:where(?:'s| is| are)|find|search(?: for)?|grep(?: for)?|who calls|uses of)\s+[`'\"]?([A-Za-z_][\w.]*)", re.IGNORECASE)
_IDENTIFIER = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`|\b([A-Za-z_]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[A-Za-z_]\w*\(\))")
_WORD = re.compile(r"[A-Za-z][\w\-]{2,}")
_STOP_WORDS = {
    "the", "and", "what", "whats", "where", "which", "this", "that", "there", "inside", "with", "about", "from",
    "into", "does", "file", "files", "folder", "folders", "directory", "dir", "project", "code", "repo", "please",
    "show", "explain", "list", "tell", "describe", "contents", "content", "contain", "contains", "have", "has",
}
_ARTICLES = {"a", "an", "my", "our", "it", "its", "all", "any"}
_ATTACHED_BLOCK = re.compile(r'<attached-file path="([^"]+)"[^>]*>\n(.*?)\n</attached-file>', re.DOTALL)


@dataclass(frozen=True)
class Intent:
    kind: Kind
    #: The path, search pattern or candidate words the question names.
    targets: tuple[str, ...] = ()
    #: Files attached with ``@path``, read from the message itself.
    attached: tuple[ToolOutcome, ...] = field(default_factory=tuple)


def read_intent(message: str, approval_mode: str = "") -> Intent:
    """What ``message`` (the turn's user text, attachments included) asks for."""
    question, attached = split_attachments(message)
    text = question.strip()
    if _GREETING.match(text):
        return Intent("greeting")
    if CHANGE_WORDS.search(text) or (approval_mode == "ask" and _is_instruction(text)):
        return Intent("change", attached=attached)
    paths = _paths(text)
    if attached and not paths:
        paths = tuple(outcome.arguments["path"] for outcome in attached)
    if paths:
        return Intent("path", paths, attached)
    searched = _SEARCH.search(text)
    identifier = _IDENTIFIER.search(text)
    pattern = searched.group(1) if searched else (identifier.group(1) or identifier.group(2)) if identifier else ""
    pattern = pattern.rstrip("()").rstrip(".")
    if pattern and pattern.lower() not in _STOP_WORDS | _ARTICLES:
        return Intent("search", (pattern,))
    words = tuple(w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP_WORDS)
    return Intent("words", words) if words else Intent("overview")


def split_attachments(message: str) -> tuple[str, tuple[ToolOutcome, ...]]:
    """The person's own words, and each attached file as if ``read_file`` had
    returned it."""
    question, _, rest = message.partition(ATTACHED_HEADER)
    files = tuple(ToolOutcome("read_file", {"path": path}, content) for path, content in _ATTACHED_BLOCK.findall(rest))
    return question, files


def match_listing(words: tuple[str, ...], names: list[str]) -> str | None:
    """The listed entry a question word names ("tests" → ``tests/``, "readme"
    → ``README.md``), folders first."""
    for name in sorted(names, key=lambda n: not n.endswith("/")):
        bare = name.rstrip("/").lower()
        stem = bare.rsplit(".", 1)[0] if "." in bare.lstrip(".") else bare
        if any(word in (bare, stem) or (len(word) > 3 and word.rstrip("s") == stem.rstrip("s")) for word in words):
            return name
    return None


def _paths(text: str) -> tuple[str, ...]:
    found = [m.group(1) for m in _MENTION.finditer(text)]
    found += [m.group(0) for m in _PATH_TOKEN.finditer(text) if not m.group(0).startswith(("http", "www."))]
    unique: list[str] = []
    for path in found:
        path = path.removeprefix("./")
        if path and path not in unique and "://" not in path:
            unique.append(path)
    return tuple(unique[:3])


def _is_instruction(text: str) -> bool:
    first = re.match(r"[\W_]*([A-Za-z']+)", text)
    if not first or text.rstrip().endswith("?"):
        return False
    return first.group(1).lower() not in _READING_WORDS
