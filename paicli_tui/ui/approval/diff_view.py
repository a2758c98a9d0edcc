"""A unified diff as the approval dialog shows it: once, with the old and
new line numbers in a gutter and the theme's diff colours."""

from __future__ import annotations

import re

from textual.content import Content

PREVIEW_LINES = 400
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def colour_diff(preview: str) -> Content:
    """A unified diff with added and removed lines coloured and numbered.
    The ``---``/``+++`` header is left out: the dialog names the file. Other
    lines that are not diff text are shown as muted notes."""
    lines = preview.splitlines()
    old = new = 0
    width = _number_width(lines)
    shown: list[Content] = []
    for line in lines[:PREVIEW_LINES]:
        hunk = _HUNK.match(line)
        if line.startswith(("+++", "---")):
            continue
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            shown.append(Content.styled(line, "$secondary"))
        elif line.startswith("+"):
            shown.append(_numbered("", new, width, line, "$diff-added"))
            new += 1
        elif line.startswith("-"):
            shown.append(_numbered(old, "", width, line, "$diff-removed"))
            old += 1
        elif line.startswith("\\"):  # "\ No newline at end of file"
            shown.append(Content.styled(line, "italic $text-muted"))
        elif line.startswith(" "):
            shown.append(_numbered(old, new, width, line, ""))
            old += 1
            new += 1
        else:  # not diff text (context lines start with a space): a note such as "replaces a binary file"
            shown.append(Content.styled(line, "italic $text-muted"))
    if len(lines) > PREVIEW_LINES:
        shown.append(Content.styled(f"… {len(lines) - PREVIEW_LINES} more lines", "italic"))
    if not shown:
        return Content.styled("(no change)", "italic")
    return Content("\n").join(shown)


def _numbered(old: int | str, new: int | str, width: int, line: str, style: str) -> Content:
    gutter = Content.styled(f"{old!s:>{width}} {new!s:>{width}} │ ", "$text-muted")
    return Content.assemble(gutter, Content.styled(line, style) if style else Content(line))


def _number_width(lines: list[str]) -> int:
    """Digits of the largest line number any hunk reaches."""
    widest = 1
    for line in lines:
        hunk = _HUNK.match(line)
        if hunk:
            widest = max(widest, len(str(int(hunk.group(1)) + len(lines))), len(str(int(hunk.group(2)) + len(lines))))
    return widest
