"""The hooks and the `scaffold new` command, through real cookiecutter runs."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import tomllib
from conftest import PYTHON, REPO_DIR, run
from cookiecutter.exceptions import FailedHookException

from scaffold import cli, escape
from scaffold.hooks import ANSWERS_FILE


@pytest.mark.parametrize(
    ("answers", "says"),
    [
        ({"package_name": "class"}, "package_name 'class' is a Python keyword"),
        ({"package_name": "tensorflow"}, "would shadow the module"),
        ({"package_name": "Shapes"}, "not a lowercase Python identifier"),
        ({"project_name": ""}, "project_name is empty"),
        ({"project_name": "!!!"}, "has no letters or digits"),
        ({"author_email": "nobody"}, "not an email address"),
    ],
)
def test_pre_gen_refuses_with_a_sentence_and_leaves_nothing(tmp_path, render, capfd, answers, says):
    with pytest.raises(FailedHookException):
        render(tmp_path, **answers)
    assert says in capfd.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_quotes_and_backslashes_in_answers_render_valid_files(tmp_path, render):
    name = 'Ada\'s "Quoted" \\ Net'
    description = 'Classifies "shapes" with a \\ backslash, a `tick` and *stars*'
    project = render(tmp_path, project_name=name, description=description, author_name='O"Brien \\ Co')
    pyproject = tomllib.loads((project / "pyproject.toml").read_text())
    assert pyproject["project"]["description"] == description
    assert pyproject["project"]["authors"] == [{"name": 'O"Brien \\ Co', "email": "you@example.com"}]
    assert project.name == "ada-s-quoted-net"
    readme = (project / "README.md").read_text()
    assert readme.startswith('# Ada\'s "Quoted" \\\\ Net\n') and "\\`tick\\` and \\*stars\\*" in readme
    run([PYTHON, "-m", "compileall", "-q", str(project)])


def test_empty_email_leaves_it_out(tmp_path, render):
    project = render(tmp_path, author_email="")
    assert tomllib.loads((project / "pyproject.toml").read_text())["project"]["authors"] == [{"name": "Your Name"}]


def test_git_url_renders_like_a_local_path(tmp_path, render):
    clone = tmp_path / "template.git"
    shutil.copytree(
        REPO_DIR, clone, symlinks=True, ignore=shutil.ignore_patterns(".git", ".venv", "build", "__pycache__")
    )
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "t"]):
        subprocess.run(["git", *command], cwd=clone, check=True, timeout=60)
    from_git = render(tmp_path / "from-git", template=f"file://{clone}", accelerator="cpu")
    from_path = render(tmp_path / "from-path", accelerator="cpu")
    diff = subprocess.run(["diff", "-r", str(from_git), str(from_path)], capture_output=True, text=True, timeout=60)
    assert diff.returncode == 0, diff.stdout


def test_scaffold_new_with_defaults_only(tmp_path):
    result = run([PYTHON, "-m", "scaffold", "new", "accelerator=cpu", "-o", str(tmp_path)], cwd=REPO_DIR)
    assert result.stdout.strip() == str(tmp_path / "shape-classifier")


def test_scaffold_new_generates_and_saved_answers_regenerate_it(tmp_path):
    first = run(
        [PYTHON, "-m", "scaffold", "new", "project_name=Cli Net", "license=none", "-o", str(tmp_path / "a")],
        cwd=REPO_DIR,
    )
    project = tmp_path / "a" / "cli-net"
    assert first.stdout.strip() == str(project)
    saved = json.loads((project / ANSWERS_FILE).read_text())
    assert saved["project_name"] == "Cli Net" and saved["package_name"] == "cli_net" and "_template" not in saved
    run(
        [PYTHON, "-m", "scaffold", "new", "--answers", str(project / ANSWERS_FILE), "-o", str(tmp_path / "b")],
        cwd=REPO_DIR,
    )
    diff = subprocess.run(
        ["diff", "-r", str(project), str(tmp_path / "b" / "cli-net")], capture_output=True, timeout=60
    )
    assert diff.returncode == 0, diff.stdout


@pytest.mark.parametrize(
    ("argument", "says"),
    [("colour=red", "'colour' is not a question"), ("package_name=def", "keyword"), ("nonsense", "key=value")],
)
def test_scaffold_new_refuses_bad_answers_before_rendering(tmp_path, argument, says):
    result = subprocess.run(
        [PYTHON, "-m", "scaffold", "new", argument, "-o", str(tmp_path)],
        cwd=REPO_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and says in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["Net {{ 7 * 7 }}", "Net {% if x %}", "Net a{{b", "Net }}{{"])
def test_scaffold_new_keeps_jinja_in_answers_as_text(tmp_path, cookiecutter_config, name):
    # Cookiecutter renders answers given without prompts as templates: "{{ 7 * 7 }}" would become 49.
    project = Path(cli.new([f"project_name={name}"], tmp_path, config_file=cookiecutter_config))
    assert (project / "README.md").read_text().startswith(f"# {escape.markdown_text(name)}\n")
    assert json.loads((project / ANSWERS_FILE).read_text())["project_name"] == name


def test_a_very_long_name_gets_a_slug_short_enough_for_a_folder(tmp_path, render):
    project = render(tmp_path, project_name="Classifier " * 60)  # 660 characters; a folder name stops at 255 bytes
    assert project.name == "classifier-classifier-classifier-classifier"
    assert len(project.name) <= 50
