"""Where the run screen puts its tree and panes, for a given size (no Textual).

No pane is narrower than ``MIN_PANE_WIDTH`` nor lower than
``MIN_PANE_HEIGHT``: the panes form one row when each is wide enough, else a
balanced grid (the last pane of an uneven grid spans the empty cells), and
with more workers than fit the
screen switches to focus: the selected worker's pane large, every other
worker as a one-line live row below it. The tree takes the width its rows
need, at most ``TREE_SHARE`` of the screen, never so much that no pane fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_PANE_WIDTH = 40
#: Panes side by side in one row only when each gets this many columns
#: (more than two); else a balanced grid, wider panes in two rows.
ONE_ROW_WIDTH = 50
MIN_PANE_HEIGHT = 12
TREE_SHARE = 0.3
MIN_TREE_WIDTH = 22


@dataclass(frozen=True)
class RunLayout:
    mode: str  # grid | focus
    columns: int
    rows: int
    shown: tuple[str, ...]  # workers with a pane on screen, in grid order
    strip: tuple[str, ...]  # workers shown as one-line rows (focus mode)
    tree_width: int  # 0: the tree is hidden
    #: Columns the last pane spans (an uneven grid: 3 panes in 2×2).
    last_span: int = 1


def tree_width(wanted: int, width: int, visible: bool) -> int:
    if not visible:
        return 0
    cap = max(MIN_TREE_WIDTH, int(width * TREE_SHARE))
    cap = min(cap, max(0, width - MIN_PANE_WIDTH))
    if cap < MIN_TREE_WIDTH:
        return 0  # too narrow for both: the panes win, the tree is a key away
    return max(MIN_TREE_WIDTH, min(wanted, cap))


def plan_layout(
    width: int,
    height: int,
    workers: list[str],
    *,
    selected: str | None = None,
    tree_wanted: int = 40,
    tree_visible: bool = True,
) -> RunLayout:
    """``height`` is the body's (between the heading and the summary)."""
    workers = list(workers) or ["worker-1"]
    tree = tree_width(tree_wanted, width, tree_visible)
    columns_fit = max(1, (width - tree) // MIN_PANE_WIDTH)
    rows_fit = max(1, height // MIN_PANE_HEIGHT)
    count = len(workers)
    one_row = count <= columns_fit and (count <= 2 or rows_fit < 2 or (width - tree) // count >= ONE_ROW_WIDTH)
    columns = count if one_row else min(columns_fit, math.ceil(math.sqrt(count)))
    rows = math.ceil(count / columns)
    if rows <= rows_fit:
        span = columns * rows - count + 1
        return RunLayout("grid", columns, rows, tuple(workers), (), tree, span)
    chosen = selected if selected in workers else workers[0]
    strip = tuple(name for name in workers if name != chosen)
    return RunLayout("focus", 1, 1, (chosen,), strip, tree)
