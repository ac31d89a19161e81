"""Every combination of choices renders a complete, ruff-clean, compiling project with no Jinja left in it."""

import itertools
from pathlib import Path

import pytest
import tomllib
from conftest import PYTHON, REPO_DIR, run
from cookiecutter.main import cookiecutter

from scaffold.answers import CHOICES
from scaffold.hooks import ANSWERS_FILE

KEYS = ("license", "accelerator", "github_actions")
COMBINATIONS = [dict(zip(KEYS, values, strict=True)) for values in itertools.product(*(CHOICES[k] for k in KEYS))]
MODULES = (
    "__init__",
    "benchmark",
    "config",
    "dataset",
    "distribute",
    "errors",
    "export",
    "input_pipeline",
    "main",
    "model",
    "outputs",
    "params",
    "preflight",
    "prepare_data",
    "preprocessing",
    "shapes",
    "trainer",
)
TESTS = (
    "conftest",
    "test_bad_input",
    "test_benchmark",
    "test_configs",
    "test_distribute",
    "test_input_pipeline",
    "test_kill_resume",
    "test_main",
    "test_multiworker",
    "test_preemption",
    "test_preflight",
    "test_prepare_data",
    "test_preprocessing",
    "test_replicas",
)
COMMON_FILES = {
    ".gitignore",
    ANSWERS_FILE,
    "Makefile",
    "README.md",
    "pyproject.toml",
    *(f"configs/{config}.gin" for config in ("base", "cpu", "cpu_replicas", "gpu", "multiworker", "smoke", "tpu")),
    *(f"shape_classifier/{module}.py" for module in MODULES),
    *(f"tests/{test}.py" for test in TESTS),
}

LICENSE_HEADINGS = {"MIT": "MIT License", "BSD-3-Clause": "BSD 3-Clause License", "Apache-2.0": "Apache License"}


def name(answers):
    return "-".join(answers.values())


@pytest.fixture(scope="module")
def projects(tmp_path_factory, cookiecutter_config):
    root = tmp_path_factory.mktemp("combinations")
    rendered = {}
    for answers in COMBINATIONS:
        output_dir = root / name(answers)
        path = cookiecutter(
            str(REPO_DIR),
            no_input=True,
            extra_context=answers,
            output_dir=str(output_dir),
            config_file=cookiecutter_config,
        )
        rendered[name(answers)] = Path(path)
    return root, rendered


def files(project):
    return {str(p.relative_to(project)) for p in project.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


@pytest.mark.parametrize("answers", COMBINATIONS, ids=name)
def test_renders_the_expected_files(projects, answers):
    expected = set(COMMON_FILES)
    if answers["license"] != "none":
        expected.add("LICENSE")
    if answers["github_actions"] == "yes":
        expected.add(".github/workflows/tests.yml")
    assert files(projects[1][name(answers)]) == expected


@pytest.mark.parametrize("answers", COMBINATIONS, ids=name)
def test_no_jinja_is_left_and_the_choices_landed(projects, answers):
    project = projects[1][name(answers)]
    for path in files(project):
        text = (project / path).read_text()
        assert "{{" not in text and "{%" not in text, path
        assert "\n\n\n\n" not in text, f"blank-line debris in {path}"
    pyproject = tomllib.loads((project / "pyproject.toml").read_text())
    assert pyproject["project"].get("license", "none") == answers["license"]
    assert f"CONFIG ?= configs/{answers['accelerator']}.gin" in (project / "Makefile").read_text()
    if answers["license"] != "none":
        assert LICENSE_HEADINGS[answers["license"]] in (project / "LICENSE").read_text()[:200]


def test_every_combination_is_ruff_clean_and_compiles(projects):
    root = projects[0]
    run([PYTHON, "-m", "ruff", "format", "--check", str(root)], cwd=root)
    run([PYTHON, "-m", "ruff", "check", str(root)], cwd=root)
    run([PYTHON, "-m", "compileall", "-q", str(root)], cwd=root)
