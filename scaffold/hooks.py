"""What cookiecutter's pre_gen and post_gen hooks do; the hook files only call these."""

import contextlib
import json
import shutil
import sys
from pathlib import Path

from scaffold import answers, solutions

ANSWERS_FILE = ".cookiecutter.json"
# Each task's own files (package modules, configs, tests) live in template/tasks/<task>/, laid out like the project.
TASKS_DIR = "tasks"

# Paths in a generated project that an option's value makes unnecessary; {package} is the package's folder.
REMOVED_BY = {
    ("license", "none"): ("LICENSE",),
    ("github_actions", "no"): (".github/workflows/tests.yml",),
    ("classroom", "no"): (
        "TEACHING.md",
        "exercises",
        "tests/exercises",
        "{package}/grade.py",
        ".github/workflows/classroom.yml",
    ),
}


def removed_paths(context):
    """Returns the project-relative paths that the answers in `context` do not need."""
    return [
        path.format(package=context["package_name"])
        for (key, value), paths in REMOVED_BY.items()
        if context.get(key) == value
        for path in paths
    ]


def pre_gen(context):
    """Refuses bad answers: prints one sentence per problem and returns a non-zero exit status."""
    found = answers.problems(context)
    for problem in found:
        print(f"Error: {problem}", file=sys.stderr)
    return 1 if found else 0


def post_gen(context, project_dir="."):
    """Moves the task's files into place, removes what unselected options do not need, saves the answers."""
    answers_given = {key: value for key, value in context.items() if not key.startswith("_")}
    Path(project_dir, ANSWERS_FILE).write_text(json.dumps(answers_given, indent=2, ensure_ascii=False) + "\n")
    tasks = Path(project_dir, TASKS_DIR)
    shutil.copytree(tasks / context["task"], project_dir, dirs_exist_ok=True)
    shutil.rmtree(tasks)
    for relative in removed_paths(context):
        path = Path(project_dir, relative)
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    for folder in (".github/workflows", ".github"):  # left empty when neither workflow was chosen
        with contextlib.suppress(OSError):
            Path(project_dir, folder).rmdir()
    if context.get("classroom") != "yes":
        # The solutions of the classroom kit's exercises are ordinary code; without the kit, only the markers go.
        solutions.strip_markers(project_dir)
    return 0
