"""The user's own Chrome through the steadyhand extension (extension/ at the repo root).

`pairing.py` keeps the pairing token, `relay.py` is the WebSocket relay that looks like a
browser's DevTools endpoint to Playwright, `link.py` ties the relay's tabs to a session.
Nothing is imported here: the daemon loads the relay (and `websockets`) only once paired.
"""
