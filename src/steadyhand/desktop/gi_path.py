"""Make PyGObject (`gi`) importable from steadyhand's own Python.

Debian ships `gi` for its /usr/bin/python3 only (python3-gi). steadyhand's venv runs a
CPython of the same minor version (3.11, same ABI), so it can load Debian's copy: its
dist-packages is appended to sys.path, last, and only when `gi` is not importable already.
"""

from __future__ import annotations

import importlib
import sys

from steadyhand.errors import ErrorCode, SteadyhandError

DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"
INSTALL_HINT = (
    "install the desktop packages with scripts/ensure-desktop (as root; it runs apt-get "
    "install python3-gi gir1.2-atspi-2.0 ...)"
)


def ensure_gi(dist_packages: str = DEBIAN_DIST_PACKAGES) -> None:
    """Import `gi`, from Debian's dist-packages when this Python has none of its own."""
    try:
        importlib.import_module("gi")
        return
    except ImportError:
        pass
    if dist_packages not in sys.path:
        sys.path.append(dist_packages)
    try:
        importlib.import_module("gi")
    except ImportError as exc:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"PyGObject (gi) cannot be imported by this Python {version} "
            f"(looked in its own paths and {dist_packages}): {exc}",
            INSTALL_HINT + f"; Debian's gi works only with a Python {version} of the same ABI",
        ) from exc


def require(namespace: str, version: str) -> None:
    """`gi.require_version`, with steadyhand's error when the typelib is not installed."""
    ensure_gi()
    import gi

    try:
        gi.require_version(namespace, version)
    except ValueError as exc:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"the GObject introspection data for {namespace} {version} is missing: {exc}",
            INSTALL_HINT,
        ) from exc
