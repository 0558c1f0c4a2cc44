# SPDX-License-Identifier: LGPL-2.1-or-later
"""The C source reading that tools/atomics.py and tools/include_graph.py
share: a C file's text without its comments and literals, line breaks
kept, so that what is left is code and every line keeps its number.
A module, not a command: both scripts import it from beside them."""


def strip_comments_and_strings(text):
    """The text without comments, string and character literals: a block
    comment becomes its line breaks (a space when it has none), a line
    comment nothing, a literal its two quotes with nothing between."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j) or " ")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)
