"""The shop of the flows benchmark (tests/shop_site.py), over real HTTP, without a browser."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from tests.shop_site import ShopSite

ROW = re.compile(r"<tr [^>]*data-category=\"(\w+)\">(.*?)</tr>", re.S)


@pytest.fixture
def shop() -> Iterator[ShopSite]:
    with ShopSite().start() as shop:
        yield shop


@pytest.fixture
def client(shop: ShopSite) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=shop.url, follow_redirects=True, timeout=10) as client:
        yield client


def sign_in(client: httpx.Client, password: str = "secret-pw") -> httpx.Response:
    client.get("/")
    return client.post("/login", data={"username": "ada", "password": password})


def names(page: str) -> list[str]:
    """The product of each results row, whatever the column order."""
    found = []
    for _, row in ROW.findall(page):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        found.append(next(cell for cell in cells if "<" not in cell and "$" not in cell))
    return found


def checkout(client: httpx.Client) -> str:
    sign_in(client)
    client.post("/cart/add", data={"product": "desk-lamp", "back": "/results?q=lamp"})
    return client.get("/checkout").text


def test_the_right_password_signs_in(shop: ShopSite, client: httpx.Client) -> None:
    first = client.get("/")
    assert first.url.path == "/login" and "shop_sid" in client.cookies
    assert '<h1 class="title">Sign in</h1>' in first.text
    assert first.headers["content-type"] == "text/html; charset=utf-8"
    assert first.headers["cache-control"] == "no-store"
    page = sign_in(client)
    assert page.url.path == "/search" and "Find products" in page.text
    assert 'role="search"' in page.text and "Search products" in page.text
    assert shop.events == [{"kind": "signin", "user": "ada"}]


def test_a_wrong_password_stays_out(shop: ShopSite, client: httpx.Client) -> None:
    page = sign_in(client, password="nope")
    assert page.url.path == "/login"
    assert '<p class="alert" role="alert">Wrong username or password</p>' in page.text
    assert 'value="ada"' in page.text
    assert client.get("/search").url.path == "/login"
    assert client.get("/cart").url.path == "/login"
    assert shop.events == []


def test_searching_matches_names_case_insensitively(client: httpx.Client) -> None:
    sign_in(client)
    page = client.get("/results", params={"q": "lamp"}).text
    assert '<h1 class="title">Results for "lamp"</h1>' in page
    assert names(page) == ["Desk lamp", "Floor lamp", "Lamp shade"]
    assert page.count(">Add to cart</button>") == 3
    assert "<caption>Products</caption>" in page and "<option>Office</option>" in page
    assert names(client.get("/results", params={"q": "DESK"}).text) == [
        "Desk lamp",
        "Desk",
        "Desk organiser",
    ]
    assert "No products match." in client.get("/results", params={"q": "sofa"}).text


def test_adding_then_ordering_records_the_order(shop: ShopSite, client: httpx.Client) -> None:
    sign_in(client)
    back = "/results?q=desk+lamp"
    page = client.post("/cart/add", data={"product": "desk-lamp", "back": back})
    assert str(page.url).endswith(back)
    assert '<p class="status" role="status">Added Desk lamp to your cart</p>' in page.text
    assert "Cart (1)" in page.text
    assert "Added Desk lamp" in client.get(back).text  # still there on a reload
    assert "Added Desk lamp" not in client.get("/search").text
    cart = client.get("/cart").text
    assert "<li>Desk lamp — $39</li>" in cart and ">Check out</button>" in cart
    assert "Place order" in client.get("/checkout").text
    done = client.post(
        "/order",
        data={"name": "Ada Lovelace", "address": "1 Analytical Way", "delivery": "Express"},
    )
    assert done.url.path == "/done" and '<h1 class="title">Order placed</h1>' in done.text
    assert "Thank you, Ada Lovelace. Order #1001 ships to 1 Analytical Way." in done.text
    order = {
        "kind": "order",
        "name": "Ada Lovelace",
        "address": "1 Analytical Way",
        "delivery": "Express",
        "gift": "no",
        "items": "Desk lamp",
    }
    assert shop.orders() == [order]
    assert shop.events == [
        {"kind": "signin", "user": "ada"},
        {"kind": "add", "item": "Desk lamp"},
        order,
    ]
    assert "Your cart is empty." in client.get("/cart").text
    shop.reset()
    assert shop.events == [] and client.get("/cart").url.path == "/login"


def test_save_keeps_the_cart_and_cancel_empties_it(shop: ShopSite, client: httpx.Client) -> None:
    checkout(client)
    saved = client.post("/save", data={"name": ""})
    assert saved.url.path == "/cart" and "Desk lamp" in saved.text
    cancelled = client.post("/cancel", data={})
    assert "Order cancelled" in cancelled.text and "Your cart is empty." in cancelled.text
    assert client.get("/checkout").url.path == "/cart"
    kinds = [event["kind"] for event in shop.events]
    assert kinds == ["signin", "add", "save_for_later", "cancel"]
    assert shop.orders() == []


def test_restyled_renames_reorders_and_keeps_the_names(
    shop: ShopSite, client: httpx.Client
) -> None:
    plain_login = client.get("/login").text
    shop.variant = "restyled"
    login = client.get("/login").text
    assert 'id="username"' in plain_login and 'id="username"' not in login
    assert 'class="title"' not in login and "<style>" in login
    assert login.index("Password") < login.index("Username")
    assert login.index(">Sign in</button>") < login.index("Password")
    sign_in(client)
    results = client.get("/results", params={"q": "lamp"}).text
    assert names(results) == ["Desk lamp", "Floor lamp", "Lamp shade"]
    header = re.search(r"<thead>(.*?)</thead>", results, re.S)
    assert header is not None
    assert re.findall(r"<th [^>]*>(.*?)</th>", header[1]) == ["", "Product", "Price", "Category"]
    client.post("/cart/add", data={"product": "desk", "back": "/results?q=lamp"})
    cart = client.get("/cart").text
    assert ">Checkout</button>" in cart and "Check out" not in cart
    assert cart.index("Checkout</button>") < cart.index("<li>Desk — $199</li>")
    page = client.get("/checkout").text
    assert page.index("Delivery") < page.index("Address") < page.index("Full name")
    assert page.index("Place order") < page.index("Delivery")
    for name in ("Save for later", "Cancel order", "Gift wrap", 'aria-label="Shipping"'):
        assert name in page


def test_removed_has_no_place_order(shop: ShopSite, client: httpx.Client) -> None:
    shop.variant = "removed"
    page = checkout(client)
    assert "Place order" not in page
    assert "Save for later" in page and "Cancel order" in page
    refused = client.post("/order", data={"name": "Ada", "address": "1 Way"})
    assert refused.status_code == 404 and shop.orders() == []


def test_banner_runs_the_vendored_consent_library(shop: ShopSite, client: httpx.Client) -> None:
    assert "cookieconsent" not in client.get("/login").text
    shop.variant = "banner"
    page = client.get("/login").text
    assert '<script src="/vendor/vanilla-cookieconsent/cookieconsent.umd.js">' in page
    assert "disablePageInteraction: true" in page and "hideFromBots: false" in page
    script = client.get("/vendor/vanilla-cookieconsent/cookieconsent.umd.js")
    assert script.status_code == 200 and "CookieConsent" in script.text
    assert script.headers["content-type"].startswith("text/javascript")
    css = client.get("/vendor/vanilla-cookieconsent/cookieconsent.css")
    assert css.headers["content-type"].startswith("text/css")
    assert client.get("/vendor/../consent.html").status_code == 404
    assert client.get("/vendor/vanilla-cookieconsent/%2e%2e/%2e%2e/consent.html").status_code == 404


def test_variants_are_checked() -> None:
    shop = ShopSite()
    with pytest.raises(ValueError, match="unknown variant"):
        shop.variant = "fancy"
    with pytest.raises(RuntimeError):
        _ = shop.url
