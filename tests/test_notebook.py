"""The quickstart notebook: rendered valid and without outputs; run end to end on a CPU with papermill (slow tier)."""

import ast
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import venv

import nbformat
import psutil
import pytest
from conftest import run

NOTEBOOK = "notebooks/quickstart.ipynb"
PACKAGES = {"image_classification": "shape_classifier", "text_classification": "review_classifier"}
DATASETS = {"image_classification": "shapes", "text_classification": "reviews"}
# Smoke settings, passed as papermill parameters: a tiny dataset, model and run, and a few of the project's tests.
SMOKE = {
    "CONFIG": "configs/smoke.gin",
    "GIN_PARAMS": ["Runtime.train_steps=6"],
    "PREPARE_ARGS": ["--num_train", "96", "--num_eval", "21"],
    "PYTEST_ARGS": ["-q", "tests/test_configs.py"],
    "TENSORBOARD": True,
    "TIMEOUT_S": 600,
}
CELL_TIMEOUT_S = 600
RUN_TIMEOUT_S = 1500


def read(project):
    return nbformat.read(project / NOTEBOOK, as_version=nbformat.NO_CONVERT)


def cell(notebook, cell_id):
    return next(c for c in notebook.cells if c.get("id") == cell_id)


def text_of(code_cell):
    """What a code cell printed: its stream and display outputs, as text."""
    parts = []
    for output in code_cell.outputs:
        parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


@pytest.mark.parametrize("task", PACKAGES)
def test_the_notebook_renders_valid_without_outputs_with_one_parameters_cell(tmp_path, render, task):
    project = render(tmp_path, task=task)
    notebook = read(project)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)
    tagged = [c.id for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    assert tagged == ["parameters"]
    package = PACKAGES[task]
    assert f'PACKAGE = "{package}"' in cell(notebook, "helper").source
    assert f'DATA_DIR = "data/{DATASETS[task]}"' in cell(notebook, "helper").source
    assert f"from {package} import serving" in cell(notebook, "predict").source
    parameters = cell(notebook, "parameters").source
    assert set(SMOKE) | {"SOURCE", "INSTALL", "MODEL_DIR", "INPUT"} <= set(re.findall(r"^(\w+) =", parameters, re.M))


def helper_cell(notebook):
    """The names the notebook's helper cell defines (its imports, PACKAGE, run, run_main): plain Python, no magics."""
    namespace = {}
    exec(cell(notebook, "helper").source, namespace)
    return namespace


def test_the_notebooks_commands_stream_stop_at_their_time_limit_and_raise_on_failure(tmp_path, render, capsys):
    run_command = helper_cell(read(render(tmp_path)))["run"]
    lines = []
    run_command(sys.executable, "-c", "print('one'); print('two')", timeout_s=60, lines=lines)
    assert lines == ["one", "two"] and "one\ntwo\n" in capsys.readouterr().out
    with pytest.raises(RuntimeError, match="Exit status 3: bad input"):
        run_command(sys.executable, "-c", "import sys; print('bad input'); sys.exit(3)", timeout_s=60)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="Stopped after 1 s"):
        run_command("sh", "-c", "sleep 60 & sleep 60", timeout_s=1)  # the shell and the process it started
    assert time.monotonic() - start < 20, "a process the command started kept the output open"


def test_the_notebook_finds_the_project_above_it_in_a_zip_and_in_an_uploaded_folder(tmp_path, render, monkeypatch):
    project = render(tmp_path / "out")
    notebook = read(project)
    namespace = helper_cell(notebook)
    tree = ast.parse(cell(notebook, "project").source)
    (definition,) = [node for node in tree.body if isinstance(node, ast.FunctionDef)]  # not the cell's other lines
    exec(compile(ast.Module([definition], []), NOTEBOOK, "exec"), namespace)
    find_project = namespace["find_project"]
    monkeypatch.chdir(project / "notebooks")
    assert find_project("") == project
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    # A zip with the project in a folder of its own, as GitHub's "Download ZIP" makes it.
    archive = shutil.make_archive(str(tmp_path / "upload" / "my-project"), "zip", project.parent, project.name)
    assert find_project(archive) == work / "my-project" / project.name
    assert find_project(str(project)) == work / project.name  # copied: Kaggle's inputs are read-only
    assert (project / "pyproject.toml").read_text() == (work / project.name / "pyproject.toml").read_text()
    with pytest.raises(FileNotFoundError, match="set SOURCE"):
        find_project("")


def kernel_venv(env_dir):
    """A fresh venv that sees this interpreter's packages (TensorFlow, papermill, ipykernel) after its own.

    A venv made from this one with --system-site-packages would see the base Python's packages instead, so a .pth
    file names this interpreter's site-packages: the notebook's `pip install -e .` has only the build backend to get.
    """
    venv.create(env_dir, symlinks=True)
    (site_packages,) = (env_dir / "lib").glob("python*/site-packages")
    (site_packages / "parent_environment.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return env_dir / "bin" / "python"


def stop(processes):
    """Terminates the processes (SIGTERM: TensorBoard then removes its info file), and kills any left after 30 s."""
    for p in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.terminate()
    _, alive = psutil.wait_procs(processes, timeout=30)
    for p in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()


def process_tree(process):
    """A process and everything it started that is still its descendant: papermill's kernel, the notebook's commands."""
    with contextlib.suppress(psutil.NoSuchProcess):
        return [process, *process.children(recursive=True)]
    return []


def tensorboards(logdir):
    """The TensorBoards serving `logdir`: %tensorboard starts one that outlives the kernel."""
    from tensorboard import manager

    found = []
    for info in manager.get_all():
        if info.logdir == logdir:
            with contextlib.suppress(psutil.NoSuchProcess):
                found.append(psutil.Process(info.pid))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("task", PACKAGES)
def test_the_notebook_runs_end_to_end_on_a_cpu_from_a_git_clone(tmp_path, render, task):
    # Another name than the defaults: this environment has the default project's package installed.
    project = render(tmp_path / "out", task=task, project_name="Notebook Check")
    run(["git", "init", "-q"], cwd=project)
    run(["git", "add", "-A"], cwd=project)
    run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-qm", "new"], cwd=project)
    python = kernel_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # The kernel runs papermill's Python, the venv's; %tensorboard runs the `tensorboard` script found on PATH.
    env["PATH"] = os.pathsep.join([str(python.parent), os.path.dirname(sys.executable), env.get("PATH", "")])
    work, model_dir = tmp_path / "work", str(tmp_path / "model")
    work.mkdir()
    parameters = tmp_path / "parameters.json"  # JSON is YAML, papermill's format for -f
    parameters.write_text(json.dumps({**SMOKE, "SOURCE": project.as_uri(), "MODEL_DIR": model_dir}))
    output, log = tmp_path / "run.ipynb", tmp_path / "papermill.log"
    command = [str(python), "-m", "papermill", str(project / NOTEBOOK), str(output), "-f", str(parameters)]
    command += ["--cwd", str(work), "--execution-timeout", str(CELL_TIMEOUT_S), "--no-progress-bar"]
    with open(log, "w") as log_file:
        process = psutil.Popen(command, env=env, stdout=log_file, stderr=subprocess.STDOUT)
        try:
            status = process.wait(timeout=RUN_TIMEOUT_S)
        except psutil.TimeoutExpired:
            status = "timed out"
        finally:
            stop(process_tree(process) + tensorboards(model_dir))
    assert status == 0, f"papermill: {status}\n{log.read_text()[-6000:]}"

    notebook = nbformat.read(output, as_version=4)
    assert all(c.execution_count for c in notebook.cells if c.cell_type == "code")
    assert not [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    clone = work / "notebook-check"
    assert f"The project is in {clone}." in text_of(cell(notebook, "project"))
    assert f"$ {python} -m pip install" in text_of(cell(notebook, "install")), "the kernel ran in the venv"
    assert "Hardware: cpu. Training config: configs/smoke.gin." in text_of(cell(notebook, "hardware"))
    tests = text_of(cell(notebook, "tests"))
    assert " passed" in tests and "Tests failed" not in tests, tests
    assert "Pre-flight: 0 of" in text_of(cell(notebook, "check"))
    assert os.path.isdir(os.path.join(model_dir, "export", "6")), "GIN_PARAMS reached training and export"
    class_names = (clone / "data" / DATASETS[task] / "labels.txt").read_text().splitlines()
    answer = re.search(r" -> (.+) \(\d+%\)$", text_of(cell(notebook, "predict")), re.M)
    assert answer and answer[1] in class_names, text_of(cell(notebook, "predict"))
