"""A GTK 3 form for the desktop tests; run it with /usr/bin/python3 (Debian's gi and Gtk).

One window, "GTK form": a menu bar (File > Save sets the status to "saved", File > Quit
quits), an entry named "Name", a "Greet" button (status "hello <name>"), a "Subscribe" check
box, a "Size" combo box (Small/Medium/Large), a status label, and a "Click pad" that has no
AT-SPI action and counts real mouse clicks into the status ("clicks N"; a press dragged
more than 8 px before its release says "dragged DX,DY"); SIGUSR1 sets the status to
"signalled N" (a change from outside). `--nodes N` adds N buttons ("Item 1" ...) in a
scrolled grid, for big-tree benchmarks; `--at X,Y` places the window (without a window
manager it stays where it is put).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from typing import Any

import gi
from form_args import parse  # the forms run as scripts: their folder is on sys.path

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

GRID_COLUMNS = 10
Say = Callable[[str], None]


def build(nodes: int, effects: bool = False) -> Gtk.Window:
    window = Gtk.Window(title="GTK form")
    window.set_default_size(600, 460 if nodes else 300)
    window.connect("destroy", Gtk.main_quit)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    window.add(box)

    status = Gtk.Label(label="ready")
    status.get_accessible().set_description("Status")

    def say(text: str) -> None:
        status.set_text(text)

    signals = [0]

    def signalled() -> bool:  # a change from outside steadyhand (SIGUSR1)
        signals[0] += 1
        say(f"signalled {signals[0]}")
        return True  # keep the handler

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, signalled)

    box.pack_start(menu_bar(say), False, False, 0)
    form = Gtk.Grid(column_spacing=8, row_spacing=6, margin=8)
    box.pack_start(form, False, False, 0)

    name_label = Gtk.Label(label="Name", xalign=0)
    entry = Gtk.Entry()
    entry.get_accessible().set_name("Name")
    name_label.set_mnemonic_widget(entry)
    form.attach(name_label, 0, 0, 1, 1)
    form.attach(entry, 1, 0, 1, 1)

    greet = Gtk.Button(label="Greet")
    greet.connect("clicked", lambda _b: say(f"hello {entry.get_text()}"))
    form.attach(greet, 2, 0, 1, 1)

    subscribe = Gtk.CheckButton(label="Subscribe")
    subscribe.connect("toggled", lambda b: say("subscribed" if b.get_active() else "unsubscribed"))
    form.attach(subscribe, 0, 1, 2, 1)

    size_label = Gtk.Label(label="Size", xalign=0)
    size = Gtk.ComboBoxText()
    for option in ("Small", "Medium", "Large"):
        size.append_text(option)
    size.set_active(0)
    size.get_accessible().set_name("Size")
    size.connect("changed", lambda c: say(f"size {c.get_active_text()}"))
    form.attach(size_label, 0, 2, 1, 1)
    form.attach(size, 1, 2, 1, 1)

    form.attach(click_pad(say), 0, 3, 3, 1)
    if effects:
        effect_row(form, 4)
    box.pack_start(status, False, False, 4)
    if nodes:
        box.pack_start(item_grid(nodes, say), True, True, 0)
    return window


def menu_bar(say: Say) -> Gtk.MenuBar:
    bar = Gtk.MenuBar()
    file_item = Gtk.MenuItem(label="File")
    menu = Gtk.Menu()
    save = Gtk.MenuItem(label="Save")
    save.connect("activate", lambda _i: say("saved"))
    quit_item = Gtk.MenuItem(label="Quit")
    quit_item.connect("activate", lambda _i: Gtk.main_quit())
    menu.append(save)
    menu.append(quit_item)
    file_item.set_submenu(menu)
    bar.append(file_item)
    return bar


def click_pad(say: Say) -> Gtk.EventBox:
    """An empty event box: no AT-SPI action, only real button presses reach it."""
    pad = Gtk.EventBox()
    css = Gtk.CssProvider()
    css.load_from_data(b"* { background-color: #4d80cc; }")
    pad.get_style_context().add_provider(css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    pad.set_size_request(200, 60)
    pad.get_accessible().set_name("Click pad")
    pad.add_events(Gdk.EventMask.BUTTON_PRESS_MASK | Gdk.EventMask.BUTTON_RELEASE_MASK)
    clicks = [0]
    pressed_at = [0.0, 0.0]

    def pressed(_widget: Gtk.Widget, event: Any) -> bool:
        clicks[0] += 1
        pressed_at[:] = [event.x_root, event.y_root]
        say(f"clicks {clicks[0]}")
        return True

    def released(_widget: Gtk.Widget, event: Any) -> bool:
        dx, dy = round(event.x_root - pressed_at[0]), round(event.y_root - pressed_at[1])
        if abs(dx) > 8 or abs(dy) > 8:
            say(f"dragged {dx},{dy}")
        return True

    pad.connect("button-press-event", pressed)
    pad.connect("button-release-event", released)
    return pad


def effect_row(form: Gtk.Grid, row: int) -> None:
    """Nothing (a button without a handler), Send (disabled), Code (upper-cases its text),
    PIN (a password field)."""
    nothing = Gtk.Button(label="Nothing")
    form.attach(nothing, 0, row, 1, 1)
    send = Gtk.Button(label="Send")
    send.set_sensitive(False)
    form.attach(send, 1, row, 1, 1)
    code = Gtk.Entry()
    code.get_accessible().set_name("Code")

    def upper(entry: Gtk.Entry) -> None:
        if entry.get_text() != entry.get_text().upper():
            entry.set_text(entry.get_text().upper())

    code.connect("changed", upper)
    form.attach(code, 0, row + 1, 2, 1)
    pin = Gtk.Entry(visibility=False)
    pin.get_accessible().set_name("PIN")
    form.attach(pin, 2, row + 1, 1, 1)


def item_grid(count: int, say: Say) -> Gtk.ScrolledWindow:
    grid = Gtk.Grid(column_spacing=4, row_spacing=4)
    for i in range(count):
        button = Gtk.Button(label=f"Item {i + 1}")
        button.connect("clicked", lambda b: say(f"pressed {b.get_label()}"))
        grid.attach(button, i % GRID_COLUMNS, i // GRID_COLUMNS, 1, 1)
    scrolled = Gtk.ScrolledWindow()
    scrolled.set_min_content_height(200)
    scrolled.add(grid)
    return scrolled


def main(argv: list[str]) -> int:
    nodes, x, y, effects = parse(argv, __doc__, at="0,0")
    window = build(nodes, effects)
    window.move(x, y)
    window.show_all()
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
