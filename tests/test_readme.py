"""The README's examples run as written."""

from __future__ import annotations

import doctest
import re
from pathlib import Path


def test_readme_examples() -> None:
    readme = Path(__file__).parent.parent / "README.md"
    parser = doctest.DocTestParser()
    # A code fence ends an example's expected output, as a blank line would.
    fence = re.compile(r"^```.*$", re.MULTILINE)
    text = fence.sub("", readme.read_text(encoding="utf-8"))
    test = parser.get_doctest(text, {}, "README.md", str(readme), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0
    assert runner.tries > 10
