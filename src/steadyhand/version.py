"""The package's version, importable from any layer (`steadyhand/__init__.py` would load
the client as well)."""

__version__ = "0.1.0"
