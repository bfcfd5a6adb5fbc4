"""Typed methods of the Python client, one per command. Generated: do not edit.

Written from the command table by `python -m steadyhand.client_stubs` (`make spec`). The
methods exist for type checkers only: at run time `Client.__getattr__` runs the command.
"""

# ruff: noqa: E501, ASYNC109  (the table's docs and its `timeout` param, as they are)

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os
    from typing import Literal

    from steadyhand.act.results import ActionResult, NavigationResult, PageResult
    from steadyhand.commands.approvals import ApprovalGranted, ApprovalInfo, ApprovalList
    from steadyhand.commands.batch import BatchResult, Step
    from steadyhand.commands.desktop import (
        AppsResult,
        DesktopActed,
        DesktopAttached,
        DesktopPressed,
        DesktopSeen,
        DesktopSnapshotResult,
        TransportsResult,
    )
    from steadyhand.commands.desktop_events import DesktopWatchResult
    from steadyhand.commands.desktop_windows import (
        ClipboardSet,
        ClipboardText,
        LaunchResult,
        WindowActedResult,
        WindowsResult,
    )
    from steadyhand.commands.dialogs import DialogResult
    from steadyhand.commands.emulation import Emulated
    from steadyhand.commands.evaluate import EvaluateResult
    from steadyhand.commands.extension import Detached, ExtensionStatus, Paired
    from steadyhand.commands.extract import ExtractResult
    from steadyhand.commands.flow_run import FlowRunResult
    from steadyhand.commands.flows import FlowExported, FlowList, FlowRemoved, FlowSaved, FlowShown
    from steadyhand.commands.handover import HandbackResult, TakeoverResult
    from steadyhand.commands.har import HarResult
    from steadyhand.commands.lifecycle import (
        Closed,
        DaemonStatus,
        Restored,
        SessionList,
        Stopping,
        Suspended,
    )
    from steadyhand.commands.navigation import PolicyResult
    from steadyhand.commands.network_control import RoutesResult
    from steadyhand.commands.observe import MetricsResult, TraceResult, TraceSaved, TraceStarted
    from steadyhand.commands.page_actions import ResizeResult, ScrollResult, WaitResult
    from steadyhand.commands.page_logs import ConsoleResult, NetworkResult
    from steadyhand.commands.pdf import PdfResult
    from steadyhand.commands.profiles import Deleted, Exported, Imported, Profile, ProfileList
    from steadyhand.commands.record import RecordStarted, RecordStopped
    from steadyhand.commands.report import ReportResult
    from steadyhand.commands.screenshot import ScreenshotResult
    from steadyhand.commands.secret_names import SecretsResult
    from steadyhand.commands.snapshots import FindResult, SnapshotResult
    from steadyhand.commands.state_key import Rekeyed, StateKeyInfo
    from steadyhand.commands.storage import (
        ClearedCookies,
        CookieList,
        CookieSet,
        StorageChanged,
        StorageItems,
    )
    from steadyhand.commands.tabs import TabClosed, TabList


class AsyncCommands:
    """Every command as an async method of `Client`."""

    if TYPE_CHECKING:

        async def click(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            double: bool = ...,
            count: int = ...,
            button: Literal["left", "right", "middle"] = ...,
            modifiers: list[Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]] = ...,
            x: float | None = ...,
            y: float | None = ...,
        ) -> ActionResult:
            """Click an element; reports navigation, popups, dialogs and downloads it caused."""

        async def type(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            text: str | None = ...,
            secret: str | None = ...,
            submit: bool = ...,
            slowly: bool = ...,
            clear: bool = ...,
        ) -> ActionResult:
            """Type text into a field (replacing its value unless --no-clear); verified."""

        async def fill(
            self,
            *,
            fields: dict[str, str],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Fill several fields at once (REF=VALUE each), every one verified."""

        async def press(
            self,
            *,
            key: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            ref: str | None = ...,
        ) -> ActionResult:
            """Press a key or key combination, on an element or the focused one."""

        async def select(
            self,
            *,
            ref: str,
            values: list[str],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Select option(s) of a <select> by value or label (waits for late options); verified."""

        async def check(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Check a checkbox or radio button; verified."""

        async def uncheck(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Uncheck a checkbox; verified."""

        async def hover(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Move the mouse over an element; verified (the element is hovered)."""

        async def drag(
            self,
            *,
            source: str,
            target: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            to_position: Literal["center", "top", "bottom", "left", "right"] = ...,
            offset: str | None = ...,
        ) -> ActionResult:
            """Drag one element onto another (mouse down, paced moves, up; HTML5 drag and drop too)."""

        async def select_text(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            from_text: str | None = ...,
            to_text: str | None = ...,
        ) -> ActionResult:
            """Select text inside an element (all of it, or --from TEXT [--to TEXT]); verified."""

        async def approvals(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            all: bool = ...,
        ) -> ApprovalList:
            """List approvals: pending first (approve or deny them), then the latest decisions."""

        async def approve(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> ApprovalInfo:
            """Approve a pending request: the call waiting for it goes on."""

        async def deny(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> ApprovalInfo:
            """Deny a pending request: the call waiting for it fails with approval_denied."""

        async def request_approval(
            self,
            *,
            reason: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> ApprovalGranted:
            """Ask a person before an irreversible step; waits for `approve` (else approval_denied)."""

        async def batch(
            self,
            *,
            steps: list[Step],
            session: str = ...,
            timeout: str | None = ...,
            keep_going: bool = ...,
        ) -> BatchResult:
            """Run commands in order in one call; stop at a failure unless keep_going (--continue)."""

        async def pdf(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
            unmasked: bool = ...,
        ) -> PdfResult:
            """Print the tab to a PDF file and return its path (headless browser only)."""

        async def desktop_apps(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> AppsResult:
            """List the applications on the accessibility bus (name and pid)."""

        async def desktop_transports(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> TransportsResult:
            """Each desktop transport's health, in the order the router tries them."""

        async def desktop_snapshot(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            app: str | None = ...,
            all: bool = ...,
            fresh: bool = ...,
            window: str | None = ...,
            walk: bool = ...,
        ) -> DesktopSnapshotResult:
            """The desktop applications' accessibility tree as text; act by their [ref=dN]."""

        async def desktop_click(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Click (press, toggle) a desktop element: its accessible action, else a real click."""

        async def desktop_type(
            self,
            *,
            ref: str,
            text: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Set a desktop text field's text; verified by reading it back."""

        async def desktop_select(
            self,
            *,
            ref: str,
            value: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Select an option of a desktop combo box or list by name; verified."""

        async def desktop_focus(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Give a desktop element the keyboard focus; verified by its focused state."""

        async def desktop_scroll(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
            dy: int = ...,
            dx: int = ...,
        ) -> DesktopActed:
            """Scroll the pane that holds a desktop element; verified by its scroll bars moving."""

        async def desktop_drag(
            self,
            *,
            ref: str,
            to: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Drag a desktop element (press, move, release: X input) to a ref, point or offset."""

        async def desktop_menu(
            self,
            *,
            path: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
            app: str | None = ...,
        ) -> DesktopActed:
            """Choose a menu item by its path in an application's menu bar ('File > Save')."""

        async def desktop_press(
            self,
            *,
            keys: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
            ref: str | None = ...,
        ) -> DesktopPressed:
            """Press a key combination on the desktop (X input), on an element when given."""

        async def desktop_see(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            annotate: bool = ...,
            app: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
        ) -> DesktopSeen:
            """Save a PNG of the X screen; --annotate boxes and labels every visible ref."""

        async def desktop_attach(
            self,
            *,
            app: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> DesktopAttached:
            """Attach a Chromium or Electron app (its debugging port) as a browser session."""

        async def desktop_watch(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            events: str | None = ...,
            app: str | None = ...,
            duration: str | None = ...,
            count: int | None = ...,
            since: int | None = ...,
        ) -> DesktopWatchResult:
            """Stream desktop events (focus, windows, text, states, apps) as they happen."""

        async def desktop_windows(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            app: str | None = ...,
            all: bool = ...,
        ) -> WindowsResult:
            """List the top-level X windows: id, title, pid, class, geometry, focus."""

        async def desktop_window_focus(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Give a window the input focus and raise it; verified by reading the focus back."""

        async def desktop_window_move(
            self,
            *,
            id: str,
            x: int,
            y: int,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Move a window to --x --y; verified by reading its position back."""

        async def desktop_window_resize(
            self,
            *,
            id: str,
            width: int,
            height: int,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Resize a window to --width --height; verified by reading its size back."""

        async def desktop_window_close(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Ask a window to close (as its close button would); verified: it is gone."""

        async def desktop_clipboard_get(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            selection: Literal["clipboard", "primary"] = ...,
        ) -> ClipboardText:
            """The text on the X clipboard (or the primary selection), via xclip."""

        async def desktop_clipboard_set(
            self,
            *,
            text: str,
            session: str = ...,
            timeout: str | None = ...,
            selection: Literal["clipboard", "primary"] = ...,
        ) -> ClipboardSet:
            """Put text on the X clipboard (or the primary selection); verified by reading back."""

        async def desktop_launch(
            self,
            *,
            argv: list[str],
            session: str = ...,
            timeout: str | None = ...,
            wait: bool = ...,
        ) -> LaunchResult:
            """Start a program on the desktop and wait until it shows a window or is on the bus."""

        async def dialog(
            self,
            *,
            answer: Literal["accept", "dismiss"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            text: str | None = ...,
        ) -> DialogResult:
            """Answer the dialog that stops a tab; the action it interrupted then completes."""

        async def emulate(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            color_scheme: Literal["light", "dark", "no-preference"] | None = ...,
            geolocation: str | None = ...,
            viewport: str | None = ...,
        ) -> Emulated:
            """Change a live session's colour scheme, geolocation or viewport; none: show them."""

        async def evaluate(
            self,
            *,
            expression: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            ref: str | None = ...,
        ) -> EvaluateResult:
            """Run JavaScript in the page (or on an element) and return its value as JSON."""

        async def extension_pair(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            new: bool = ...,
        ) -> Paired:
            """Start the extension relay and print its URL and pairing token (kept across restarts)."""

        async def extension_status(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> ExtensionStatus:
            """Whether the extension is paired and connected, and which tabs it has attached."""

        async def extension_detach(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: int | None = ...,
        ) -> Detached:
            """Let go of an attached tab of the user's Chrome (or all of them); Chrome keeps it open."""

        async def extract(
            self,
            *,
            kind: Literal["text", "attr", "table", "markdown"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            ref: str | None = ...,
            selector: str | None = ...,
            name: str | None = ...,
            max_chars: int | None = ...,
        ) -> ExtractResult:
            """Read the page or an element as text, attribute values, table rows or Markdown."""

        async def upload(
            self,
            *,
            ref: str,
            files: list[str],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Put files into a file input (files only from inside the file roots); verified."""

        async def download(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Click an element that downloads a file; the file is saved and its path reported."""

        async def flow_save(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            from_id: int | None = ...,
            to_id: int | None = ...,
            param: dict[str, str] = ...,
            update: bool = ...,
            file: str | os.PathLike[str] | None = ...,
            description: str | None = ...,
        ) -> FlowSaved:
            """Save what the session did (or a stretch: --from/--to) as a flow to replay."""

        async def flow_list(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> FlowList:
            """List the saved flows: newest version, steps, what each does."""

        async def flow_show(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
        ) -> FlowShown:
            """Show a flow file: its parameters and steps (targets, expectations)."""

        async def flow_rm(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
        ) -> FlowRemoved:
            """Remove a flow (every version, or --version N)."""

        async def flow_export(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
            python: bool = ...,
            playwright: bool = ...,
            out: str | os.PathLike[str] | None = ...,
        ) -> FlowExported:
            """Write a flow as a standalone script: --python (steadyhand's client) or --playwright."""

        async def flow_run(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
            param: dict[str, str] = ...,
            from_step: int = ...,
            wait_ms: int = ...,
        ) -> FlowRunResult:
            """Replay a saved flow: each element found afresh, each act verified; stops at a doubt."""

        async def takeover(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            reason: str = ...,
        ) -> TakeoverResult:
            """Pause the agent on a session so a person can drive it (hand back with `handback`)."""

        async def handback(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> HandbackResult:
            """End a takeover: the agent may act on the session again."""

        async def desktop_takeover(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            reason: str = ...,
        ) -> TakeoverResult:
            """Pause the agent's desktop actions so a person can drive the desktop (live view)."""

        async def desktop_handback(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> HandbackResult:
            """End the desktop's takeover: the agent's desktop actions run again."""

        async def har(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
            filter: str | None = ...,
        ) -> HarResult:
            """Write the tab's network log as a HAR 1.2 file (credentials redacted)."""

        async def daemon_status(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> DaemonStatus:
            """Report the daemon's pid, uptime, browser and sessions."""

        async def daemon_stop(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> Stopping:
            """Stop the daemon: close every session and the browser, then exit."""

        async def sessions(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> SessionList:
            """List every session: status, profile, tabs, last action, checkpoint and health."""

        async def close(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> Closed:
            """Close the session for good: its tabs, cookies, storage and checkpoints are gone."""

        async def session_suspend(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
        ) -> Suspended:
            """Checkpoint a session and close it, freeing its slot; `session restore` reopens it."""

        async def session_restore(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
        ) -> Restored:
            """Recreate a suspended session from its last checkpoint: tabs, cookies, storage."""

        async def open(
            self,
            *,
            url: str,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            profile: str | None = ...,
            block_private: bool = ...,
            allow_hosts: str | None = ...,
            block_hosts: str | None = ...,
            browser: str | None = ...,
            cdp: str | None = ...,
            device: str | None = ...,
            user_agent: str | None = ...,
            locale: str | None = ...,
            timezone: str | None = ...,
            geolocation: str | None = ...,
            color_scheme: Literal["light", "dark", "no-preference"] | None = ...,
        ) -> NavigationResult:
            """Open a URL in a new tab (starting the session if needed)."""

        async def navigate(
            self,
            *,
            url: str,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Load a URL in the current tab (opening a tab if the session has none)."""

        async def back(
            self,
            *,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Go back one page in the tab's history (navigated=false when there is none)."""

        async def forward(
            self,
            *,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Go forward one page in the tab's history (navigated=false when there is none)."""

        async def reload(
            self,
            *,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Reload the tab's page."""

        async def policy(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> PolicyResult:
            """Show the navigation policy of a session (or the daemon's) and what it refused."""

        async def route(
            self,
            *,
            pattern: str,
            session: str = ...,
            timeout: str | None = ...,
            block: bool = ...,
            fulfill: str | None = ...,
            status: int | None = ...,
            content_type: str | None = ...,
        ) -> RoutesResult:
            """Answer requests whose URL matches a glob: --block them, or --fulfill with a body."""

        async def unroute(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            pattern: str | None = ...,
        ) -> RoutesResult:
            """Remove a route (or every route): its requests go to the network again."""

        async def routes(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> RoutesResult:
            """The session's routes (with how many requests each answered) and offline mode."""

        async def offline(
            self,
            *,
            state: Literal["on", "off"],
            session: str = ...,
            timeout: str | None = ...,
        ) -> RoutesResult:
            """Take the session's browser offline (every tab's requests fail) or back online."""

        async def trace(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
            every_life: bool = ...,
            last: int = ...,
            failed: bool = ...,
        ) -> TraceResult:
            """The session's action timeline from the store: params, outcome, time, retries, files."""

        async def trace_start(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            screenshots: bool = ...,
            snapshots: bool = ...,
            title: str | None = ...,
        ) -> TraceStarted:
            """Start recording a Playwright trace of the session (every tab); `trace stop` saves it."""

        async def trace_stop(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
        ) -> TraceSaved:
            """Stop the session's Playwright trace and save it as a zip for Playwright's viewer."""

        async def metrics(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> MetricsResult:
            """Counters and latencies since the daemon started (Prometheus text: HTTP /metrics)."""

        async def scroll(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            ref: str | None = ...,
            dx: int = ...,
            dy: int = ...,
            into_view: bool = ...,
            to: Literal["top", "bottom"] | None = ...,
        ) -> ScrollResult:
            """Scroll the page or an element's box: by --dx/--dy, --to top|bottom, or REF into view."""

        async def resize(
            self,
            *,
            width: int,
            height: int,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> ResizeResult:
            """Set the tab's viewport size (W H in CSS pixels)."""

        async def wait(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            text: str | None = ...,
            text_gone: str | None = ...,
            url: str | None = ...,
            ref: str | None = ...,
            ref_gone: str | None = ...,
            load: Literal["load", "domcontentloaded", "networkidle"] | None = ...,
            ms: int | None = ...,
            handback: bool = ...,
        ) -> WaitResult:
            """Wait until every condition given holds: text, URL, element, load state, or time."""

        async def console(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            clear: bool = ...,
            limit: int = ...,
            level: Literal["error", "warning", "info", "log", "debug"] | None = ...,
        ) -> ConsoleResult:
            """The tab's console messages and uncaught errors, latest last; --clear empties the log."""

        async def network(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            clear: bool = ...,
            limit: int = ...,
            filter: str | None = ...,
            failed: bool = ...,
        ) -> NetworkResult:
            """The tab's network requests with status and timing, latest last; --clear empties it."""

        async def profile_create(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> Profile:
            """Create a persistent profile (open sessions on it with `open URL --profile NAME`)."""

        async def profile_list(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> ProfileList:
            """List persistent profiles, their size and the session using each."""

        async def profile_delete(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> Deleted:
            """Delete a profile and everything Chromium kept in it (refused while it is open)."""

        async def profile_export(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            out: str | os.PathLike[str] | None = ...,
            plain: bool = ...,
        ) -> Exported:
            """Export a profile's cookies and localStorage as Playwright storage-state JSON (to a"""

        async def profile_import(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            file: str | os.PathLike[str] | None = ...,
        ) -> Imported:
            """Import a storage-state JSON file (cookies, localStorage) into a profile."""

        async def record_start(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
            fps: int = ...,
            quality: int = ...,
        ) -> RecordStarted:
            """Start recording the tab as a video (its screencast); `record stop` saves it."""

        async def record_stop(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> RecordStopped:
            """Stop the tab's recording and save the video; returns its path, frames and length."""

        async def report(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
            every_life: bool = ...,
            path: str | os.PathLike[str] | None = ...,
            last: int = ...,
        ) -> ReportResult:
            """Write the session's report: one self-contained HTML file of its actions and screenshots."""

        async def screenshot(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            ref: str | None = ...,
            full_page: bool = ...,
            path: str | os.PathLike[str] | None = ...,
            labels: bool = ...,
            unmasked: bool = ...,
        ) -> ScreenshotResult:
            """Save a PNG of the tab (or one element) and return its path."""

        async def secrets(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> SecretsResult:
            """List the secrets the daemon types by name: names, sources and domains, never values."""

        async def snapshot(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            interactive: bool = ...,
            compact: bool = ...,
            depth: int | None = ...,
            selector: str | None = ...,
            ref: str | None = ...,
            frame: str | None = ...,
            max_chars: int | None = ...,
            offset: int = ...,
            urls: bool = ...,
            cells: bool = ...,
            diff: bool = ...,
        ) -> SnapshotResult:
            """The tab's accessibility tree as text; act on elements by their [ref=eN]."""

        async def find(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            text: str | None = ...,
            role: str | None = ...,
            name: str | None = ...,
            exact: bool = ...,
            limit: int = ...,
        ) -> FindResult:
            """Find elements by text, role or name: their refs and context, without a snapshot."""

        async def state_key(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> StateKeyInfo:
            """Show where the state key comes from and which keys sealed the stored checkpoints."""

        async def state_rekey(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            keep_old: bool = ...,
        ) -> Rekeyed:
            """Rotate the state key: a new key (unless STEADYHAND_STATE_KEY gives it), every"""

        async def cookies_get(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            domain: str | None = ...,
            name: str | None = ...,
        ) -> CookieList:
            """The session's cookies (all its tabs share them), optionally by domain and name."""

        async def cookies_set(
            self,
            *,
            name: str,
            value: str,
            session: str = ...,
            timeout: str | None = ...,
            domain: str | None = ...,
            url: str | None = ...,
            path: str | None = ...,
            expires: float | None = ...,
            http_only: bool = ...,
            secure: bool = ...,
            same_site: Literal["Lax", "Strict", "None"] | None = ...,
        ) -> CookieSet:
            """Set a cookie in the session's browser context (for all its tabs)."""

        async def cookies_clear(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            domain: str | None = ...,
            name: str | None = ...,
        ) -> ClearedCookies:
            """Remove the session's cookies: all, or those of a domain and/or name."""

        async def storage_get(
            self,
            *,
            kind: Literal["local", "session"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            key: str | None = ...,
        ) -> StorageItems:
            """The current tab's localStorage or sessionStorage items (of its page's origin)."""

        async def storage_set(
            self,
            *,
            kind: Literal["local", "session"],
            key: str,
            value: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> StorageChanged:
            """Set an item in the current tab's localStorage or sessionStorage."""

        async def storage_clear(
            self,
            *,
            kind: Literal["local", "session"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            key: str | None = ...,
        ) -> StorageChanged:
            """Remove the current tab's localStorage or sessionStorage items: all, or one key."""

        async def tabs(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> TabList:
            """List the session's tabs; the current one is marked."""

        async def tab_new(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            url: str | None = ...,
        ) -> NavigationResult:
            """Open a new tab (blank, or at a URL) and make it current."""

        async def tab_focus(
            self,
            *,
            tab: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> PageResult:
            """Make a tab the current one and bring it to the front."""

        async def tab_close(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> TabClosed:
            """Close a tab; the most recent remaining tab becomes current."""


class SyncCommands:
    """Every command as a blocking method of `SyncClient`."""

    if TYPE_CHECKING:

        def click(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            double: bool = ...,
            count: int = ...,
            button: Literal["left", "right", "middle"] = ...,
            modifiers: list[Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]] = ...,
            x: float | None = ...,
            y: float | None = ...,
        ) -> ActionResult:
            """Click an element; reports navigation, popups, dialogs and downloads it caused."""

        def type(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            text: str | None = ...,
            secret: str | None = ...,
            submit: bool = ...,
            slowly: bool = ...,
            clear: bool = ...,
        ) -> ActionResult:
            """Type text into a field (replacing its value unless --no-clear); verified."""

        def fill(
            self,
            *,
            fields: dict[str, str],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Fill several fields at once (REF=VALUE each), every one verified."""

        def press(
            self,
            *,
            key: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            ref: str | None = ...,
        ) -> ActionResult:
            """Press a key or key combination, on an element or the focused one."""

        def select(
            self,
            *,
            ref: str,
            values: list[str],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Select option(s) of a <select> by value or label (waits for late options); verified."""

        def check(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Check a checkbox or radio button; verified."""

        def uncheck(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Uncheck a checkbox; verified."""

        def hover(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Move the mouse over an element; verified (the element is hovered)."""

        def drag(
            self,
            *,
            source: str,
            target: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            to_position: Literal["center", "top", "bottom", "left", "right"] = ...,
            offset: str | None = ...,
        ) -> ActionResult:
            """Drag one element onto another (mouse down, paced moves, up; HTML5 drag and drop too)."""

        def select_text(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            from_text: str | None = ...,
            to_text: str | None = ...,
        ) -> ActionResult:
            """Select text inside an element (all of it, or --from TEXT [--to TEXT]); verified."""

        def approvals(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            all: bool = ...,
        ) -> ApprovalList:
            """List approvals: pending first (approve or deny them), then the latest decisions."""

        def approve(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> ApprovalInfo:
            """Approve a pending request: the call waiting for it goes on."""

        def deny(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> ApprovalInfo:
            """Deny a pending request: the call waiting for it fails with approval_denied."""

        def request_approval(
            self,
            *,
            reason: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> ApprovalGranted:
            """Ask a person before an irreversible step; waits for `approve` (else approval_denied)."""

        def batch(
            self,
            *,
            steps: list[Step],
            session: str = ...,
            timeout: str | None = ...,
            keep_going: bool = ...,
        ) -> BatchResult:
            """Run commands in order in one call; stop at a failure unless keep_going (--continue)."""

        def pdf(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
            unmasked: bool = ...,
        ) -> PdfResult:
            """Print the tab to a PDF file and return its path (headless browser only)."""

        def desktop_apps(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> AppsResult:
            """List the applications on the accessibility bus (name and pid)."""

        def desktop_transports(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> TransportsResult:
            """Each desktop transport's health, in the order the router tries them."""

        def desktop_snapshot(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            app: str | None = ...,
            all: bool = ...,
            fresh: bool = ...,
            window: str | None = ...,
            walk: bool = ...,
        ) -> DesktopSnapshotResult:
            """The desktop applications' accessibility tree as text; act by their [ref=dN]."""

        def desktop_click(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Click (press, toggle) a desktop element: its accessible action, else a real click."""

        def desktop_type(
            self,
            *,
            ref: str,
            text: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Set a desktop text field's text; verified by reading it back."""

        def desktop_select(
            self,
            *,
            ref: str,
            value: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Select an option of a desktop combo box or list by name; verified."""

        def desktop_focus(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Give a desktop element the keyboard focus; verified by its focused state."""

        def desktop_scroll(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
            dy: int = ...,
            dx: int = ...,
        ) -> DesktopActed:
            """Scroll the pane that holds a desktop element; verified by its scroll bars moving."""

        def desktop_drag(
            self,
            *,
            ref: str,
            to: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
        ) -> DesktopActed:
            """Drag a desktop element (press, move, release: X input) to a ref, point or offset."""

        def desktop_menu(
            self,
            *,
            path: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
            app: str | None = ...,
        ) -> DesktopActed:
            """Choose a menu item by its path in an application's menu bar ('File > Save')."""

        def desktop_press(
            self,
            *,
            keys: str,
            session: str = ...,
            timeout: str | None = ...,
            allow_noop: bool = ...,
            ref: str | None = ...,
        ) -> DesktopPressed:
            """Press a key combination on the desktop (X input), on an element when given."""

        def desktop_see(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            annotate: bool = ...,
            app: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
        ) -> DesktopSeen:
            """Save a PNG of the X screen; --annotate boxes and labels every visible ref."""

        def desktop_attach(
            self,
            *,
            app: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> DesktopAttached:
            """Attach a Chromium or Electron app (its debugging port) as a browser session."""

        def desktop_watch(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            events: str | None = ...,
            app: str | None = ...,
            duration: str | None = ...,
            count: int | None = ...,
            since: int | None = ...,
        ) -> DesktopWatchResult:
            """Stream desktop events (focus, windows, text, states, apps) as they happen."""

        def desktop_windows(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            app: str | None = ...,
            all: bool = ...,
        ) -> WindowsResult:
            """List the top-level X windows: id, title, pid, class, geometry, focus."""

        def desktop_window_focus(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Give a window the input focus and raise it; verified by reading the focus back."""

        def desktop_window_move(
            self,
            *,
            id: str,
            x: int,
            y: int,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Move a window to --x --y; verified by reading its position back."""

        def desktop_window_resize(
            self,
            *,
            id: str,
            width: int,
            height: int,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Resize a window to --width --height; verified by reading its size back."""

        def desktop_window_close(
            self,
            *,
            id: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> WindowActedResult:
            """Ask a window to close (as its close button would); verified: it is gone."""

        def desktop_clipboard_get(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            selection: Literal["clipboard", "primary"] = ...,
        ) -> ClipboardText:
            """The text on the X clipboard (or the primary selection), via xclip."""

        def desktop_clipboard_set(
            self,
            *,
            text: str,
            session: str = ...,
            timeout: str | None = ...,
            selection: Literal["clipboard", "primary"] = ...,
        ) -> ClipboardSet:
            """Put text on the X clipboard (or the primary selection); verified by reading back."""

        def desktop_launch(
            self,
            *,
            argv: list[str],
            session: str = ...,
            timeout: str | None = ...,
            wait: bool = ...,
        ) -> LaunchResult:
            """Start a program on the desktop and wait until it shows a window or is on the bus."""

        def dialog(
            self,
            *,
            answer: Literal["accept", "dismiss"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            text: str | None = ...,
        ) -> DialogResult:
            """Answer the dialog that stops a tab; the action it interrupted then completes."""

        def emulate(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            color_scheme: Literal["light", "dark", "no-preference"] | None = ...,
            geolocation: str | None = ...,
            viewport: str | None = ...,
        ) -> Emulated:
            """Change a live session's colour scheme, geolocation or viewport; none: show them."""

        def evaluate(
            self,
            *,
            expression: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            ref: str | None = ...,
        ) -> EvaluateResult:
            """Run JavaScript in the page (or on an element) and return its value as JSON."""

        def extension_pair(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            new: bool = ...,
        ) -> Paired:
            """Start the extension relay and print its URL and pairing token (kept across restarts)."""

        def extension_status(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> ExtensionStatus:
            """Whether the extension is paired and connected, and which tabs it has attached."""

        def extension_detach(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: int | None = ...,
        ) -> Detached:
            """Let go of an attached tab of the user's Chrome (or all of them); Chrome keeps it open."""

        def extract(
            self,
            *,
            kind: Literal["text", "attr", "table", "markdown"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            ref: str | None = ...,
            selector: str | None = ...,
            name: str | None = ...,
            max_chars: int | None = ...,
        ) -> ExtractResult:
            """Read the page or an element as text, attribute values, table rows or Markdown."""

        def upload(
            self,
            *,
            ref: str,
            files: list[str],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Put files into a file input (files only from inside the file roots); verified."""

        def download(
            self,
            *,
            ref: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
        ) -> ActionResult:
            """Click an element that downloads a file; the file is saved and its path reported."""

        def flow_save(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            from_id: int | None = ...,
            to_id: int | None = ...,
            param: dict[str, str] = ...,
            update: bool = ...,
            file: str | os.PathLike[str] | None = ...,
            description: str | None = ...,
        ) -> FlowSaved:
            """Save what the session did (or a stretch: --from/--to) as a flow to replay."""

        def flow_list(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> FlowList:
            """List the saved flows: newest version, steps, what each does."""

        def flow_show(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
        ) -> FlowShown:
            """Show a flow file: its parameters and steps (targets, expectations)."""

        def flow_rm(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
        ) -> FlowRemoved:
            """Remove a flow (every version, or --version N)."""

        def flow_export(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
            python: bool = ...,
            playwright: bool = ...,
            out: str | os.PathLike[str] | None = ...,
        ) -> FlowExported:
            """Write a flow as a standalone script: --python (steadyhand's client) or --playwright."""

        def flow_run(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            version: int | None = ...,
            param: dict[str, str] = ...,
            from_step: int = ...,
            wait_ms: int = ...,
        ) -> FlowRunResult:
            """Replay a saved flow: each element found afresh, each act verified; stops at a doubt."""

        def takeover(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            reason: str = ...,
        ) -> TakeoverResult:
            """Pause the agent on a session so a person can drive it (hand back with `handback`)."""

        def handback(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> HandbackResult:
            """End a takeover: the agent may act on the session again."""

        def desktop_takeover(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            reason: str = ...,
        ) -> TakeoverResult:
            """Pause the agent's desktop actions so a person can drive the desktop (live view)."""

        def desktop_handback(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            note: str | None = ...,
        ) -> HandbackResult:
            """End the desktop's takeover: the agent's desktop actions run again."""

        def har(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
            filter: str | None = ...,
        ) -> HarResult:
            """Write the tab's network log as a HAR 1.2 file (credentials redacted)."""

        def daemon_status(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> DaemonStatus:
            """Report the daemon's pid, uptime, browser and sessions."""

        def daemon_stop(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> Stopping:
            """Stop the daemon: close every session and the browser, then exit."""

        def sessions(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> SessionList:
            """List every session: status, profile, tabs, last action, checkpoint and health."""

        def session_suspend(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
        ) -> Suspended:
            """Checkpoint a session and close it, freeing its slot; `session restore` reopens it."""

        def session_restore(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
        ) -> Restored:
            """Recreate a suspended session from its last checkpoint: tabs, cookies, storage."""

        def open(
            self,
            *,
            url: str,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            profile: str | None = ...,
            block_private: bool = ...,
            allow_hosts: str | None = ...,
            block_hosts: str | None = ...,
            browser: str | None = ...,
            cdp: str | None = ...,
            device: str | None = ...,
            user_agent: str | None = ...,
            locale: str | None = ...,
            timezone: str | None = ...,
            geolocation: str | None = ...,
            color_scheme: Literal["light", "dark", "no-preference"] | None = ...,
        ) -> NavigationResult:
            """Open a URL in a new tab (starting the session if needed)."""

        def navigate(
            self,
            *,
            url: str,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Load a URL in the current tab (opening a tab if the session has none)."""

        def back(
            self,
            *,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Go back one page in the tab's history (navigated=false when there is none)."""

        def forward(
            self,
            *,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Go forward one page in the tab's history (navigated=false when there is none)."""

        def reload(
            self,
            *,
            snapshot: bool | None = ...,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> NavigationResult:
            """Reload the tab's page."""

        def policy(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> PolicyResult:
            """Show the navigation policy of a session (or the daemon's) and what it refused."""

        def route(
            self,
            *,
            pattern: str,
            session: str = ...,
            timeout: str | None = ...,
            block: bool = ...,
            fulfill: str | None = ...,
            status: int | None = ...,
            content_type: str | None = ...,
        ) -> RoutesResult:
            """Answer requests whose URL matches a glob: --block them, or --fulfill with a body."""

        def unroute(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            pattern: str | None = ...,
        ) -> RoutesResult:
            """Remove a route (or every route): its requests go to the network again."""

        def routes(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> RoutesResult:
            """The session's routes (with how many requests each answered) and offline mode."""

        def offline(
            self,
            *,
            state: Literal["on", "off"],
            session: str = ...,
            timeout: str | None = ...,
        ) -> RoutesResult:
            """Take the session's browser offline (every tab's requests fail) or back online."""

        def trace(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
            every_life: bool = ...,
            last: int = ...,
            failed: bool = ...,
        ) -> TraceResult:
            """The session's action timeline from the store: params, outcome, time, retries, files."""

        def trace_start(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            screenshots: bool = ...,
            snapshots: bool = ...,
            title: str | None = ...,
        ) -> TraceStarted:
            """Start recording a Playwright trace of the session (every tab); `trace stop` saves it."""

        def trace_stop(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
        ) -> TraceSaved:
            """Stop the session's Playwright trace and save it as a zip for Playwright's viewer."""

        def metrics(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> MetricsResult:
            """Counters and latencies since the daemon started (Prometheus text: HTTP /metrics)."""

        def scroll(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            changes: bool | None = ...,
            watchdog: bool | None = ...,
            expect_url: str | None = ...,
            expect_text: str | None = ...,
            expect_ref_gone: str | None = ...,
            ref: str | None = ...,
            dx: int = ...,
            dy: int = ...,
            into_view: bool = ...,
            to: Literal["top", "bottom"] | None = ...,
        ) -> ScrollResult:
            """Scroll the page or an element's box: by --dx/--dy, --to top|bottom, or REF into view."""

        def resize(
            self,
            *,
            width: int,
            height: int,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> ResizeResult:
            """Set the tab's viewport size (W H in CSS pixels)."""

        def wait(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            text: str | None = ...,
            text_gone: str | None = ...,
            url: str | None = ...,
            ref: str | None = ...,
            ref_gone: str | None = ...,
            load: Literal["load", "domcontentloaded", "networkidle"] | None = ...,
            ms: int | None = ...,
            handback: bool = ...,
        ) -> WaitResult:
            """Wait until every condition given holds: text, URL, element, load state, or time."""

        def console(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            clear: bool = ...,
            limit: int = ...,
            level: Literal["error", "warning", "info", "log", "debug"] | None = ...,
        ) -> ConsoleResult:
            """The tab's console messages and uncaught errors, latest last; --clear empties the log."""

        def network(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            clear: bool = ...,
            limit: int = ...,
            filter: str | None = ...,
            failed: bool = ...,
        ) -> NetworkResult:
            """The tab's network requests with status and timing, latest last; --clear empties it."""

        def profile_create(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> Profile:
            """Create a persistent profile (open sessions on it with `open URL --profile NAME`)."""

        def profile_list(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> ProfileList:
            """List persistent profiles, their size and the session using each."""

        def profile_delete(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> Deleted:
            """Delete a profile and everything Chromium kept in it (refused while it is open)."""

        def profile_export(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            out: str | os.PathLike[str] | None = ...,
            plain: bool = ...,
        ) -> Exported:
            """Export a profile's cookies and localStorage as Playwright storage-state JSON (to a"""

        def profile_import(
            self,
            *,
            name: str,
            session: str = ...,
            timeout: str | None = ...,
            file: str | os.PathLike[str] | None = ...,
        ) -> Imported:
            """Import a storage-state JSON file (cookies, localStorage) into a profile."""

        def record_start(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            path: str | os.PathLike[str] | None = ...,
            fps: int = ...,
            quality: int = ...,
        ) -> RecordStarted:
            """Start recording the tab as a video (its screencast); `record stop` saves it."""

        def record_stop(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> RecordStopped:
            """Stop the tab's recording and save the video; returns its path, frames and length."""

        def report(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            name: str | None = ...,
            every_life: bool = ...,
            path: str | os.PathLike[str] | None = ...,
            last: int = ...,
        ) -> ReportResult:
            """Write the session's report: one self-contained HTML file of its actions and screenshots."""

        def screenshot(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            ref: str | None = ...,
            full_page: bool = ...,
            path: str | os.PathLike[str] | None = ...,
            labels: bool = ...,
            unmasked: bool = ...,
        ) -> ScreenshotResult:
            """Save a PNG of the tab (or one element) and return its path."""

        def secrets(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> SecretsResult:
            """List the secrets the daemon types by name: names, sources and domains, never values."""

        def snapshot(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            interactive: bool = ...,
            compact: bool = ...,
            depth: int | None = ...,
            selector: str | None = ...,
            ref: str | None = ...,
            frame: str | None = ...,
            max_chars: int | None = ...,
            offset: int = ...,
            urls: bool = ...,
            cells: bool = ...,
            diff: bool = ...,
        ) -> SnapshotResult:
            """The tab's accessibility tree as text; act on elements by their [ref=eN]."""

        def find(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            text: str | None = ...,
            role: str | None = ...,
            name: str | None = ...,
            exact: bool = ...,
            limit: int = ...,
        ) -> FindResult:
            """Find elements by text, role or name: their refs and context, without a snapshot."""

        def state_key(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> StateKeyInfo:
            """Show where the state key comes from and which keys sealed the stored checkpoints."""

        def state_rekey(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            keep_old: bool = ...,
        ) -> Rekeyed:
            """Rotate the state key: a new key (unless STEADYHAND_STATE_KEY gives it), every"""

        def cookies_get(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            domain: str | None = ...,
            name: str | None = ...,
        ) -> CookieList:
            """The session's cookies (all its tabs share them), optionally by domain and name."""

        def cookies_set(
            self,
            *,
            name: str,
            value: str,
            session: str = ...,
            timeout: str | None = ...,
            domain: str | None = ...,
            url: str | None = ...,
            path: str | None = ...,
            expires: float | None = ...,
            http_only: bool = ...,
            secure: bool = ...,
            same_site: Literal["Lax", "Strict", "None"] | None = ...,
        ) -> CookieSet:
            """Set a cookie in the session's browser context (for all its tabs)."""

        def cookies_clear(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            domain: str | None = ...,
            name: str | None = ...,
        ) -> ClearedCookies:
            """Remove the session's cookies: all, or those of a domain and/or name."""

        def storage_get(
            self,
            *,
            kind: Literal["local", "session"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            key: str | None = ...,
        ) -> StorageItems:
            """The current tab's localStorage or sessionStorage items (of its page's origin)."""

        def storage_set(
            self,
            *,
            kind: Literal["local", "session"],
            key: str,
            value: str,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> StorageChanged:
            """Set an item in the current tab's localStorage or sessionStorage."""

        def storage_clear(
            self,
            *,
            kind: Literal["local", "session"],
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
            key: str | None = ...,
        ) -> StorageChanged:
            """Remove the current tab's localStorage or sessionStorage items: all, or one key."""

        def tabs(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
        ) -> TabList:
            """List the session's tabs; the current one is marked."""

        def tab_new(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            url: str | None = ...,
        ) -> NavigationResult:
            """Open a new tab (blank, or at a URL) and make it current."""

        def tab_focus(
            self,
            *,
            tab: str,
            session: str = ...,
            timeout: str | None = ...,
        ) -> PageResult:
            """Make a tab the current one and bring it to the front."""

        def tab_close(
            self,
            *,
            session: str = ...,
            timeout: str | None = ...,
            tab: str | None = ...,
        ) -> TabClosed:
            """Close a tab; the most recent remaining tab becomes current."""
