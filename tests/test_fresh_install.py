"""Slow tier: projects install into a fresh virtual environment and pass both their test tiers.

Each task and each accelerator answer is installed once: the accelerator changes only the Makefile's and the
README's default config, and a fresh install is the costliest test there is. Each task's slow tier runs once.
"""

import json
import os
import venv

import pytest
from conftest import run

from scaffold.hooks import ANSWERS_FILE

pytestmark = pytest.mark.slow

BOTH_TIERS = ("not slow", "slow")
PROJECTS = [
    ("image_classification", "tpu", BOTH_TIERS),
    ("text_classification", "gpu", BOTH_TIERS),
    ("image_classification", "cpu", ("not slow",)),
]


@pytest.mark.parametrize(("task", "accelerator", "tiers"), PROJECTS)
def test_project_installs_in_a_fresh_venv_and_passes_its_tests(tmp_path, render, task, accelerator, tiers):
    project = render(tmp_path / "out", task=task, accelerator=accelerator)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    run([python, "-m", "pip", "install", "-q", f"{project}[test]"], timeout=1200, env=env)
    # From outside the project, the installed package is imported, not the source tree: every subpackage is in it.
    package = json.loads((project / ANSWERS_FILE).read_text())["package_name"]
    run([python, "-c", f"import {package}.main, {package}.runtime.modes"], cwd=tmp_path, env=env)
    run([python, "-m", "ruff", "format", "--check", "."], cwd=project, env=env)
    run([python, "-m", "ruff", "check", "."], cwd=project, env=env)
    for tier in tiers:
        result = run(
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", tier], cwd=project, timeout=900, env=env
        )
        assert " passed" in result.stdout and "failed" not in result.stdout
