"""The dropdown above the prompt: slash commands and their arguments after
``/``, workspace files after ``@``.

It never takes focus: the prompt editor keeps the keyboard and moves the
highlight (Up/Down), accepts (Enter/Tab) or closes it (Esc), so typing goes
on without a click. It only shows; the editor decides what is offered and
what accepting does.

Why not ``textual-autocomplete`` (4.0.6, the newest): it completes an
``Input`` only (it asserts its target is an ``Input`` and reads and writes
``Input.value`` / ``cursor_position``), and the prompt is a ``TextArea``.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

#: Rows shown before the list scrolls.
VISIBLE_ROWS = 10


@dataclass(frozen=True)
class MenuItem:
    """One row: ``label`` in bold, then a muted ``hint`` and ``description``."""

    label: str
    hint: str = ""
    description: str = ""


class CompletionMenu(OptionList, can_focus=False):
    DEFAULT_CSS = f"""
    CompletionMenu {{
        display: none;
        height: auto;
        max-height: {VISIBLE_ROWS + 2};
        margin: 0 1;
        border: round $primary 60%;
        background: $surface;
        padding: 0;
        scrollbar-size-vertical: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }}
    CompletionMenu.-open {{
        display: block;
    }}
    CompletionMenu > .option-list--option-highlighted {{
        background: $primary 30%;
    }}
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[MenuItem] = []
        self._title = ""

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show(self, items: list[MenuItem], title: str = "") -> None:
        """Open with ``items`` (the first highlighted), or close when there are none."""
        if not items:
            self.close()
            return
        if items != self.items:
            self.items = list(items)
            width = max(len(item.label) for item in items)
            hint_width = max(len(item.hint) for item in items)
            self.clear_options()
            self.add_options([Option(_row(item, width, hint_width)) for item in items])
            self.highlighted = 0
        if self._title != title:  # setting a title repaints
            self._title = title
            # Content, not a str: "/theme [NAME]" is not markup.
            self.border_title = Content(title) if title else None
            self.border_subtitle = "↑↓ choose · tab/enter accept · esc close"
        self.add_class("-open")

    def close(self) -> None:
        if not self.items and not self.is_open:
            return
        self.remove_class("-open")
        self.items = []
        self._title = ""
        self.border_title = None
        self.clear_options()

    def move(self, delta: int) -> None:
        if not self.items:
            return
        current = self.highlighted if self.highlighted is not None else 0
        self.highlighted = (current + delta) % len(self.items)

    @property
    def index(self) -> int:
        return self.highlighted if self.highlighted is not None else 0


def _row(item: MenuItem, width: int, hint_width: int) -> Content:
    row = Content.styled(item.label.ljust(width), "bold")
    if hint_width:
        row += Content("  ") + Content.from_markup("[$text-muted italic]$hint[/]", hint=item.hint.ljust(hint_width))
    if item.description:
        row += Content("  ") + Content.from_markup("[$text-muted]$text[/]", text=item.description)
    return row
