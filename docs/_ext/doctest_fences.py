"""A griffe extension for the API reference: the doctests in the library's docstrings (``>>>`` lines and the
output after them) shown as Python console blocks, not read as Markdown (where ``>`` starts a quotation and
``x["key"]`` a link)."""

from __future__ import annotations

from typing import Any

import griffe


def fenced(text: str) -> str:
    """Each run of doctest lines (from a ``>>>`` line to the next blank line) inside a ``pycon`` fence.

    >>> fenced("Text.\\n\\n>>> 1 + 1\\n2\\n\\nMore.").splitlines()
    ['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
    """
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if not inside and line.lstrip().startswith(">>>"):
            out.append("```pycon")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctests of every docstring griffe reads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fenced(obj.docstring.value)
