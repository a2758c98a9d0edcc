"""Command handlers, imported lazily by cli.py so `--help` stays fast."""
