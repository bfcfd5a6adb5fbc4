"""What the runtime keeps for the live view: the feed, the takeovers, the watched screens."""

from __future__ import annotations

from steadyhand.engine.session import Tab
from steadyhand.live.feed import Feed
from steadyhand.live.screen import DesktopScreen, Screen, TabScreen
from steadyhand.live.takeover import Takeovers


class LiveState:
    """The runtime's live parts: the feed, the takeovers, the screens being watched."""

    def __init__(self, max_fps: float, quality: int) -> None:
        self.feed = Feed()
        self.takeovers = Takeovers()
        self.max_fps = max_fps
        self.quality = max(1, min(100, quality))
        self._screens: dict[int, TabScreen] = {}
        self._desktop: DesktopScreen | None = None

    def screen_of(self, session: str, tab: Tab) -> TabScreen:
        """The tab's shared screen (made on first watch, dropped with the page)."""
        key = id(tab.page)
        screen = self._screens.get(key)
        if screen is None or screen.page is not tab.page:
            screen = self._screens[key] = TabScreen(
                tab.page, tab.id, self.max_fps, self.quality, f"{session}/{tab.id}"
            )
            tab.page.once("close", lambda _page: self._drop(key))
        return screen

    def _drop(self, key: int) -> None:
        self._screens.pop(key, None)

    def desktop_screen(self) -> DesktopScreen:
        if self._desktop is None:
            self._desktop = DesktopScreen(self.max_fps)
        return self._desktop

    def watched_names(self) -> list[str]:
        """Which screens someone watches now: session/tab, and `desktop`."""
        names = [s.label for s in self._screens.values() if s.watched]
        return names + (["desktop"] if self._desktop is not None and self._desktop.watched else [])

    def watched(self) -> list[Screen]:
        """Screens someone watches now."""
        screens: list[Screen] = [s for s in self._screens.values() if s.watched]
        if self._desktop is not None and self._desktop.watched:
            screens.append(self._desktop)
        return screens
