"""The extract command: a page's (or element's) text, attributes, tables or Markdown."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import Field

from steadyhand.act.extract import Kind, read_element, read_page, read_selector
from steadyhand.act.resolve import element
from steadyhand.act.results import PageResult, page_result
from steadyhand.call import Call
from steadyhand.commands.table import TabParams, command, positional
from steadyhand.errors import ErrorCode, SteadyhandError
from steadyhand.vault import mask_text


class ExtractParams(TabParams):
    kind: Kind = positional("what to read: text, attr, table or markdown")
    ref: str | None = Field(None, description="only this element (a ref from a snapshot)")
    selector: str | None = Field(None, description="only the elements this CSS selector matches")
    name: str | None = Field(None, description="the attribute to read (attr only)")
    max_chars: int | None = Field(
        None, ge=200, description="cut the output here (default: the snapshot_max_chars setting)"
    )


class ExtractResult(PageResult):
    REPLY: ClassVar[str] = "text"
    kind: str
    text: str = Field(description="what was read as text; a table as a Markdown table")
    matched: int = Field(description="elements read: 1 for the page or a ref")
    chars: int = Field(description="length of the whole text, before any cut")
    truncated: bool = Field(False, description="the text (or rows, or values) was cut")
    value: str | None = Field(None, description="attr: the value, when one element was read")
    values: list[str | None] | None = Field(
        None, description="attr: one value per element (null: no such attribute)"
    )
    headers: list[str] | None = Field(None, description="table: the column names")
    rows: list[dict[str, str]] | None = Field(
        None, description="table: one object per row, keyed by column name"
    )
    rows_total: int | None = Field(None, description="table: rows before any cut")


def _check(params: ExtractParams) -> None:
    if params.ref is not None and params.selector is not None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            "give --ref or --selector, not both",
            "--ref eN for an element from a snapshot, --selector for a CSS selector",
        )
    if params.kind == "attr":
        if not params.name:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "extract attr needs --name: the attribute to read",
                "e.g. extract attr --selector 'main a' --name href",
            )
        if params.ref is None and params.selector is None:
            raise SteadyhandError(
                ErrorCode.BAD_REQUEST,
                "extract attr reads elements: give --ref or --selector",
                "e.g. extract attr --ref e12 --name href",
            )
    elif params.name is not None:
        raise SteadyhandError(
            ErrorCode.BAD_REQUEST,
            f"--name is for extract attr, not extract {params.kind}",
            "drop --name, or use extract attr --name ATTR",
        )


def _cut_text(text: str, limit: int) -> tuple[str, bool]:
    text = mask_text(text)  # before the cut: half a secret's value would show
    if len(text) <= limit:
        return text, False
    left = len(text) - limit
    return (
        text[:limit] + f"\n[… cut: {left:,} more characters (max {limit:,}: --max-chars or the "
        "snapshot_max_chars setting); narrow it with --ref or --selector]",
        True,
    )


def _fit(items: list[Any], limit: int) -> list[Any]:
    """The leading items whose JSON fits in `limit` characters (at least one)."""
    used = 0
    kept: list[Any] = []
    for item in items:
        used += len(json.dumps(item, ensure_ascii=False)) + 1
        if kept and used > limit:
            break
        kept.append(item)
    return kept


@command("extract", reads_only=True)
async def extract(call: Call, params: ExtractParams) -> ExtractResult:
    """Read the page or an element as text, attribute values, table rows or Markdown."""
    _check(params)
    tab = await call.tab(params.tab)
    if params.ref is not None:
        async with element(tab, params.ref, call.remaining_ms()) as target:
            found = await read_element(target.handle, params.kind, params.name)
    elif params.selector is not None:
        found = await read_selector(tab.page, params.selector, params.kind, params.name)
    else:
        found = await read_page(tab.page, params.kind, params.name)
    limit = params.max_chars or call.runtime.settings.snapshot_max_chars
    out: dict[str, Any] = {"kind": params.kind, "matched": found["matched"]}
    if params.kind == "attr":
        values: list[str | None] = found["values"]
        kept = _fit(values, limit)
        full = "\n".join("(none)" if v is None else v for v in values)
        text = "\n".join("(none)" if v is None else v for v in kept)
        out |= {"values": kept, "value": values[0] if len(values) == 1 else None}
        out |= {"truncated": len(kept) < len(values), "chars": len(full)}
    elif params.kind == "table":
        if not found["tables"]:
            raise SteadyhandError(
                ErrorCode.NOT_FOUND,
                "no table in "
                + ("the page" if params.ref is None and params.selector is None else "that scope"),
                "extract table reads <table> and role=table/grid elements; "
                "extract markdown shows what the page has",
            )
        headers: list[str] = found["headers"]
        rows = [dict(zip(headers, row, strict=True)) for row in found["rows"]]
        kept = _fit(rows, limit)
        text, cut = _cut_text(found["markdown"], limit)
        out |= {"headers": headers, "rows": kept, "rows_total": len(rows)}
        out |= {"truncated": cut or len(kept) < len(rows), "chars": len(found["markdown"])}
    else:
        text, cut = _cut_text(found["text"], limit)
        out |= {"truncated": cut, "chars": len(found["text"])}
    return ExtractResult(**await page_result(tab), text=text, **out)
