"""Streamed Markdown split into finished blocks and the open tail: any
chunking of the same text gives the blocks a whole parse gives, and a
block is never cut in the middle (a fence with blank lines stays one)."""

from __future__ import annotations

import random

from paicli_tui.ui.common.markdown_doc import MarkdownDoc, parse_blocks

TEXT = (
    "# Findings\n\nThe pane paints **lines**, not widgets, and `code` stays code.\n\n"
    "- one item\n- two items\n  - nested\n\n"
    "```python\ndef f(x):\n\n    return x\n```\n\n"
    "> a quote\n\n1. first\n2. second\n\n---\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast paragraph.\n"
)


def streamed(text: str, seed: int) -> tuple[MarkdownDoc, list]:
    rng = random.Random(seed)
    doc = MarkdownDoc()
    position = 0
    while position < len(text):
        size = rng.randint(1, 12)
        doc.append(text[position:position + size])
        position += size
        if rng.random() < 0.4:
            doc.split()
    return doc, doc.split()


def test_any_chunking_gives_the_blocks_of_a_whole_parse():
    whole = [(block.kind, block.source) for block in parse_blocks(TEXT)]
    assert [kind for kind, _ in whole] == ["heading", "paragraph", "list", "fence", "quote", "list", "hr", "table", "paragraph"]
    for seed in range(30):
        doc, tail = streamed(TEXT, seed)
        assert [(b.kind, b.source) for b in doc.finished + tail] == whole, seed
        assert doc.text == TEXT


def test_a_fence_with_blank_lines_is_never_split_while_it_streams():
    doc = MarkdownDoc()
    doc.append("Intro.\n\n```\nline one\n\n\nline two\n")
    tail = doc.split()
    assert [b.kind for b in doc.finished] == ["paragraph"]
    assert [b.kind for b in tail] == ["fence"] and "line two" in tail[0].source
    doc.append("```\n\nAfter.\n")
    tail = doc.split()
    assert [b.kind for b in doc.finished] == ["paragraph", "fence"]
    assert "line one\n\n\nline two" in doc.finished[1].tokens[0].content


def test_text_without_a_line_break_finishes_no_block():
    doc = MarkdownDoc()
    doc.append("First.\n\nSecond")
    doc.split()
    finished = len(doc.finished)
    doc.append(" sentence goes on")
    doc.split()
    assert len(doc.finished) == finished == 1 and doc.open == "Second sentence goes on"


def test_an_endless_paragraph_is_cut_so_no_render_parses_all_of_it():
    from paicli_tui.ui.common.markdown_doc import OPEN_LIMIT

    doc = MarkdownDoc()
    for n in range(5000):
        doc.append(f"tok{n} ")
        if n % 100 == 0:
            assert len(doc.open) <= OPEN_LIMIT + 100 or doc.split() is not None
            doc.split()
            assert len(doc.open) <= OPEN_LIMIT
    tail = doc.split()
    words = " ".join(b.source.strip() for b in doc.finished + tail).split()
    assert words == [f"tok{n}" for n in range(5000)]  # nothing lost, nothing doubled
