"""A small multi-page web shop on 127.0.0.1, for integration tests and the flows benchmark.

Sign in, search, add to the cart from a results table, check out: real server-rendered pages
with real `<form>` posts, one session per visitor (cookie `shop_sid`), and a record of every
state change the server saw (`ShopSite.events`). `ShopSite.variant` switches, at any moment,
between the site as recorded and the site changed under a replay:

- "plain": the shop as described below.
- "restyled": every class and id renamed, the fields of every form reordered, buttons moved,
  the table's columns reordered, and one small rename ("Check out" reads "Checkout").
  Accessible roles and names are otherwise those of "plain".
- "banner": "plain" under a real cookie consent banner (vendored vanilla-cookieconsent, as in
  tests/fixtures/site/consent.html) that blocks the page until answered.
- "removed": "plain" without the "Place order" button (and the server refuses orders).

Use:

    with ShopSite().start() as shop:
        ...  # drive shop.url + "/login"
        assert shop.orders() == [...]
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import re
import secrets
import threading
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

VARIANTS: Final = ("plain", "restyled", "banner", "removed")
PASSWORD: Final = "secret-pw"
FIRST_ORDER: Final = 1001
COOKIE: Final = "shop_sid"
VENDOR_DIR: Final = Path(__file__).parent / "fixtures" / "site" / "vendor"
HTML_TYPE: Final = "text/html; charset=utf-8"
FILE_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}


@dataclass(frozen=True)
class Product:
    id: str
    name: str
    category: str
    price: int


PRODUCTS: Final = (
    Product("desk-lamp", "Desk lamp", "Lighting", 39),
    Product("floor-lamp", "Floor lamp", "Lighting", 89),
    Product("lamp-shade", "Lamp shade", "Lighting", 15),
    Product("kettle", "Kettle", "Kitchen", 25),
    Product("toaster", "Toaster", "Kitchen", 35),
    Product("desk", "Desk", "Office", 199),
    Product("desk-organiser", "Desk organiser", "Office", 12),
    Product("office-chair", "Office chair", "Office", 149),
)
BY_ID: Final = {product.id: product for product in PRODUCTS}
CATEGORIES: Final = ("Lighting", "Kitchen", "Office")
DELIVERIES: Final = ("Standard", "Express")


def search(query: str) -> list[Product]:
    """The products whose name holds `query`, case-insensitively, in catalogue order."""
    needle = query.strip().casefold()
    return [product for product in PRODUCTS if needle in product.name.casefold()]


@dataclass
class Session:
    user: str | None = None
    cart: list[str] = field(default_factory=list)  # product ids, in the order added
    flash: tuple[str, str] | None = None  # (the page's path and query, its status message)
    last_order: tuple[int, str, str] | None = None  # (number, name, address)


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = HTML_TYPE
    headers: list[tuple[str, str]] = field(default_factory=list)


def redirect(location: str) -> Response:
    body = f'<!doctype html><p>See <a href="{html.escape(location)}">{html.escape(location)}</a>'
    return Response(303, body.encode(), headers=[("Location", location)])


def price(amount: int) -> str:
    return f"${amount}"


# --- Looks: class and id names, and the style sheet, of each variant ---------------------------

CSS_NAME = re.compile(r"@([a-z][a-z0-9-]*)")

PLAIN_CSS = """
body { font-family: system-ui, sans-serif; margin: 0; background: #f6f6f4; color: #222; }
.@top { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1rem;
  background: #234; color: #fff; }
.@top a { color: #fff; }
.@brand { font-weight: bold; }
.@nav { display: flex; gap: 1rem; }
.@main { max-width: 48rem; margin: 1rem auto; padding: 0 1rem; }
.@card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 1rem; }
.@field { display: flex; flex-direction: column; gap: .2rem; margin: .6rem 0; }
.@check { display: flex; gap: .4rem; align-items: center; margin: .6rem 0; }
.@actions { display: flex; gap: .5rem; margin-top: 1rem; }
.@btn { padding: .4rem .9rem; border: 1px solid #345; border-radius: 4px; background: #fff;
  cursor: pointer; }
.@btn-primary { background: #2a6; border-color: #185; color: #fff; }
.@btn-danger { color: #a00; }
.@alert { color: #a00; font-weight: bold; }
.@status { color: #060; }
.@filter { margin: .6rem 0; }
.@products { border-collapse: collapse; width: 100%; background: #fff; }
.@products caption { text-align: left; font-weight: bold; padding: .3rem 0; }
.@products th, .@products td { border-bottom: 1px solid #ddd; padding: .3rem .5rem;
  text-align: left; }
.@price { font-variant-numeric: tabular-nums; }
.@cart-items { padding-left: 1.2rem; }
"""

RESTYLED_CSS = """
body { font-family: Georgia, serif; margin: 0; background: #fff; color: #111; }
.@top { display: grid; grid-template-columns: 1fr; padding: 1rem 2rem;
  border-bottom: 4px solid #c60; }
.@brand { font-size: 1.4rem; letter-spacing: .1em; text-transform: uppercase; }
.@bottom { padding: 1rem 2rem; background: #eee; }
.@nav { display: flex; flex-direction: row-reverse; justify-content: flex-end; gap: 2rem; }
.@main { max-width: 40rem; margin: 2rem; }
.@card { border-left: 6px solid #c60; padding: .5rem 1.5rem; }
.@form-head { display: flex; justify-content: flex-end; margin-bottom: .5rem; }
.@field { display: grid; grid-template-columns: 8rem 1fr; align-items: center; margin: .8rem 0; }
.@check { display: flex; flex-direction: row-reverse; justify-content: flex-end; gap: 1rem; }
.@actions { display: flex; flex-direction: row-reverse; gap: 1rem; margin: 0 0 1rem; }
.@btn { padding: .6rem 1.4rem; border: 0; border-radius: 2rem; background: #333; color: #fff;
  cursor: pointer; }
.@btn-primary { background: #c60; }
.@btn-danger { background: #777; }
.@alert { background: #fdd; padding: .5rem; }
.@status { background: #dfd; padding: .5rem; }
.@filter { float: right; }
.@products { border-collapse: separate; border-spacing: 0 .4rem; width: 100%; }
.@products caption { caption-side: bottom; font-style: italic; }
.@products th, .@products td { padding: .4rem 1rem; background: #f4f0ea; }
.@price { font-weight: bold; }
.@cart-items { list-style: square; }
"""


class Look:
    """Class and id names of one variant: "restyled" renames every one, as a CSS-in-JS
    build would; the others keep the readable names."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.restyled = variant == "restyled"

    def __call__(self, name: str) -> str:
        if not self.restyled:
            return name
        return "sc-" + hashlib.sha1(f"restyled:{name}".encode()).hexdigest()[:7]

    def css(self) -> str:
        sheet = RESTYLED_CSS if self.restyled else PLAIN_CSS
        return CSS_NAME.sub(lambda match: self(match.group(1)), sheet)


BANNER_HEAD = '<link rel="stylesheet" href="/vendor/vanilla-cookieconsent/cookieconsent.css">'
# The banner as tests/fixtures/site/consent.html runs it (its inline script, read from there).
CONSENT_PAGE: Final = VENDOR_DIR.parent / "consent.html"
BANNER_SCRIPT = (
    '<script src="/vendor/vanilla-cookieconsent/cookieconsent.umd.js"></script>\n'
    + re.findall(r"<script>\s*CookieConsent\.run.*?</script>", CONSENT_PAGE.read_text(), re.S)[0]
)


def e(text: str) -> str:
    return html.escape(text, quote=True)


# --- The pages -------------------------------------------------------------------------------


class Pages:
    """The HTML of every page, for one variant."""

    def __init__(self, variant: str) -> None:
        self.k = Look(variant)
        self.variant = variant

    def document(self, title: str, main: str, cart_count: int | None = None) -> bytes:
        """A whole page; `cart_count` given for signed-in pages, which show the nav."""
        k = self.k
        nav = ""
        if cart_count is not None:
            nav = (
                f'<nav class="{k("nav")}" aria-label="Shop">'
                f'<a class="{k("nav-link")}" href="/search">Products</a>'
                f'<a class="{k("nav-link")}" id="{k("cart-link")}" href="/cart">'
                f"Cart ({cart_count})</a></nav>"
            )
        top_nav, bottom_nav = ("", nav) if k.restyled else (nav, "")
        bottom = f'<div class="{k("bottom")}">{bottom_nav}</div>' if bottom_nav else ""
        banner = self.variant == "banner"
        page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)} · Steady Shop</title>
<style>{k.css()}</style>
{BANNER_HEAD if banner else ""}
</head>
<body class="{k("page")}">
<header class="{k("top")}"><span class="{k("brand")}">Steady Shop</span>{top_nav}</header>
<main class="{k("main")}" id="{k("content")}">
{main}
</main>
{bottom}
{BANNER_SCRIPT if banner else ""}
</body></html>
"""
        return page.encode()

    def notice(self, alert: str | None = None, status: str | None = None) -> str:
        k = self.k
        out = ""
        if alert:
            out += f'<p class="{k("alert")}" role="alert">{e(alert)}</p>'
        if status:
            out += f'<p class="{k("status")}" role="status">{e(status)}</p>'
        return out

    def field(self, name: str, label: str, control: str) -> str:
        k = self.k
        return f'<div class="{k("field")}"><label for="{k(name)}">{e(label)}</label>{control}</div>'

    def login(self, username: str = "", alert: str | None = None) -> bytes:
        k = self.k
        user_field = self.field(
            "username",
            "Username",
            f'<input id="{k("username")}" name="username" type="text" autocomplete="username"'
            f' value="{e(username)}" required>',
        )
        password_field = self.field(
            "password",
            "Password",
            f'<input id="{k("password")}" name="password" type="password"'
            ' autocomplete="current-password" required>',
        )
        button = f'<button class="{k("btn")} {k("btn-primary")}" type="submit">Sign in</button>'
        if k.restyled:
            body = f'<div class="{k("form-head")}">{button}</div>{password_field}{user_field}'
        else:
            body = f'{user_field}{password_field}<div class="{k("actions")}">{button}</div>'
        main = f"""<h1 class="{k("title")}">Sign in</h1>
{self.notice(alert)}
<form class="{k("card")}" id="{k("login-form")}" method="post" action="/login" \
aria-label="Sign in">{body}</form>"""
        return self.document("Sign in", main)

    def search(self, cart_count: int) -> bytes:
        k = self.k
        label = f'<label for="{k("query")}">Search products</label>'
        box = f'<input id="{k("query")}" name="q" type="search" autocomplete="off">'
        button = f'<button class="{k("btn")} {k("btn-primary")}" type="submit">Search</button>'
        inner = f"{button} {label} {box}" if k.restyled else f"{label} {box} {button}"
        main = f"""<h1 class="{k("title")}">Find products</h1>
<form class="{k("card")} {k("search")}" id="{k("search-form")}" role="search" aria-label="Search" \
method="get" action="/results">{inner}</form>"""
        return self.document("Find products", main, cart_count)

    def results(self, query: str, here: str, cart_count: int, status: str | None) -> bytes:
        k = self.k
        found = search(query)
        options = "".join(f"<option>{name}</option>" for name in ("All", *CATEGORIES))
        filter_ = (
            f'<div class="{k("filter")}"><label for="{k("category")}">Category</label> '
            f'<select id="{k("category")}">{options}</select></div>'
        )
        rows = "".join(self.result_row(product, here) for product in found)
        if k.restyled:
            head = ("", "Product", "Price", "Category")
        else:
            head = ("Product", "Category", "Price", "")
        header = "".join(f'<th scope="col">{e(name)}</th>' for name in head)
        if found:
            listing = (
                f'<table class="{k("products")}" id="{k("results-table")}">'
                f"<caption>Products</caption><thead><tr>{header}</tr></thead>"
                f'<tbody id="{k("result-rows")}">{rows}</tbody></table>'
            )
        else:
            listing = f'<p class="{k("empty")}">No products match.</p>'
        script = f"""<script>
(() => {{
  const select = document.getElementById("{k("category")}");
  const apply = () => {{
    for (const row of document.querySelectorAll("#{k("result-rows")} tr")) {{
      row.hidden = select.value !== "All" && row.dataset.category !== select.value;
    }}
  }};
  select.addEventListener("change", apply);
  apply();
}})();
</script>"""
        main = f"""<h1 class="{k("title")}">Results for "{e(query)}"</h1>
{self.notice(status=status)}
{filter_}
{listing}
{script}"""
        return self.document(f'Results for "{query}"', main, cart_count)

    def result_row(self, product: Product, here: str) -> str:
        k = self.k
        add = (
            f'<td class="{k("row-action")}"><form method="post" action="/cart/add">'
            f'<input type="hidden" name="product" value="{e(product.id)}">'
            f'<input type="hidden" name="back" value="{e(here)}">'
            f'<button class="{k("btn")}" type="submit">Add to cart</button></form></td>'
        )
        name = f'<td class="{k("product-name")}">{e(product.name)}</td>'
        category = f'<td class="{k("product-category")}">{e(product.category)}</td>'
        cost = f'<td class="{k("price")}">{price(product.price)}</td>'
        cells = (add, name, cost, category) if k.restyled else (name, category, cost, add)
        return (
            f'<tr class="{k("result")}" data-category="{e(product.category)}">{"".join(cells)}</tr>'
        )

    def cart_lines(self, cart: list[str]) -> str:
        k = self.k
        counts: dict[str, int] = {}
        for item in cart:
            counts[item] = counts.get(item, 0) + 1
        lines = []
        for item, count in counts.items():
            product = BY_ID[item]
            many = f" &times; {count}" if count > 1 else ""
            lines.append(f"<li>{e(product.name)}{many} — {price(product.price * count)}</li>")
        total = sum(BY_ID[item].price for item in cart)
        return (
            f'<ul class="{k("cart-items")}" id="{k("cart-list")}">{"".join(lines)}</ul>'
            f'<p class="{k("total")}">Total: {price(total)}</p>'
        )

    def cart(self, cart: list[str], status: str | None) -> bytes:
        k = self.k
        if cart:
            label = "Checkout" if k.restyled else "Check out"
            button = (
                f'<form method="get" action="/checkout" class="{k("actions")}">'
                f'<button class="{k("btn")} {k("btn-primary")}" type="submit">{label}</button>'
                "</form>"
            )
            lines = self.cart_lines(cart)
            body = f"{button}{lines}" if k.restyled else f"{lines}{button}"
        else:
            body = f'<p class="{k("empty")}">Your cart is empty.</p>'
        main = f"""<h1 class="{k("title")}">Your cart</h1>
{self.notice(status=status)}
<div class="{k("card")}">{body}</div>"""
        return self.document("Your cart", main, len(cart))

    def checkout(
        self,
        cart: list[str],
        alert: str | None = None,
        values: dict[str, str] | None = None,
    ) -> bytes:
        k = self.k
        values = values or {}
        name = self.field(
            "full-name",
            "Full name",
            f'<input id="{k("full-name")}" name="name" type="text" autocomplete="name"'
            f' value="{e(values.get("name", ""))}" required>',
        )
        address = self.field(
            "address",
            "Address",
            f'<input id="{k("address")}" name="address" type="text"'
            f' autocomplete="street-address" value="{e(values.get("address", ""))}" required>',
        )
        chosen = values.get("delivery", "Standard")
        options = "".join(
            f"<option{' selected' if option == chosen else ''}>{option}</option>"
            for option in DELIVERIES
        )
        delivery = self.field(
            "delivery",
            "Delivery",
            f'<select id="{k("delivery")}" name="delivery">{options}</select>',
        )
        checked = " checked" if values.get("gift") else ""
        gift = (
            f'<div class="{k("check")}"><input id="{k("gift")}" name="gift" type="checkbox"'
            f' value="yes"{checked}><label for="{k("gift")}">Gift wrap</label></div>'
        )
        buttons = []
        if self.variant != "removed":
            buttons.append(
                f'<button class="{k("btn")} {k("btn-primary")}" type="submit">Place order</button>'
            )
        buttons.append(
            f'<button class="{k("btn")}" type="submit" formaction="/save" formnovalidate>'
            "Save for later</button>"
        )
        buttons.append(
            f'<button class="{k("btn")} {k("btn-danger")}" type="submit" formaction="/cancel"'
            " formnovalidate>Cancel order</button>"
        )
        actions = f'<div class="{k("actions")}">{"".join(buttons)}</div>'
        if k.restyled:
            body = f"{actions}{delivery}{address}{name}{gift}"
        else:
            body = f"{name}{address}{delivery}{gift}{actions}"
        main = f"""<h1 class="{k("title")}">Checkout</h1>
{self.notice(alert)}
<section class="{k("summary")}" aria-label="Order summary">{self.cart_lines(cart)}</section>
<form class="{k("card")}" id="{k("shipping-form")}" method="post" action="/order" \
aria-label="Shipping">{body}</form>"""
        return self.document("Checkout", main, len(cart))

    def done(self, number: int, name: str, address: str, cart_count: int) -> bytes:
        k = self.k
        main = f"""<h1 class="{k("title")}">Order placed</h1>
<p class="{k("confirmation")}">Thank you, {e(name)}. Order #{number} ships to {e(address)}.</p>
<p><a href="/search">Continue shopping</a></p>"""
        return self.document("Order placed", main, cart_count)

    def missing(self, what: str, cart_count: int | None = None) -> bytes:
        main = f'<h1 class="{self.k("title")}">Not found</h1><p>{e(what)}</p>'
        return self.document("Not found", main, cart_count)


# --- The server ------------------------------------------------------------------------------


class ShopSite:
    """The shop on a free port of 127.0.0.1, from `start` until `stop`."""

    def __init__(self) -> None:
        self.events: list[dict[str, str]] = []
        self._variant = "plain"
        self._sessions: dict[str, Session] = {}
        self._next_order = FIRST_ORDER
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._url: str | None = None

    # -- the API of tests --

    @property
    def url(self) -> str:
        """E.g. "http://127.0.0.1:PORT", without a trailing slash."""
        if self._url is None:
            raise RuntimeError("ShopSite is not started")
        return self._url

    @property
    def variant(self) -> str:
        return self._variant

    @variant.setter
    def variant(self, value: str) -> None:
        if value not in VARIANTS:
            raise ValueError(f"unknown variant {value!r}: one of {', '.join(VARIANTS)}")
        self._variant = value

    def orders(self) -> list[dict[str, str]]:
        with self._lock:
            return [dict(event) for event in self.events if event["kind"] == "order"]

    def reset(self) -> None:
        """Forget the events, every session (carts, sign-ins) and the order numbers."""
        with self._lock:
            self.events.clear()
            self._sessions.clear()
            self._next_order = FIRST_ORDER

    def start(self) -> ShopSite:
        if self._server is not None:
            return self
        server = _Server(self)
        self._server = server
        self._url = f"http://127.0.0.1:{server.server_address[1]}"
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), name="shop-site", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(10)

    def __enter__(self) -> ShopSite:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the application --

    def handle(
        self, method: str, target: str, form: dict[str, str], sid: str | None
    ) -> tuple[Response, str | None]:
        """One request: the response, and the session id to set as a cookie if new."""
        path = urlsplit(target).path
        if method == "GET" and path.startswith("/vendor/"):
            return vendor_file(path.removeprefix("/vendor/")), None
        if method == "GET" and path == "/favicon.ico":
            return Response(204), None
        pages = Pages(self._variant)  # read once per request: tests switch it at any time
        with self._lock:
            new_sid = None
            session = self._sessions.get(sid) if sid else None
            if session is None:
                new_sid = secrets.token_hex(16)
                session = self._sessions[new_sid] = Session()
            if method == "GET":
                response = self.get(pages, session, target)
            elif method == "POST":
                response = self.post(pages, session, path, form)
            else:
                response = Response(405, pages.missing(f"No {method} here."))
            return response, new_sid

    def get(self, pages: Pages, session: Session, target: str) -> Response:
        parts = urlsplit(target)
        path = parts.path
        query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
        status = None
        if session.flash is not None:
            if session.flash[0] == target:
                status = session.flash[1]  # kept across reloads of that page...
            else:
                session.flash = None  # ...and gone once the visitor is elsewhere
        if path == "/":
            return redirect("/login")
        if path == "/login":
            return Response(200, pages.login())
        if session.user is None:
            if path in {"/search", "/results", "/cart", "/checkout", "/done"}:
                return redirect("/login")
            return Response(404, pages.missing(f"No page at {path}."))
        count = len(session.cart)
        if path == "/search":
            return Response(200, pages.search(count))
        if path == "/results":
            return Response(200, pages.results(query.get("q", ""), target, count, status))
        if path == "/cart":
            return Response(200, pages.cart(session.cart, status))
        if path == "/checkout":
            if not session.cart:
                return redirect("/cart")
            return Response(200, pages.checkout(session.cart))
        if path == "/done":
            if session.last_order is None:
                return redirect("/search")
            number, name, address = session.last_order
            return Response(200, pages.done(number, name, address, count))
        return Response(404, pages.missing(f"No page at {path}.", count))

    def post(self, pages: Pages, session: Session, path: str, form: dict[str, str]) -> Response:
        if path == "/login":
            return self.sign_in(pages, session, form)
        if path not in {"/cart/add", "/order", "/save", "/cancel"}:
            return Response(404, pages.missing(f"Nothing to post at {path}."))
        if session.user is None:
            return redirect("/login")
        if path == "/cart/add":
            product = BY_ID.get(form.get("product", ""))
            if product is None:
                return Response(400, pages.missing("No such product.", len(session.cart)))
            back = form.get("back", "")
            if not re.fullmatch(r"/results(\?[\x21-\x7e]*)?", back):
                back = "/results?q="
            session.cart.append(product.id)
            self.events.append({"kind": "add", "item": product.name})
            session.flash = (back, f"Added {product.name} to your cart")
            return redirect(back)
        if not session.cart:
            return redirect("/cart")
        if path == "/save":
            self.events.append({"kind": "save_for_later"})
            session.flash = ("/cart", "Saved for later: your cart is kept")
            return redirect("/cart")
        if path == "/cancel":
            self.events.append({"kind": "cancel"})
            session.cart.clear()
            session.flash = ("/cart", "Order cancelled")
            return redirect("/cart")
        return self.place_order(pages, session, form)

    def sign_in(self, pages: Pages, session: Session, form: dict[str, str]) -> Response:
        username = form.get("username", "").strip()
        if not username or form.get("password") != PASSWORD:
            return Response(200, pages.login(username, alert="Wrong username or password"))
        session.user = username
        self.events.append({"kind": "signin", "user": username})
        return redirect("/search")

    def place_order(self, pages: Pages, session: Session, form: dict[str, str]) -> Response:
        if self._variant == "removed":
            return Response(404, pages.missing("Ordering is unavailable.", len(session.cart)))
        name = form.get("name", "").strip()
        address = form.get("address", "").strip()
        delivery = form.get("delivery", "Standard")
        if delivery not in DELIVERIES:
            delivery = "Standard"
        if not name or not address:
            alert = "Enter your full name and address"
            return Response(200, pages.checkout(session.cart, alert, form))
        number = self._next_order
        self._next_order += 1
        self.events.append(
            {
                "kind": "order",
                "name": name,
                "address": address,
                "delivery": delivery,
                "gift": "yes" if form.get("gift") else "no",
                "items": ", ".join(BY_ID[item].name for item in session.cart),
            }
        )
        session.cart.clear()
        session.last_order = (number, name, address)
        return redirect("/done")


def vendor_file(relative: str) -> Response:
    root = VENDOR_DIR.resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return Response(404, b"<!doctype html><p>Not found</p>")
    content_type = FILE_TYPES.get(path.suffix, "text/plain; charset=utf-8")
    return Response(200, path.read_bytes(), content_type)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, shop: ShopSite) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.shop = shop


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self.serve("GET", {})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        form = {name: values[-1] for name, values in parse_qs(body, True).items()}
        self.serve("POST", form)

    def serve(self, method: str, form: dict[str, str]) -> None:
        try:
            response, new_sid = self.server.shop.handle(method, self.path, form, self.sid())
        except Exception as error:  # a bug of the shop: show it rather than drop the line
            body = f"<!doctype html><pre>{e(repr(error))}</pre>".encode()
            response, new_sid = Response(500, body), None
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(response.body)))
        if new_sid is not None:
            self.send_header("Set-Cookie", f"{COOKIE}={new_sid}; Path=/; HttpOnly; SameSite=Lax")
        for name, value in response.headers:
            self.send_header(name, value)
        self.end_headers()
        # The browser may have gone on (a navigation cancelled this load): nothing to say.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(response.body)

    def sid(self) -> str | None:
        cookies: SimpleCookie = SimpleCookie()
        try:
            cookies.load(self.headers.get("Cookie", ""))
        except CookieError:
            return None
        morsel = cookies.get(COOKIE)
        return morsel.value if morsel is not None else None

    def log_message(self, format: str, *args: Any) -> None:
        pass
