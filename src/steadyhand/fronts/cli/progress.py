"""The daemon's progress on long work, as the CLI shows it on a terminal.

Builtins only, no imports: the launcher (relay.py) and the reference CLI (main.py) both
show it with this one class.
"""

TYPE_CHECKING = False  # see errors.py
if TYPE_CHECKING:
    from typing import Any


class ProgressLine:
    """The daemon's progress on long work, on one terminal line rewritten in place."""

    def __init__(self, stream: "Any") -> None:
        self.stream = stream
        self.width = 0

    def __call__(self, done: int, total: "int | None", message: str) -> None:
        count = f"{done}/{total}" if total else str(done)
        text = f"{message}: {count}"
        if total:
            text += f" ({100 * done // max(total, 1)}%)"
        self.stream.write("\r" + text.ljust(self.width))
        self.width = len(text)
        if total is not None and done >= total:
            self.stream.write("\n")
            self.width = 0
        self.stream.flush()
