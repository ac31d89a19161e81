"""The task keeps the runtime's contract (runtime/task.py): every member it declares, with the same parameters."""

import inspect

import pytest
from conftest import PROJECT_DIR

from {{ cookiecutter.package_name }}.runtime import task as contract
from {{ cookiecutter.package_name }}.task import Task

MEMBERS = [name for name in vars(contract.Task) if not name.startswith("_")]


@pytest.mark.parametrize("name", MEMBERS)
def test_the_task_has_each_member_of_the_contract_with_its_parameters(name):
    assert callable(getattr(Task, name, None)), f"Task has no method {name}"
    expected = inspect.signature(getattr(contract.Task, name)).parameters
    actual = inspect.signature(getattr(Task, name)).parameters
    assert list(actual) == list(expected), name
    assert [p.default for p in actual.values()] == [p.default for p in expected.values()], f"{name}'s defaults"


def test_the_readme_lists_each_member_of_the_contract_with_its_parameters():
    readme = (PROJECT_DIR / "README.md").read_text()
    for name in MEMBERS:
        parameters = [p for p in inspect.signature(getattr(contract.Task, name)).parameters if p != "self"]
        assert f"| `{name}({', '.join(parameters)})` |" in readme, name
