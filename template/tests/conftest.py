"""Shared fixtures: a tiny dataset written once per session, and main.py run in this process (TF imports once).

These tests hold for every classification task: they reach it through main.py, prepare_data and the runtime's contract,
and read what a classification batch and its metrics hold (a label, class names, accuracy).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

# TensorFlow's C++ INFO lines (one per cancelled iterator on 8 replicas) would bury pytest's output.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import pytest  # noqa: E402
from absl import flags  # noqa: E402

from {{ cookiecutter.package_name }} import main, prepare_data  # noqa: E402
from {{ cookiecutter.package_name }}.params import TaskParams  # noqa: E402
from {{ cookiecutter.package_name }}.runtime import distribute, records  # noqa: E402
from {{ cookiecutter.package_name }}.runtime.config import build, parse_config  # noqa: E402
from {{ cookiecutter.package_name }}.runtime.params import RuntimeParams  # noqa: E402
from {{ cookiecutter.package_name }}.task import Task  # noqa: E402

# Before TensorFlow starts: 8 logical CPUs let the replica tests share this process with the rest.
distribute.logical_cpus(8)

PROJECT_DIR = Path(__file__).resolve().parent.parent
SMOKE = str(PROJECT_DIR / "configs" / "smoke.gin")
NUM_EVAL = 21  # not a multiple of the smoke batch (8), so the last eval batch is padded
MAIN = [sys.executable, "-m", main.__name__]  # the command line of main.py, for tests that need a process of its own


@pytest.fixture(autouse=True)
def _in_project_dir(monkeypatch):
    monkeypatch.chdir(PROJECT_DIR)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("data")
    prepare_data.main(
        ["--output_dir", str(path), "--num_train", "96", "--num_eval", str(NUM_EVAL), "--num_shards", "2"]
    )
    return str(path)


@pytest.fixture(scope="session")
def trained_once(tmp_path_factory, data_dir):
    path = tmp_path_factory.mktemp("trained")
    run_main(path, data_dir, "--mode=train")
    return path


@pytest.fixture
def trained(tmp_path, trained_once):
    """A model_dir with the smoke config trained to step 4 (checkpoints 2 and 4): a copy each test may change."""
    return shutil.copytree(trained_once, tmp_path / "trained")


def setup(data_dir, *bindings, config=SMOKE):
    """(Runtime params, task, DatasetInfo) for a config and bindings, as main.py makes them."""
    parse_config([config], list(bindings))
    params = build(RuntimeParams)
    info = records.source_info(params, data_dir)
    return params, Task(build(TaskParams), info), info


def run_main(model_dir, data_dir, *args):
    """Runs main() like `python -m ... --gin_file=configs/smoke.gin --model_dir --data_dir args`; returns its status."""
    flags.FLAGS.unparse_flags()
    flags.FLAGS(["main", f"--gin_file={SMOKE}", f"--model_dir={model_dir}", f"--data_dir={data_dir}", *args])
    return main.main([])


def main_process(*args, timeout=300, env=None):
    """Runs main.py in a process of its own, from the project folder, with these flags; returns its result."""
    return subprocess.run([*MAIN, *args], cwd=PROJECT_DIR, capture_output=True, text=True, timeout=timeout, env=env)


def main_error(capsys, model_dir, data_dir, *args):
    """Runs main() expecting a failure the user can fix: returns the one `Error: ...` line it printed."""
    capsys.readouterr()
    assert run_main(model_dir, data_dir, *args) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, errors
    return errors[0]


def read(path):
    with open(os.path.join(path)) as f:
        return f.read()
