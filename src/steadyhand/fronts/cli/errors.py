"""How a command-line program reports a failure: the error's line and hint on stderr (or
JSON on stdout for `--json`), and the exit code of its class (errors.py).

Standard library only: the thin CLI imports it.
"""

from __future__ import annotations

import json
import sys

from steadyhand.errors import SteadyhandError, exit_code_for
from steadyhand.fronts.reply import notes_of

# What happened to the session around a failed command that its message does not say.
SESSION_NOTES = ("restored", "recovered")


def report_error(exc: SteadyhandError, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"ok": False, "error": exc.to_dict()}))
    else:
        sys.stderr.write(error_lines(exc))
    return exit_code_for(exc.code)


def error_lines(exc: SteadyhandError) -> str:
    """`error [code]: message`, `hint: ...`, and what happened to the session meanwhile
    (a recovery it went through, say), one line each."""
    lines = [f"error [{exc.code}]: {exc.message}"]
    if exc.hint:
        lines.append(f"hint: {exc.hint}")
    lines.extend(notes_of({k: v for k, v in (exc.data or {}).items() if k in SESSION_NOTES}))
    saw = (exc.data or {}).get("saw")
    if isinstance(saw, str) and saw:  # a flow's divergence: the page to go on from
        lines += ["the page now:", saw]
    return "".join(line + "\n" for line in lines)
