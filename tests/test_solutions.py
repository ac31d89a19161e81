"""Solution markers and the student copy (scaffold/solutions.py, `python -m scaffold student`), on small trees."""

import ast
import os
import stat

import pytest

from scaffold import cli, solutions
from scaffold.solutions import Region

TEACHER_PY = """\
import math


def area(radius):
    \"\"\"The area of a circle.\"\"\"
    ### BEGIN SOLUTION (Exercise 4)
    return math.pi * radius**2
    ### END SOLUTION


class Model:
    def build(self):
        self.layers = []
        ### BEGIN SOLUTION (Exercise 8, TODO)
        self.layers.append("dense")
        ### END SOLUTION
        return self.layers
"""

STUDENT_PY = """\
import math


def area(radius):
    \"\"\"The area of a circle.\"\"\"
    raise NotImplementedError("Exercise 4: see exercises/04_network.md")


class Model:
    def build(self):
        self.layers = []
        # TODO(Exercise 8): see exercises/08_serving.md
        return self.layers
"""

KEPT_PY = """\
import math


def area(radius):
    \"\"\"The area of a circle.\"\"\"
    return math.pi * radius**2


class Model:
    def build(self):
        self.layers = []
        self.layers.append("dense")
        return self.layers
"""

TEACHER_GIN = """\
train.steps = 100
### BEGIN SOLUTION (Exercise 8, TODO)
train.optimizer = @Adam
### END SOLUTION
"""

EXERCISES = {4: "04_network.md", 8: "08_serving.md"}


def make_project(root, files=None):
    """A small teacher copy: a package with both stub forms, a gin config, exercises and the teacher's notes."""
    files = {
        "pkg/__init__.py": "",
        "pkg/model.py": TEACHER_PY,
        "configs/cpu.gin": TEACHER_GIN,
        "exercises/04_network.md": "# Exercise 4\n",
        "exercises/08_serving.md": "# Exercise 8\n",
        "README.md": "### BEGIN SOLUTION (Exercise 1)\nnot a marker in Markdown\n",
        "TEACHING.md": "Answers.\n",
        **(files or {}),
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def tree(root):
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*"))


def test_parse_finds_regions_with_their_indentation():
    assert solutions.parse(TEACHER_PY, "pkg/model.py") == [
        Region(begin=6, end=8, exercise=4, stub="raise", indent="    "),
        Region(begin=14, end=16, exercise=8, stub="todo", indent="        "),
    ]


def test_student_text_replaces_regions_by_stubs_that_parse():
    student = solutions.student_text(TEACHER_PY, "pkg/model.py", EXERCISES)
    assert student == STUDENT_PY
    ast.parse(student)
    assert solutions.student_text(TEACHER_GIN, "configs/cpu.gin", EXERCISES) == (
        "train.steps = 100\n# TODO(Exercise 8): see exercises/08_serving.md\n"
    )


def test_student_text_keeps_crlf_and_a_missing_final_newline():
    teacher = "def f():\r\n\t### BEGIN SOLUTION (Exercise 4)  \r\n\treturn 1\r\n\t### END SOLUTION"
    assert solutions.student_text(teacher, "f.py", EXERCISES) == (
        'def f():\r\n\traise NotImplementedError("Exercise 4: see exercises/04_network.md")'
    )


def test_keep_solutions_removes_only_the_marker_lines():
    assert solutions.keep_solutions(TEACHER_PY, "pkg/model.py") == KEPT_PY
    assert solutions.keep_solutions(TEACHER_GIN, "cpu.gin") == "train.steps = 100\ntrain.optimizer = @Adam\n"
    assert solutions.keep_solutions("x = 1\n", "a.py") == "x = 1\n"


@pytest.mark.parametrize(
    ("text", "path", "says"),
    [
        ("x = 1\n### BEGIN SOLUTION (Exercise 4)\ny = 2\n", "a.py", "a.py:2: BEGIN SOLUTION is never closed"),
        ("x = 1\ny = 2\n  ### END SOLUTION\n", "a.py", "a.py:3: END SOLUTION without a BEGIN SOLUTION"),
        (
            "### BEGIN SOLUTION (Exercise 4)\n### BEGIN SOLUTION (Exercise 5)\n### END SOLUTION\n### END SOLUTION\n",
            "a.py",
            "a.py:2: BEGIN SOLUTION inside the region opened on line 1",
        ),
        ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "a.py", "a.py:1: malformed marker '### BEGIN SOLUTION'"),
        ("### BEGIN SOLUTION (Exercise 0)\n### END SOLUTION\n", "a.py", "a.py:1: malformed marker"),
        ("### BEGIN SOLUTION (Exercise 4) here\n### END SOLUTION\n", "a.py", "a.py:1: malformed marker"),
        ("### BEGIN SOLUTION (Exercise 4)\n### END SOLUTION now\n", "a.py", "a.py:2: malformed marker"),
        (
            "x = 1\n### BEGIN SOLUTION (Exercise 4)\ny = 2\n### END SOLUTION\n",
            "configs/a.gin",
            "configs/a.gin:2: a .gin file takes only the TODO form; write '### BEGIN SOLUTION (Exercise 4, TODO)'.",
        ),
    ],
)
def test_parse_refuses_bad_markers_with_one_line_naming_path_and_line(text, path, says):
    with pytest.raises(ValueError) as raised:
        solutions.parse(text, path)
    assert str(raised.value).startswith(says)
    assert "\n" not in str(raised.value)


def test_student_text_refuses_a_missing_exercise_and_an_empty_block():
    teacher = "def f():\n    ### BEGIN SOLUTION (Exercise 3, TODO)\n    return 1\n    ### END SOLUTION\n\n\nx = 1\n"
    with pytest.raises(ValueError) as raised:
        solutions.student_text(teacher, "pkg/f.py", {3: "03_f.md"})
    assert str(raised.value).startswith("pkg/f.py:2: the student copy would not parse (")
    with pytest.raises(ValueError, match=r"^pkg/f.py:2: exercise 3 has no exercises/03_\*.md; add it"):
        solutions.student_text(teacher.replace(", TODO", ""), "pkg/f.py", {})


def test_write_student_copy_writes_stubs_and_leaves_out_teacher_and_generated_files(tmp_path):
    project = make_project(
        tmp_path / "teacher",
        {
            "run.sh": "#!/bin/sh\n",
            ".git/HEAD": "ref\n",
            "pkg/__pycache__/model.cpython-311.pyc": "",
            ".pytest_cache/x": "",
            ".ruff_cache/x": "",
            ".venv/lib/site.py": "",
            "pkg.egg-info/PKG-INFO": "",
            "build/lib/x.py": "",
            "runs/cpu/events": "",
            "data/shapes/train.tfrecord": "",
            "pkg/data/__init__.py": "",  # a subpackage called data is source, not data
        },
    )
    (project / "run.sh").chmod(0o755)
    (project / "pkg/model.py").chmod(0o700)  # transformed files keep their mode too
    summary = solutions.write_student_copy(project, tmp_path / "student")
    student = tmp_path / "student"
    assert summary == f"Removed the solutions to exercises 4, 8 from 2 files; student copy in {student}"
    assert tree(student) == [
        "README.md",
        "configs",
        "configs/cpu.gin",
        "exercises",
        "exercises/04_network.md",
        "exercises/08_serving.md",
        "pkg",
        "pkg/__init__.py",
        "pkg/data",
        "pkg/data/__init__.py",
        "pkg/model.py",
        "run.sh",
    ]
    assert (student / "pkg/model.py").read_text() == STUDENT_PY
    assert (
        student / "configs/cpu.gin"
    ).read_text() == "train.steps = 100\n# TODO(Exercise 8): see exercises/08_serving.md\n"
    assert (student / "README.md").read_text() == (project / "README.md").read_text()
    assert stat.S_IMODE((student / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((student / "pkg/model.py").stat().st_mode) == 0o700
    assert stat.S_IMODE(student.stat().st_mode) == stat.S_IMODE(project.stat().st_mode)
    assert sorted(os.listdir(tmp_path)) == ["student", "teacher"]
    assert (project / "pkg/model.py").read_text() == TEACHER_PY  # the teacher copy is untouched


def test_write_student_copy_into_an_empty_folder(tmp_path):
    (tmp_path / "student").mkdir()
    solutions.write_student_copy(make_project(tmp_path / "teacher"), tmp_path / "student")
    assert (tmp_path / "student/pkg/model.py").read_text() == STUDENT_PY


def test_write_student_copy_reports_every_problem_and_writes_nothing(tmp_path):
    project = make_project(
        tmp_path / "teacher",
        {
            "pkg/bad.py": "x = 1\n### END SOLUTION\n",
            "pkg/empty.py": "def f():\n    ### BEGIN SOLUTION (Exercise 4, TODO)\n    return 1\n    ### END SOLUTION\n",
            "pkg/missing.py": "### BEGIN SOLUTION (Exercise 6)\nx = 1\n### END SOLUTION\n",
            "configs/tpu.gin": "### BEGIN SOLUTION (Exercise 8)\nx = 1\n### END SOLUTION\n",
        },
    )
    with pytest.raises(ValueError) as raised:
        solutions.write_student_copy(project, tmp_path / "student")
    lines = str(raised.value).splitlines()
    assert [line.split(" ")[0] for line in lines] == [
        "configs/tpu.gin:1:",
        "pkg/bad.py:2:",
        "pkg/empty.py:2:",
        "pkg/missing.py:1:",
    ]
    assert "exercise 6 has no exercises/06_*.md" in lines[3]
    assert sorted(os.listdir(tmp_path)) == ["teacher"]


def test_write_student_copy_refuses_two_files_for_one_exercise(tmp_path):
    project = make_project(tmp_path / "teacher", {"exercises/04_other.md": ""})
    with pytest.raises(ValueError, match=r"^exercise 4 has several exercises/04_\*.md \(04_network.md, 04_other.md\)"):
        solutions.write_student_copy(project, tmp_path / "student")


def test_write_student_copy_refuses_a_project_without_markers(tmp_path):
    project = tmp_path / "plain"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg/model.py").write_text(KEPT_PY)
    with pytest.raises(ValueError) as raised:
        solutions.write_student_copy(project, tmp_path / "student")
    assert str(raised.value) == f"{project} has no solution markers: generate it with classroom=yes."
    assert sorted(os.listdir(tmp_path)) == ["plain"]


def test_write_student_copy_refuses_a_non_empty_or_inner_output(tmp_path):
    project = make_project(tmp_path / "teacher")
    (tmp_path / "full").mkdir()
    (tmp_path / "full/keep.txt").write_text("mine\n")
    with pytest.raises(ValueError, match="full exists and is not empty"):
        solutions.write_student_copy(project, tmp_path / "full")
    assert os.listdir(tmp_path / "full") == ["keep.txt"]
    with pytest.raises(ValueError, match="is inside the project"):
        solutions.write_student_copy(project, project / "build" / "student")
    assert not (project / "build").exists()


def test_strip_markers_keeps_solutions_in_place_and_changes_nothing_on_a_problem(tmp_path):
    project = make_project(tmp_path / "p")
    (project / "pkg/model.py").chmod(0o755)
    assert sorted(solutions.strip_markers(project)) == ["configs/cpu.gin", "pkg/model.py"]
    assert (project / "pkg/model.py").read_text() == KEPT_PY
    assert (project / "configs/cpu.gin").read_text() == "train.steps = 100\ntrain.optimizer = @Adam\n"
    assert stat.S_IMODE((project / "pkg/model.py").stat().st_mode) == 0o755

    broken = make_project(tmp_path / "q", {"pkg/z.py": "### BEGIN SOLUTION (Exercise 1)\n"})
    with pytest.raises(ValueError, match=r"^pkg/z.py:1: BEGIN SOLUTION is never closed"):
        solutions.strip_markers(broken)
    assert (broken / "pkg/model.py").read_text() == TEACHER_PY


def test_cli_student_prints_the_summary(tmp_path, capsys):
    project = make_project(tmp_path / "teacher")
    assert cli.main(["student", str(project), "-o", str(tmp_path / "student")]) == 0
    out = capsys.readouterr().out
    assert out == f"Removed the solutions to exercises 4, 8 from 2 files; student copy in {tmp_path / 'student'}\n"


def test_student_text_keeps_the_solutions_of_kept_exercises_without_their_markers():
    student = solutions.student_text(TEACHER_PY, "pkg/model.py", EXERCISES, keep={8})
    assert 'raise NotImplementedError("Exercise 4' in student
    assert '        self.layers.append("dense")\n        return self.layers' in student
    assert "SOLUTION" not in student and "TODO" not in student


def test_cli_student_keep_hands_out_exercises_in_stages(tmp_path, capsys):
    project = make_project(tmp_path / "teacher")
    assert cli.main(["student", str(project), "-o", str(tmp_path / "student"), "--keep", "8"]) == 0
    out = capsys.readouterr().out
    assert out == f"Removed the solutions to exercise 4 from 1 file; student copy in {tmp_path / 'student'}\n"


def test_cli_student_refuses_a_keep_without_a_region_and_an_unwritable_output(tmp_path, capsys):
    project = make_project(tmp_path / "teacher")
    assert cli.main(["student", str(project), "-o", str(tmp_path / "student"), "--keep", "9"]) == 2
    assert capsys.readouterr().err == "Error: --keep 9: no solution region belongs to those exercises.\n"
    (tmp_path / "file").write_text("")
    assert cli.main(["student", str(project), "-o", str(tmp_path / "file" / "student")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and err.count("\n") == 1 and "choose another output folder" in err


def test_cli_student_refuses_with_one_error_line(tmp_path, capsys):
    project = make_project(tmp_path / "teacher", {"pkg/bad.py": "### END SOLUTION\n"})
    assert cli.main(["student", str(project), "--output-dir", str(tmp_path / "student")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "Error: pkg/bad.py:1: END SOLUTION without a BEGIN SOLUTION before it; remove it or add the BEGIN.\n"
    )
    assert not (tmp_path / "student").exists()
