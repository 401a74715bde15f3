"""Prose that counts lines of code counts the code it sits beside.

"Those three lines ..." counts the snippet just above it; "Three lines do ..." (or any count
not introduced by "those") the snippet just below. A line counts when it computes something:
not blank, not a comment, not an import, not a ``print`` or ``show`` of a result.
"""

import re

import pytest

from pages import TEMPLATES, posts

NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
COUNT = re.compile(rf"\b(those |these )?({'|'.join(NUMBERS)}) lines\b", re.I)
SNIPPET = re.compile(r"{%\s*call\s+\w+\(\)\s*%}(.*?){%\s*endcall\s*%}", re.S)


def computing_lines(code: str) -> int:
    lines = [line.strip() for line in code.splitlines()]
    skip = re.compile(r"^(#|import |from |print\(|show\()")
    return sum(1 for line in lines if line and not skip.match(line))


def claims(source: str) -> list[tuple[str, int, int]]:
    """Each line count in the prose: (the phrase, the count, the lines of the snippet meant)."""
    snippets = list(SNIPPET.finditer(source))
    prose = SNIPPET.sub(lambda m: " " * len(m.group(0)), source)
    found = []
    for match in COUNT.finditer(prose):
        if match.group(1):  # "those three lines": the snippet above
            meant = [s for s in snippets if s.end() <= match.start()][-1]
        else:  # "three lines": the snippet below
            meant = next(s for s in snippets if s.start() >= match.end())
        found.append((match.group(0), NUMBERS.index(match.group(2).lower()) + 1, meant))
    return [(phrase, n, computing_lines(m.group(1))) for phrase, n, m in found]


@pytest.mark.parametrize("template", [p.TEMPLATE for p in posts()])
def test_a_count_of_lines_is_the_code_beside_it(template):
    for phrase, said, counted in claims((TEMPLATES / template).read_text()):
        assert said == counted, f"{template}: {phrase!r} but the code beside it has {counted}"


def test_the_check_can_fail():
    code = "a = 1\nb = 2\nc = 3\nd = 4\nshow(d)"
    source = f"<p>Three lines do it:</p>\n{{% call code() %}}\n{code}\n{{% endcall %}}"
    assert claims(source) == [("Three lines", 3, 4)]
    source = "{% call snippet() %}\nx = 1  # one\nprint(x)\n{% endcall %}\n<p>Those two lines</p>"
    assert claims(source) == [("Those two lines", 2, 1)]
