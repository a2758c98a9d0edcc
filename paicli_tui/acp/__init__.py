"""The Agent Client Protocol front end (``paicli acp``): editors such as
Zed and Toad drive paicli's sessions over stdio on the official SDK.

``server`` answers the protocol's methods, ``translate`` turns engine events
into session updates, ``bridge`` carries them (and the blocking questions)
between engine threads and the protocol's event loop, ``stdio`` keeps the
protocol's stdout private. Nothing here imports Textual."""
