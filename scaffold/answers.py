"""Validation of the answers given to the template's questions.

Each check returns one sentence that says what to change, so that pre_gen and `python -m scaffold new` can refuse
bad answers before anything is written.
"""

import keyword
import re
import sys

CHOICES = {
    "task": ("image_classification", "text_classification"),
    "license": ("MIT", "Apache-2.0", "BSD-3-Clause", "none"),
    "accelerator": ("tpu", "gpu", "cpu"),
    "github_actions": ("yes", "no"),
    "classroom": ("no", "yes"),
}

# Each task's embedded dataset, by the name of its folder under data/ (cookiecutter.json's __dataset; a test checks).
DATASETS = {"image_classification": "shapes", "text_classification": "reviews"}

# Text answers that must fit on one line: they land in a TOML string, a Markdown heading or a licence line.
SINGLE_LINE = ("project_name", "description", "author_name", "author_email")

# Names a generated package must not take: importing the project would then import the wrong module.
PROJECT_IMPORTS = frozenset(
    {
        "absl",
        "configs",
        "conftest",
        "exercise_answers",
        "gin",
        "google",
        "h5py",
        "keras",
        "main",
        "ml_dtypes",
        "numpy",
        "pytest",
        "setuptools",
        "task_bindings",
        "tensorboard",
        "tensorflow",
        "test",
        "tests",
    }
)

MAX_NAME_LENGTH = 50
_SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_PACKAGE = re.compile(r"[a-z_][a-z0-9_]*")
_EMAIL = re.compile(r"[^@\s\"'<>,;]+@[^@\s\"'<>,;]+\.[a-zA-Z]{2,}")


def problems(answers):
    """Returns one sentence per problem with `answers` (question -> answer, any subset); empty when all is well."""
    found = []
    for key, allowed in CHOICES.items():
        if key in answers and answers[key] not in allowed:
            found.append(f"{key} must be one of {', '.join(allowed)}; got {answers[key]!r}.")
    for key in SINGLE_LINE:
        text = answers.get(key, "")
        if any(not ch.isprintable() for ch in text):
            found.append(f"{key} must be one line of printable text; remove the line breaks or control characters.")
    name = answers.get("project_name", "Unnamed")  # only the answers given are judged; defaults are good
    if not name.strip():
        found.append("project_name is empty; give the project a name, for example project_name='Shape Classifier'.")
    elif not any(ch.isalnum() for ch in name):
        found.append(f"project_name {name!r} has no letters or digits to make folder and package names from; add some.")
    elif "project_slug" in answers:
        found.extend(_slug_problems(answers["project_slug"]))
    if "package_name" in answers:
        found.extend(_package_problems(answers["package_name"]))
    email = answers.get("author_email", "")
    if email and not _EMAIL.fullmatch(email):
        found.append(
            f"author_email {email!r} is not an email address; give one like ada@example.com, or leave it empty."
        )
    return found


def _slug_problems(slug):
    if not _SLUG.fullmatch(slug):
        return [
            f"project_slug {slug!r} must be lowercase letters and digits joined by single hyphens; "
            "pick a project_name with letters in it, or set project_slug='my-project'."
        ]
    if len(slug) > MAX_NAME_LENGTH:
        return [f"project_slug is {len(slug)} characters long; set a project_slug of at most {MAX_NAME_LENGTH}."]
    return []


def _package_problems(name):
    fix = "set package_name to another lowercase identifier, for example package_name='shapes_classifier'."
    if not _PACKAGE.fullmatch(name):
        return [f"package_name {name!r} is not a lowercase Python identifier; {fix}"]
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return [f"package_name {name!r} is a Python keyword; {fix}"]
    if name in PROJECT_IMPORTS or name in sys.stdlib_module_names:
        return [f"package_name {name!r} would shadow the module of that name that the project imports; {fix}"]
    if len(name) > MAX_NAME_LENGTH:
        return [f"package_name is {len(name)} characters long; keep it to {MAX_NAME_LENGTH} or fewer."]
    return []
