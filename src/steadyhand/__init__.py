"""steadyhand: reliable hands for AI agents (snapshot -> ref -> act on a managed Chromium)."""

__version__ = "0.1.0"
