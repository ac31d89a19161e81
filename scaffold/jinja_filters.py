"""Jinja filters and globals for the template, registered through `_extensions` in cookiecutter.json.

Jinja2 comes with cookiecutter, so this is the one module of scaffold that needs more than the standard library.
"""

from pathlib import Path

from jinja2.ext import Extension

from scaffold import escape

# Resolved at import, while the working directory is still the user's: cookiecutter's `_repo_dir` is relative when
# the template is a local path, and hooks run inside the new project, where that relative path means nothing.
REPO_DIR = str(Path(__file__).resolve().parent.parent)


class EscapeExtension(Extension):
    """Adds the `toml_string` and `markdown` filters and the `template_repo_dir` global."""

    def __init__(self, environment):
        super().__init__(environment)
        environment.filters["toml_string"] = escape.toml_string
        environment.filters["markdown"] = escape.markdown_text
        environment.globals["template_repo_dir"] = REPO_DIR
