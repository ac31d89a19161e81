"""Helpers for the template's tests: render through cookiecutter's API with a private config."""

import filecmp
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cookiecutter.main import cookiecutter

REPO_DIR = Path(__file__).resolve().parent.parent
QUESTIONS = {k: v for k, v in json.loads((REPO_DIR / "cookiecutter.json").read_text()).items() if not k.startswith("_")}


@pytest.fixture(scope="session")
def cookiecutter_config(tmp_path_factory):
    """A config that keeps cookiecutter's clones and replay files out of the home directory."""
    home = tmp_path_factory.mktemp("cookiecutter-home")
    path = home / "config.yaml"
    path.write_text(f"cookiecutters_dir: {home / 'clones'}\nreplay_dir: {home / 'replay'}\n")
    return str(path)


@pytest.fixture
def render(cookiecutter_config):
    def render(output_dir, template=str(REPO_DIR), **answers):
        """Generates a project with `answers` (the rest default) into output_dir; returns its path."""
        return Path(
            cookiecutter(
                template,
                no_input=True,
                extra_context=answers,
                output_dir=str(output_dir),
                config_file=cookiecutter_config,
            )
        )

    return render


def run(command, cwd=None, timeout=600, **kwargs):
    """Runs a command with a time bound; returns the CompletedProcess, raising with its output on failure."""
    result = subprocess.run(command, cwd=cwd, timeout=timeout, capture_output=True, text=True, **kwargs)
    if result.returncode:
        raise AssertionError(f"{command} exited {result.returncode}:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


PYTHON = sys.executable


def changed_files(left, right):
    """The relative paths of files that differ between two folders, or are in one only (caches left out)."""
    changed = []

    def compare(comparison, prefix=""):
        changed.extend(prefix + name for name in comparison.diff_files + comparison.left_only + comparison.right_only)
        for name, sub in comparison.subdirs.items():
            compare(sub, f"{prefix}{name}/")

    compare(filecmp.dircmp(left, right, ignore=["__pycache__"]))
    return sorted(changed)
