"""Who is logged into the live view: a person who gave the token on the login page.

The login page takes the API token (or, with the setting `approver_token` on, the
approver token) and answers with a cookie naming a login kept here, in memory: random,
HttpOnly (page scripts cannot read it) and SameSite=Strict (no other site's page sends
it). A request the cookie authorises that changes anything must also carry the login's
CSRF token in the `X-Steadyhand-CSRF` header, which only the live view's own page knows.
A server restart logs everyone out.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie

COOKIE = "steadyhand_live"
CSRF_HEADER = "x-steadyhand-csrf"
IDLE_S = 12 * 3600.0  # a login unused this long is forgotten
MAX_LOGINS = 64


@dataclass
class Login:
    sid: str
    csrf: str
    approver: bool  # may decide approvals and hand back when `approver_token` is on
    last_seen: float


class Logins:
    """Logins made on the login page, by their cookie."""

    def __init__(
        self, api_token: str, approver_token: str = "", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._clock = clock
        self._api = api_token.encode()
        self._approver = approver_token.encode()
        self._by_sid: dict[str, Login] = {}

    def log_in(self, given: str) -> Login | None:
        """A new login for the right token; None for a wrong one."""
        token = given.strip().encode()
        approver = bool(self._approver) and hmac.compare_digest(token, self._approver)
        if not approver and not hmac.compare_digest(token, self._api):
            return None
        self._forget_idle()
        login = Login(secrets.token_urlsafe(32), secrets.token_urlsafe(32), approver, self._clock())
        self._by_sid[login.sid] = login
        return login

    def of(self, cookie_header: str) -> Login | None:
        """The login the request's cookie names, if it is still valid."""
        if not cookie_header:
            return None
        try:
            jar = SimpleCookie(cookie_header)
        except CookieError:
            return None
        morsel = jar.get(COOKIE)
        login = self._by_sid.get(morsel.value) if morsel is not None else None
        if login is None or self._clock() - login.last_seen > IDLE_S:
            return None
        login.last_seen = self._clock()
        return login

    def log_out(self, login: Login) -> None:
        self._by_sid.pop(login.sid, None)

    def csrf_ok(self, login: Login, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), login.csrf.encode())

    def _forget_idle(self) -> None:
        now = self._clock()
        for sid, login in list(self._by_sid.items()):
            if now - login.last_seen > IDLE_S:
                del self._by_sid[sid]
        while len(self._by_sid) >= MAX_LOGINS:  # the oldest goes
            del self._by_sid[min(self._by_sid, key=lambda s: self._by_sid[s].last_seen)]


def set_cookie(login: Login) -> str:
    return f"{COOKIE}={login.sid}; HttpOnly; SameSite=Strict; Path=/; Max-Age={int(IDLE_S)}"


def clear_cookie() -> str:
    return f"{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"
