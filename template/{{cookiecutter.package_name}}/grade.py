"""Runs the exercises' tests and prints a score table: `python -m {{ cookiecutter.package_name }}.grade` (or `make grade`).

An exercise earns the points of its test file's `points` marker when its tests ran and every one passed, as GitHub
Classroom's workflow (.github/workflows/classroom.yml) grades it. Extra arguments go to pytest, e.g. `-v`.
"""

import ast
import collections
import re
import sys
from pathlib import Path

import pytest

EXERCISES = Path(__file__).resolve().parent.parent / "tests" / "exercises"
# A file that fails to import has no collected marker; its points are read from its text, so the total stays whole.
POINTS = re.compile(r"^pytestmark = pytest\.mark\.points\((\d+)\)$", re.MULTILINE)


class Results:
    """A pytest plugin that keeps, per test file, its points, titles and what its tests did."""

    def __init__(self):
        self.points, self.passed = {}, collections.Counter()
        self.problems = collections.defaultdict(list)  # what each failure, error or skip says first

    def pytest_collection_modifyitems(self, items):
        for item in items:
            marker = item.get_closest_marker("points")
            if marker:
                self.points[Path(item.path).name] = marker.args[0]

    def pytest_collectreport(self, report):
        if report.failed:
            self.problems[Path(report.nodeid).name].append("could not be imported: run it with pytest to see why")

    def pytest_runtest_logreport(self, report):
        name = Path(report.nodeid.split("::")[0]).name
        if report.passed and report.when == "call":
            self.passed[name] += 1
        elif report.failed or report.skipped:
            crash = getattr(report.longrepr, "reprcrash", None)  # the exception's first line says what to fix
            why = crash.message.splitlines()[0] if crash and crash.message else report.head_line or report.nodeid
            self.problems[name].append(why)


def title(path):
    """The exercise's number and its test file's docstring up to the first colon, e.g. "04 A network of your own"."""
    try:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except SyntaxError:
        docstring = ""
    return f"{path.stem.split('_')[1]} {docstring.split(':')[0] or path.stem}"


def table(paths, results):
    """The score table: one row per exercise file, then the total. A file earns its points if all its tests passed."""
    rows, earned, total = [], 0, 0
    for path in paths:
        written = POINTS.search(path.read_text(encoding="utf-8"))
        points = results.points.get(path.name, int(written.group(1)) if written else 0)
        problems = results.problems.get(path.name) or ([] if results.passed[path.name] else ["no test ran"])
        score = 0 if problems else points
        earned, total = earned + score, total + points
        rows.append((title(path), f"{score:>3}/{points:<3}", f"failed: {problems[0]}" if problems else "passed"))
    width = max(len(row[0]) for row in rows)
    lines = [f"{'exercise':<{width}}  {'score':>7}  result"]
    lines += [f"{name:<{width}}  {score}  {result}" for name, score, result in rows]
    lines.append(f"{'total':<{width}}  {earned:>3}/{total:<3}")
    return "\n".join(lines), earned == total


def main(argv=None):
    paths = sorted(EXERCISES.glob("test_*.py"))
    if not paths:
        print(f"Error: {EXERCISES} holds no test_*.py: run this from the project, installed with pip install -e.")
        return 2
    results = Results()
    args = [str(EXERCISES), "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors", *(argv or [])]
    status = pytest.ExitCode(pytest.main(args, plugins=[results]))
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        print(f"Error: pytest stopped ({status.name}) before grading the exercises; the lines above say why.")
        return 2
    unmarked = [path.name for path in paths if path.name not in results.points and results.passed[path.name]]
    if unmarked:
        print(f"Error: {', '.join(unmarked)} has no `pytestmark = pytest.mark.points(N)`: give it its points.")
        return 2
    text, full_marks = table(paths, results)
    print(text)
    return 0 if full_marks else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
