"""The four knowledge tools an agent with tools gets (P-9.4): save and
search facts, search the code index, follow the symbol graph. A function
beside the service rather than a method of it, so the service never imports
the tools that import it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli_tui.knowledge.codeindex.tools import CodeGraph, SearchCode
from paicli_tui.knowledge.memory.tools import SaveMemory, SearchMemory

if TYPE_CHECKING:
    from paicli_tui.knowledge.service import Knowledge
    from paicli_tui.tools.base import Tool


def knowledge_tools(knowledge: "Knowledge") -> "list[Tool]":
    workspace = knowledge.workspace
    return [SaveMemory(workspace, knowledge), SearchMemory(workspace, knowledge),
            SearchCode(workspace, knowledge), CodeGraph(workspace, knowledge)]
