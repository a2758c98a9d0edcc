"""Every Textual-free string people read: event lines, the headless
printers, figures (tokens, cost, times), report text and the text replay.
The TUI and the command line both use them."""
