"""`make demo`: an agent's task, done through the CLI against a bundled site on 127.0.0.1.

Serves demo/site, then: open the sign-up page, snapshot it, read the refs off the
snapshot (as a model would), fill the form, submit, read the greeting from the next
snapshot, show that an old ref is refused, take a screenshot, print the session's
timeline (the typed password redacted), write its HTML report, and stop the daemon.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from steadyhand.demo.server import base_url, serve_directory
from steadyhand.snapshot.lookup import find_ref

SITE = Path(__file__).with_name("site")


def steadyhand(*args: str, expect: str = "ok", stdin: str | None = None) -> str:
    """Run one CLI command, print it and its output, return stdout."""
    piped = "printf '%s' '•••' | " if stdin is not None else ""
    print(f"\n$ {piped}steadyhand {shlex.join(args)}", flush=True)
    done = subprocess.run(
        [sys.executable, "-m", "steadyhand", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    output = (done.stdout + done.stderr).rstrip()
    print(output, flush=True)
    if expect == "ok" and done.returncode != 0:
        raise SystemExit(f"demo failed: `steadyhand {args[0]}` exited {done.returncode}")
    if expect == "error" and done.returncode == 0:
        raise SystemExit(f"demo failed: `steadyhand {args[0]}` should have been refused")
    return done.stdout


def ref_of(snapshot: str, role: str, name: str) -> str:
    """The ref of the element with this role and accessible name, read off a snapshot."""
    try:
        return find_ref(snapshot, role, name)
    except KeyError as exc:
        raise SystemExit(f"demo failed: {exc}") from exc


def main() -> int:
    state_dir = Path(os.environ.get("STEADYHAND_STATE_DIR") or Path.cwd() / ".demo-state")
    os.environ["STEADYHAND_STATE_DIR"] = str(state_dir.resolve())
    server = serve_directory(SITE)
    url = f"{base_url(server)}/index.html"
    print(f"demo site on {url}; state dir {os.environ['STEADYHAND_STATE_DIR']}")
    try:
        steadyhand("open", url)
        page = steadyhand("snapshot", "--interactive")  # what can be acted on, in context
        name, email = ref_of(page, "textbox", "Full name"), ref_of(page, "textbox", "Email")
        password = ref_of(page, "textbox", "Password")
        steadyhand("fill", f"{name}=Ada Lovelace", f"{email}=ada@example.com")
        # The password goes through stdin: never on a command line (ps, shell history).
        steadyhand("type", password, "--stdin", stdin="correct horse battery staple")
        steadyhand("select", ref_of(page, "combobox", "Plan"), "Pro")
        steadyhand("check", ref_of(page, "checkbox", "I accept the terms"))
        steadyhand("click", ref_of(page, "button", "Create account"))
        welcome = steadyhand("snapshot")
        if "Welcome, Ada Lovelace!" not in welcome or "Pro plan is active" not in welcome:
            raise SystemExit("demo failed: the welcome page does not greet Ada on the Pro plan")
        print("\n(an old ref from the sign-up page is refused, not sent to a stranger:)")
        steadyhand("click", name, expect="error")
        shot = steadyhand("screenshot", "--json")
        path = re.search(r'"path": "([^"]+)"', shot)
        steadyhand("tabs")
        steadyhand("trace")  # the timeline from the action log: the password is redacted
        report = re.search(r"^path: (.+)$", steadyhand("report"), re.MULTILINE)
    finally:
        # Done with the session: closed, not kept as a suspended one for the next run.
        steadyhand("close", expect="any")
        steadyhand("daemon", "stop", expect="any")
        server.shutdown()
    print("\nDone: the welcome page greeted Ada on the Pro plan.")
    print(f"Screenshot: {path.group(1) if path else '(none)'}")
    print(f"Report (open it in a browser): {report.group(1) if report else '(none)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
