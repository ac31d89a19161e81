"""`python -m scaffold new [key=value ...]`: generate a project from this template without prompts."""

import argparse
import json
import sys
from pathlib import Path

from scaffold import answers

REPO_DIR = Path(__file__).resolve().parent.parent


def questions():
    """Returns the template's questions and their defaults, as cookiecutter.json states them."""
    context = json.loads((REPO_DIR / "cookiecutter.json").read_text(encoding="utf-8"))
    return {key: value for key, value in context.items() if not key.startswith("_")}


def parse_answers(pairs):
    """Turns `key=value` strings into a dict; raises ValueError naming an unknown key or a missing '='."""
    known = questions()
    parsed = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"{pair!r} is not of the form key=value.")
        if key not in known:
            raise ValueError(f"{key!r} is not a question of this template; the questions are {', '.join(known)}.")
        parsed[key] = value
    return parsed


def load_answers(path):
    """Reads a generated project's saved answers (its .cookiecutter.json) as key=value pairs."""
    saved = json.loads(Path(path).read_text(encoding="utf-8"))
    return [f"{key}={value}" for key, value in saved.items() if key in questions()]


def literal(text):
    """`text` as a Jinja template that renders to `text` itself.

    Cookiecutter renders answers given without prompts as templates, so "{{ x }}" would be evaluated and "{%" would
    be a syntax error. Only "{" can open a Jinja tag; writing each one as an expression leaves nothing to open.
    """
    return text.replace("{", '{{ "{" }}')


def new(pairs, output_dir=".", overwrite=False, config_file=None):
    """Renders a project with the given answers (others take their defaults) and returns its path."""
    from cookiecutter.main import cookiecutter  # imported here: validation and --help work without it

    extra = parse_answers(pairs)
    found = answers.problems(extra)
    if found:
        raise ValueError(" ".join(found))
    return cookiecutter(
        str(REPO_DIR),
        no_input=True,
        extra_context={key: literal(value) for key, value in extra.items()},
        output_dir=str(output_dir),
        overwrite_if_exists=overwrite,
        config_file=config_file,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m scaffold", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    new_parser = commands.add_parser("new", help="generate a project; unanswered questions take their defaults")
    new_parser.add_argument(
        "answers_given", nargs="*", metavar="key=value", help=f"questions: {', '.join(questions())}"
    )
    new_parser.add_argument("--answers", help="a generated project's .cookiecutter.json: regenerate it, e.g. to update")
    new_parser.add_argument("-o", "--output-dir", default=".", help="where the project folder is created")
    new_parser.add_argument("--overwrite", action="store_true", help="render into an existing project folder")
    demo_parser = commands.add_parser("demo", help="generate the default project, prepare its data, train it on CPU")
    demo_parser.add_argument("-o", "--output-dir", default="build/demo", help="replaced by each run")
    demo_parser.add_argument("--task", choices=answers.CHOICES["task"], help="another task's project than the default")
    bench_parser = commands.add_parser(
        "benchmark", help="time each task's default project against plain Keras; print a table per task"
    )
    bench_parser.add_argument("-o", "--output-dir", default="build/benchmark", help="replaced by each run")
    bench_parser.add_argument("--windows", type=int, default=3, help="timed windows per configuration")
    student_parser = commands.add_parser(
        "student", help="write the student copy of a classroom project: each solution replaced by its stub"
    )
    student_parser.add_argument("project", help="the teacher copy: a project generated with classroom=yes")
    student_parser.add_argument("-o", "--output-dir", required=True, help="created; must be absent or empty")
    student_parser.add_argument(
        "--keep", type=int, nargs="+", default=[], metavar="N", help="exercises whose solutions stay, e.g. --keep 3 4"
    )
    args = parser.parse_args(argv)
    if args.command == "student":
        from scaffold.solutions import write_student_copy

        try:
            print(write_student_copy(args.project, args.output_dir, frozenset(args.keep)))
        except ValueError as error:
            for line in str(error).splitlines():  # several problems: one Error line each
                print(f"Error: {line}", file=sys.stderr)
            return 2
        except OSError as error:  # an output folder that cannot be made or written
            print(f"Error: {error.strerror}: {error.filename}; choose another output folder.", file=sys.stderr)
            return 2
        return 0
    if args.command == "benchmark":
        from scaffold.benchmark import main as benchmark

        benchmark(args.output_dir, args.windows)
        return 0
    if args.command == "demo":
        from scaffold.demo import demo

        demo(args.output_dir, args.task)
        return 0
    from cookiecutter.exceptions import CookiecutterException

    try:
        pairs = (load_answers(args.answers) if args.answers else []) + args.answers_given
        print(new(pairs, args.output_dir, args.overwrite))
    except (ValueError, CookiecutterException) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 2
    return 0
