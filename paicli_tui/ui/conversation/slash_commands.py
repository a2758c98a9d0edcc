"""The slash commands the input line understands, and their completion.
Pure text handling: the main screen decides what each command does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable


#: name → (argument hint, help line)
COMMANDS: dict[str, tuple[str, str]] = {
    "/plan": ("GOAL", "plan the goal as a task graph, review it, then run it"),
    "/team": ("GOAL", "run the goal with a planner, workers and a reviewer"),
    "/mode": ("auto|plan|ask", "set the approval mode (shift+tab cycles it)"),
    "/theme": ("NAME", "switch the colour theme (remembered)"),
    "/model": ("[NAME]", "show the model, or switch to NAME"),
    "/permissions": ("", "list what is granted and the allow/deny rules; revoke or keep a grant"),
    "/mcp": ("", "MCP servers: state, tools and resources; restart one (@server:uri attaches a resource)"),
    "/clear": ("", "forget the conversation and clear the transcript"),
    "/help": ("", "list commands and keys"),
    "/quit": ("", "leave paicli"),
}



@dataclass(frozen=True)
class SlashCommand:
    name: str  # "/mode"
    argument: str  # "plan"


def parse_slash(text: str) -> SlashCommand | None:
    """``/mode plan`` → SlashCommand("/mode", "plan"); plain text → None."""
    text = text.strip()
    if not text.startswith("/"):
        return None
    name, _, argument = text.partition(" ")
    return SlashCommand(name.lower(), argument.strip())


def complete(value: str, argument_choices: Callable[[str], Iterable[str]]) -> str | None:
    """The full line a prefix completes to, or None. ``argument_choices``
    gives the possible arguments for a command (modes, theme names)."""
    if not value.startswith("/"):
        return None
    name, space, argument = value.partition(" ")
    if not space:
        matches = [command for command in COMMANDS if command.startswith(name.lower())]
        return matches[0] if len(matches) >= 1 and matches[0] != name else None
    if " " in argument:
        return None
    for choice in argument_choices(name.lower()):
        if choice.startswith(argument) and choice != argument:
            return f"{name} {choice}"
    return None


def help_text() -> str:
    rows = [f"  {name} {hint}".ljust(24) + text for name, (hint, text) in COMMANDS.items()]
    keys = [
        "  shift+tab".ljust(24) + "cycle the mode: auto → plan → ask",
        "  esc".ljust(24) + "cancel the running turn",
        "  up / down".ljust(24) + "input history",
        "  tab / right".ljust(24) + "accept the completion",
        "  ctrl+p".ljust(24) + "command palette (themes, keys)",
        "  ctrl+c ctrl+c".ljust(24) + "quit",
    ]
    return "\n".join(["Commands:", *rows, "Keys:", *keys])
