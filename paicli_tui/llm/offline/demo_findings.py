"""What the demo model reads out of real tool results: entry names, a file's
headings and first sentence, line counts, search hits.

The model only ever sees tool output as text (never the ok flag), so these
readers are lenient: a changed format yields fewer facts, not a crash.
"""

from __future__ import annotations

import re

from paicli_tui.llm.offline.demo_conversation import ToolOutcome

CONFIG_FILES = ("pyproject.toml", "package.json", "setup.cfg", "setup.py", "Cargo.toml", "go.mod", "pom.xml")
SHOWN_ENTRIES = 8

_LINE_NUMBER = re.compile(r"^\s*\d+\s*(?:[:|\t→]\s?|\s)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
# list_dir writes ``name/`` for a folder, ``name  SIZE`` for a file, ``name@`` for a link.
_LISTING_ENTRY = re.compile(r"(?P<name>[^\s/@](?:.*?[^\s/@])?)(?P<suffix>(?P<dir>/)|@|\s{2,}\d+)?")
_NAME_TOKEN = re.compile(r"\.?[\w\-][\w.\-]*/?")
_SIZE_TOKEN = re.compile(r"(?<![\w.])\(?[\d.,]+\s*(?:[KMGT]i?B|B|bytes?|lines?|entries|files?)?\)?(?![\w.])", re.IGNORECASE)
_NOISE_WORDS = {"file", "dir", "directory", "bytes", "entries", "lines", "symlink", "d", "f", "l", "b", "kb", "mb"}
_FAILURE = re.compile(
    r"^(error|refused|denied|invalid arguments|unknown tool|cancelled|not run)|does not exist|is a directory|"
    r"is a file, not a directory|looks like a binary|outside the workspace|failed( unexpectedly)?:",
    re.IGNORECASE,
)
_GREP_HIT = re.compile(r"^(?P<path>[^\s:][^:]*?):(?P<line>\d+)[:\-]\s?(?P<text>.*)$")
_DEFINITION = re.compile(r"\b(?:def|class)\s+([A-Za-z_]\w*)")
_CONFIG_NAME = re.compile(r"""^\s*"?name"?\s*[=:]\s*"([^"]+)\"""", re.MULTILINE)
_CONFIG_DESCRIPTION = re.compile(r"""^\s*"?description"?\s*[=:]\s*"([^"]+)\"""", re.MULTILINE)
_NOT_PROSE = ("#", "```", "~~~", "<", "[!", "![", "|", "---", "===", "[![")


# -- listings -----------------------------------------------------------------------


def listing_names(outcomes: list[ToolOutcome]) -> list[str]:
    names: list[str] = []
    for outcome in outcomes:
        if outcome.name == "list_dir" and not looks_failed(outcome):
            names.extend(name for name in entry_names(outcome.content) if name not in names)
    return names


def entry_names(listing: str) -> list[str]:
    found: list[str] = []
    for line in listing.splitlines():
        line = line.strip().lstrip("│├└─ ").strip()
        if not line or line.startswith(("(", "[")):
            continue
        entry = _LISTING_ENTRY.fullmatch(line)
        if entry and (entry["suffix"] or not any(c.isspace() for c in line)):
            name = entry["name"] + ("/" if entry["dir"] else "")
        else:
            tokens = [t for t in _NAME_TOKEN.findall(_SIZE_TOKEN.sub(" ", line)) if t.lower() not in _NOISE_WORDS]
            if not tokens:
                continue
            name = next((t for t in tokens if "." in t.strip(".") or t.endswith("/")), tokens[-1])
        if name not in found:
            found.append(name)
    return found


def readme_name(names: list[str]) -> str | None:
    readmes = [n for n in names if re.fullmatch(r"readme(\.\w+)?", n, re.IGNORECASE)]
    return sorted(readmes, key=lambda n: (not n.lower().endswith(".md"), n))[0] if readmes else None


def config_name(names: list[str]) -> str | None:
    return next((c for c in CONFIG_FILES if c in names), None)


def looks_failed(outcome: ToolOutcome) -> bool:
    """A failure is one short line in the registry's wording."""
    text = outcome.content.strip()
    if "\n" in text or len(text) > 300:
        return False
    return bool(_FAILURE.search(text))


# -- file contents --------------------------------------------------------------------


def file_lines(content: str) -> list[str]:
    """The file's own lines, without line-number prefixes the tool may add."""
    lines = content.splitlines()
    numbered = [line for line in lines if _LINE_NUMBER.match(line)]
    if lines and len(numbered) >= 0.8 * len([line for line in lines if line.strip()]):
        return [_LINE_NUMBER.sub("", line, count=1) if _LINE_NUMBER.match(line) else line for line in lines]
    return lines


def headings(lines: list[str]) -> list[str]:
    found = []
    fenced = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line.strip())
        if match:
            found.append(match.group(1))
    return found


def first_sentence(lines: list[str]) -> str | None:
    """The first line of prose: not a heading, badge, fence, table or HTML."""
    for line in lines:
        text = line.strip()
        if text and not text.startswith(_NOT_PROSE):
            return shorten(text, 140)
    return None


def headline(outcomes: list[ToolOutcome]) -> str | None:
    """One opening sentence naming the project, from a README that was read."""
    for outcome in outcomes:
        path = str(outcome.arguments.get("path", "")) if outcome.arguments else ""
        if outcome.name == "read_file" and readme_name([path.rsplit("/", 1)[-1]]) and not looks_failed(outcome):
            lines = file_lines(outcome.content)
            titles = headings(lines)
            if titles:
                prose = first_sentence(lines)
                said = f" Its README opens with: “{prose}”" if prose else ""
                return f"This looks like **{titles[0]}**.{said}"
    return None


# -- one bullet per result ------------------------------------------------------------------


def describe(outcome: ToolOutcome) -> str:
    """One Markdown bullet saying what a tool result showed."""
    target = str(next(iter(outcome.arguments.values()), "")) if outcome.arguments else ""
    if looks_failed(outcome):
        return f"- `{outcome.name}` on `{target}` failed: {shorten(outcome.content.strip(), 160)}"
    if outcome.name == "list_dir":
        return _describe_listing(target or ".", entry_names(outcome.content))
    if outcome.name == "read_file":
        return _describe_file(target, file_lines(outcome.content))
    if outcome.name == "glob_files":
        paths = [line.strip() for line in outcome.content.splitlines() if line.strip() and not line.startswith(("no ", "(", "["))]
        return f"- `{target}` matches {count(len(paths), 'file')}: {_shown(paths) or 'none'}."
    if outcome.name == "grep_code":
        hits = [m for m in map(_GREP_HIT.match, outcome.content.splitlines()) if m]
        files = {m["path"] for m in hits}
        names = [d for m in hits for d in _DEFINITION.findall(m["text"])][:SHOWN_ENTRIES]
        defined = f"; definitions include {', '.join(f'`{n}`' for n in names)}" if names else ""
        return f"- Searching for `{target}` found {count(len(hits), 'line')} in {count(len(files), 'file')}{defined}."
    return f"- `{outcome.name}` returned {count(len(outcome.content.splitlines()), 'line')}."


def _describe_listing(target: str, names: list[str]) -> str:
    visible = [n for n in names if not n.startswith(".")]
    folders = [n for n in visible if n.endswith("/")]
    files = [n for n in visible if not n.endswith("/")]
    parts = []
    if folders:
        parts.append(f"{count(len(folders), 'folder')} ({_shown(folders)})")
    if files:
        parts.append(f"{count(len(files), 'file')} ({_shown(files)})")
    hidden = len(names) - len(visible)
    tail = f"; {count(hidden, 'hidden entry', 'hidden entries')} not listed here" if hidden else ""
    return f"- `{target}` holds {' and '.join(parts) or 'nothing visible'}{tail}."


def _describe_file(path: str, lines: list[str]) -> str:
    text = "\n".join(lines)
    facts = [count(len(lines), "line")]
    titles = headings(lines)
    if titles:
        facts.append(f"first heading “{titles[0]}”")
    if len(titles) > 1:
        facts.append("sections " + ", ".join(f"“{t}”" for t in titles[1:5]) + (" …" if len(titles) > 5 else ""))
    name = _CONFIG_NAME.search(text)
    if name and path.rsplit("/", 1)[-1] in CONFIG_FILES:
        facts.append(f"project name `{name.group(1)}`")
        description = _CONFIG_DESCRIPTION.search(text)
        if description:
            facts.append(f"described as “{description.group(1)}”")
    defined = list(dict.fromkeys(_DEFINITION.findall(text)))
    if defined:
        facts.append("defines " + _shown(defined))
    return f"- `{path}`: " + ", ".join(facts) + "."


def _shown(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names[:SHOWN_ENTRIES]) + (", …" if len(names) > SHOWN_ENTRIES else "")


def count(number: int, word: str, plural: str | None = None) -> str:
    return f"{number} {word if number == 1 else plural or word + 's'}"


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
