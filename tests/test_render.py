"""Every combination of choices renders a complete, ruff-clean, compiling project with no Jinja left in it."""

import filecmp
import itertools
import re
from pathlib import Path

import pytest
import tomllib
from conftest import PYTHON, QUESTIONS, REPO_DIR, run
from cookiecutter.main import cookiecutter

from scaffold.answers import CHOICES, DATASETS
from scaffold.hooks import ANSWERS_FILE

KEYS = ("task", "license", "accelerator", "github_actions", "classroom")
COMBINATIONS = [dict(zip(KEYS, values, strict=True)) for values in itertools.product(*(CHOICES[k] for k in KEYS))]
# A long name is what users type: every line that holds the package name must still fit.
LONG = [{"task": task, "project_name": "Galaxy Zoo Morphology Classifier With Many Words"} for task in CHOICES["task"]]
RUNTIME = (
    "__init__",
    "benchmark",
    "config",
    "distribute",
    "errors",
    "export",
    "modes",
    "optimizer",
    "outputs",
    "params",
    "preflight",
    "records",
    "steps",
    "task",
    "trainer",
)
# The task's modules: the same names in every task (the seeds' layout), and those of its own.
TASK_MODULES = (
    "__init__",
    "classification",
    "input_pipeline",
    "main",
    "model",
    "params",
    "prepare_data",
    "preprocessing",
    "serving",
    "task",
)
EXERCISES = ("01_run", "02_static_shapes", "03_dynamic_shape", "04_network", "05_augmentation", "06_benchmark")
EXERCISES += ("07_tpu_batch", "08_export_predict")
# What classroom=yes adds: the exercises, their tests, the grade command, the Classroom workflow, teacher's notes.
CLASSROOM_FILES = {
    "TEACHING.md",
    ".github/workflows/classroom.yml",
    "{package}/grade.py",
    "exercises/README.md",
    "exercises/answers.py",
    "tests/exercises/exercise_answers.py",
    *(f"exercises/{exercise}.md" for exercise in EXERCISES),
    *(f"tests/exercises/test_{exercise}.py" for exercise in EXERCISES),
}
OWN_FILES = {
    "image_classification": ("{package}/shapes.py", "configs/resnet.gin"),
    "text_classification": ("{package}/reviews.py",),
}
CONFIGS = ("base", "cpu", "cpu_replicas", "gpu", "multiworker", "runtime", "smoke", "tpu")
TESTS = (
    "conftest",
    "task_bindings",
    "test_bad_input",
    "test_benchmark",
    "test_configs",
    "test_contract",
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
    "test_steps",
    "test_task",
)
# Words that belong to a task: the runtime names none of them. Attributes (SyntaxError.text) and the standard
# library's tokenize module, whose TokenError gin's parser raises, are Python's words, not a task's.
TASK_WORDS = re.compile(
    r"(?<![.\w])(?!tokenize\b)"
    r"(images?|texts?|pixels?|tokens?|tokeni[sz]\w*|vocabular\w*|words?|cnns?|convolution\w*)\b",
    re.IGNORECASE,
)


def common_files(package):
    return {
        ".gitignore",
        ANSWERS_FILE,
        "Makefile",
        "README.md",
        "notebooks/quickstart.ipynb",
        "pyproject.toml",
        *(f"configs/{config}.gin" for config in CONFIGS),
        *(f"{package}/runtime/{module}.py" for module in RUNTIME),
        *(f"{package}/{module}.py" for module in TASK_MODULES),
        *(f"tests/{test}.py" for test in TESTS),
    }


LICENSE_HEADINGS = {"MIT": "MIT License", "BSD-3-Clause": "BSD 3-Clause License", "Apache-2.0": "Apache License"}


def name(answers):
    return "-".join(answers.values()).replace(" ", "_")


@pytest.fixture(scope="module")
def projects(tmp_path_factory, cookiecutter_config):
    root = tmp_path_factory.mktemp("combinations")
    rendered = {}
    for answers in COMBINATIONS + LONG:
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
    package = "shape_classifier" if answers["task"] == "image_classification" else "review_classifier"
    expected = common_files(package) | {path.format(package=package) for path in OWN_FILES[answers["task"]]}
    if answers["license"] != "none":
        expected.add("LICENSE")
    if answers["github_actions"] == "yes":
        expected.add(".github/workflows/tests.yml")
    if answers["classroom"] == "yes":
        expected |= {path.format(package=package) for path in CLASSROOM_FILES}
    assert files(projects[1][name(answers)]) == expected


@pytest.mark.parametrize("answers", COMBINATIONS + LONG, ids=name)
def test_no_jinja_is_left_and_the_choices_landed(projects, answers):
    project = projects[1][name(answers)]
    for path in files(project):
        text = (project / path).read_text()
        # GitHub Actions' own expressions, ${{ ... }}, are copied without rendering.
        assert not re.search(r"(?<!\$)\{\{", text) and "{%" not in text, path
        assert "\n\n\n\n" not in text, f"blank-line debris in {path}"
    pyproject = tomllib.loads((project / "pyproject.toml").read_text())
    assert pyproject["project"].get("license", "none") == answers.get("license", "MIT")
    makefile = (project / "Makefile").read_text()
    assert all(makefile.count(f"\n{target}:") == 1 for target in ("install", "data", "train", "test", "tensorboard"))
    assert f"CONFIG ?= configs/{answers.get('accelerator', 'tpu')}.gin" in makefile
    assert f"DATA_DIR ?= data/{DATASETS[answers['task']]}\n" in makefile, "scaffold demo writes the data there"
    classroom = answers.get("classroom") == "yes"
    assert ("\ngrade:\n" in makefile) == classroom
    assert ('"points(n): ' in (project / "pyproject.toml").read_text()) == classroom
    if answers.get("license", "MIT") != "none":
        assert LICENSE_HEADINGS[answers.get("license", "MIT")] in (project / "LICENSE").read_text()[:200]


def test_every_combination_is_ruff_clean_and_compiles(projects):
    root = projects[0]
    run([PYTHON, "-m", "ruff", "format", "--check", str(root)], cwd=root)
    run([PYTHON, "-m", "ruff", "check", str(root)], cwd=root)
    run([PYTHON, "-m", "compileall", "-q", str(root)], cwd=root)


def test_the_runtime_is_byte_identical_in_every_task_and_names_no_task(projects):
    runtimes = {}
    for answers in COMBINATIONS:
        if all(answers[key] == QUESTIONS[key][0] for key in KEYS[1:]):  # each task with the other defaults
            project = projects[1][name(answers)]
            runtimes[answers["task"]] = next(project.glob("*/runtime"))
    (first, second), files = runtimes.values(), [f"{module}.py" for module in RUNTIME]
    match, mismatch, errors = filecmp.cmpfiles(first, second, files, shallow=False)
    assert (mismatch, errors) == ([], []) and len(match) == len(RUNTIME)
    for path in [*first.glob("*.py"), first.parent.parent / "configs" / "runtime.gin"]:
        found = TASK_WORDS.findall(path.read_text())
        assert not found, f"{path.relative_to(first.parent.parent)} names {sorted(set(found))}"
