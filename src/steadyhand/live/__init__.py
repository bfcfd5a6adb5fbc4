"""The live view's daemon side: what a person watching a session needs from the runtime.

- feed.py: every action-log row, approval and takeover as it happens, to any listener;
- screen.py: a tab's screen as CDP screencast frames, shared by its watchers, bounded in
  rate and stopped when the last watcher leaves; the X screen for the desktop;
- takeover.py: a session a person took over (the agent's acts get `session_paused`);
- remote_input.py: the person's clicks and keys, forwarded to the tab through CDP;
- state.py: what the runtime keeps of all this (Runtime.live);
- the `live.*` requests the fronts send are answered by execute/live.py (fronts/http/live_app.py
  serves the page).
"""
