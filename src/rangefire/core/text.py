"""Scenario text as people see it: names, sides and weapons come from files and may hold anything."""

from __future__ import annotations

import unicodedata

#: Characters shown written out rather than sent: controls (an escape sequence, a bell), format characters (a
#: right-to-left override), surrogates, private-use and unassigned code points, line and paragraph separators.
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def shown(value: object) -> str:
    r"""Text from a scenario as a terminal or a picture must show it: control and format characters written out
    as ``\x1b``, ``\u202e``, never acted on; everything else as it is.

    >>> shown("yumi [masterwork] <&>\x1b[2J\u202e")
    'yumi [masterwork] <&>\\x1b[2J\\u202e'
    """
    text = str(value)
    if text.isprintable():
        return text
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _HIDDEN else c for c in text)
