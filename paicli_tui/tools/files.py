"""read_file, write_file and edit_file (P-6.2, P-6.3)."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path
from typing import Any, BinaryIO

from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural
from paicli_tui.tools.sandbox import display_path, looks_binary, resolve_in_workspace

READ_CAP_BYTES = 256 * 1024
BINARY_SNIFF_BYTES = 8192
PATH_PROPERTY = {"type": "string", "minLength": 1, "description": "Path relative to the workspace root."}


def read_text(path: Path, shown: str) -> str:
    """The whole file as UTF-8 text, refusing directories and binary data."""
    if path.is_dir():
        raise ToolError(f"{shown} is a directory")
    if not path.exists():
        raise ToolError(f"{shown} does not exist")
    if not path.is_file():
        raise ToolError(f"{shown} is not a regular file")
    data = path.read_bytes()
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolError(f"{shown} looks like a binary file; refusing to treat it as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not valid UTF-8 text (byte {exc.start})") from None


def atomic_write(path: Path, text: str) -> None:
    """Write through a temp file in the same directory and rename it over the
    target, so readers never see half a file and a crash leaves the old one."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def unified_diff(before: str, after: str, shown: str) -> str:
    diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                fromfile=f"a/{shown}", tofile=f"b/{shown}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in diff)


class ReadFile(Tool):
    name = "read_file"
    description = (
        "Read a UTF-8 text file in the workspace. Optional 1-based inclusive start_line/end_line select a range; "
        f"output is capped at {READ_CAP_BYTES // 1024} KB. Set line_numbers to prefix each line with its number."
    )
    parameters = object_schema({
        "path": PATH_PROPERTY,
        "start_line": {"type": "integer", "minimum": 1, "description": "First line to return (1-based)."},
        "end_line": {"type": "integer", "minimum": 1, "description": "Last line to return (inclusive)."},
        "line_numbers": {"type": "boolean", "description": "Prefix lines with their numbers (default false)."},
    }, ["path"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = resolve_in_workspace(self.workspace, args["path"])
        shown = display_path(self.workspace, path)
        start = args.get("start_line", 1)
        end = args.get("end_line")
        if end is not None and end < start:
            raise ToolError(f"end_line {end} is before start_line {start}")
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; use list_dir")
        if not path.exists():
            raise ToolError(f"{shown} does not exist")
        if not path.is_file():  # a FIFO or device would block or never end
            raise ToolError(f"{shown} is not a regular file")
        with path.open("rb") as handle:
            if looks_binary(handle.read(BINARY_SNIFF_BYTES)):
                raise ToolError(f"{shown} looks like a binary file; refusing to read it as text")
            handle.seek(0)
            lines, total, truncated = _select_lines(handle, start, end)
        if not lines and start > 1 and total < start:
            raise ToolError(f"{shown} has {plural(total, 'line')}; start_line {start} is past the end")
        width = len(str(start + len(lines)))
        body = "".join(
            f"{start + i:>{width}}\t{line}" if args.get("line_numbers") else line for i, line in enumerate(lines)
        )
        last = start + len(lines) - 1
        if truncated:
            body += (f"\n[truncated at {READ_CAP_BYTES // 1024} KB: showed lines {start}-{last}; "
                     f"read further with start_line={last + 1}]")
        return ToolResult(True, body, f"read {plural(len(lines), 'line')} of {shown}")


def _select_lines(handle: BinaryIO, start: int, end: int | None) -> tuple[list[str], int, bool]:
    """Lines start..end decoded leniently, stopping at the byte cap.
    Returns (lines, lines seen, truncated)."""
    lines: list[str] = []
    size = 0
    number = 0
    for number, raw in enumerate(handle, start=1):
        if number < start:
            continue
        if end is not None and number > end:
            return lines, number, False
        size += len(raw)
        if size > READ_CAP_BYTES:
            if not lines:  # one enormous line (minified code): show its start
                lines.append(raw[:READ_CAP_BYTES].decode("utf-8", errors="replace") + "\n")
            return lines, number, True
        lines.append(raw.decode("utf-8", errors="replace"))
    return lines, number, False


class WriteFile(Tool):
    name = "write_file"
    description = ("Create or overwrite a text file in the workspace with the given content (atomic). "
                   "Parent directories are created. Prefer edit_file for small changes to existing files.")
    parameters = object_schema({
        "path": PATH_PROPERTY,
        "content": {"type": "string", "description": "The complete new file content."},
    }, ["path", "content"])
    read_only = False

    def _prepare(self, args: dict[str, Any]) -> tuple[Path, str, str]:
        path = resolve_in_workspace(self.workspace, args["path"])
        shown = display_path(self.workspace, path)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory")
        before = read_text(path, shown) if path.exists() else ""
        return path, shown, before

    def preview(self, args: dict[str, Any]) -> str:
        _path, shown, before = self._prepare(args)
        return unified_diff(before, args["content"], shown)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path, shown, _before = self._prepare(args)
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, args["content"])
        count = len(args["content"].splitlines())
        verb = "overwrote" if existed else "created"
        return ToolResult(True, f"{verb} {shown} ({plural(count, 'line')})", f"{verb} {shown}, {plural(count, 'line')}")


class EditFile(Tool):
    name = "edit_file"
    description = ("Replace old_string with new_string in a workspace file. old_string must match exactly "
                   "(whitespace included) and occur exactly once; include surrounding lines to make it unique.")
    parameters = object_schema({
        "path": PATH_PROPERTY,
        "old_string": {"type": "string", "minLength": 1, "description": "Exact text to replace (must be unique)."},
        "new_string": {"type": "string", "description": "Replacement text."},
    }, ["path", "old_string", "new_string"])
    read_only = False

    def _prepare(self, args: dict[str, Any]) -> tuple[Path, str, str, str]:
        path = resolve_in_workspace(self.workspace, args["path"])
        shown = display_path(self.workspace, path)
        before = read_text(path, shown)
        count = before.count(args["old_string"])
        if count != 1:
            hint = ("check whitespace, indentation and line endings" if count == 0
                    else "include more surrounding lines to make it unique")
            raise ToolError(f"old_string occurs {plural(count, 'time')} in {shown}; it must occur exactly once ({hint})")
        after = before.replace(args["old_string"], args["new_string"], 1)
        return path, shown, before, after

    def preview(self, args: dict[str, Any]) -> str:
        _path, shown, before, after = self._prepare(args)
        return unified_diff(before, after, shown)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path, shown, before, after = self._prepare(args)
        atomic_write(path, after)
        removed = len(args["old_string"].splitlines()) or 1
        added = len(args["new_string"].splitlines())
        line = before[: before.index(args["old_string"])].count("\n") + 1
        return ToolResult(True, f"edited {shown} at line {line}: -{removed} +{added} lines",
                          f"edited {shown}: -{removed} +{added} lines")
