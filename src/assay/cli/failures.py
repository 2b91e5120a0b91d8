"""What the machine refused, said as one line: a path that cannot be written or read.

An ``OSError`` that reaches the CLI is almost always about what the user named (``-o``
pointing at a directory or into a folder that does not exist, a file without permission),
so it is a user error and reads like one: the path first, then what is wrong with it, and
for a missing file, which part of the path is missing. ``--debug`` still shows the
traceback. Owners that know more say more: a port (``cli.listen``), a broker or a browser
raise their own ``AssayError`` naming the setting to change.
"""

from __future__ import annotations

import os
from pathlib import Path

from assay.errors import BadInputError, UserError


def os_error(exc: OSError) -> UserError:
    """``exc`` as the user error the CLI prints (exit 2)."""
    name = exc.filename
    if name is None:
        return BadInputError(exc.strerror or str(exc))
    path = Path(os.fsdecode(name))
    if isinstance(exc, IsADirectoryError):
        return BadInputError(f"{path} is a directory: name a file in it instead")
    if isinstance(exc, FileNotFoundError) and not path.parent.is_dir():
        return BadInputError(f"{path}: there is no directory {_first_missing(path.parent)}")
    return BadInputError(f"{path}: {(exc.strerror or str(exc)).lower()}")


def _first_missing(folder: Path) -> Path:
    """The outermost folder of ``folder`` that does not exist (``/missing`` of
    ``/missing/dir``): the one to create, or the typo to fix."""
    missing = folder
    while not missing.parent.is_dir() and missing.parent != missing:
        missing = missing.parent
    return missing
