"""Builds librlskit.so, the Go core's C ABI (cmd/librlskit), with
``go build -buildmode=c-shared`` into the package while building it.

The Go module is the directory above this one (or RLSKIT_SOURCE); the go
command is GO, else ``go`` on PATH, else /usr/local/go/bin/go. The build
reads the module cache and downloads nothing that is already there (set
GOFLAGS=-mod=mod GOPROXY=off to forbid any download).
"""

import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def go_command():
    for cand in (os.environ.get("GO"), shutil.which("go"), "/usr/local/go/bin/go"):
        if cand and os.path.exists(cand):
            return cand
    raise RuntimeError("rlskit: the go command is needed to build the core (set GO=/path/to/go)")


def module_root():
    root = os.environ.get("RLSKIT_SOURCE") or os.path.dirname(HERE)
    if not os.path.exists(os.path.join(root, "go.mod")) or not os.path.isdir(os.path.join(root, "cmd", "librlskit")):
        raise RuntimeError("rlskit: no Go module with cmd/librlskit at %s (set RLSKIT_SOURCE to the rlskit checkout)" % root)
    return root


class BuildWithGo(build_py):
    """build_py, then go build -buildmode=c-shared into the built package."""

    def run(self):
        super().run()
        out = os.path.join(os.path.abspath(self.build_lib), "rlskit", "librlskit.so")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        env = dict(os.environ, CGO_ENABLED="1")
        cmd = [go_command(), "build", "-trimpath", "-buildmode=c-shared", "-o", out, "./cmd/librlskit"]
        print("rlskit: " + " ".join(cmd))
        subprocess.check_call(cmd, cwd=module_root(), env=env)
        header = os.path.splitext(out)[0] + ".h"
        if os.path.exists(header):
            os.remove(header)  # the C header is for C callers of a source build, not the package


class BinaryDistribution(Distribution):
    """A platform wheel: the package carries a shared library."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithGo}, distclass=BinaryDistribution)
