"""scaffold.escape: user text stays valid TOML and plain Markdown text."""

import pytest
import tomllib

from scaffold import escape

NASTY = [
    'quote " and backslash \\',
    "single ' quote",
    "unicode: Zürich, 東京, emoji 😀",
    "control \x00\x1f\x7f chars",
    "newline\nand\ttab\r",
    "{{ jinja }} {% block %} $HOME",
    "\u2028line separator",
]


@pytest.mark.parametrize("text", NASTY)
def test_toml_string_round_trips(text):
    assert tomllib.loads(f"key = {escape.toml_string(text)}")["key"] == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Shape Classifier", "Shape Classifier"),
        ("TPU-first v1.0", "TPU-first v1.0"),
        ("*bold* _it_ `code` [link](x) <b>", "\\*bold\\* \\_it\\_ \\`code\\` \\[link\\](x) \\<b\\>"),
        ("# not a heading", "\\# not a heading"),
        ("- not a list", "\\- not a list"),
        ("1. not a list", "1\\. not a list"),
        ("a \\ b | c & d", "a \\\\ b \\| c \\& d"),
    ],
)
def test_markdown_escapes_only_what_markdown_would_read(text, expected):
    assert escape.markdown_text(text) == expected
