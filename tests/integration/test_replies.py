"""Every command's human reply, kept as golden files in tests/golden/.

Each test drives a real daemon through the CLI, as its own process, the way an agent does,
and compares what it printed (stdout, stderr marked `!`, a non-zero exit) with a golden
file, one per scenario. Only what varies between runs is normalised (ports, durations,
ages, byte counts, state-dir paths, pids, versions, clock times); everything else must
match exactly, so a reply that grows a field, loses one or changes shape fails here with
a diff. `STEADYHAND_UPDATE_GOLDEN=1 pytest tests/integration/test_replies.py` rewrites
the files; read the diff before committing it.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from steadyhand.fronts.cli.main import SPEC_PATH
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import CliRun, Daemon, wait_until
from tests.desktop_env import APPS, gtk3_form
from tests.integration.test_desktop import ref_of
from tests.integration.test_desktop_windows import kill_group

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).parents[1] / "golden"
UPDATE = os.environ.get("STEADYHAND_UPDATE_GOLDEN") == "1"

# What differs from run to run, and what stands for it in the golden files.
VARIES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"\b\d{8}-\d{6}-\d{6}-"), "<time>-"),  # artifact file names
    (re.compile(r"\b\d\d:\d\d:\d\d\.\d{3}\b"), "<hh:mm:ss.ms>"),  # trace rows
    (re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d\b"), "<date time>"),
    # Durations; a trace row pads them to a width, which varies with them.
    (re.compile(r"( *)\b\d+(?:\.\d+)? ms\b"), lambda m: " " * bool(m[1]) + "<n> ms"),
    (re.compile(r"\b\d+(?:\.\d+)?ms\b"), "<n>ms"),  # network timings
    (re.compile(r"\b\d+ (?:s|min|h) ago\b"), "<age>"),
    (re.compile(r"\b\d+(?:\.\d+)? s in the actions shown"), "<n> s in the actions shown"),
    (re.compile(r"\b(bytes|size_bytes)([:=] ?)\d+"), r"\1\2<n>"),
    (re.compile(r"\(\d+ bytes\)"), "(<n> bytes)"),
    (re.compile(r"^(pid|uptime|seconds|held): [\d.]+( s)?$", re.M), r"\1: <n>\2"),
    (re.compile(r"^version: \S+$", re.M), "version: <version>"),
    # State key ids (state key, state rekey): random per key.
    (
        re.compile(r"^(current|keys|checkpoints|forgotten): .*$", re.M),
        lambda m: re.sub(r"\b[0-9a-f]{8}\b", "<key id>", m[0]),
    ),
    (re.compile(r"^chromium: (\S+) [\d.]+$", re.M), r"chromium: \1 <version>"),
]


class Transcript:
    """The replies of one scenario: each command as run, then what it printed."""

    def __init__(self, daemon: Daemon, site: str, env: dict[str, str] | None = None) -> None:
        self.daemon = daemon
        self.env = env
        # Literal values that differ between runs, longest first when replaced.
        self.names = {site: "SITE", str(daemon.settings.state_dir): "STATE"}
        if os.getcwd() != "/":  # the CLI's working directory is a file root in hints
            self.names[os.getcwd()] = "CWD"
        self.blocks: list[tuple[str, str]] = []  # (command or note, its reply)

    def __call__(
        self,
        *args: str,
        rc: int = 0,
        vary: tuple[tuple[str, str], ...] = (),
        stdin: str | None = None,
    ) -> CliRun:
        """Run `steadyhand ARGS`, record its reply, and check its exit code. `vary`: more
        (pattern, replacement) pairs for what only this step leaves to chance; `stdin`:
        what it reads on standard input (recorded above it)."""
        run = self.daemon.cli(*args, env=self.env, stdin=stdin)
        if stdin is not None:
            self.note("standard input: " + " | ".join(stdin.strip().splitlines()))
        self.record(args, run, vary)
        assert run.rc == rc, f"steadyhand {shlex.join(args)} exited {run.rc}:\n{run.out}{run.err}"
        return run

    def later(self, *args: str) -> Future[CliRun]:
        """Start `steadyhand ARGS` in the background (it waits for a person); `finish`
        records it."""
        pool = ThreadPoolExecutor(1)
        future = pool.submit(self.daemon.cli, *args, env=self.env)
        pool.shutdown(wait=False)
        return future

    def finish(self, future: Future[CliRun], *args: str, rc: int = 0) -> CliRun:
        run = future.result(timeout=60)
        self.note(f"finished: `{shlex.join(args)}`, started in the background above")
        self.record(args, run, ())
        assert run.rc == rc, f"steadyhand {shlex.join(args)} exited {run.rc}:\n{run.out}{run.err}"
        return run

    def note(self, text: str) -> None:
        self.blocks.append((f"## {text}", ""))

    def name(self, literal: str, placeholder: str) -> None:
        self.names[literal] = placeholder

    def record(self, args: tuple[str, ...], run: CliRun, vary: tuple[tuple[str, str], ...]) -> None:
        lines = [run.out.rstrip("\n")] + [f"! {line}" for line in run.err.rstrip("\n").splitlines()]
        if run.rc:
            lines.append(f"[exit {run.rc}]")
        reply = "\n".join(line for line in lines if line)
        for pattern, replacement in vary:
            reply = re.sub(pattern, replacement, reply)
        self.blocks.append((f"$ steadyhand {shlex.join(args)}", reply))

    def text(self) -> str:
        """The transcript as the golden file holds it: what varies replaced in the replies
        (a command keeps its words, but for the literal names)."""
        blocks = []
        for command, raw in self.blocks:
            reply = self.named(raw)
            for pattern, replacement in VARIES:
                reply = pattern.sub(replacement, reply)
            blocks.append("\n".join(line for line in (self.named(command), reply) if line) + "\n")
        return "\n".join(blocks)

    def named(self, text: str) -> str:
        for literal in sorted(self.names, key=len, reverse=True):
            text = text.replace(literal, self.names[literal])
        return text

    def matches(self, name: str) -> None:
        """The transcript equals tests/golden/NAME.txt (or becomes it, when updating)."""
        path, text = GOLDEN / f"{name}.txt", self.text()
        if UPDATE:
            GOLDEN.mkdir(exist_ok=True)
            path.write_text(text)
            return
        assert path.is_file(), f"no {path}: run with STEADYHAND_UPDATE_GOLDEN=1 to write it"
        expected = path.read_text()
        if text != expected:
            diff = difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"tests/golden/{name}.txt",
                "this run",
            )
            pytest.fail(
                f"replies differ from tests/golden/{name}.txt (if the change is meant, "
                "rewrite it with STEADYHAND_UPDATE_GOLDEN=1 and read the diff):\n" + "".join(diff),
                pytrace=False,
            )


# ---------------------------------------------------------------------- scenarios


def test_form_replies(daemon: Daemon, site: str) -> None:
    """Acts on a form, each verified, and what reading commands say about the page."""
    t, s = Transcript(daemon, site), "form"
    t("open", f"{site}/form.html", "--session", s)
    t("snapshot", "-i", "--session", s)
    t("type", "e2", "Grace", "--session", s)
    t("fill", "e3=s3cret!", "e2=Ada", "--session", s)
    t("select", "e4", "Large", "--session", s)
    t("select", "e5", "Cheese", "Basil", "--session", s)
    t("check", "e9", "--session", s)
    t("uncheck", "e10", "--session", s)
    t("hover", "e12", "--session", s)
    t("click", "e13", "--double", "--session", s)
    t("press", "Escape", "--session", s)
    t("click", "e11", "--session", s)
    t("snapshot", "--diff", "--session", s)
    t("snapshot", "--max-chars", "300", "--session", s)
    t("snapshot", "--offset", "290", "--max-chars", "300", "--session", s)
    t("find", "order", "--session", s)
    t("evaluate", "document.title", "--session", s)
    t("evaluate", "() => ({total: 2, items: ['a', 'b'], done: false})", "--session", s)
    t("evaluate", "undefined", "--session", s)
    t("extract", "text", "--selector", "#out", "--session", s)
    t("resize", "800", "600", "--session", s)
    t("screenshot", "--session", s)
    t("pdf", "--session", s)
    t.matches("form")


def test_navigation_and_tab_replies(daemon: Daemon, site: str) -> None:
    """Navigation by command and by click, history, tabs and a popup."""
    t, s = Transcript(daemon, site), "nav"
    t("navigate", f"{site}/nav-a.html", "--session", s)
    t("snapshot", "--session", s)
    t("click", "e3", "--session", s)
    t("back", "--session", s)
    t("forward", "--session", s)
    t("forward", "--session", s)
    t("reload", "--session", s)
    t("back", "--session", s)
    popup = find_ref(t("snapshot", "-i", "--session", s).out, "link", "Open B in a new tab")
    # The browser's first popup: announced by Playwright only after the click returned,
    # and still in the reply (the act waits for the tab a link opens).
    t("click", popup, "--session", s)
    t("tabs", "--session", s)
    t("tab", "focus", "t1", "--session", s)
    t("tab", "new", f"{site}/form.html", "--session", s)
    t("tab", "close", "t2", "--session", s)
    t("tab", "new", "--session", s)
    t("tab", "close", "--session", s)
    t("tabs", "--session", s)
    t.matches("navigation")


def test_page_event_replies(daemon: Daemon, site: str) -> None:
    """What acts cause besides their effect: dialogs, downloads, retries on a re-rendered
    element, a banner dismissed first, a drag, a selection, an upload, a scroll."""
    t = Transcript(daemon, site)
    uploads = daemon.settings.state_dir / "uploads"
    uploads.mkdir(exist_ok=True)
    (uploads / "cv.txt").write_text("my cv")

    t("open", f"{site}/gauntlet/dialogs.html", "--session", "dialogs")
    t("snapshot", "-i", "--session", "dialogs")
    t("click", "e1", "--session", "dialogs")
    t("dialog", "accept", "--session", "dialogs")
    t("click", "e2", "--session", "dialogs")
    t("dialog", "accept", "--text", "Ada", "--session", "dialogs")

    t("open", f"{site}/gauntlet/files.html", "--session", "files")
    t("snapshot", "-i", "--session", "files")
    t("download", "e1", "--session", "files")
    t("click", "e1", "--session", "files")

    t("open", f"{site}/gauntlet/flicker.html", "--session", "flicker")
    t("snapshot", "-i", "--session", "flicker")
    # How many tries the re-rendered button takes depends on timing; one at least.
    t("click", "e1", "--session", "flicker", vary=((r"· \d+ retr(y|ies) ·", "· <n> retries ·"),))

    t("open", f"{site}/consent.html", "--session", "consent")
    # The library shows its banner a moment after the page loads: wait for it, so the click
    # meets it (and the watchdog dismisses it) however fast the page opened.
    t("wait", "--text", "We use cookies", "--session", "consent")
    t("click", 'role=button[name="Checkout"]', "--session", "consent")

    t("open", f"{site}/gauntlet/drag.html", "--session", "drag")
    t("snapshot", "--session", "drag")
    t("drag", "e2", "e3", "--session", "drag")

    t("open", f"{site}/widgets/select-text.html", "--session", "text")
    t("snapshot", "--session", "text")
    t("select-text", "e1", "--from", "quick", "--to", "fox", "--session", "text")

    t("open", f"{site}/gauntlet/inputs.html", "--session", "inputs")
    t("snapshot", "-i", "--session", "inputs")
    t("upload", "e7", str(uploads / "cv.txt"), "--session", "inputs")
    t("type", "e1", "5551234567", "--session", "inputs")

    t("open", f"{site}/scroll.html", "--session", "scroll")
    t("snapshot", "-i", "--session", "scroll")
    t("scroll", "--to", "bottom", "--session", "scroll")
    t("scroll", "--dy", "400", "--session", "scroll")
    t("scroll", "e3", "--session", "scroll")
    t.matches("page_events")


def test_page_reading_replies(daemon: Daemon, site: str) -> None:
    """Logs, extraction and waiting."""
    t, s = Transcript(daemon, site), "logs"
    t("open", f"{site}/logs.html", "--session", s)
    t("snapshot", "-i", "--session", s)
    t("click", "e1", "--session", s)
    t("click", "e2", "--session", s, "--expect-text", "fetched")
    t("console", "--session", s)
    t("console", "--level", "error", "--limit", "2", "--session", s)
    t("network", "--session", s)
    t("har", "--session", s)
    t("network", "--failed", "--clear", "--session", s)
    t("network", "--session", s)

    t("open", f"{site}/extract.html", "--session", s)
    t("extract", "table", "--selector", "#prices", "--session", s)
    t("extract", "attr", "--selector", "a.ext", "--name", "href", "--session", s)
    t("extract", "markdown", "--selector", "#changes", "--session", s)

    t("open", f"{site}/wait.html", "--session", s)
    t("snapshot", "-i", "--session", s)
    t("click", "e1", "--no-changes", "--session", s)
    t("wait", "--text", "Job done", "--session", s, vary=((r"waited: \d+ ms", "waited: <n> ms"),))
    t("wait", "--ms", "50", "--session", s)
    t.matches("reading")


def test_network_control_replies(daemon: Daemon, site: str) -> None:
    """Routes answer the page's fetch (a mock, a file, a block), `network` marks them,
    offline mode, and refused input."""
    t, s = Transcript(daemon, site), "mocks"
    body = daemon.settings.artifacts_dir / "user.json"
    body.parent.mkdir(parents=True, exist_ok=True)
    body.write_text('{"name": "From a file"}')
    t("route", "**/api/user.json", "--fulfill", '{"name": "Mock"}', "--session", s)
    t("open", f"{site}/api.html", "--session", s)
    t("evaluate", "load()", "--session", s)
    t("route", "**/api/user.json", "--fulfill", str(body), "--status", "201", "--session", s)
    t("route", "**/api/*.txt", "--block", "--session", s)
    t("evaluate", "load()", "--session", s)
    t("routes", "--session", s)
    t("network", "--session", s)
    t("unroute", "**/api/user.json", "--session", s)
    t("route", "**/api/*", "--block", "--session", s)
    t("evaluate", "load()", "--session", s)
    t("network", "--failed", "--session", s)
    t("unroute", "--session", s)
    t("offline", "on", "--session", s)
    t("evaluate", "load()", "--session", s)
    t("offline", "off", "--session", s)
    t("evaluate", "load()", "--session", s)
    t("route", "/api/user.json", "--block", "--session", s, rc=2)
    t("route", "**/api/user.json", "--session", s, rc=2)
    t("route", "**/api/user.json", "--fulfill", '{"name": ', "--session", s, rc=2)
    t("route", "**/api/user.json", "--fulfill", "missing.json", "--session", s, rc=2)
    t("route", "**/api/user.json", "--block", "--status", "404", "--session", s, rc=2)
    t("unroute", "**/nothing", "--session", s, rc=2)
    t.matches("network_control")


def test_record_replies(daemon: Daemon, site: str) -> None:
    """A tab's recording: started, refused twice, stopped, and saved by a tab's close."""
    t, s = Transcript(daemon, site), "record"
    frames = ((r"frames: \d+", "frames: <n>"),)
    t("open", f"{site}/record.html", "--session", s)
    t("record", "stop", "--session", s, rc=2)
    t("record", "start", "--session", s)
    t("record", "start", "--session", s, rc=2)
    t("snapshot", "-i", "--session", s)
    t("click", "e1", "--expect-text", "step 1", "--session", s)
    t("record", "stop", "--session", s, vary=frames)
    clip = str(daemon.settings.artifacts_dir / s / "clip.avi")
    t("record", "start", "--fps", "5", "--quality", "50", "--path", clip, "--session", s)
    t("tab", "close", "--session", s)
    t.matches("record")


def test_error_replies(daemon: Daemon, site: str) -> None:
    """Bad input and refused calls: stderr says what and how to go on; the exit code its
    class."""
    t, s = Transcript(daemon, site), "errors"
    t("open", f"{site}/nav-a.html", "--session", s)
    t("click", "e1", "--session", s, rc=3)
    t("snapshot", "-i", "--session", s)
    t("click", "e99", "--session", s, rc=3)
    t("click", "e3", "--session", s)
    t("click", "e1", "--session", s, rc=3)
    t("type", "--session", s, rc=2)
    t("press", "NoSuchKey", "--session", s, rc=2)
    t("tab", "focus", "t9", "--session", s, rc=2)
    t("evaluate", "1 +", "--session", s, rc=2)
    t("scroll", "--session", s, rc=2)
    t("dialog", "accept", "--session", s, rc=3)
    t("wait", "--text", "never shown", "--timeout", "1000", "--session", s, rc=4)
    t("open", "javascript:void(0)", "--session", s, rc=2)
    t("open", "http://169.254.169.254/latest/meta-data/", "--session", s, rc=7)
    t("policy", "--session", s)
    t("upload", "e3", "/etc/hostname", "--session", s, rc=7)
    # Identical buttons: each candidate with a ref to act on and the row it sits in.
    t("open", f"{site}/people.html", "--session", s)
    t("click", 'role=button[name="Delete"]', "--session", s, rc=3)
    # How long it waited, measured over all its tries (their number varies with the load).
    tries = ((r"waited \d+\.\d s( over \d+ tries)?", "waited <n> s<over tries>"),)
    t("click", "css=#nope", "--timeout", "2000", "--session", s, rc=3, vary=tries)
    t("trace", "other", "--session", s, rc=2)
    t("clack", rc=2)
    t.matches("errors")


def test_batch_replies(daemon: Daemon, site: str) -> None:
    """Steps in order in one call: a line a step, the last one's whole reply, the exit code
    of the first failed step."""
    t, s = Transcript(daemon, site), "batch"
    t("open", f"{site}/form.html", "--session", s)
    steps = [
        {"command": "snapshot", "params": {"interactive": True}},
        {"command": "type", "params": {"ref": "e2", "text": "Ada"}},
        {"command": "select", "params": {"ref": "e4", "values": ["Large"]}},
    ]
    t("batch", json.dumps(steps), "--session", s)
    t("batch", "--session", s, stdin='click e11\nextract text --selector "#out"\n')
    t("batch", "--session", s, stdin="type e2 'Bo Li'\nclick e99\nclick e11\n", rc=3)
    t("batch", "--continue", "--session", s, stdin="click e99\nfind Gift\n", rc=3)
    t("batch", "--session", s, stdin="clik e1\ntype e2\n", rc=2)
    t("batch", '[{"command": "clik"}, {"command": "approve"}]', "--session", s, rc=2)
    t.matches("batch")


def test_flow_replies(fresh_daemon: Daemon, site: str, tmp_path: Path) -> None:
    """A flow saved from what was done, listed, shown, run with another value, exported,
    run where its element is gone (the divergence and the page to go on from), removed."""
    t, s = Transcript(fresh_daemon, site), "flows"
    t.name(str(tmp_path), "TMP")
    t("open", f"{site}/form.html", "--session", s)
    page = t("snapshot", "-i", "--session", s).out
    t("type", find_ref(page, "textbox", "Name"), "Ada", "--session", s)
    t("select", find_ref(page, "combobox", "Size"), "Large", "--session", s)
    t("click", find_ref(page, "button", "Place order"), "--session", s)
    t("flow", "save", "order", "--param", "who=Ada", "--session", s)
    t("flow", "list", vary=((r"saved \S+ ago", "saved <age>"),))
    shown = t("flow", "show", "order", vary=((r'"recorded_ms": [\d.]+', '"recorded_ms": <n>'),)).out
    t("flow", "run", "order", "--param", "who=Grace", "--session", s)
    t("flow", "run", "order", "--param", "city=Bern", "--session", s, rc=2)
    t("flow", "export", "order", "--playwright")
    edited = json.loads(shown)
    edited["steps"][-1]["targets"]["ref"]["name"] = "Pay now"
    path = tmp_path / "order.json"
    path.write_text(json.dumps(edited))
    t("flow", "save", "order", "--file", str(path))
    t("flow", "run", "order", "--wait-ms", "300", "--session", s, rc=3)
    t("flow", "rm", "order", "--version", "2")
    t("flow", "rm", "order")
    t("flow", "show", "order", rc=3)
    t.matches("flows")


def test_session_and_daemon_replies(fresh_daemon: Daemon, site: str) -> None:
    """A daemon from start to stop: sessions, their timeline and report, profiles,
    suspend and restore, metrics and status. Its own daemon: listings show everything."""
    d = fresh_daemon
    t = Transcript(d, site)
    t("daemon", "start")
    t("open", f"{site}/nav-a.html", "--session", "alpha")
    t("snapshot", "-i", "--session", "alpha")
    t("click", "e1", "--session", "alpha")
    t("open", f"{site}/form.html", "--session", "beta")
    t("tab", "new", f"{site}/nav-b.html", "--session", "beta")
    t("sessions")
    t("snapshot", "--session", "ghost", rc=2)
    t("tabs", "--session", "beta")
    t("trace", "--session", "alpha")
    t("trace", "start", "--session", "alpha")
    t("click", "e3", "--session", "alpha")
    t("trace", "stop", "--session", "alpha")
    t("trace", "--last", "2", "--session", "alpha")
    t("report", "--session", "alpha")

    t("profile", "create", "shop")
    t("open", f"{site}/storage.html", "--session", "gamma", "--profile", "shop")
    t("profile", "list")
    t("close", "--session", "gamma")
    t("profile", "export", "shop")
    t("profile", "export", "shop", "--out", str(d.settings.artifacts_dir / "shop.json"))
    t("profile", "import", "copy", str(d.settings.artifacts_dir / "shop.json"))
    t("profile", "delete", "copy")

    t("session", "suspend", "beta")
    t("sessions")
    t("session", "restore", "beta")
    t("state", "key")
    t("state", "rekey")
    t("close", "--session", "alpha")
    t("sessions")
    t("metrics")
    t("daemon", "status")
    t("daemon", "stop")
    t("daemon", "stop")
    t.note("the next command starts the daemon again; beta, suspended by the stop, comes back")
    t("snapshot", "-i", "--session", "beta")
    t.matches("sessions")


def test_emulation_replies(fresh_daemon: Daemon, site: str) -> None:
    """A session opened as a phone in Paris, changed live, listed; what is refused. Its own
    daemon: the listing shows its sessions only."""
    t, page = Transcript(fresh_daemon, site), f"{site}/emulation.html"
    t("daemon", "start")
    where = ("--locale", "fr-FR", "--timezone", "Europe/Paris", "--geolocation", "48.8584,2.2945")
    t("open", page, "--session", "phone", "--device", "iPhone 13", *where, "--color-scheme", "dark")
    t("emulate", "--session", "phone")
    t("emulate", "--color-scheme", "light", "--viewport", "390x500", "--session", "phone")
    t("emulate", "--geolocation", "off", "--session", "phone")
    t("sessions")
    t("open", page, "--session", "phone", "--locale", "de-DE", rc=2)
    t("open", page, "--session", "phone", "--color-scheme", "dark", rc=2)
    t("open", page, "--session", "other", "--device", "iPhone 31", rc=2)
    t("open", page, "--session", "other", "--timezone", "Europe/Pari", rc=2)
    t("open", page, "--session", "other", "--geolocation", "91,0", rc=2)
    t("emulate", "--viewport", "wide", "--session", "phone", rc=2)
    t.matches("emulation")


def test_approval_replies(fresh_daemon: Daemon, site: str) -> None:
    """The approval gate: a gated click waits for `approve`, another is denied, and an
    agent asks on its own; then a person takes the session over and hands it back."""
    d = fresh_daemon
    env = dict(
        d.env,
        STEADYHAND_APPROVAL_NAMES="place order|delete",
        STEADYHAND_APPROVAL_TIMEOUT_S="60",
    )
    t = Transcript(d, site, env)
    assert d.cli("daemon", "start", env=env).rc == 0  # its reply: see sessions.txt
    t("open", f"{site}/approvals.html", "--session", "shop")
    t("snapshot", "-i", "--session", "shop")
    t("approvals")

    def pending(command: str) -> str:
        found: list[str] = []

        def listed() -> bool:
            rows = d.call("approvals")["approvals"]
            found[:] = [a["id"] for a in rows if a["status"] == "pending"]
            return bool(found)

        assert wait_until(listed, 30), f"no pending {command} approval"
        (approval,) = found
        ids = sum(placeholder.startswith("<id ") for placeholder in t.names.values())
        t.name(approval, f"<id {ids + 1}>")
        return approval

    clicking = t.later("click", "e2", "--session", "shop")
    order = pending("click")
    t("approvals")
    t("approve", order, "--note", "go ahead")
    t.finish(clicking, "click", "e2", "--session", "shop")

    deleting = t.later("click", "e3", "--session", "shop")
    delete = pending("click")
    t("deny", delete, "--note", "not that one")
    t.finish(deleting, "click", "e3", "--session", "shop", rc=7)

    asking = t.later("request_approval", "--reason", "send the order mail", "--session", "shop")
    ask = pending("request_approval")
    t("approvals")
    t("approve", ask)
    t.finish(asking, "request_approval", "--reason", "send the order mail", "--session", "shop")
    t("approvals", "--all")
    t("approve", ask, rc=2)

    t.note("a person takes the session over (the live view's button): the agent waits")
    t("takeover", "--reason", "a captcha", "--session", "shop")
    t("sessions")
    t("click", "e4", "--session", "shop", rc=2)
    # How long the person held it is measured: whole seconds, 0 or more under load.
    t(
        "handback",
        "--note",
        "solved it",
        "--session",
        "shop",
        vary=((r"held: \d+ s", "held: <n> s"),),
    )
    t("handback", "--session", "shop", rc=2)
    t.matches("approvals")


def test_secret_replies(fresh_daemon: Daemon, site: str) -> None:
    """Secrets by name: typed in the daemon, shown by name; listed without their values."""
    d = fresh_daemon
    path = d.settings.state_dir / "secrets.toml"
    path.write_text(
        'SHOP_USER = "ada-lovelace-1815"\n'
        '[SHOP_PIN]\nvalue = "pin-2718"\ndomains = ["shop.example"]\n'
    )
    path.chmod(0o600)
    t = Transcript(d, site, dict(d.env, STEADYHAND_SECRET_API_TOKEN="tok-31415926"))
    t("open", f"{site}/form.html", "--session", "vault")
    t("secrets")
    t("snapshot", "-i", "--session", "vault")
    t("type", "e2", "--secret", "SHOP_USER", "--session", "vault")
    t("fill", "e3={{secret:API_TOKEN}}", "--session", "vault")
    t("type", "e2", "--secret", "SHOP_PIN", "--session", "vault", rc=7)
    t("type", "e2", "--secret", "NO_SUCH", "--session", "vault", rc=3)
    text = t.text()
    for value in ("ada-lovelace-1815", "pin-2718", "tok-31415926"):
        assert value not in text
    t.matches("secrets")


def test_cookies_and_storage_replies(fresh_daemon: Daemon, site: str) -> None:
    """Cookies of the session's context and the current origin's web storage; the values
    reach the caller (and never the trace). A daemon of its own: the trace's action ids."""
    t, s = Transcript(fresh_daemon, site), "jar"
    t("open", f"{site}/form.html", "--session", s)
    t("cookies", "set", "sid", "v4lue-1", "--session", s)
    t("cookies", "set", "pref", "dark", "--domain", "127.0.0.1", "--http-only", "--session", s)
    t("cookies", "get", "--session", s)
    t("cookies", "get", "--name", "sid", "--session", s)
    t("cookies", "clear", "--name", "sid", "--session", s)
    t("cookies", "set", "x", "y", "--same-site", "Bogus", "--session", s, rc=2)
    t("storage", "set", "local", "token", "v4lue-2", "--session", s)
    t("storage", "set", "session", "draft", "v4lue-3", "--session", s)
    t("storage", "get", "local", "--session", s)
    t("storage", "get", "session", "--key", "draft", "--session", s)
    t("storage", "clear", "local", "--session", s)
    t("storage", "get", "indexed", "--session", s, rc=2)
    t("cookies", "clear", "--session", s)
    t("trace", "--session", s, "--last", "0")
    t.matches("cookies_storage")


def test_dialog_answered_by_setting_replies(fresh_daemon: Daemon, site: str) -> None:
    """With `dialogs = accept` an act reports the dialog it answered instead of stopping."""
    d = fresh_daemon
    t = Transcript(d, site, dict(d.env, STEADYHAND_DIALOGS="accept"))
    t("open", f"{site}/gauntlet/dialogs.html", "--session", "auto")
    t("snapshot", "-i", "--session", "auto")
    t("click", "e1", "--session", "auto")
    t("click", "e2", "--session", "auto")
    t.matches("dialogs_by_setting")


def test_desktop_replies(desktop_daemon: Daemon, site: str) -> None:
    """Desktop commands on a GTK 3 form in a private X desktop (no window manager)."""
    d = desktop_daemon
    t = Transcript(d, site, d.env)
    argv = gtk3_form("--nodes", "200", "--at", "0,0")
    t.name(str(APPS), "APPS")
    t("desktop", "launch", "--", *argv)
    (pid,) = [a["pid"] for a in d.call("desktop.apps")["apps"] if a["name"] == "gtk3_form.py"]
    try:
        t.name(str(pid), "<pid>")
        (window,) = [w["id"] for w in d.call("desktop.windows")["windows"] if w["pid"] == pid]
        t.name(window, "<window>")
        t("desktop", "apps")
        # Its probes outlast the short tier when other test workers load the machine.
        t("desktop", "transports", "--timeout", "long")
        # Whether GTK has focused the entry yet, just after the window maps, is a race;
        # `desktop focus` below sets the focus and its reply shows it.
        unfocused = ((r" \[focused\]", ""), (r"focused, ", ""))
        page = t("desktop", "snapshot", "--app", str(pid), vary=unfocused).out
        name, greet = ref_of(page, "text", "Name"), ref_of(page, "push button", "Greet")
        size, pad = ref_of(page, "combo box", "Size"), ref_of(page, "panel", "Click pad")
        t("desktop", "type", name, "Ada", vary=unfocused)
        # Which events an action sets off varies with timing: their kinds are not golden.
        changed = (
            (r"the application changed: [a-z.]+(?:, [a-z.]+)*", "the application changed: <kinds>"),
        )
        t("desktop", "click", greet, vary=changed)
        t("desktop", "select", size, "Large")
        t("desktop", "focus", name)
        t("desktop", "press", "ctrl+a", "--ref", name, vary=changed)
        t("desktop", "menu", "File > Save", "--app", str(pid), vary=changed)
        # Whether GTK says `showing` of a button just scrolled away depends on when it is read.
        scrolled = ((r"sensitive, (showing, )?visible", "sensitive, [showing, ]visible"),)
        t("desktop", "scroll", ref_of(page, "push button", "Item 1"), "--dy", "5", vary=scrolled)
        t("desktop", "drag", pad, "+60,+0", vary=changed)
        t(
            "desktop",
            "see",
            "--annotate",
            "--app",
            str(pid),
            "--path",
            f"{d.settings.artifacts_dir}/see.png",
        )
        t("desktop", "windows")
        t("desktop", "window", "move", window, "--x", "10", "--y", "20")
        t("desktop", "window", "resize", window, "--width", "640", "--height", "480")
        t("desktop", "window", "focus", window)
        t("desktop", "clipboard", "set", "from steadyhand")
        t("desktop", "clipboard", "get")
        # The events seen so far (last_seq) depend on timing.
        quiet = ((r"last_seq: \d+", "last_seq: <n>"),)
        t("desktop", "watch", "--app", "no such app", "--for", "300ms", vary=quiet)
        t("desktop", "attach", "no-such-app", "--session", "web", rc=3)
        t("desktop", "click", "d99999", rc=3)
        t("desktop", "takeover", "--reason", "a person checks the form")
        t("desktop", "click", greet, rc=2)  # paused while the person drives
        t("desktop", "handback", "--note", "checked", vary=((r"held_s: [\d.]+", "held_s: <n>"),))
        t("desktop", "window", "close", window)
    finally:
        kill_group(pid)
    t.matches("desktop")


# ---------------------------------------------------------------------- coverage


def command_of(line: str, names: set[str]) -> str | None:
    """The command a golden `$ steadyhand ...` line ran (its longest dotted name)."""
    words: list[str] = []
    tokens = shlex.split(line.removeprefix("$ steadyhand "))
    for i, token in enumerate(tokens):
        if token.startswith("-"):
            break
        if i and tokens[i - 1] in ("--session", "--timeout"):
            continue
        words.append(token)
    found = [".".join(words[:n]) for n in range(len(words), 0, -1)]
    return next((name for name in found if name in names), None)


def test_every_command_has_a_golden_reply() -> None:
    """Each command of the table appears in some golden file (a new command needs one)."""
    names = {c["name"] for c in json.loads(SPEC_PATH.read_text())["commands"]}
    ran = {
        command_of(line, names)
        for path in GOLDEN.glob("*.txt")
        for line in path.read_text().splitlines()
        if line.startswith("$ steadyhand ")
    }
    assert sorted(names - ran) == []
