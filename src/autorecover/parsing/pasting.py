"""What pasting does to a log, undone before it is read.

A log copied into an issue, a forum post or a mail and copied out again into a bundle comes
back changed in small ways no program made: a word processor or a forum's editor turns
quotes into typographic ones (`Couldn’t`, `“unhandled system error”`), a web page's spaces
into no-break spaces, and a reply quotes the whole paste as a Markdown or mail block (`> `
before every line). The catalog's signatures are written in the programs' own characters, so
each of these can hide a line. The first two are mapped to ASCII: where a program prints
typographic quotes itself (GNU tools and gcc in a UTF-8 locale), its signatures take the ASCII
ones too (a test holds every signature's example to it). A quote marker is taken off only where
every line that is not blank carries one (a log of which only some lines begin with `>` is a
log that printed them). A terminal's colours copied through a page that dropped the escape
character leave their codes in the text (`[2m[36m(RayWorkerWrapper pid=7, ip=10.0.0.2)[0m`,
`[32mINFO[0m`): they split a prefix from its line and a word from its neighbour, and are taken
off where the text holds the reset code (`[0m`) that every coloured run ends with (`uncoloured`,
after a cut line is rejoined). A log taken from a page's HTML source rather than its text keeps
the page's character references (`&lt;class &#39;RuntimeError&#39;&gt;`): the five that HTML
escaping writes are mapped back.

Pure: text in, text out, the same number of lines; `adapters.bundles` applies `unpasted` to a
bundle's files before `unwrapping.rejoin` and `uncoloured` after it.
"""

from __future__ import annotations

import re

# typographic quotes and spaces a paste brings, and what the program printed
_PLAIN = str.maketrans(
    {
        "\u2018": "'",  # left single quotation mark
        "\u2019": "'",  # right single quotation mark
        "\u201c": '"',  # left double quotation mark
        "\u201d": '"',  # right double quotation mark
        "\u00a0": " ",  # no-break space
        "\u202f": " ",  # narrow no-break space
    }
)
_QUOTED = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)
# Select Graphic Rendition codes (ECMA-48: colours, bold, dim, reset) without their ESC: one
# parameter of one or two digits (so `[512m` is left alone) or up to five (`38;5;208`); a
# whole sequence (ESC kept) is the scanner's to take off (parsing.chunks.strip_ansi)
_SGR_REMNANT = re.compile(r"(?<!\x1b)\[(?:\d{1,2}|(?:\d{1,3};){1,4}\d{1,3})m")
# what `html.escape` writes (and the other spellings of the same five), each to its character;
# no numeric reference in general (`&#10;` would add a line)
_REFERENCES = re.compile(r"&(lt|gt|quot|apos|amp|#39|#x27|#34|#x22);")
_CHARACTERS = {"lt": "<", "gt": ">", "quot": '"', "apos": "'", "amp": "&", "#39": "'"}
_CHARACTERS |= {"#x27": "'", "#34": '"', "#x22": '"'}
_PAGE_SIGNS = ("&lt;", "&gt;", "&quot;", "&#39;", "&#x27;")  # `&amp;` alone is no sign


def unpasted(text: str) -> str:
    """`text` with what a paste did to it undone (see the module); `text` itself if nothing."""
    out = (
        text.translate(_PLAIN)
        if any(c in text for c in "\u2018\u2019\u201c\u201d\u00a0\u202f")
        else text
    )
    if "&" in out and any(ref in out for ref in _PAGE_SIGNS):
        out = _REFERENCES.sub(lambda m: _CHARACTERS[m.group(1)], out)
    lines = [line for line in out.split("\n") if line.strip()]
    if lines and all(line.lstrip().startswith(">") for line in lines):
        out = _QUOTED.sub("", out)
    return out


def uncoloured(text: str) -> str:
    """`text` without colour codes whose escape character a page dropped (see the module);
    `text` itself if it has no reset code. Applied after `unwrapping.rejoin`: a width that cut
    the paste counted the codes, so the pieces' lengths are measured with them."""
    return _SGR_REMNANT.sub("", text) if "[0m" in text else text
