"""grep_code: a regex search over the workspace's source files, run by
ripgrep so that no pattern can backtrack forever and a cancel or the
call's deadline stops it at once."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from paicli_tui.tools.base import Tool, ToolContext, ToolError, ToolResult, object_schema, plural
from paicli_tui.tools.globs import glob_matcher, glob_start
from paicli_tui.tools.rg import RgProcess, common_flags, fatal_error
from paicli_tui.tools.confinement import display_path, looks_binary, resolve_in_workspace
from paicli_tui.tools.walk import search_arg, shown_unreadable, skipped_note, virtualenv_excludes

DEFAULT_MATCHES = 100
MAX_MATCHES = 500
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_LINE_CHARS = 300


class GrepCode(Tool):
    name = "grep_code"
    description = (
        "Search workspace files for a regular expression (Rust regex syntax: like Python's, without "
        "look-around and backreferences); prints 'path:line: text' per matching line. "
        "Optional path limits the search to a directory or file; optional glob filters file paths "
        "(e.g. '**/*.py'). Skips .git, virtualenvs, node_modules, binary files and git-ignored files."
    )
    parameters = object_schema({
        "pattern": {"type": "string", "minLength": 1,
                    "description": "Regular expression (Rust regex syntax; no look-around or backreferences)."},
        "path": {"type": "string", "description": "Directory or file to search, relative to the workspace."},
        "glob": {"type": "string", "description": "Only files whose workspace-relative path matches this glob."},
        "ignore_case": {"type": "boolean", "description": "Case-insensitive match (default false)."},
        "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES,
                        "description": f"Maximum matching lines to return (default {DEFAULT_MATCHES})."},
    }, ["pattern"])

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = args["pattern"]
        root = self.workspace.resolve()
        start = resolve_in_workspace(self.workspace, args.get("path") or ".")
        if not start.exists():
            raise ToolError(f"{display_path(root, start)} does not exist")
        if not start.is_file() and not start.is_dir():
            raise ToolError(f"{display_path(root, start)} is not a regular file or directory")
        glob = args.get("glob")
        path_filter = glob_matcher(glob) if glob else None
        target = _search_target(root, start, glob)
        if target is None or (target.is_file() and not _searchable_file(target)):
            return _no_matches(pattern, root, start)

        limit = args.get("max_results", DEFAULT_MATCHES)
        excludes = virtualenv_excludes(root, target, ctx, self.name) if target.is_dir() else []
        rg_args = ["--json", *common_flags(), *[flag for glob in excludes for flag in ("--glob", glob)],
                   "--sort", "path", "--max-filesize", str(MAX_FILE_BYTES), "--max-count", str(limit + 1),
                   "--ignore-case" if args.get("ignore_case") else "--case-sensitive",
                   "--regexp", pattern, "--", search_arg(root, target)]
        matches: list[str] = []
        files: set[str] = set()
        more = finished = False
        with RgProcess(rg_args, root, ctx, self.name) as rg:
            for raw in rg.lines():
                message = json.loads(raw) if raw.strip() else {}
                kind = message.get("type")
                if kind == "summary":
                    finished = True
                if kind != "match":
                    continue
                data = message["data"]
                relative = _text(data["path"]).removeprefix("./")
                if path_filter is not None and not path_filter.fullmatch(relative):
                    continue
                if len(matches) == limit:
                    more = True
                    break
                line = _text(data["lines"]).rstrip("\n").rstrip("\r")
                text = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
                matches.append(f"{relative}:{data['line_number']}: {text}")
                files.add(relative)
            if not more and not finished:
                raise ToolError(_failure(pattern, rg.stderr, rg.returncode))
            unreadable = shown_unreadable(root, rg.stderr)

        lines = list(matches) or [f"no matches for {pattern!r} in {_scope(root, start)}"]
        if more:
            lines.append(f"[stopped at {limit} matches; narrow the pattern, path or glob]")
        summary = f"{plural(len(matches), 'match', 'matches')}{'+' if more else ''} in {plural(len(files), 'file')}"
        note = skipped_note(unreadable)
        if note:
            lines.append(note)
            summary += f" ({note[1:-1]})"
        return ToolResult(True, "\n".join(lines), summary)


def _search_target(root: Path, start: Path, glob: str | None) -> Path | None:
    """Where rg looks: ``start``, or the deeper directory a glob's literal
    prefix names; None when the two cannot overlap."""
    if not glob or start.is_file():
        return start
    base = glob_start(root, glob)
    if base is None:
        return None
    if base.is_relative_to(start):
        return base
    return start if start.is_relative_to(base) else None


def _searchable_file(path: Path) -> bool:
    """rg searches a file named on its command line even when it is binary or
    huge; skip those here as a walk would."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return False
        with path.open("rb") as handle:
            return not looks_binary(handle.read(8192))
    except OSError:
        return False


def _text(field: dict[str, str]) -> str:
    """rg's JSON gives text as 'text', or base64 'bytes' when not UTF-8."""
    if "text" in field:
        return field["text"]
    return base64.b64decode(field.get("bytes", "")).decode("utf-8", errors="replace")


def _failure(pattern: str, stderr: str, returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        return f"grep_code stopped: ripgrep was killed by signal {-returncode}"
    reason = fatal_error(stderr)
    if "regex parse error" in stderr or "regex" in reason:
        return f"invalid regular expression {pattern!r}: {reason} (Rust regex syntax; no look-around or backreferences)"
    return f"grep_code failed: ripgrep: {reason}"


def _scope(root: Path, start: Path) -> str:
    shown = display_path(root, start)
    return "the workspace" if shown == "." else shown


def _no_matches(pattern: str, root: Path, start: Path) -> ToolResult:
    return ToolResult(True, f"no matches for {pattern!r} in {_scope(root, start)}", "0 matches in 0 files")
