"""What /save, /memory, /index, /search and /graph do on the main screen.
Like every command the screen runs, each leaves a line saying what it did."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paicli_tui.ui.conversation.main_screen import MainScreen
    from paicli_tui.ui.conversation.slash_commands import SlashCommand

NAMES = ("/save", "/memory", "/index", "/search", "/graph")


async def run_knowledge_command(screen: "MainScreen", command: "SlashCommand") -> None:
    from paicli_tui.ui.knowledge.graph_screen import GraphScreen
    from paicli_tui.ui.knowledge.index_screen import IndexScreen
    from paicli_tui.ui.knowledge.memory_screen import MemoryScreen
    from paicli_tui.ui.knowledge.search_screen import SearchScreen

    transcript = screen.transcript
    knowledge = screen.session.knowledge
    if knowledge is None:
        await transcript.add_line("memory and the code index are not available in this session", "warning")
        return
    match command.name:
        case "/save":
            await _save(screen, knowledge, command.argument)
        case "/memory":
            screen.app.push_screen(MemoryScreen(knowledge))
        case "/index":
            screen.app.push_screen(IndexScreen(knowledge))
        case "/search":
            screen.app.push_screen(SearchScreen(knowledge, command.argument))
        case "/graph":
            if not command.argument:
                await transcript.add_line("usage: /graph SYMBOL (a function, class or Class.method)", "error")
                return
            screen.app.push_screen(GraphScreen(knowledge, command.argument))


async def _save(screen: "MainScreen", knowledge, text: str) -> None:
    from paicli_tui.knowledge.memory.database import DatabaseError
    from paicli_tui.knowledge.memory.facts import FactError

    if not text.strip():
        await screen.transcript.add_line("usage: /save FACT (one or two sentences worth keeping)", "error")
        return
    try:
        fact = knowledge.save_by_person(text)
    except (FactError, DatabaseError) as exc:
        await screen.transcript.add_line(f"not saved: {exc}", "error")
        return
    await screen.transcript.add_line(f"saved to memory as fact {fact.id}: {fact.text}", "info")
