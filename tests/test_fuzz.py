"""Slow: arbitrary text in the free-text answers either renders a valid project or is refused cleanly."""

import subprocess
from pathlib import Path

import pytest
import tomllib
from conftest import PYTHON
from cookiecutter.exceptions import FailedHookException
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scaffold import cli

pytestmark = pytest.mark.slow

TRICKY = [
    '"',
    "'",
    "\\",
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "$",
    "`",
    "\n",
    "\t",
    "\x00",
    "é",
    "東京",
    "😀",
    "\u2028",
    "#",
    "*",
    "<",
]
text = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(TRICKY) | st.text(max_size=5), max_size=12).map("".join),
    st.text(min_size=300, max_size=3000),
)
# One-line printable text (what the answers accept) is drawn as often as anything, so that many examples get as far
# as rendering: quotes, backslashes, braces, unicode and very long strings included.
printable = st.characters(exclude_categories=["Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"], include_characters=" ")
line = st.lists(st.sampled_from([t for t in TRICKY if t.isprintable()]) | st.text(printable, max_size=8), max_size=10)
line = st.one_of(line.map("".join), st.text(printable, min_size=300, max_size=3000))
plausible = st.tuples(st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,20}", fullmatch=True), line).map(" ".join)


EXAMPLES = {"rendered": 0, "refused": 0}

# Imports the package's light modules (no TensorFlow) and parses every shipped config, binding the runtime's and
# the task's hyperparameters; the network's configurables live in model.py, which needs TensorFlow.
SMOKE = """
import glob, gin, importlib, sys
importlib.import_module(sys.argv[1] + ".params")
for path in sorted(glob.glob("configs/*.gin")):
    gin.clear_config()
    gin.parse_config_files_and_bindings([path], [], skip_unknown=True)
"""


def render_or_refuse(tmp_path_factory, cookiecutter_config, capfd, **given_answers):
    """Generates a project from the answers; checks that it is valid, or that it was refused and left nothing."""
    out = tmp_path_factory.mktemp("fuzz")
    capfd.readouterr()
    try:
        project = Path(
            cli.new([f"{key}={value}" for key, value in given_answers.items()], out, config_file=cookiecutter_config)
        )
    except ValueError as error:  # refused by scaffold before rendering
        sentences = [str(error)]
    except FailedHookException:  # refused by pre_gen (a derived name), which says why on stderr
        sentences = [line for line in capfd.readouterr().err.splitlines() if line.startswith("Error: ")]
    else:
        sentences = None
    if sentences is not None:
        EXAMPLES["refused"] += 1
        assert list(out.iterdir()) == [], "a refused answer leaves no directory"
        assert sentences and all(s.endswith(".") for s in sentences), sentences
        return
    EXAMPLES["rendered"] += 1
    pyproject = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["description"] == given_answers["description"]
    for path in project.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    package = pyproject["tool"]["setuptools"]["packages"]["find"]["include"][0]
    subprocess.run([PYTHON, "-c", SMOKE, package], cwd=project, check=True, timeout=120, capture_output=True)


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(project_name=plausible | line, description=line, author_name=line, author_email=st.emails())
def test_one_line_answers_with_quotes_braces_unicode_and_length(
    tmp_path_factory, cookiecutter_config, capfd, **answers
):
    render_or_refuse(tmp_path_factory, cookiecutter_config, capfd, **answers)


@FUZZ
@given(project_name=text, description=text, author_name=text, author_email=text)
def test_any_text_at_all(tmp_path_factory, cookiecutter_config, capfd, **answers):
    render_or_refuse(tmp_path_factory, cookiecutter_config, capfd, **answers)


def test_report_how_many_examples_ran():
    print(f"fuzz examples: {EXAMPLES['rendered']} rendered, {EXAMPLES['refused']} refused")
    assert sum(EXAMPLES.values()) >= 300 and EXAMPLES["rendered"] >= 75
