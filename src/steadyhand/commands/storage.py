"""Cookies (the session's browser context) and web storage (the current tab's origin).

Their values are secrets as often as not (session ids, tokens): a value given is a
sensitive param and values read are secret result fields, so the caller gets them and the
action log and the store do not.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import Field

from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import Params, Result, TabParams, command, positional, secret_field
from steadyhand.errors import ErrorCode, SteadyhandError, first_line

SameSite = Literal["Lax", "Strict", "None"]
StorageKind = Literal["local", "session"]


class Cookie(Result):
    name: str
    value: str
    domain: str
    path: str
    expires: float = Field(description="epoch seconds; -1 for a session cookie")
    http_only: bool
    secure: bool
    same_site: str


class CookieFilter(Params):
    domain: str | None = Field(None, description="only cookies of this domain (and subdomains)")
    name: str | None = Field(None, description="only cookies with this name")


class CookieList(Result):
    PAGE_TEXT: ClassVar[bool] = True
    cookies: list[Cookie] = secret_field("the session's cookies, values included")


def _matches(cookie: dict[str, Any], given: CookieFilter) -> bool:
    if given.name is not None and cookie.get("name") != given.name:
        return False
    if given.domain is None:
        return True
    domain, wanted = str(cookie.get("domain", "")).lstrip("."), given.domain.lstrip(".").lower()
    return domain.lower() == wanted or domain.lower().endswith("." + wanted)


def _cookie(raw: dict[str, Any]) -> Cookie:
    return Cookie(
        name=raw["name"],
        value=raw["value"],
        domain=raw["domain"],
        path=raw["path"],
        expires=raw.get("expires", -1),
        http_only=raw.get("httpOnly", False),
        secure=raw.get("secure", False),
        same_site=raw.get("sameSite", "Lax"),
    )


@command("cookies.get", reads_only=True, timeout="short", caps="storage")
async def cookies_get(call: Call, params: CookieFilter) -> CookieList:
    """The session's cookies (all its tabs share them), optionally by domain and name."""
    session = await call.session()
    found = await session.context.cookies()
    return CookieList(cookies=[_cookie(dict(c)) for c in found if _matches(dict(c), params)])


class CookieSetParams(Params):
    name: str = positional("cookie name")
    value: str = positional("cookie value (kept out of the log)", sensitive=True)
    domain: str | None = Field(
        None, description="cookie domain (default: the current tab's host); not with --url"
    )
    url: str | None = Field(None, description="set it as this URL would (domain, path, secure)")
    path: str | None = Field(None, description="cookie path (default: /); not with --url")
    expires: float | None = Field(None, description="expiry in epoch seconds (default: session)")
    http_only: bool = Field(False, description="hidden from the page's document.cookie")
    secure: bool = Field(False, description="sent over HTTPS only")
    same_site: SameSite | None = Field(None, description="Lax, Strict or None")


class CookieSet(Result):
    cookie: dict[str, Any] = Field(description="the cookie as set, its value left out")


def _bad(message: str, hint: str) -> SteadyhandError:
    return SteadyhandError(ErrorCode.BAD_REQUEST, message, hint)


async def _current_url(call: Call) -> str | None:
    """The current tab's http(s) URL, if a page is open."""
    session = await call.session()
    tab = session.current_tab()
    if tab is None or tab.page.is_closed():
        return None
    url = tab.page.url
    return url if urlsplit(url).scheme in ("http", "https") else None


@command("cookies.set", caps="storage")
async def cookies_set(call: Call, params: CookieSetParams) -> CookieSet:
    """Set a cookie in the session's browser context (for all its tabs)."""
    if params.url is not None and (params.domain is not None or params.path is not None):
        raise _bad(
            "cookies set takes --url or --domain/--path, not both",
            "give --url URL alone, or --domain D [--path P]",
        )
    where: dict[str, Any]
    if params.url is not None:
        where = {"url": params.url}
    else:
        domain = params.domain
        if domain is None:
            current = await _current_url(call)
            if current is None:
                raise _bad(
                    "cookies set needs --domain or --url: no page is open to take them from",
                    "give --domain D (e.g. --domain example.com) or --url URL, "
                    "or open a page first",
                )
            domain = urlsplit(current).hostname or ""
        where = {"domain": domain, "path": params.path or "/"}
    cookie: dict[str, Any] = {"name": params.name, "value": params.value, **where}
    if params.expires is not None:
        cookie["expires"] = params.expires
    cookie |= {"httpOnly": params.http_only, "secure": params.secure}
    if params.same_site is not None:
        cookie["sameSite"] = params.same_site
    session = await call.session()
    try:
        await session.context.add_cookies([cookie])  # type: ignore[list-item]
    except PlaywrightError as exc:
        raise _bad(
            f"the browser refused the cookie: {first_line(exc)}",
            "check --domain/--url, and that --same-site None comes with --secure",
        ) from exc
    snake = {"httpOnly": "http_only", "sameSite": "same_site"}
    return CookieSet(cookie={snake.get(k, k): v for k, v in cookie.items() if k != "value"})


class ClearedCookies(Result):
    cleared: list[dict[str, str]] = Field(description="name, domain and path of each removed")


@command("cookies.clear", destructive=True, caps="storage")
async def cookies_clear(call: Call, params: CookieFilter) -> ClearedCookies:
    """Remove the session's cookies: all, or those of a domain and/or name."""
    session = await call.session()
    if params.domain is None and params.name is None:
        found = await session.context.cookies()
        await session.context.clear_cookies()
    else:
        found = [c for c in await session.context.cookies() if _matches(dict(c), params)]
        for c in found:
            await session.context.clear_cookies(name=c["name"], domain=c["domain"], path=c["path"])
    return ClearedCookies(
        cleared=[{"name": c["name"], "domain": c["domain"], "path": c["path"]} for c in found]
    )


# ---------------------------------------------------------------------- web storage


class StorageParams(TabParams):
    kind: StorageKind = positional("local (localStorage) or session (sessionStorage)")


class StorageGetParams(StorageParams):
    key: str | None = Field(None, description="only this key")


class StorageItems(PageResult):
    kind: str
    items: dict[str, str] = secret_field("the origin's items, key to value")


class StorageSetParams(StorageParams):
    key: str = positional("item key")
    value: str = positional("item value (kept out of the log)", sensitive=True)


class StorageChanged(PageResult):
    kind: str
    keys: list[str] = Field(description="the keys set or removed")


READ_JS = """([kind, key]) => {
  const s = kind === 'local' ? localStorage : sessionStorage;
  if (key !== null) { const v = s.getItem(key); return v === null ? {} : {[key]: v}; }
  const out = {};
  for (let i = 0; i < s.length; i++) { const k = s.key(i); out[k] = s.getItem(k); }
  return out;
}"""
SET_JS = """([kind, key, value]) => {
  (kind === 'local' ? localStorage : sessionStorage).setItem(key, value);
}"""
CLEAR_JS = """([kind, key]) => {
  const s = kind === 'local' ? localStorage : sessionStorage;
  if (key !== null) {
    const had = s.getItem(key) !== null;
    s.removeItem(key);
    return had ? [key] : [];
  }
  const keys = [];
  for (let i = 0; i < s.length; i++) keys.push(s.key(i));
  s.clear();
  return keys;
}"""


async def _in_storage(page: Page, kind: str, script: str, *args: str | None) -> Any:
    """Run `script` on the page's storage; an origin without one is a bad request."""
    try:
        return await page.evaluate(script, [kind, *args])
    except PlaywrightError as exc:
        if "SecurityError" in str(exc) or "denied" in str(exc):
            raise _bad(
                f"{page.url or 'this page'} has no {kind}Storage: {first_line(exc)}",
                "open an http(s) page first (`open URL`): storage belongs to its origin",
            ) from exc
        raise


@command("storage.get", reads_only=True, timeout="short", caps="storage")
async def storage_get(call: Call, params: StorageGetParams) -> StorageItems:
    """The current tab's localStorage or sessionStorage items (of its page's origin)."""
    tab = await call.tab(params.tab)
    items = await _in_storage(tab.page, params.kind, READ_JS, params.key)
    return StorageItems(**await page_result(tab), kind=params.kind, items=items)


@command("storage.set", caps="storage")
async def storage_set(call: Call, params: StorageSetParams) -> StorageChanged:
    """Set an item in the current tab's localStorage or sessionStorage."""
    tab = await call.tab(params.tab)
    await _in_storage(tab.page, params.kind, SET_JS, params.key, params.value)
    return StorageChanged(**await page_result(tab), kind=params.kind, keys=[params.key])


class StorageClearParams(StorageParams):
    key: str | None = Field(None, description="only this key (default: every item)")


@command("storage.clear", destructive=True, caps="storage")
async def storage_clear(call: Call, params: StorageClearParams) -> StorageChanged:
    """Remove the current tab's localStorage or sessionStorage items: all, or one key."""
    tab = await call.tab(params.tab)
    keys = await _in_storage(tab.page, params.kind, CLEAR_JS, params.key)
    return StorageChanged(**await page_result(tab), kind=params.kind, keys=keys)
