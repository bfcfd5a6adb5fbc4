"""The two sets of hands the suite compares, behind one interface (agent.Driver).

- `Steadyhand`: the daemon's commands over its socket, as an agent's tool calls make them:
  `snapshot` (the default view), `click REF`, `type REF TEXT`, ...
- `RawPlaywright`: what an agent built on Playwright alone has: `page.aria_snapshot(mode=
  "ai")` for the text and `page.locator("aria-ref=eN")` to act (fill, click, press, ...),
  with a short settle after each act so the next snapshot shows what it caused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Browser, Page

from steadyhand.errors import SteadyhandError
from tests.agent.agent import Stuck

SNAPSHOT_CHARS = 10_000_000  # a snapshot is read whole: the suite compares whole pages
RAW_SETTLE_MS = 150  # after a raw act: what it started (a render, a request) lands first
RAW_TIMEOUT_MS = 5_000


class ActionError(Stuck):
    """The tool said the action failed: the agent was told so (and gives up)."""


class Steadyhand:
    name = "steadyhand"

    def __init__(self, call: Callable[..., Any], session: str) -> None:
        self._call = call
        self.session = session

    def call(self, method: str, **params: Any) -> Any:
        try:
            return self._call(method, session=self.session, **params)
        except SteadyhandError as exc:
            raise ActionError(f"{method}: {exc.code}: {exc.message}") from None

    def open(self, url: str) -> None:
        self.call("open", url=url)

    def snapshot(self) -> str:
        text: str = self.call("snapshot", max_chars=SNAPSHOT_CHARS)["snapshot"]
        return text

    def click(self, ref: str, count: int = 1) -> None:
        self.call("click", ref=ref, count=count)

    def type(self, ref: str, text: str, submit: bool = False) -> None:
        self.call("type", ref=ref, text=text, submit=submit)

    def press(self, key: str, ref: str | None = None) -> None:
        self.call("press", key=key, ref=ref)

    def select(self, ref: str, option: str) -> None:
        self.call("select", ref=ref, values=[option])

    def check(self, ref: str, on: bool = True) -> None:
        self.call("check" if on else "uncheck", ref=ref)

    def hover(self, ref: str) -> None:
        self.call("hover", ref=ref)

    def drag(self, source: str, target: str) -> None:
        self.call("drag", source=source, target=target)

    def scroll(self, ref: str, dy: int) -> None:
        self.call("scroll", ref=ref, dy=dy)

    def select_text(self, ref: str, start: str, end: str) -> None:
        self.call("select-text", ref=ref, from_text=start, to_text=end)

    def evaluate(self, expression: str) -> Any:
        return self.call("evaluate", expression=expression)["value"]

    def close(self) -> None:
        with contextlib.suppress(SteadyhandError):
            self._call("close", session=self.session)


class RawPlaywright:
    name = "playwright"

    def __init__(self, browser: Browser) -> None:
        self.context = browser.new_context()
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(RAW_TIMEOUT_MS)

    def _act(self, work: Callable[[], Any]) -> None:
        try:
            work()
        except Exception as exc:  # Playwright's errors: the agent is told it failed
            raise ActionError(str(exc).splitlines()[0]) from None
        self.page.wait_for_timeout(RAW_SETTLE_MS)

    def _at(self, ref: str) -> Any:
        return self.page.locator(f"aria-ref={ref}")

    def open(self, url: str) -> None:
        self.page.goto(url)

    def snapshot(self) -> str:
        return self.page.aria_snapshot(mode="ai")

    def click(self, ref: str, count: int = 1) -> None:
        self._act(lambda: self._at(ref).click(click_count=count))

    def type(self, ref: str, text: str, submit: bool = False) -> None:
        def work() -> None:
            self._at(ref).fill(text)
            if submit:
                self._at(ref).press("Enter")

        self._act(work)

    def press(self, key: str, ref: str | None = None) -> None:
        if ref is None:
            self._act(lambda: self.page.keyboard.press(key))
        else:
            self._act(lambda: self._at(ref).press(key))

    def select(self, ref: str, option: str) -> None:
        self._act(lambda: self._at(ref).select_option(label=option))

    def check(self, ref: str, on: bool = True) -> None:
        self._act(lambda: self._at(ref).set_checked(on))

    def hover(self, ref: str) -> None:
        self._act(lambda: self._at(ref).hover())

    def drag(self, source: str, target: str) -> None:
        self._act(lambda: self._at(source).drag_to(self._at(target), steps=10))

    def scroll(self, ref: str, dy: int) -> None:
        def work() -> None:
            self._at(ref).hover()
            self.page.mouse.wheel(0, dy)

        self._act(work)

    def select_text(self, ref: str, start: str, end: str) -> None:
        # Raw Playwright has no such tool: a triple click selects the whole block.
        self._act(lambda: self._at(ref).click(click_count=3))

    def evaluate(self, expression: str) -> Any:
        return self.page.evaluate(expression)

    def close(self) -> None:
        self.context.close()
