"""Secrets by name against a real daemon, real Chromium and a login page on 127.0.0.1.

The login page echoes whatever is typed into its page text, into another field and into
its console, and its server echoes the posted password back; the server records what it
received, which proves the value was typed. Then the value must be nowhere an agent or a
person reads: the replies (CLI text, --json, JSON-RPC, HTTP), snapshots, the act's changes,
extract, evaluate, console, the action log's SQLite file, the JSON logs, daemon.log, the
trace, the session report and a Playwright trace.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets as random
import threading
import urllib.parse
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from steadyhand.desktop.session import DesktopSession
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import CliRun, Daemon, make_settings, running_daemon, wait_until
from tests.desktop_env import gtk3_form, launched, wait_on_bus
from tests.http_server import start_http
from tests.integration.test_desktop import ref_of
from tests.integration.test_mcp import call, stdio_mcp, text_of

pytestmark = pytest.mark.integration

PASSWORD = "hunter2-" + random.token_hex(4)  # in the secrets file, unscoped
PIN = "pin-" + random.token_hex(4)  # in the file, scoped to localhost
TOKEN = "tok-" + random.token_hex(4)  # in the daemon's environment
VALUES = (PASSWORD, PIN, TOKEN)

LOGIN = """<!doctype html>
<html><head><title>Login</title></head><body><main>
<h1>Sign in</h1>
<form method="post" action="/login">
  <label>User <input name="user" autocomplete="username"></label>
  <label>Password <input type="password" name="password"></label>
  <label>Token <input name="token"></label>
  <button>Sign in</button>
</form>
<p id="echo">you typed: nothing</p>
<label>Copy <input id="copy"></label>
<script>
for (const name of ['password', 'token']) {
  document.querySelector(`[name=${name}]`).addEventListener('input', e => {
    document.getElementById('echo').textContent = 'you typed: ' + e.target.value;
    document.getElementById('copy').value = e.target.value;
    console.log('typed ' + e.target.value);
  });
}
</script>
</main></body></html>
"""


class LoginSite:
    """GET /login serves the page; POST /login records the form and echoes the password."""

    def __init__(self) -> None:
        self.posts: list[dict[str, str]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._send(LOGIN)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                site.posts.append(form)
                page = (
                    "<!doctype html><title>Welcome</title><main><h1>Welcome</h1>"
                    f"<p>The server got the password {form.get('password', '')}</p></main>"
                )
                self._send(page)

            def _send(self, body: str) -> None:
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/login"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def login() -> Iterator[LoginSite]:
    site = LoginSite()
    yield site
    site.close()


def write_secrets(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o600)


SECRETS_TOML = f"""
BANK_PASSWORD = "{PASSWORD}"

[SCOPED_PIN]
value = "{PIN}"
domains = ["localhost"]
"""


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon at log level debug (its log lines carry params and results), with a
    secrets file in its state dir and one secret in its environment."""
    state = tmp_path_factory.mktemp("state")
    state.chmod(0o700)
    write_secrets(state / "secrets.toml", SECRETS_TOML)
    settings = make_settings(state, log_level="debug", step_screenshots=True)
    environ = dict(os.environ, STEADYHAND_SECRET_ENV_TOKEN=TOKEN)
    with running_daemon(settings, environ) as handle:
        yield handle


def refs(d: Daemon, session: str) -> dict[str, str]:
    page = d.snapshot(session)
    return {
        "password": find_ref(page, "textbox", "Password"),
        "token": find_ref(page, "textbox", "Token"),
        "copy": find_ref(page, "textbox", "Copy"),
        "sign_in": find_ref(page, "button", "Sign in"),
    }


def assert_clean(text: str, where: str) -> None:
    for value in VALUES:
        assert value not in text, f"a secret's value is in {where}:\n{text[:3000]}"


def state_files(d: Daemon) -> dict[str, bytes]:
    """Every file in the state dir but the secrets file itself (and sockets)."""
    found = {}
    for path in d.settings.state_dir.rglob("*"):
        if path.is_file() and path.name != "secrets.toml" and not path.is_socket():
            found[str(path)] = path.read_bytes()
    return found


def test_type_secret_over_cli_is_typed_and_never_shown(daemon: Daemon, login: LoginSite) -> None:
    d, s = daemon, "cli"
    shown: list[str] = []

    def cli(*args: str, rc: int = 0) -> CliRun:
        run = d.cli(*args, "--session", s)
        shown.append(run.out + run.err)
        assert run.rc == rc, run.out + run.err
        return run

    cli("open", login.url())
    r = refs(d, s)
    typed = cli("type", r["password"], "--secret", "BANK_PASSWORD")
    assert "{{secret:BANK_PASSWORD}}" in typed.out  # the page's echo, as the change shows it
    as_json = cli("type", r["token"], "{{secret:ENV_TOKEN}}", "--json").json["result"]
    assert "you typed: {{secret:ENV_TOKEN}}" in as_json["changes"]
    page = cli("snapshot").out
    assert "you typed: {{secret:ENV_TOKEN}}" in page
    assert ": {{secret:ENV_TOKEN}}" in page  # the fields that hold it
    # Every way to read the page back.
    # evaluate could read it back transformed: refused on the page a secret went into.
    refused = cli("evaluate", "document.getElementById('copy').value", rc=7)
    assert "error [policy_denied]" in refused.err
    assert "{{secret:ENV_TOKEN}}" in cli("extract", "text").out
    assert "typed {{secret:ENV_TOKEN}}" in cli("console").out
    cli("find", "you typed")
    cli("snapshot", "--diff")
    # An error that would quote the text: the field does not take it (a button).
    failed = cli("type", r["sign_in"], "--secret", "BANK_PASSWORD", rc=3)
    assert "error [" in failed.err
    cli("click", r["sign_in"])
    # The server got the real values: they were typed.
    assert wait_until(lambda: bool(login.posts))
    assert login.posts[-1]["password"] == PASSWORD
    assert login.posts[-1]["token"] == TOKEN
    welcome = cli("snapshot").out
    assert "The server got the password {{secret:BANK_PASSWORD}}" in welcome
    # Another page: evaluate works again, and its value is masked too.
    echoed = cli("evaluate", "document.body.innerText", "--json").json["result"]["value"]
    assert "The server got the password {{secret:BANK_PASSWORD}}" in echoed
    listed = cli("secrets").out
    assert "BANK_PASSWORD" in listed and "ENV_TOKEN" in listed and "SCOPED_PIN" in listed
    shown.append(cli("trace", s).out)
    report = Path(cli("report", s, "--json").json["result"]["path"])
    shown.append(report.read_text())
    for i, text in enumerate(shown):
        assert_clean(text, f"reply {i}")
    # What the daemon wrote: the action log's SQLite file (and its WAL), the JSON logs,
    # daemon.log, the report, screenshots' names.
    assert (d.settings.state_dir / "logs" / "steadyhand.jsonl").exists()
    files = state_files(d)
    assert any(name.endswith("steadyhand.sqlite") for name in files)
    assert any(name.endswith("steadyhand.jsonl") for name in files)
    for name, data in files.items():
        for value in VALUES:
            assert value.encode() not in data, f"{value} is in {name}"
    logged = (d.settings.state_dir / "logs" / "steadyhand.jsonl").read_text()
    assert '"secret": "BANK_PASSWORD"' in logged  # params keep the name, at debug
    rows = d.call("trace", session=s)
    params = [json.dumps(row) for row in rows["actions"]]
    assert any('"secret": "BANK_PASSWORD"' in p for p in params), params
    assert any("{{secret:ENV_TOKEN}}" in p for p in params), params


def test_type_secret_over_rpc_and_http(daemon: Daemon, login: LoginSite) -> None:
    d, s = daemon, "rpc"
    d.call("open", session=s, url=login.url())
    r = refs(d, s)
    done = d.call("type", session=s, ref=r["password"], secret="BANK_PASSWORD")
    done_token = d.call("fill", session=s, fields={r["token"]: "x-{{secret:ENV_TOKEN}}"})
    assert "x-{{secret:ENV_TOKEN}}" in json.dumps(done_token)
    page = d.snapshot(s)
    assert 'textbox "Token"' in page and ": x-{{secret:ENV_TOKEN}}" in page
    refused = d.fail("evaluate", session=s, expression="1")
    assert refused.code == ErrorCode.POLICY_DENIED and r["password"] not in refused.message
    posted = len(login.posts)
    signed_in = d.call("click", session=s, ref=r["sign_in"])
    assert wait_until(lambda: len(login.posts) > posted)
    assert login.posts[-1]["password"] == PASSWORD
    assert login.posts[-1]["token"] == "x-" + TOKEN
    for reply in (done, done_token, page, signed_in):
        assert_clean(json.dumps(reply), "an RPC reply")


def test_scoped_secret_goes_only_to_its_domains(daemon: Daemon, login: LoginSite) -> None:
    d, s = daemon, "scoped"
    d.call("open", session=s, url=login.url("127.0.0.1"))
    r = refs(d, s)
    refused = d.fail("type", session=s, ref=r["token"], secret="SCOPED_PIN")
    assert refused.code == ErrorCode.POLICY_DENIED
    assert "127.0.0.1" in refused.message and "localhost" in refused.message
    assert refused.data["domains"] == ["localhost"] and refused.data["host"] == "127.0.0.1"
    value = d.call("evaluate", session=s, expression="document.querySelector('[name=token]').value")
    assert value["value"] == ""  # nothing typed
    # fill checks every field's secrets before typing any
    refused = d.fail(
        "fill", session=s, fields={r["password"]: "typed", r["token"]: "{{secret:SCOPED_PIN}}"}
    )
    assert refused.code == ErrorCode.POLICY_DENIED
    length = d.call(
        "evaluate", session=s, expression="document.querySelector('[name=password]').value.length"
    )
    assert length["value"] == 0
    # On its own domain it is typed (the reply shows the value masked: it is in the field).
    d.call("open", session=s, url=login.url("localhost"))
    r = refs(d, s)
    typed = d.call("type", session=s, ref=r["token"], secret="SCOPED_PIN")
    page = d.snapshot(s)
    assert "you typed: {{secret:SCOPED_PIN}}" in page
    assert_clean(json.dumps(typed) + page, "an RPC reply")


def test_unknown_secret_lists_the_names(daemon: Daemon, login: LoginSite) -> None:
    d, s = daemon, "unknown"
    d.call("open", session=s, url=login.url())
    r = refs(d, s)
    err = d.fail("type", session=s, ref=r["token"], secret="NO_SUCH")
    assert err.code == ErrorCode.NOT_FOUND
    assert "BANK_PASSWORD" in err.hint and "ENV_TOKEN" in err.hint and "SCOPED_PIN" in err.hint
    assert_clean(err.hint + err.message + json.dumps(err.data), "the error")
    err = d.fail("fill", session=s, fields={r["token"]: "{{secret:NO_SUCH}}"})
    assert err.code == ErrorCode.NOT_FOUND
    err = d.fail("type", session=s, ref=r["token"], text="a", secret="BANK_PASSWORD")
    assert err.code == ErrorCode.BAD_REQUEST
    err = d.fail("type", session=s, ref=r["token"])
    assert err.code == ErrorCode.BAD_REQUEST and "--secret" in err.message


def test_secrets_file_reloads_and_refuses_open_modes(daemon: Daemon, login: LoginSite) -> None:
    d, s = daemon, "reload"
    path = d.settings.state_dir / "secrets.toml"
    added = "added-" + random.token_hex(4)
    try:
        write_secrets(path, f'ADDED = "{added}"\n' + SECRETS_TOML)
        listed = d.call("secrets")
        names = {x["name"]: x for x in listed["secrets"]}
        assert names["ADDED"]["source"] == "file"
        assert names["ENV_TOKEN"]["source"] == "env"
        assert names["SCOPED_PIN"]["domains"] == ["localhost"]
        assert added not in json.dumps(listed)
        d.call("open", session=s, url=login.url())
        r = refs(d, s)
        d.call("type", session=s, ref=r["token"], secret="ADDED")
        echoed = d.snapshot(s)
        assert "you typed: {{secret:ADDED}}" in echoed and added not in echoed
        path.chmod(0o644)
        err = d.fail("type", session=s, ref=r["token"], secret="ADDED")
        assert err.code == ErrorCode.POLICY_DENIED and "chmod 600" in err.hint
        assert d.fail("secrets").code == ErrorCode.POLICY_DENIED
    finally:
        write_secrets(path, SECRETS_TOML)
    assert "ADDED" not in {x["name"] for x in d.call("secrets")["secrets"]}


def test_playwright_trace_holds_no_value(daemon: Daemon, login: LoginSite) -> None:
    d, s = daemon, "pwtrace"
    d.call("open", session=s, url=login.url())
    r = refs(d, s)
    d.call("trace.start", session=s)
    d.call("type", session=s, ref=r["token"], secret="BANK_PASSWORD")
    d.call("type", session=s, ref=r["password"], text="{{secret:BANK_PASSWORD}}")
    d.call("click", session=s, ref=r["sign_in"])
    saved = d.call("trace.stop", session=s)
    with zipfile.ZipFile(saved["path"]) as trace:
        names = trace.namelist()
        assert names
        for name in names:
            data = trace.read(name)
            assert PASSWORD.encode() not in data, name
            assert urllib.parse.quote_plus(PASSWORD).encode() not in data, name


def test_secret_values_never_reach_an_http_reply(daemon: Daemon, login: LoginSite) -> None:
    d, s = daemon, "http"
    d.call("open", session=s, url=login.url())
    r = refs(d, s)
    server = start_http(d.env)
    try:
        with server.client() as http:
            typed = http.post(
                "/v1/type", json={"session": s, "ref": r["token"], "secret": "ENV_TOKEN"}
            )
            assert typed.status_code == 200, typed.text
            page = http.post("/v1/snapshot", json={"session": s}).text
            listed = http.post("/v1/secrets", json={}).json()
    finally:
        server.stop()
    assert "you typed: {{secret:ENV_TOKEN}}" in page
    assert {x["name"] for x in listed["result"]["secrets"]} >= {"ENV_TOKEN", "BANK_PASSWORD"}
    for text in (typed.text, page, json.dumps(listed)):
        assert_clean(text, "an HTTP reply")


def test_errors_are_data_not_values(daemon: Daemon) -> None:
    """A bad name is refused by validation, quoting nothing secret."""
    try:
        d = daemon
        d.call("type", session="bad", ref="e1", secret="not a name")
    except SteadyhandError as exc:
        assert exc.code == ErrorCode.BAD_REQUEST
    else:
        raise AssertionError("a bad secret name was taken")


@pytest.fixture(scope="module")
def desktop_daemon(
    desktop: DesktopSession, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Daemon]:
    """A daemon in the private desktop, with the same secrets."""
    state = tmp_path_factory.mktemp("state")
    state.chmod(0o700)
    write_secrets(state / "secrets.toml", SECRETS_TOML)
    environ = dict(desktop.env, STEADYHAND_SECRET_ENV_TOKEN=TOKEN)
    with running_daemon(make_settings(state, log_level="debug"), environ) as handle:
        yield handle


def test_desktop_type_takes_unscoped_secrets(
    desktop_daemon: Daemon, desktop: DesktopSession
) -> None:
    d = desktop_daemon
    with launched(desktop, gtk3_form()) as app:
        wait_on_bus(desktop, app.pid, "push button", "Greet")
        page = d.call("desktop.snapshot", app=str(app.pid))["snapshot"]
        name, greet = ref_of(page, "text", "Name"), ref_of(page, "push button", "Greet")
        refused = d.fail("desktop.type", ref=name, text="{{secret:SCOPED_PIN}}")
        assert refused.code == ErrorCode.POLICY_DENIED and "the desktop" in refused.message
        typed = d.call("desktop.type", ref=name, text="{{secret:ENV_TOKEN}}")
        assert typed["verified"] and typed["value"] == "{{secret:ENV_TOKEN}}"
        d.call("desktop.click", ref=greet)
        page = d.call("desktop.snapshot", app=str(app.pid), fresh=True)["snapshot"]
        assert "hello {{secret:ENV_TOKEN}}" in page
        rows = d.call("trace", last=0)["actions"]
        typed_row = next(e for e in rows if e["command"] == "desktop.type" and e["ok"])
        assert typed_row["params"]["text"] == "{{secret:ENV_TOKEN}}"
        assert_clean(json.dumps([typed, page, rows]), "desktop replies")
    for name, data in state_files(d).items():
        assert TOKEN.encode() not in data, name


def test_type_secret_over_mcp(daemon: Daemon, login: LoginSite) -> None:
    """An MCP agent types by name, and what comes back (text and structured content) names
    the secret without its value."""
    s = "mcp"

    async def scenario() -> list[str]:
        async with stdio_mcp(daemon.env) as client:
            await call(client, "open", session=s, url=login.url())
            page = text_of(await call(client, "snapshot", session=s))
            token = find_ref(page, "textbox", "Token")
            typed = await call(client, "type", session=s, ref=token, secret="ENV_TOKEN")
            listed = await call(client, "secrets")
            after = text_of(await call(client, "snapshot", session=s))
            return [
                text_of(typed),
                json.dumps(typed.structured_content),
                text_of(listed),
                after,
            ]

    shown = asyncio.run(scenario())
    assert "you typed: {{secret:ENV_TOKEN}}" in shown[-1]
    assert "ENV_TOKEN" in shown[2]
    for text in shown:
        assert_clean(text, "an MCP tool result")
