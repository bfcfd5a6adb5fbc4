"""The readers of Playwright's error messages (engine/playwright_errors.py), on messages
as Playwright words them."""

from __future__ import annotations

from steadyhand.engine import playwright_errors as pe

CLOSED = "Locator.click: Target page, context or browser has been closed\nCall log:\n  - waiting"
DESTROYED = "Page.evaluate: Execution context was destroyed, most likely because of a navigation"
CRASHED = "Page.evaluate: Target crashed "
DETACHED = "ElementHandle.click: Element is not attached to the DOM\nCall log: ..."
FAILED_LOAD = "Page.goto: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/\nCall log: ..."


def test_each_reader_knows_its_situation_and_no_other() -> None:
    assert pe.browser_gone(CLOSED) and pe.target_closed(CLOSED)
    assert pe.browser_gone(CRASHED) and pe.renderer_crashed(pe.first_line_of(CRASHED))
    assert not pe.browser_gone(DETACHED) and not pe.target_closed(DETACHED)
    assert pe.element_detached(DETACHED) and pe.element_detached("Element is detached from")
    assert pe.navigated(DESTROYED) and pe.context_destroyed(DESTROYED)
    assert pe.navigated("Page.click: navigation interrupted") and not pe.navigated(DETACHED)
    assert not pe.navigated("Locator.click: failed\nCall log:\n  - waiting for navigation")
    assert pe.load_failed(FAILED_LOAD) and not pe.load_failed(CLOSED)
    for interrupted in (DESTROYED, CLOSED, "Frame.evaluate: Frame was detached"):
        assert pe.script_interrupted(interrupted)
    assert not pe.script_interrupted("Page.evaluate: ReferenceError: x is not defined")
    assert pe.unknown_key('Keyboard.press: Unknown key: "Foo"')
    assert pe.state_unchanged("Clicking the checkbox did not change its state")
    assert pe.screenshot_unavailable("Page.screenshot: Unable to capture screenshot")
    assert pe.bad_selector("Locator.evaluate_all: Unexpected token in selector")
    assert pe.click_dispatched("Locator.click: x\nCall log:\n  - click action done")
    assert pe.foreign_handle("Unable to adopt element handle from a different document")


def test_the_first_line_drops_the_api_prefix() -> None:
    assert (
        pe.first_line_of("Page.evaluate_handle: SyntaxError: bad\nCall log") == "SyntaxError: bad"
    )
    assert pe.first_line_of("") == ""
