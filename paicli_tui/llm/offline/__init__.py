"""Models that need no network, reached through the real client over an
``httpx`` transport: the scripted transport (tests, benches) and the demo
model (P-1.7)."""
