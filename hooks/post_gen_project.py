"""Moves the chosen task's files into place and removes what unselected options do not need (scaffold/hooks.py)."""

import json
import sys

CONTEXT = json.loads({{ cookiecutter | tojson | tojson }})
sys.path.insert(0, {{ template_repo_dir | tojson }})

from scaffold import hooks  # noqa: E402

sys.exit(hooks.post_gen(CONTEXT))
