"""Reads gin config files and bindings into the run's Params.

A mistake in them is an InputError that names the file (or the --gin_param), the line and, for a misspelt name,
the nearest valid one: gin's own errors are tracebacks that end in a TypeError for a missing include.
"""

import dataclasses
import difflib
import glob
import os
import re
import tokenize

import gin

from .errors import InputError
from .params import Params

_LOCATION = re.compile(r'\n\s*In (?:file "(?P<file>[^"]+)", line (?P<line>\d+)|bindings string line (?P<bline>\d+))')


def parse_config(gin_files, gin_params):
    """Parses the gin files, then the bindings; returns the run's Params."""
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
    _refuse_macros_named_like_params(gin_files, gin_params)
    try:
        return Params()
    except InputError as error:  # gin appends "In call to configurable 'Params' (<class ...>)" to the message
        raise InputError(str(error).split("\n")[0]) from None


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
        return f"{where}: {match[1]} has no parameter {match[2]!r}; {_nearest(match[2], _field_names())}"
    if match := re.match(r"No configurable matching '([\w.]+)'", message):
        return f"{where}: nothing is configurable as {match[1]!r}; {_nearest(match[1], ['Params'])}"
    if match := re.search(r"include '([^']+)'", str(error)):
        return f"{where}: the included {match[1]} does not exist; {_shipped_configs(match[1])}."
    if match := re.match(r"No bindings specified for '(\w+)/gin.macro'", message):
        return f"The macro %{match[1]} is used but never bound: add `{match[1]} = <value>` or fix its spelling."
    return f"{where}: {message}"


def _refuse_macros_named_like_params(gin_files, gin_params):
    """`train_steps = 3` (no `Params.`) binds a gin macro that nothing reads; gin accepts it without a word."""
    for name in _field_names():
        try:
            gin.query_parameter(f"{name}/gin.macro.value")
        except ValueError:
            continue  # no such macro
        if str(gin.query_parameter(f"Params.{name}")) != f"%{name}":
            where = _find_binding(name, gin_files, gin_params)
            raise InputError(f"{where}: `{name} = ...` binds a gin macro that nothing reads; write Params.{name}.")


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


def _field_names():
    return [field.name for field in dataclasses.fields(Params)]


def _nearest(name, names):
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else f"the names are {', '.join(names)}."


def _shipped_configs(path):
    folder = os.path.dirname(path) or "."
    shipped = sorted(glob.glob(os.path.join(folder, "*.gin")))
    if not shipped:
        return f"no .gin files are in {folder}: give a path relative to the project root, e.g. configs/cpu.gin"
    return f"the configs in {folder} are {', '.join(os.path.basename(p) for p in shipped)}"
