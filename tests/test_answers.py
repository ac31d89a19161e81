"""scaffold.answers: which answers are accepted and what the refusals say."""

import pytest

from scaffold import answers

GOOD = {
    "project_name": "Shape Classifier",
    "project_slug": "shape-classifier",
    "package_name": "shape_classifier",
    "description": 'Says "hi" \\ with quotes',
    "author_name": "Ada O'Brien",
    "author_email": "ada@example.com",
    "license": "MIT",
    "accelerator": "tpu",
    "github_actions": "yes",
}


def test_good_answers_pass():
    assert answers.problems(GOOD) == []


@pytest.mark.parametrize("email", ["", "a.b+c@sub.example.org"])
def test_empty_or_real_email_passes(email):
    assert answers.problems(GOOD | {"author_email": email}) == []


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("package_name", "Shapes", "not a lowercase Python identifier"),
        ("package_name", "3d_shapes", "not a lowercase Python identifier"),
        ("package_name", "my-package", "not a lowercase Python identifier"),
        ("package_name", "class", "keyword"),
        ("package_name", "match", "keyword"),
        ("package_name", "tensorflow", "shadow"),
        ("package_name", "keras", "shadow"),
        ("package_name", "gin", "shadow"),
        ("package_name", "absl", "shadow"),
        ("package_name", "numpy", "shadow"),
        ("package_name", "tests", "shadow"),
        ("package_name", "main", "shadow"),
        ("package_name", "json", "shadow"),
        ("package_name", "a" * 51, "51 characters"),
        ("project_name", "", "project_name is empty"),
        ("project_name", "   ", "project_name is empty"),
        ("project_name", "two\nlines", "one line"),
        ("project_name", "!!! ???", "no letters or digits"),
        ("description", "tab\tinside", "one line"),
        ("project_slug", "Not A Slug", "project_slug"),
        ("project_slug", "invalid-", "project_slug"),
        ("author_email", "not-an-email", "not an email address"),
        ("author_email", "a@b", "not an email address"),
        ("license", "GPL", "license must be one of"),
        ("accelerator", "ipu", "accelerator must be one of"),
        ("github_actions", "maybe", "github_actions must be one of"),
    ],
)
def test_bad_answer_is_refused_with_one_sentence_that_names_it(key, value, says):
    found = answers.problems(GOOD | {key: value})
    assert len(found) == 1, found
    assert says in found[0] and found[0].endswith(".")


def test_only_the_answers_given_are_judged():
    assert answers.problems({"accelerator": "cpu"}) == []


def test_every_problem_is_reported_at_once():
    found = answers.problems(GOOD | {"package_name": "class", "license": "GPL", "author_email": "x"})
    assert len(found) == 3
