"""Solution regions in a teacher's copy of a project, and the student copy made from it.

A region is marked nbgrader-style, each marker a whole line of a .py or .gin file:

    ### BEGIN SOLUTION (Exercise 4)        -> raise NotImplementedError("Exercise 4: see exercises/04_network.md")
    ### BEGIN SOLUTION (Exercise 4, TODO)  -> # TODO(Exercise 4): see exercises/04_network.md
    ### END SOLUTION

In the student copy each region, markers included, becomes its stub line at the BEGIN marker's indentation. Without
the classroom kit only the marker lines go and the solutions stay. Every refusal is a ValueError with one line per
problem, each naming `path:line` and what to fix.
"""

import ast
import fnmatch
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

MARKED_SUFFIXES = (".py", ".gin")
RAISE, TODO = "raise", "todo"
EXERCISES_DIR = "exercises"
TEACHER_ONLY = "TEACHING.md"
# Never part of a student copy, wherever they are: version control, caches, environments, install metadata.
EXCLUDED = (
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".tox",
    ".ipynb_checkpoints",
    ".venv",
    "venv",
    "*.egg-info",
)
# Outputs of running the project (build/, runs/ model dirs, data/ TFRecords), at its top level only: a package or
# subpackage may be called data or build, and must not vanish from the student copy.
EXCLUDED_AT_TOP = ("build", "dist", "runs", "data", TEACHER_ONLY)  # dist/: its wheels would hold the solutions

_BEGIN = re.compile(r"(?P<indent>[ \t]*)### BEGIN SOLUTION \(Exercise (?P<n>[1-9][0-9]*)(?P<todo>, TODO)?\)[ \t]*")
_END = re.compile(r"[ \t]*### END SOLUTION[ \t]*")
_GRAMMAR = "'### BEGIN SOLUTION (Exercise N)', '### BEGIN SOLUTION (Exercise N, TODO)' or '### END SOLUTION'"


class Region(NamedTuple):
    """One solution region: its marker lines (1-based), exercise number, stub kind (RAISE or TODO), indentation."""

    begin: int
    end: int
    exercise: int
    stub: str
    indent: str


def _lines(text):
    # Split on "\n" only: str.splitlines also splits on form feeds and other characters Python counts within a line.
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _parse(text, path):
    """Returns (regions, problems) for the markers in `text`."""
    regions, problems, open_ = [], [], []  # open_: the BEGIN lines not yet closed, as (line, match or None)
    for number, line in enumerate(_lines(text), 1):
        content = line.rstrip("\r\n")
        stripped = content.lstrip()
        if stripped.startswith("### BEGIN SOLUTION"):
            match = _BEGIN.fullmatch(content)
            if not match:
                problems.append(f"{path}:{number}: malformed marker {stripped.rstrip()!r}; write {_GRAMMAR} alone.")
            elif open_:
                problems.append(
                    f"{path}:{number}: BEGIN SOLUTION inside the region opened on line {open_[0][0]}; "
                    "close that one with '### END SOLUTION' first."
                )
            elif path.endswith(".gin") and not match["todo"]:
                problems.append(
                    f"{path}:{number}: a .gin file takes only the TODO form; "
                    f"write '### BEGIN SOLUTION (Exercise {match['n']}, TODO)'."
                )
            # Even a refused BEGIN opens a region, so that its END is not reported as a second problem.
            open_.append((number, match))
        elif stripped.startswith("### END SOLUTION"):
            well_formed = _END.fullmatch(content)
            if not well_formed:
                problems.append(f"{path}:{number}: malformed marker {stripped.rstrip()!r}; write {_GRAMMAR} alone.")
            if not open_:
                if well_formed:
                    problems.append(
                        f"{path}:{number}: END SOLUTION without a BEGIN SOLUTION before it; remove it or add the BEGIN."
                    )
                continue
            begin, match = open_.pop()
            if not open_ and match:
                stub = TODO if match["todo"] else RAISE
                regions.append(Region(begin, number, int(match["n"]), stub, match["indent"]))
    for begin, _ in open_:
        problems.append(f"{path}:{begin}: BEGIN SOLUTION is never closed; add '### END SOLUTION' after the solution.")
    return regions, problems


def parse(text, path):
    """Returns the solution regions of `text`, in order; raises ValueError naming `path:line` of each bad marker.

    Args:
      text: the content of a .py or .gin file.
      path: its path relative to the project, for messages; a name ending in .gin allows only the TODO form.
    """
    regions, problems = _parse(text, path)
    if problems:
        raise ValueError("\n".join(problems))
    return regions


def stub_line(region, exercise_file):
    """The line that stands for `region` in the student copy, indented like its BEGIN marker, without line break."""
    if region.stub == TODO:
        return f"{region.indent}# TODO(Exercise {region.exercise}): see {EXERCISES_DIR}/{exercise_file}"
    return (
        f'{region.indent}raise NotImplementedError("Exercise {region.exercise}: see {EXERCISES_DIR}/{exercise_file}")'
    )


def student_text(text, path, exercise_files, keep=frozenset()):
    """Returns `text` with each solution region replaced by its stub line.

    Args:
      text: the content of a .py or .gin file.
      path: its path relative to the project, for messages.
      exercise_files: exercise number -> the name of its file in exercises/, e.g. {4: "04_network.md"}.
      keep: the numbers of exercises whose solutions stay (their markers go), e.g. to hand exercises out in stages.

    Raises:
      ValueError: as parse does; also for an exercise missing from `exercise_files`, and for a .py file whose student
        copy does not parse (a TODO stub that leaves a block empty).
    """
    regions = parse(text, path)
    lines, problems = _lines(text), []
    out, stubs = [], []  # stubs: (student line of the stub, region)
    last = 0
    for region in regions:
        out += lines[last : region.begin - 1]
        if region.exercise in keep:
            out += lines[region.begin : region.end - 1]
            last = region.end
            continue
        name = exercise_files.get(region.exercise)
        if name is None:
            problems.append(
                f"{path}:{region.begin}: exercise {region.exercise} has no "
                f"{EXERCISES_DIR}/{region.exercise:02d}_*.md; add it, or fix the exercise number."
            )
            name = f"{region.exercise:02d}_.md"  # a stand-in, so that the parse check below still runs
        ending = lines[region.end - 1][len(lines[region.end - 1].rstrip("\r\n")) :]  # the END line's, if any
        out.append(stub_line(region, name) + ending)
        stubs.append((len(out), region))
        last = region.end
    out += lines[last:]
    student = "".join(out)
    if path.endswith(".py") and regions:
        problems += _parse_problems(text, student, path, stubs)
    if problems:
        raise ValueError("\n".join(problems))
    return student


def _parse_problems(teacher, student, path, stubs):
    """Says where a student copy that does not parse went wrong: at the last stub before the error."""
    try:
        ast.parse(teacher, filename=path)
    except SyntaxError as error:
        return [f"{path}:{error.lineno}: does not parse ({error.msg}); fix the teacher copy."]
    try:
        ast.parse(student, filename=path)
    except SyntaxError as error:
        before = [region for line, region in stubs if line <= (error.lineno or 1)]
        region = before[-1] if before else stubs[0][1]
        return [
            f"{path}:{region.begin}: the student copy would not parse ({error.msg}); keep a statement in the block "
            "once the region is gone: use the raise form, or put `pass` before the BEGIN marker."
        ]
    return []


def keep_solutions(text, path):
    """Returns `text` without its marker lines, the solutions kept; raises ValueError as parse does."""
    markers = {line for region in parse(text, path) for line in (region.begin, region.end)}
    return "".join(line for number, line in enumerate(_lines(text), 1) if number not in markers)


def _excluded(relative):
    parts = relative.parts
    if any(fnmatch.fnmatchcase(part, pattern) for part in parts for pattern in EXCLUDED):
        return True
    return len(parts) == 1 and parts[0] in EXCLUDED_AT_TOP


def _walk(project_dir):
    """Yields (relative path, is_dir) of what a copy of the project holds, parents before children."""
    for root, dirs, files in os.walk(project_dir):
        relative_root = Path(root).relative_to(project_dir)
        kept = []
        for name in sorted(dirs):
            relative = relative_root / name
            if _excluded(relative) and not (
                name in EXCLUDED_AT_TOP and (Path(root, name, "__init__.py")).is_file()  # a package: kept
            ):
                continue
            yield relative, not Path(root, name).is_symlink()
            if not Path(root, name).is_symlink():
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if not _excluded(relative_root / name):
                yield relative_root / name, False


def _marked_files(project_dir):
    """Yields (relative path, text or None, problem or None) for each .py and .gin file of the project."""
    for relative, is_dir in _walk(project_dir):
        path = project_dir / relative
        if is_dir or path.is_symlink() or path.suffix not in MARKED_SUFFIXES:
            continue
        try:
            with open(path, encoding="utf-8", newline="") as file:  # newline="": "\r\n" stays as it is
                yield relative, file.read(), None
        except UnicodeDecodeError:
            yield relative, None, f"{relative.as_posix()}:1: not UTF-8 text; save it as UTF-8."


def _write(path, text, mode_from):
    with open(path, "w", encoding="utf-8", newline="") as file:
        file.write(text)
    shutil.copymode(mode_from, path)


def _parsed_files(project_dir):
    """([(relative path, text, regions)] of the project's .py and .gin files, [one line per problem])."""
    files, problems = [], []
    for relative, text, problem in _marked_files(project_dir):
        if problem:
            problems.append(problem)
            continue
        try:
            files.append((relative, text, parse(text, relative.as_posix())))
        except ValueError as error:
            problems.append(str(error))
    return files, problems


def strip_markers(project_dir):
    """Removes the marker lines from every .py and .gin file of a project, in place, keeping the solutions.

    All files are checked before any is changed: on a bad marker it raises ValueError and changes nothing.
    Returns the relative paths (POSIX strings) of the files changed.
    """
    project_dir = Path(project_dir)
    files, problems = _parsed_files(project_dir)
    if problems:
        raise ValueError("\n".join(problems))
    changed = {relative: keep_solutions(text, relative.as_posix()) for relative, text, regions in files if regions}
    for relative, text in changed.items():
        _write(project_dir / relative, text, project_dir / relative)
    return [relative.as_posix() for relative in changed]


def _exercise_file(project_dir, number):
    """Returns (file name or None, problem or None) for exercise `number`."""
    folder = project_dir / EXERCISES_DIR
    names = sorted(path.name for path in folder.glob(f"{number:02d}_*.md") if path.is_file()) if folder.is_dir() else []
    if len(names) > 1:
        return None, f"exercise {number} has several {EXERCISES_DIR}/{number:02d}_*.md ({', '.join(names)}); keep one."
    return (names[0], None) if names else (None, None)


def _check_output(project_dir, output_dir):
    if not project_dir.is_dir():
        raise ValueError(f"{project_dir} is not a folder; give the teacher copy of a generated project.")
    if output_dir == project_dir or project_dir in output_dir.parents:
        raise ValueError(f"{output_dir} is inside the project {project_dir}; write the student copy elsewhere.")
    if output_dir.is_symlink() or (output_dir.exists() and not output_dir.is_dir()):
        raise ValueError(f"{output_dir} exists and is not a folder; choose another output folder.")
    if output_dir.is_dir() and any(output_dir.iterdir()):
        raise ValueError(f"{output_dir} exists and is not empty; choose another output folder or remove it.")


def write_student_copy(project_dir, output_dir, keep=frozenset()):
    """Writes the student copy of a classroom project into `output_dir`; returns a one-line summary.

    The project is copied without EXCLUDED and EXCLUDED_AT_TOP (TEACHING.md is the teacher's), executable bits kept,
    each solution region of its .py and .gin files replaced by its stub, but for the exercises in `keep`. Everything
    is checked first, and the copy is written into a temporary folder next to `output_dir` that is renamed into place
    at the end, so a refusal or a failure leaves nothing behind.

    Raises:
      ValueError: one line per problem: bad markers, missing exercise files, student .py files that do not parse; or
        the project has no markers, or `output_dir` is not empty or lies inside the project.
    """
    project_dir, output_dir = Path(project_dir).resolve(), Path(output_dir).resolve()
    _check_output(project_dir, output_dir)
    files, problems = _parsed_files(project_dir)
    files = [(relative, text, regions) for relative, text, regions in files if regions]
    if not files and not problems:
        raise ValueError(f"{project_dir} has no solution markers: generate it with classroom=yes.")
    unknown = sorted(set(keep) - {region.exercise for _, _, regions in files for region in regions})
    if unknown:
        problems.append(f"--keep {' '.join(map(str, unknown))}: no solution region belongs to those exercises.")

    exercise_files = {}
    for number in sorted({region.exercise for _, _, regions in files for region in regions}):
        name, problem = _exercise_file(project_dir, number)
        if problem:
            problems.append(problem)
        elif name:
            exercise_files[number] = name
    students = {}
    for relative, text, _ in files:
        try:
            students[relative] = student_text(text, relative.as_posix(), exercise_files, keep)
        except ValueError as error:
            problems.append(str(error))
    if problems:
        raise ValueError("\n".join(problems))

    output_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output_dir.name}.partial-", dir=output_dir.parent))
    try:
        dirs = [Path()]
        for relative, is_dir in _walk(project_dir):
            source, target = project_dir / relative, staging / relative
            if source.is_symlink():
                os.symlink(os.readlink(source), target)
            elif is_dir:
                target.mkdir()
                dirs.append(relative)
            elif relative in students:
                _write(target, students[relative], source)
            else:
                shutil.copy2(source, target)
        for relative in reversed(dirs):  # last: a read-only folder must not stop its own files being written
            shutil.copymode(project_dir / relative, staging / relative)
        staging.rename(output_dir)  # replaces an empty folder of that name
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    removed = [(relative, {r.exercise for r in regions} - set(keep)) for relative, _, regions in files]
    exercises = sorted(set().union(*(numbers for _, numbers in removed)))
    if not exercises:
        return f"Kept every solution (--keep); student copy in {output_dir}"
    touched = sum(1 for _, numbers in removed if numbers)
    which = f"exercise{'s' if len(exercises) > 1 else ''} {', '.join(map(str, exercises))}"
    count = f"{touched} file{'s' if touched > 1 else ''}"
    return f"Removed the solutions to {which} from {count}; student copy in {output_dir}"
