"""The Python blocks of docs/python.md run (from the repository root, in
order, in one namespace) and print what the text says they print where it
quotes a number."""

import contextlib
import io
import os
import re

import pytest

from conftest import module_root


def blocks():
    root = module_root()
    if root is None:
        pytest.skip("no rlskit sources (docs/python.md)")
    with open(os.path.join(root, "docs", "python.md")) as f:
        text = f.read()
    return root, re.findall(r"```python\n(.*?)```", text, re.S)


def test_docs_python_blocks_run(monkeypatch):
    root, code = blocks()
    assert len(code) >= 4
    pytest.importorskip("pandas") if not os.environ.get("CI") else None
    monkeypatch.chdir(root)
    ns = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for c in code:
            exec(compile(c, "docs/python.md", "exec"), ns)
    printed = out.getvalue()
    # the numbers the quick start quotes
    assert "{'alpha': 0.001953125, 'gamma': 0.00048828125}" in printed
    assert "3072.47" in printed and "2634.71" in printed
    assert "\n0.92\n" in printed  # the CV+ 90 % intervals' share of test rows
    assert "[2 8 3 6 1] 1" in printed  # GreedyRLS's selection on the diabetes data
    assert "['globalrank', 'greedy', 'prefrank', 'queryrank', 'rls']" in printed
    # KronRLS by 5-fold leave-drug-out on the drug–target data, then new drugs; TwoStepRLS setting D
    assert "{'alpha': 0.0625, 'gamma': 0.005, 'col_gamma': 0.05} 0.8165\n0.5547\n" in printed
    assert "0.03125 0.015625 (2400,)" in printed
