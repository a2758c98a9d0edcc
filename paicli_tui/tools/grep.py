"""grep_code: a regex search over the workspace's source files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural
from paicli_tui.tools.listing import glob_regex
from paicli_tui.tools.sandbox import display_path, looks_binary, resolve_in_workspace
from paicli_tui.tools.walk import workspace_files

DEFAULT_MATCHES = 100
MAX_MATCHES = 500
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_LINE_CHARS = 300


class GrepCode(Tool):
    name = "grep_code"
    description = (
        "Search workspace files for a Python regular expression; prints 'path:line: text' per matching line. "
        "Optional path limits the search to a directory or file; optional glob filters file paths "
        "(e.g. '**/*.py'). Skips .git, virtualenvs, node_modules, binary files and git-ignored files."
    )
    parameters = object_schema({
        "pattern": {"type": "string", "minLength": 1, "description": "Regular expression (Python syntax)."},
        "path": {"type": "string", "description": "Directory or file to search, relative to the workspace."},
        "glob": {"type": "string", "description": "Only files whose workspace-relative path matches this glob."},
        "ignore_case": {"type": "boolean", "description": "Case-insensitive match (default false)."},
        "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES,
                        "description": f"Maximum matching lines to return (default {DEFAULT_MATCHES})."},
    }, ["pattern"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            regex = re.compile(args["pattern"], re.IGNORECASE if args.get("ignore_case") else 0)
        except re.error as exc:
            raise ToolError(f"invalid regular expression {args['pattern']!r}: {exc}") from None
        start = resolve_in_workspace(self.workspace, args.get("path") or ".")
        if not start.exists():
            raise ToolError(f"{display_path(self.workspace, start)} does not exist")
        limit = args.get("max_results", DEFAULT_MATCHES)
        path_filter = glob_regex(args["glob"]) if args.get("glob") else None
        root = self.workspace.resolve()
        files = [start] if start.is_file() else workspace_files(start, ctx.cancel)
        matches: list[str] = []
        searched = 0
        more = False
        for path in files:
            if ctx.cancel.is_set():
                break
            relative = display_path(root, path)
            if path_filter is not None and not path_filter.fullmatch(Path(relative).as_posix()):
                continue
            lines = _text_lines(path, root)
            if lines is None:
                continue
            searched += 1
            for number, line in enumerate(lines, start=1):
                if regex.search(line):
                    if len(matches) == limit:
                        more = True
                        break
                    text = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
                    matches.append(f"{relative}:{number}: {text}")
            if more:
                break
        body = "\n".join(matches) if matches else f"no matches for {args['pattern']!r} in {plural(searched, 'file')}"
        if more:
            body += f"\n[stopped at {limit} matches; narrow the pattern, path or glob]"
        summary = f"{plural(len(matches), 'match', 'matches')}{'+' if more else ''} in {plural(searched, 'file')}"
        return ToolResult(True, body, summary)


def _text_lines(path: Path, root: Path) -> list[str] | None:
    """The file's lines, or None for files to skip: binary, huge, unreadable,
    or a symlink leading out of the workspace."""
    try:
        if not path.resolve().is_relative_to(root):
            return None
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if looks_binary(data[:8192]):
        return None
    return data.decode("utf-8", errors="replace").splitlines()
