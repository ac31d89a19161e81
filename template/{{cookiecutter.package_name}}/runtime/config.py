"""Reads gin config files and bindings, and checks every bound value against its parameter's annotation.

A mistake is an InputError that names the file (or the --gin_param), the line and, for a misspelt name, the nearest
valid one: gin's own errors are tracebacks that end in a TypeError for a missing include. The check covers every
configurable of this package (the runtime's and the task's hyperparameters, the network functions in model.py), so a
new network function with annotated arguments is checked like the rest.
"""

import difflib
import glob
import inspect
import os
import re
import tokenize
import types
import typing

import gin

from .errors import InputError
from .params import Fraction, Positive

_LOCATION = re.compile(r'\n\s*In (?:file "(?P<file>[^"]+)", line (?P<line>\d+)|bindings string line (?P<bline>\d+))')
_PACKAGE = __package__.rsplit(".", 1)[0]


def parse_config(gin_files, gin_params):
    """Parses the gin files, then the bindings, and checks the bound values; raises InputError on a mistake."""
    missing = [path for path in gin_files if not os.path.isfile(path)]
    if missing:
        raise InputError(f"--gin_file {missing[0]} does not exist; {_shipped_configs(missing[0])}.")
    gin.clear_config()
    for path in gin_files:
        # Configs include each other as 'configs/<name>.gin': this finds them when run from another directory.
        gin.add_config_file_search_path(os.path.dirname(os.path.dirname(os.path.abspath(path))))
    try:
        gin.parse_config_files_and_bindings(gin_files, gin_params)
    except SyntaxError as error:
        where = f"{error.filename}, line {error.lineno}" if error.filename else "a --gin_param"
        raise InputError(f"{where}: gin cannot parse {(error.text or '').strip()!r} ({error.msg}).") from error
    except tokenize.TokenError as error:
        raise InputError(f"A --gin_param is not complete ({error.args[0]}): check its brackets and quotes.") from error
    except (ValueError, TypeError) as error:
        raise InputError(_explain(error, gin_params)) from error
    _refuse_unread_macros(gin_files, gin_params)
    problems = [problem for name, bindings in _bound() for problem in _check(name, bindings)]
    if problems:
        raise InputError(" ".join(problems))


def build(configurable):
    """Makes a gin-configurable class from its bindings; a binding it needs and lacks is an InputError."""
    try:
        return configurable()
    except TypeError as error:
        missing = re.search(r"missing \d+ required .*?: (.*)", str(error).splitlines()[0])
        if not missing:
            raise
        name = _configurables()[f"{configurable.__module__}.{configurable.__name__}"]
        unbound = ", ".join(f"{name}.{argument}" for argument in re.findall(r"'(\w+)'", missing[1]))
        raise InputError(f"No config binds {unbound}: bind each in configs/runtime.gin or configs/base.gin.") from None


def _registered():
    return [configurable for _, configurable in gin.config._REGISTRY.items()]


def _configurables():
    """{module.qualname: gin name} for every configurable of this package."""
    return {
        f"{c.wrapped.__module__}.{c.wrapped.__name__}": c.name
        for c in _registered()
        if c.wrapped.__module__.startswith(_PACKAGE)
    }


def _wrapped(name):
    """The function or class registered as `name` in this package, or None."""
    for c in _registered():
        if c.name == name and c.wrapped.__module__.startswith(_PACKAGE):
            return c.wrapped
    return None


def _bound():
    """(gin name, {parameter: value}) for every binding of this package's configurables (macros excluded)."""
    for (scope, selector), bindings in gin.config._CONFIG.items():
        match = gin.config._REGISTRY.get_match(selector)
        if not scope and match and match.wrapped.__module__.startswith(_PACKAGE):
            yield match.name, bindings


def _check(name, bindings):
    hints = typing.get_type_hints(_wrapped(name), include_extras=True)
    for parameter, value in bindings.items():
        kind = hints.get(parameter)
        if kind is None or not _is_literal(value):
            continue  # unannotated, or a reference (@fn, %macro) that gin resolves later
        if not _is_a(value, kind):
            yield f"{name}.{parameter} must be {_describe(kind)}, not {value!r}."
        elif Positive in getattr(kind, "__metadata__", ()) and value <= 0:
            yield f"{name}.{parameter} must be positive, not {value!r}."
        elif Fraction in getattr(kind, "__metadata__", ()) and not 0 <= value < 1:
            yield f"{name}.{parameter} must be at least 0 and below 1, not {value!r}."


def _is_literal(value):
    return value is None or isinstance(value, bool | int | float | str | tuple | list)


def _is_a(value, kind):
    """Whether a gin-parsed value fits an annotation (a number where an int is due, a tuple for widths)."""
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Annotated:
        return _is_a(value, arguments[0])
    if origin is typing.Literal:
        return value in arguments
    if origin in (types.UnionType, typing.Union):
        return any(_is_a(value, option) for option in arguments)
    if origin is tuple:  # tuple[int, ...]
        return isinstance(value, tuple | list) and all(_is_a(v, arguments[0]) for v in value)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is type(None):
        return value is None
    return not isinstance(kind, type) or isinstance(value, kind)


def _describe(kind):
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Annotated:
        return _describe(arguments[0])
    if origin is typing.Literal:
        return f"one of {', '.join(repr(a) for a in arguments)}"
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_describe(option) for option in arguments)
    if origin is tuple:
        return "a tuple like (16, 32)"
    return {int: "an int", float: "a number", bool: "True or False", str: "a string"}.get(kind, "None")


def _explain(error, gin_params):
    """One sentence from a gin ValueError or TypeError: where, what, and the fix."""
    message, *_ = _LOCATION.split(str(error), maxsplit=1)
    location = _LOCATION.search(str(error))
    if not location:
        where = "The config"
    elif location["file"]:
        where = f"{location['file']}, line {location['line']}"
    else:
        where = f"--gin_param {gin_params[int(location['bline']) - 1]!r}"
    if match := re.match(r"Configurable '(\w+)' doesn't have a parameter named '(\w+)'", message):
        names = list(inspect.signature(_wrapped(match[1])).parameters)
        return f"{where}: {match[1]} has no parameter {match[2]!r}; {_nearest(match[2], names)}"
    if match := re.match(r"No configurable matching '([\w.]+)'", message):
        names = sorted(set(_configurables().values()))
        return f"{where}: nothing is configurable as {match[1]!r}; {_nearest(match[1], names)}"
    if match := re.search(r"include '([^']+)'", str(error)):
        return f"{where}: the included {match[1]} does not exist; {_shipped_configs(match[1])}."
    if match := re.match(r"No bindings specified for '(\w+)/gin.macro'", message):
        return f"The macro %{match[1]} is used but never bound: add `{match[1]} = <value>` or fix its spelling."
    return f"{where}: {message}"


def _refuse_unread_macros(gin_files, gin_params):
    """`train_steps = 3` (no `Runtime.`) binds a gin macro that nothing reads; gin accepts it silently."""
    read = set(re.findall(r"%(\w+)", gin.config_str()))
    owners = {
        parameter: name
        for name in sorted(set(_configurables().values()))
        for parameter in inspect.signature(_wrapped(name)).parameters
    }
    for scope, selector in gin.config._CONFIG:
        if selector == "gin.macro" and scope in owners and scope not in read:
            where = _find_binding(scope, gin_files, gin_params)
            fix = f"write {owners[scope]}.{scope}"
            raise InputError(f"{where}: `{scope} = ...` binds a gin macro that nothing reads; {fix}.")


def _find_binding(name, gin_files, gin_params):
    pattern = re.compile(rf"^\s*{name}\s*=")
    for binding in gin_params:
        if pattern.match(binding):
            return f"--gin_param {binding!r}"
    for path in gin_files:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if pattern.match(line):
                    return f"{path}, line {number}"
    return "An included config"


def _nearest(name, names):
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else f"the names are {', '.join(names)}."


def _shipped_configs(path):
    folder = os.path.dirname(path) or "."
    shipped = sorted(glob.glob(os.path.join(folder, "*.gin")))
    if not shipped:
        return f"no .gin files are in {folder}: give a path relative to the project root, e.g. configs/cpu.gin"
    return f"the configs in {folder} are {', '.join(os.path.basename(p) for p in shipped)}"
