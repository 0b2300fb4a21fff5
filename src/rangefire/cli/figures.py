"""Tables of figures for people, whole at any terminal width: the one way every table of figures is narrowed.

A table is its key columns (what a row is: an end, N, the values varied) and its figure columns (percentages,
means, fractions). Where the whole table fits the terminal it is drawn boxed, as it is. Narrower, the tables lose
their side rules, headers take a line a word, the keys wrap (a name folds, a figure never does), and the figure
columns that do not fit beside the keys go in a table after, the keys repeated. A figure column too wide for the
terminal even alone (a share and its interval, a long fraction) is parted at its spaces and after its slashes,
each part whole, its header folded where it must, and the keys narrowed only if it still has no room."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rangefire.cli.common import out

if TYPE_CHECKING:
    from rich.box import Box
    from rich.text import Text

#: A key's word wider than this folds at a narrow terminal, rather than push its figures into another table.
KEY_WORD = 14


def print_figures(keys: Sequence[str], figures: Sequence[str], rows: Sequence[Sequence[Text | str]], *,
                  boxed: Box | None = None, key_justify: str = "left",
                  styles: Mapping[int, str] | None = None) -> None:
    """Print rows of ``len(keys)`` key cells then ``len(figures)`` figure cells (``keys`` and ``figures`` the
    headers) at the terminal's width, every figure whole (see the module). ``boxed`` is the box of a table that
    fits (heavy head by default), ``styles`` the style of a figure column by its index."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    width, nk = out.width, len(keys)
    cells = [[c if isinstance(c, Text) else Text(str(c)) for c in row] for row in rows]
    styles = styles or {}

    def lines(t: Text) -> int:
        return max((len(part) for part in t.plain.split("\n")), default=0)

    def words(t: Text | str) -> int:
        return max((len(word) for word in (t.plain if isinstance(t, Text) else t).split()), default=0)

    def column(i: int) -> list[Text]:
        return [row[i] for row in cells]

    whole = [max(len(h), *(lines(c) for c in column(i))) for i, h in enumerate((*keys, *figures))]
    if sum(whole) + 3 * len(whole) + 1 <= width:  # the whole table fits as it is
        t = Table(box=boxed or box.HEAVY_HEAD)
        for h in keys:
            t.add_column(h, overflow="fold", justify=key_justify)  # type: ignore[arg-type]
        for c, h in enumerate(figures):
            t.add_column(h, justify="right", no_wrap=True, style=styles.get(c))
        for row in cells:
            t.add_row(*row)
        out.print(t)
        return

    key_widths = [min(KEY_WORD, max(words(h), *(words(c) for c in column(i))) or 1) for i, h in enumerate(keys)]
    keys_width = sum(key_widths) + 3 * (nk - 1)
    figure_widths = [max(words(h), *(lines(c) for c in column(nk + c))) for c, h in enumerate(figures)]
    groups: list[list[int]] = [[]]
    room = width - keys_width
    for c, w in enumerate(figure_widths):  # each column its figures, a rule between and a space either side
        if groups[-1] and 3 + w > room:
            groups.append([])
            room = width - keys_width
        groups[-1].append(c)
        room -= 3 + w
    for k, group in enumerate(groups):
        if k:
            out.print()
        own_keys, parted, need = list(key_widths), False, 0
        if len(group) == 1 and keys_width + 3 + figure_widths[group[0]] > width:
            # alone and still too wide: its figures parted, each part whole; the keys fold to leave it room
            parted = True
            c = group[0]
            need = max(1, *(max((words(p) for p in _parts(cell).split("\n")), default=0)
                            for cell in column(nk + c)))  # its header, no figure, may fold
            own_keys = _narrowed(key_widths, width - 3 * (nk - 1) - 3 - need)
            need = max(need, min(words(figures[c]), width - sum(own_keys) - 3 * (nk - 1) - 3))
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        for i, h in enumerate(keys):
            t.add_column(Text(h, overflow="fold"), overflow="fold", width=own_keys[i], justify=key_justify)  # type: ignore[arg-type]
        for c in group:
            w = need if parted else figure_widths[c]
            t.add_column("\n".join(textwrap.wrap(figures[c], w)) or figures[c], justify="right", width=w,
                         no_wrap=not parted, overflow="fold", style=styles.get(c))
        for row in cells:
            t.add_row(*row[:nk], *((_parts(row[nk + c]) if parted else row[nk + c]) for c in group))
        out.print(t)


def _parts(cell: Text) -> Text:
    """A figure parted at its spaces and after its slashes, a part a line (``0.20% (0.1%-0.5%)``, ``256/6561``)."""
    from rich.text import Text

    pieces = [p for line in cell.split(" ") for p in line.split("/", include_separator=True)]
    return Text("\n").join(pieces) if pieces else cell


def _narrowed(widths: list[int], room: int) -> list[int]:
    """Key widths narrowed to ``room`` in all, the widest first, none under one."""
    widths = list(widths)
    while sum(widths) > room and max(widths) > 1:
        widths[widths.index(max(widths))] -= 1
    return widths
