"""Shared fixtures: the Go module root and the rlskit command built from it."""

import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def module_root():
    root = os.environ.get("RLSKIT_SOURCE") or os.path.dirname(os.path.dirname(HERE))
    return root if os.path.exists(os.path.join(root, "go.mod")) else None


@pytest.fixture(scope="session")
def rlskit_cli(tmp_path_factory):
    """Path of the rlskit command built from the module (go build -o): the
    CLI the Python results are compared with. Skips without Go or the
    sources, except under CI, where that fails."""
    go = os.environ.get("GO") or shutil.which("go") or "/usr/local/go/bin/go"
    root = module_root()
    if not os.path.exists(go) or root is None:
        if os.environ.get("CI"):
            pytest.fail("the go command and the rlskit sources are needed to build the CLI")
        pytest.skip("no go command or rlskit sources to build the CLI")
    out = str(tmp_path_factory.mktemp("cli") / "rlskit")
    subprocess.check_call([go, "build", "-o", out, "./cmd/rlskit"], cwd=root)
    return out
