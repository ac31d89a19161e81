"""Escaping of user text for the languages it lands in (TOML strings, Markdown)."""

import re

_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
# Characters that start markup anywhere in a line, and those that do only at its start ("- x", "1. x", "+ x").
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>#|&~])")
_MARKDOWN_LINE_START = re.compile(r"^(\d*)([-+=.)])")


def toml_string(text):
    """Returns `text` as a TOML basic string, quotes included."""
    out = []
    for ch in text:
        if ch in _TOML_ESCAPES:
            out.append(_TOML_ESCAPES[ch])
        elif not ch.isprintable():
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def markdown_text(text):
    """Returns `text` with every character that Markdown could read as markup escaped by a backslash."""
    return _MARKDOWN_LINE_START.sub(r"\1\\\2", _MARKDOWN_INLINE.sub(r"\\\1", text))
