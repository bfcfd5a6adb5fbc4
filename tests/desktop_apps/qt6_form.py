"""A Qt 6 form for the desktop tests; run it with steadyhand's Python (PySide6).

One window, "Qt form": an edit named "Name", a "Greet" button (status "hello <name>"), a
"Subscribe" check box, a "Size" combo box (Small/Medium/Large), a status label, and a
"Click pad" with no AT-SPI action that counts real mouse clicks into the status ("clicks
N"). Each widget has an objectName, which AT-SPI shows as its accessible id. `--nodes N`
adds N buttons ("Item 1" ...) in a scrolled grid; `--at X,Y` places the window. Run it in a
desktop session (QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 makes Qt expose its tree).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from form_args import parse  # the forms run as scripts: their folder is on sys.path
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

GRID_COLUMNS = 10


class ClickPad(QWidget):
    """No focus, so no AT-SPI action: only real button presses reach it."""

    def __init__(self, on_click: Callable[[int], None]) -> None:
        super().__init__()
        self.clicks = 0
        self.on_click = on_click
        self.setObjectName("click_pad")
        self.setAccessibleName("Click pad")
        self.setMinimumSize(200, 60)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.clicks += 1
        self.on_click(self.clicks)
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(77, 128, 204))
        painter.end()


def build(nodes: int, effects: bool = False) -> QWidget:
    window = QWidget()
    window.setWindowTitle("Qt form")
    window.setObjectName("qt_form")
    layout = QVBoxLayout(window)
    form = QGridLayout()
    layout.addLayout(form)

    status = QLabel("ready")
    status.setObjectName("status")
    status.setAccessibleDescription("Status")

    name_label = QLabel("Name")
    entry = QLineEdit()
    entry.setObjectName("name")
    entry.setAccessibleName("Name")
    name_label.setBuddy(entry)
    form.addWidget(name_label, 0, 0)
    form.addWidget(entry, 0, 1)

    greet = QPushButton("Greet")
    greet.setObjectName("greet")
    greet.clicked.connect(lambda: status.setText(f"hello {entry.text()}"))
    form.addWidget(greet, 0, 2)

    subscribe = QCheckBox("Subscribe")
    subscribe.setObjectName("subscribe")
    subscribe.toggled.connect(lambda on: status.setText("subscribed" if on else "unsubscribed"))
    form.addWidget(subscribe, 1, 0, 1, 2)

    size = QComboBox()
    size.setObjectName("size")
    size.setAccessibleName("Size")
    size.addItems(["Small", "Medium", "Large"])
    size.currentTextChanged.connect(lambda text: status.setText(f"size {text}"))
    size_label = QLabel("Size")
    size_label.setBuddy(size)  # Qt names a combo by its current text; the label relates
    form.addWidget(size_label, 2, 0)
    form.addWidget(size, 2, 1)

    form.addWidget(ClickPad(lambda n: status.setText(f"clicks {n}")), 3, 0, 1, 3)
    if effects:
        effect_row(form, 4)
    layout.addWidget(status)
    if nodes:
        layout.addWidget(item_grid(nodes, status))
    window.resize(600, 460 if nodes else 300)
    return window


def effect_row(form: QGridLayout, row: int) -> None:
    """Nothing (a button without a handler), Send (disabled), Code (upper-cases its text),
    PIN (a password field)."""
    form.addWidget(QPushButton("Nothing"), row, 0)
    send = QPushButton("Send")
    send.setEnabled(False)
    form.addWidget(send, row, 1)
    code = QLineEdit()
    code.setAccessibleName("Code")

    def upper(text: str) -> None:
        if text != text.upper():
            code.setText(text.upper())

    code.textChanged.connect(upper)
    form.addWidget(code, row + 1, 0, 1, 2)
    pin = QLineEdit()
    pin.setAccessibleName("PIN")
    pin.setEchoMode(QLineEdit.EchoMode.Password)
    form.addWidget(pin, row + 1, 2)


def item_grid(count: int, status: QLabel) -> QScrollArea:
    inner = QWidget()
    grid = QGridLayout(inner)
    for i in range(count):
        button = QPushButton(f"Item {i + 1}")
        button.clicked.connect(lambda _=False, b=button: status.setText(f"pressed {b.text()}"))
        grid.addWidget(button, i // GRID_COLUMNS, i % GRID_COLUMNS)
    scroll = QScrollArea()
    scroll.setWidget(inner)
    scroll.setMinimumHeight(200)
    return scroll


def main(argv: list[str]) -> int:
    nodes, x, y, effects = parse(argv, __doc__, at="640,0")
    app = QApplication(sys.argv[:1])
    app.setApplicationName("qt6_form")
    window = build(nodes, effects)
    window.move(x, y)
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
