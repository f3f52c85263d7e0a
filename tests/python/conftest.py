"""Shared fixtures of the gltf_crowd module's tests (docs/spec.md §16).

Run from the repository root with the built module on PYTHONPATH:
    PYTHONPATH=build/python python3 -m pytest -q tests/python
GLTF_CROWD_TOOL names the gltf-crowd binary the image test compares with (default build/gltf-crowd).
"""

import os
import pathlib

import pytest

from support import REPO

os.environ.setdefault("EGL_LOG_LEVEL", "fatal")  # Mesa's EGL probing noise on headless machines


@pytest.fixture(scope="session")
def tool():
    """Path of the gltf-crowd command; the test is skipped when it is not built."""
    path = pathlib.Path(os.environ.get("GLTF_CROWD_TOOL", REPO / "build" / "gltf-crowd"))
    if not path.is_file():
        pytest.skip(f"{path} is not built (GLTF_CROWD_TOOL names another)")
    return path


@pytest.fixture(scope="session")
def character():
    """The built-in character, loaded once."""
    import gltf_crowd

    return gltf_crowd.default_character()
