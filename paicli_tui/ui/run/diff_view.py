"""A unified diff as coloured lines: each file's name as a heading, added
lines green, removed lines red, hunk heads in the accent colour, and git's
plumbing lines (index, ---/+++) left out — the heading already names the file."""

from __future__ import annotations

from textual.content import Content

_STYLES = (("+", "$text-success"), ("-", "$text-error"), ("@@", "$text-accent"), ("[diff cut", "$text-warning italic"))
_PLUMBING = ("index ", "--- ", "+++ ", "similarity ", "rename ")


def diff_lines(diff: str) -> list[Content]:
    lines: list[Content] = []
    in_header = False  # between "diff --git" and the first hunk: git's plumbing
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            path = line.split(" b/", 1)[-1]
            if lines:
                lines.append(Content(""))
            lines.append(Content.styled(f"▍{path}", "bold"))
            in_header = True
            continue
        if line.startswith("@@"):
            in_header = False
        if in_header:
            if not line.startswith(_PLUMBING):
                lines.append(Content.styled(f"  {line}", "$text-muted"))  # new file, deleted, binary
            continue
        style = next((style for mark, style in _STYLES if line.startswith(mark)), "")
        lines.append(Content.styled(line, style) if style else Content(line))
    return lines
