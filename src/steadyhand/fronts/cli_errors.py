"""How a command-line program reports a failure: the error's line and hint on stderr (or
JSON on stdout for `--json`), and the exit code of its class (errors.py).

Standard library only: the thin CLI imports it.
"""

from __future__ import annotations

import json
import sys

from steadyhand.errors import SteadyhandError, exit_code_for


def report_error(exc: SteadyhandError, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"ok": False, "error": exc.to_dict()}))
    else:
        print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
    return exit_code_for(exc.code)
