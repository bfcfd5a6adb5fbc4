"""Tasks on jQuery UI 1.12.1's own demo pages (tests/fixtures/site/real/jquery-ui-1.12.1,
vendored unmodified from the npm package): real widgets, written by nobody on the project.

The demos load their widgets through RequireJS and hide the page (`visibility: hidden`)
until every module has come, so each solver first waits for the page to show its text, as
a model would look again at an empty page."""

from __future__ import annotations

import time

from tests.agent.agent import FIELDS, PRESSABLE, Agent, Stuck
from tests.agent.task import Task, stepper
from tests.agent.text import Element, Line, Snapshot, squash

ROOT = "real/jquery-ui-1.12.1/demos"
SOURCE = "npm jquery-ui@1.12.1 demos/"

# Roles a page may give an entry of a menu, list or popup, found by its visible text.
PICKABLE = ("option", "menuitem", "listitem", "generic", "link", "treeitem")


def after(seen: Snapshot, text: str, roles: tuple[str, ...]) -> Element:
    """The first element of these roles that comes after the text `text` in the page: the
    control a label written before it (not tied to it) stands for."""
    want = squash(text)
    for at, line in enumerate(seen.lines):
        if want in squash(line.raw):
            for later in seen.lines[at:]:
                for e in later.items:
                    if e.ref and e.role in roles:
                        return e
    raise Stuck(f"no {roles} after {text!r}")


def appears(
    agent: Agent,
    label: str,
    roles: tuple[str, ...] = PICKABLE,
    *,
    exact: bool = True,
    tries: int = 20,
) -> Element:
    """Look until an element with this label and one of these roles is there (a popup that
    opens late); the text alone may be on the page already, in its prose."""
    last: Stuck | None = None
    for _ in range(tries):
        seen = agent.look()
        try:
            return agent.find(label, roles, exact=exact, seen=seen)
        except Stuck as exc:
            last = exc
        time.sleep(0.15)
    raise Stuck(f"{label!r} never appeared: {last}")


def pick(agent: Agent, label: str, *, exact: bool = True) -> None:
    """Wait for an entry that shows `label` to appear, then click it."""
    agent.click(appears(agent, label, exact=exact))


# ---------------------------------------------------------------- autocomplete


def autocomplete_default(agent: Agent) -> None:
    agent.until("Tags")
    agent.type(agent.find("Tags", FIELDS, exact=False), "ja")
    pick(agent, "JavaScript")


def autocomplete_categories(agent: Agent) -> None:
    agent.until("Search")
    agent.type(agent.find("Search", FIELDS, exact=False), "an")
    # The entry may be written "andreas johnson" or "People : andreas johnson".
    pick(agent, "andreas johnson", exact=False)


def autocomplete_multiple(agent: Agent) -> None:
    agent.until("Tag programming languages")
    field = agent.find("Tag programming languages", FIELDS, exact=False)
    agent.type(field, "ja")
    pick(agent, "JavaScript")
    seen = agent.look()
    so_far = agent.find("Tag programming languages", FIELDS, exact=False, seen=seen).text
    if "JavaScript" not in so_far:
        raise Stuck(f"the field shows {so_far!r}")
    # Enough letters that Scala is the one suggestion.
    agent.type(field, f"{so_far} Sca")
    pick(agent, "Scala")
    seen = agent.look()
    now = agent.find("Tag programming languages", FIELDS, exact=False, seen=seen).text
    if "Scala" not in now:
        raise Stuck(f"the field shows {now!r}")


def combobox(agent: Agent) -> None:
    agent.until("Your preferred programming language")
    agent.click(agent.find("Show All Items", ("button", "link")))
    pick(agent, "Python")


# ---------------------------------------------------------------- datepicker


def datepicker(agent: Agent) -> None:
    seen = agent.until("Date")
    agent.click(agent.find(roles=FIELDS, near="Date", seen=seen))
    seen = agent.until("Next")
    month = agent.find("Next", PRESSABLE, seen=seen)
    agent.click(month)
    seen = agent.look()
    agent.click(agent.find("15", ("link", "button", "gridcell", "cell"), seen=seen))


# ---------------------------------------------------------------- slider, spinner


def slider(agent: Agent) -> None:
    seen = agent.until("Donation amount")
    stepper(agent, agent.find(roles=("slider",), seen=seen), 300)


def spinner(agent: Agent) -> None:
    agent.until("Select a value")
    agent.type(agent.find("Select a value", FIELDS, exact=False), "7")
    seen = agent.look()
    shown = agent.find("Select a value", FIELDS, exact=False, seen=seen)
    if "7" not in (shown.attrs.get("value"), shown.text):
        raise Stuck(f"the spinner shows {shown.text!r} {shown.attrs}")


# ---------------------------------------------------------------- tabs, accordion


def tabs(agent: Agent) -> None:
    agent.until("Aenean lacinia")
    agent.click(agent.find("Aenean lacinia", ("tab", "link", "button")))
    agent.until("Mauris eleifend est et turpis")


def accordion(agent: Agent) -> None:
    agent.until("Section 3")
    agent.click(agent.find("Section 3", ("tab", "button", "heading", "link")))
    agent.until("List item one")


# ---------------------------------------------------------------- dialogs


def dialog_form(agent: Agent) -> None:
    agent.until("Create new user")
    agent.click(agent.find("Create new user", ("button", "link")))
    seen = agent.until("Create an account")
    for label, value in (
        ("Name", "Ada Lovelace"),
        ("Email", "ada@example.com"),
        ("Password", "engine1843"),
    ):
        agent.type(agent.find(label, FIELDS, seen=seen), value)
    agent.click(agent.find("Create an account", ("button",)))
    agent.until("ada@example.com")


def dialog_confirm(agent: Agent) -> None:
    agent.until("Empty the recycle bin?")
    agent.click(agent.find("Delete all items", ("button",)))


# ---------------------------------------------------------------- selectmenu, checkboxradio


def selectmenu(agent: Agent) -> None:
    seen = agent.until("Select a speed")
    agent.click(after(seen, "Select a speed", ("combobox", "button")))
    pick(agent, "Fast")


def checkboxradio(agent: Agent) -> None:
    agent.until("Select a Location")
    agent.check(agent.find("Paris", ("radio",)))
    agent.check(agent.find("4 Star", ("checkbox",)))


# ---------------------------------------------------------------- mouse interactions


def shown(line: Line) -> str:
    """What a line and the lines under it read: names, texts, text lines."""
    words = []
    for under in line.walk():
        if under.raw.startswith("text:"):
            words.append(under.raw.removeprefix("text:").strip().strip('"'))
        words += [e.label for e in under.items]
    return " ".join(w for w in words if w)


def sortable(agent: Agent) -> None:
    seen = agent.until("Item 1")
    agent.drag(
        agent.find(roles=("listitem",), near="Item 1", seen=seen),
        agent.find(roles=("listitem",), near="Item 3", seen=seen),
    )
    # Dropped on an item's middle, an item may land just above it: read the list again
    # and, if so, drop it on the item after Item 3 instead.
    seen = agent.look()
    order = [shown(e.line) for e in seen.elements if e.role == "listitem"]
    if order.index("Item 1") < order.index("Item 3"):
        below = order[order.index("Item 3") + 1]
        agent.drag(
            agent.find(roles=("listitem",), near="Item 1", seen=seen),
            agent.find(roles=("listitem",), near=below, seen=seen),
        )
        agent.look()


def droppable(agent: Agent) -> None:
    seen = agent.until("Drag me to my target")
    source = agent.find("Drag me to my target", exact=False, seen=seen)
    target = agent.find("Drop here", exact=False, seen=seen)
    agent.drag(source, target)
    agent.until("Dropped!")


def selectable(agent: Agent) -> None:
    seen = agent.until("Item 3")
    agent.click(agent.find(roles=("listitem", "option", "generic"), near="Item 3", seen=seen))


TASKS = [
    Task(
        "jqui-autocomplete",
        f"{ROOT}/autocomplete/default.html",
        "Fill in the tag JavaScript (type ja and pick it from the suggestions)",
        autocomplete_default,
        '$("#tags").val() === "JavaScript"',
        f"{SOURCE}autocomplete/default.html",
    ),
    Task(
        "jqui-autocomplete-categories",
        f"{ROOT}/autocomplete/categories.html",
        "Search for 'an' and pick andreas johnson from the People results",
        autocomplete_categories,
        '$("#search").val() === "andreas johnson"',
        f"{SOURCE}autocomplete/categories.html",
    ),
    Task(
        "jqui-autocomplete-multiple",
        f"{ROOT}/autocomplete/multiple.html",
        "Tag the languages JavaScript and Scala",
        autocomplete_multiple,
        '$("#tags").val() === "JavaScript, Scala, "',
        f"{SOURCE}autocomplete/multiple.html",
    ),
    Task(
        "jqui-combobox",
        f"{ROOT}/autocomplete/combobox.html",
        "Choose Python as the preferred programming language from the full list",
        combobox,
        '$("#combobox").val() === "Python" && $(".custom-combobox-input").val() === "Python"',
        f"{SOURCE}autocomplete/combobox.html",
    ),
    Task(
        "jqui-datepicker",
        f"{ROOT}/datepicker/default.html",
        "Set the date to the 15th of next month with the calendar",
        datepicker,
        '$("#datepicker").val() === $.datepicker.formatDate("mm/dd/yy",'
        " new Date(new Date().getFullYear(), new Date().getMonth() + 1, 15))",
        f"{SOURCE}datepicker/default.html",
    ),
    Task(
        "jqui-slider-steps",
        f"{ROOT}/slider/steps.html",
        "Set the donation amount to $300",
        slider,
        '$("#slider").slider("value") === 300 && $("#amount").val() === "$300"',
        f"{SOURCE}slider/steps.html",
    ),
    Task(
        "jqui-spinner",
        f"{ROOT}/spinner/default.html",
        "Set the spinner's value to 7",
        spinner,
        '$("#spinner").spinner("value") === 7',
        f"{SOURCE}spinner/default.html",
    ),
    Task(
        "jqui-tabs",
        f"{ROOT}/tabs/default.html",
        "Open the tab Aenean lacinia",
        tabs,
        '$("#tabs").tabs("option", "active") === 2 && $("#tabs-3").is(":visible")',
        f"{SOURCE}tabs/default.html",
    ),
    Task(
        "jqui-accordion",
        f"{ROOT}/accordion/default.html",
        "Open Section 3 of the accordion",
        accordion,
        '$("#accordion").accordion("option", "active") === 2',
        f"{SOURCE}accordion/default.html",
    ),
    Task(
        "jqui-dialog-form",
        f"{ROOT}/dialog/modal-form.html",
        "Create a new user: Ada Lovelace, ada@example.com, password engine1843",
        dialog_form,
        '$("#users tbody tr").length === 2 && $("#users tbody tr:last td").map('
        "function () { return $(this).text(); }).get().join() ==="
        ' "Ada Lovelace,ada@example.com,engine1843" && !$("#dialog-form").dialog("isOpen")',
        f"{SOURCE}dialog/modal-form.html",
    ),
    Task(
        "jqui-dialog-confirm",
        f"{ROOT}/dialog/modal-confirmation.html",
        "Confirm emptying the recycle bin",
        dialog_confirm,
        # The page keeps no trace of which button closed it: Cancel would pass too.
        '!$("#dialog-confirm").dialog("isOpen")',
        f"{SOURCE}dialog/modal-confirmation.html",
    ),
    Task(
        "jqui-selectmenu",
        f"{ROOT}/selectmenu/default.html",
        "Set the speed to Fast",
        selectmenu,
        '$("#speed").val() === "Fast" && $("#speed-button").text().trim() === "Fast"',
        f"{SOURCE}selectmenu/default.html",
    ),
    Task(
        "jqui-checkboxradio",
        f"{ROOT}/checkboxradio/default.html",
        "Choose Paris as the location and tick the 4 Star rating",
        checkboxradio,
        '$("#radio-2").is(":checked") && $("#checkbox-3").is(":checked")'
        ' && $("input:checked").length === 2'
        ' && $("label[for=radio-2]").hasClass("ui-checkboxradio-checked")',
        f"{SOURCE}checkboxradio/default.html",
    ),
    Task(
        "jqui-sortable",
        f"{ROOT}/sortable/default.html",
        "Drag Item 1 down below Item 3",
        sortable,
        '(() => { const t = $("#sortable li").map(function () { return $(this).text(); })'
        '.get(); return t.indexOf("Item 1") > t.indexOf("Item 3") && t.length === 7; })()',
        f"{SOURCE}sortable/default.html",
    ),
    Task(
        "jqui-droppable",
        f"{ROOT}/droppable/default.html",
        "Drag the box onto its target",
        droppable,
        '$("#droppable").hasClass("ui-state-highlight") && $("#droppable p").text() === "Dropped!"',
        f"{SOURCE}droppable/default.html",
    ),
    Task(
        "jqui-selectable",
        f"{ROOT}/selectable/default.html",
        "Select Item 3",
        selectable,
        '$("#selectable .ui-selected").map(function () { return $(this).text(); })'
        '.get().join() === "Item 3"',
        f"{SOURCE}selectable/default.html",
    ),
]
