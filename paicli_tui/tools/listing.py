"""list_dir and glob_files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paicli_tui.tools import safe_fs
from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural
from paicli_tui.tools.globs import glob_matcher, glob_start
from paicli_tui.tools.confinement import display_path, resolve_in_workspace
from paicli_tui.tools.walk import Listing, skipped_note, workspace_files

LIST_CAP = 1000
GLOB_CAP = 500


class ListDir(Tool):
    name = "list_dir"
    description = ("List one directory of the workspace (not recursive). Directories end with '/', "
                   "files show their size in bytes.")
    parameters = object_schema({
        "path": {"type": "string", "description": "Directory relative to the workspace root (default '.')."},
    }, [])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw = args.get("path") or "."
        # The check names the directory in messages; the listing itself goes
        # through safe_fs, which does not trust it (a symlink may be swapped in).
        shown = display_path(self.workspace, resolve_in_workspace(self.workspace, raw))
        entries, total = safe_fs.list_dir(self.workspace, raw, shown, LIST_CAP)
        lines = [_describe(entry) for entry in entries]
        if total > LIST_CAP:
            lines.append(f"[{total - LIST_CAP} more entries not shown]")
        body = "\n".join(lines) if lines else "(empty directory)"
        return ToolResult(True, body, f"listed {plural(total, 'entry', 'entries')} in {shown}")


def _describe(entry: safe_fs.Entry) -> str:
    if entry.is_symlink:
        return f"{entry.name}@"
    if entry.is_dir:
        return f"{entry.name}/"
    return entry.name if entry.size is None else f"{entry.name}  {entry.size}"


class GlobFiles(Tool):
    name = "glob_files"
    description = ("Find workspace files whose path (relative to the workspace root) matches a glob pattern: "
                   "'*' and '?' stay within one directory, '**' spans directories (e.g. '**/*.py', 'src/**/test_*.py'). "
                   f"Skips .git, virtualenvs, node_modules and git-ignored files; at most {GLOB_CAP} results.")
    parameters = object_schema({
        "pattern": {"type": "string", "minLength": 1, "description": "Glob relative to the workspace root."},
    }, ["pattern"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = args["pattern"].strip()
        if pattern.startswith(("/", "~")) or ".." in Path(pattern).parts:
            raise ToolError(f"refused: pattern {pattern!r} must be relative to the workspace and stay inside it")
        matcher = glob_matcher(pattern)
        root = self.workspace.resolve()
        start = glob_start(root, pattern)
        listing = workspace_files(root, start, ctx, self.name) if start is not None else Listing()
        matches = []
        for index, relative in enumerate(listing.files):
            if index % 4096 == 0:
                ctx.check_stop(self.name)
            if matcher.fullmatch(relative):
                matches.append(relative)
        shown = matches[:GLOB_CAP]
        lines = list(shown) or [f"no files match {pattern!r}"]
        if len(matches) > GLOB_CAP:
            lines.append(f"[{len(matches) - GLOB_CAP} more matches not shown; narrow the pattern]")
        summary = f"{plural(len(matches), 'file')} match {pattern}"
        note = skipped_note(listing.unreadable)
        if note:
            lines.append(note)
            summary += f" ({note[1:-1]})"
        return ToolResult(True, "\n".join(lines), summary)
