"""The README's Python snippet and examples/python run as written."""

import os
import re
import subprocess
import sys

from support import REPO, read_png


def test_readme_snippet_runs(tmp_path, monkeypatch):
    readme = (REPO / "README.md").read_text()
    snippet = re.search(r"### Python\n.*?```python\n(.*?)```", readme, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, "README.md", "exec"), {})
    assert read_png(tmp_path / "crowd.png").shape == (360, 640, 4)
    assert (tmp_path / "crowd.mp4").stat().st_size > 0


def test_render_crowd_example(tmp_path):
    out = tmp_path / "example.png"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run([sys.executable, REPO / "examples" / "python" / "render_crowd.py", "--out", out],
                            env=env, check=True, capture_output=True, text=True)
    assert "25 actors" in result.stdout
    assert read_png(out).shape == (360, 640, 4)
