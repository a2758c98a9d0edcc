"""The keys of every screen, read from the classes' own ``BINDINGS`` so the
help can never disagree with what the keys do. Every module under
``paicli_tui.ui`` is imported and every screen, widget and the app that
declares bindings is grouped by the screen it belongs to (its folder)."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import key_to_character

import paicli_tui.ui as ui_package

#: Groups in the order the help shows them.
GROUPS = ("Main screen", "Plan review", "Run", "Task tree", "Approval", "Permissions", "Undo", "Skills", "MCP",
          "Memory and code index",
          "Dialogs", "Help", "Other")

#: Module (or folder) → group; the longest matching prefix wins.
_GROUP_OF_MODULE = {
    "paicli_tui.ui.app": "Main screen",
    "paicli_tui.ui.conversation": "Main screen",
    "paicli_tui.ui.review": "Plan review",
    "paicli_tui.ui.review.plan_edit_dialogs": "Dialogs",
    "paicli_tui.ui.common.dialogs": "Dialogs",
    "paicli_tui.ui.run": "Run",
    "paicli_tui.ui.common.task_tree": "Task tree",
    "paicli_tui.ui.approval": "Approval",
    "paicli_tui.ui.approval.permissions": "Permissions",
    "paicli_tui.ui.undo": "Undo",
    "paicli_tui.ui.skills": "Skills",
    "paicli_tui.ui.mcp": "MCP",
    "paicli_tui.ui.help": "Help",
    "paicli_tui.ui.knowledge": "Memory and code index",
}

#: Keys that are no class's binding but matter on the main screen.
BUILT_IN_KEYS = (
    ("Ctrl+P", "Command palette: paicli's commands, themes, keys"),
    ("Tab", "Next focus stop (see Focus order)"),
    ("?", "Help, typed into the empty input"),
    ("/", "Menu of the commands, typed at the start of the input"),
    ("@", "Pick a workspace file to attach to the turn"),
)

FOCUS_ORDER = (
    "Tab: input → transcript → input. With the / or @ menu open, Tab first takes its row.",
    "Shift+Tab does not move focus on the main screen: it cycles the mode.",
    "Esc from anywhere on the main screen returns to the input; in the input it cancels the running turn.",
    "Typing while the transcript has focus goes to the input.",
    "PgUp / PgDn / Ctrl+Home / Ctrl+End scroll the transcript from the input too.",
    "Select transcript text with the mouse; Ctrl+C (or y in the transcript) copies it.",
)

_KEY_NAMES = {
    "escape": "Esc", "enter": "Enter", "tab": "Tab", "space": "Space", "delete": "Del", "backspace": "Backspace",
    "up": "↑", "down": "↓", "left": "←", "right": "→", "pageup": "PgUp", "pagedown": "PgDn",
    "home": "Home", "end": "End", "question_mark": "?", "insert": "Ins",
}


@dataclass(frozen=True)
class KeyRow:
    keys: str
    description: str
    owner: str  # the class that binds it


def key_label(key: str) -> str:
    """``ctrl+shift+c`` → ``Ctrl+Shift+C``; ``escape`` → ``Esc``; ``K`` stays."""
    parts = key.split("+")
    named = []
    for part in parts:
        if part in _KEY_NAMES:
            named.append(_KEY_NAMES[part])
        elif len(part) == 1:
            named.append(part.upper() if len(parts) > 1 else part)
        elif part.startswith("f") and part[1:].isdigit():
            named.append(part.upper())
        elif (character := key_to_character(part)) is not None and character.isprintable() and not character.isspace():
            named.append(character)  # "right_square_bracket" → "]"
        else:
            named.append(part.capitalize())
    return "+".join(named)


def binding_keys(binding: Binding) -> str:
    if binding.key_display:
        return binding.key_display
    return " / ".join(key_label(key.strip()) for key in binding.key.split(","))


def own_bindings(cls: type) -> list[Binding]:
    """The bindings ``cls`` declares itself (not those it inherits)."""
    declared = cls.__dict__.get("BINDINGS", ())
    found: list[Binding] = []
    for item in declared:
        found.extend(Binding.make_bindings([item]))
    return found


def import_ui_modules() -> None:
    for module in pkgutil.walk_packages(ui_package.__path__, ui_package.__name__ + "."):
        importlib.import_module(module.name)


def classes_with_bindings() -> list[type]:
    import_ui_modules()
    seen: list[type] = []
    frontier = [DOMNode]
    while frontier:
        for sub in frontier.pop().__subclasses__():
            frontier.append(sub)
            if sub.__module__.startswith("paicli_tui.ui") and own_bindings(sub) and sub not in seen:
                seen.append(sub)
    return sorted(seen, key=lambda cls: (cls.__module__, cls.__qualname__))


def group_of(cls: type) -> str:
    module = cls.__module__
    matches = [prefix for prefix in _GROUP_OF_MODULE if module == prefix or module.startswith(prefix + ".")]
    return _GROUP_OF_MODULE[max(matches, key=len)] if matches else "Other"


def key_groups() -> dict[str, list[KeyRow]]:
    """Group → its rows, in GROUPS order, empty groups left out."""
    groups: dict[str, list[KeyRow]] = {name: [] for name in GROUPS}
    groups["Main screen"].extend(KeyRow(keys, text, "textual") for keys, text in BUILT_IN_KEYS)
    for cls in classes_with_bindings():
        for binding in own_bindings(cls):
            description = binding.description or binding.action
            groups[group_of(cls)].append(KeyRow(binding_keys(binding), description, cls.__qualname__))
    return {name: rows for name, rows in groups.items() if rows}
