"""https through a session's proxy, end to end: a test CA made here (cryptography), an https
server on 127.0.0.1 with a certificate it signed, and a Chromium of the test's own that
accepts that CA (its public key, `--ignore-certificate-errors-spki-list`: a test's trust,
never a product setting, since Chromium then takes any chain that merely includes the
CA's public certificate). The daemon runs the session on that browser as an endpoint, so
its context reaches the network through the session's proxy; the session checks loopback
(it blocks `localhost`), so its https goes through the proxy as a CONNECT tunnel: the
allowed page loads over TLS, and the same server under the blocked name is refused for
`open`, a link and a script's fetch, with the rule named. Without the trust the
certificate is refused."""

from __future__ import annotations

import base64
import contextlib
import datetime
import hashlib
import http.server
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from steadyhand.engine.chromium import BASE_ARGS, find_chromium
from steadyhand.snapshot.lookup import find_ref
from tests.conftest import make_settings, running_daemon
from tests.integration.test_endpoints import _started

pytestmark = pytest.mark.integration


def name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_ca(root: Path) -> tuple[Path, Path, Path]:
    """A CA, and a server certificate for 127.0.0.1 and localhost it signed: (CA, cert, key)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("steadyhand test CA"))
        .issuer_name(name("steadyhand test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = root / "ca.pem", root / "server.pem", root / "server.key"
    paths[0].write_bytes(ca.public_bytes(pem))
    paths[1].write_bytes(cert.public_bytes(pem) + ca.public_bytes(pem))
    paths[2].write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


def pages(port: int) -> dict[str, str]:
    other = f"https://localhost:{port}"
    return {
        "/": f"""<title>Secure</title><p>over TLS</p><a href="{other}/secret">Other name</a>
<p id="out">waiting</p>
<script>fetch("{other}/secret").then(() => out.textContent = "fetched",
  () => out.textContent = "fetch refused")</script>""",
        "/secret": "<title>Secret</title><p>the secret page</p>",
    }


class Pages(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        address: tuple[str, int] = self.server.server_address  # type: ignore[assignment]
        port = address[1]
        body = pages(port).get(self.path.split("?")[0], "<title>none</title>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """An https server on 127.0.0.1 (its base URL) and the CA that signed its certificate."""
    ca, cert, key = make_ca(tmp_path_factory.mktemp("ca"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"https://127.0.0.1:{server.server_address[1]}", ca
    server.shutdown()


def spki(ca: Path) -> str:
    """The base64 SHA-256 of the certificate's public key, as Chromium's SPKI list takes it."""
    cert = x509.load_pem_x509_certificate(ca.read_bytes())
    der = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


@contextlib.contextmanager
def browser_of_the_test(profile: Path, *flags: str) -> Iterator[str]:
    """A Chromium with a debugging port, as a user would start one: its endpoint URL."""
    args = [str(find_chromium()), *BASE_ARGS, "--headless", "--no-sandbox"]
    args += ["--remote-debugging-port=0", f"--user-data-dir={profile}", *flags, "about:blank"]
    server = _started(args, r"DevTools listening on ws://([\d.]+:\d+)/")
    try:
        yield "http://" + server.url
    finally:
        server.kill()


def test_https_through_the_proxy_loads_what_is_allowed_and_refuses_the_rest(
    tls: tuple[str, Path], tmp_path: Path
) -> None:
    base, ca = tls
    trusting = f"--ignore-certificate-errors-spki-list={spki(ca)}"
    with (
        browser_of_the_test(tmp_path / "profile", trusting) as endpoint,
        running_daemon(make_settings(tmp_path / "state", browser_endpoints=f"tls={endpoint}")) as d,
    ):
        s = "tls"
        opened = d.call("open", url=f"{base}/", session=s, block_hosts="localhost", browser="tls")
        assert opened["title"] == "Secure" and opened["status"] == 200
        assert {b["rule"] for b in opened.get("blocked") or []} <= {"blocked_hosts"}
        d.call("wait", text="fetch refused", session=s)  # the script's https fetch
        assert "never localhost" in d.call("policy", session=s)["rules"]

        error = d.fail("click", ref=find_ref(d.snapshot(s), "link", "Other name"), session=s)
        assert error.code == "policy_denied" and "rule blocked_hosts" in error.message
        other = base.replace("127.0.0.1", "localhost")
        error = d.fail("open", url=f"{other}/secret", session=s)
        assert error.code == "policy_denied" and "rule blocked_hosts" in error.message
        refused = [b for b in d.call("policy", session=s)["blocked"] if b["host"] == "localhost"]
        assert refused and {b["rule"] for b in refused} == {"blocked_hosts"}
        assert "the secret page" not in d.snapshot(s)
        d.call("close", session=s)


def test_without_the_ca_the_certificate_is_refused(tls: tuple[str, Path], tmp_path: Path) -> None:
    base, _ = tls
    with (
        browser_of_the_test(tmp_path / "profile") as endpoint,
        running_daemon(make_settings(tmp_path / "state", browser_endpoints=f"tls={endpoint}")) as d,
    ):
        error = d.fail(
            "open", url=f"{base}/", session="untrusted", block_hosts="localhost", browser="tls"
        )
        assert error.code == "navigation_failed" and "CERT" in error.message.upper()
