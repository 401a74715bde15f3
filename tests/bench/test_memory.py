"""Which of Chromium's processes the benchmark's memory rows count as the tab (bench/memory.py)."""

import os

import pytest

from bench.memory import draws_interface, holds_pages

WEBUI = b"/usr/lib/chromium/chromium --type=renderer --top-chrome-webui --lang=en-US"
PAGE = b"/usr/lib/chromium/chromium --type=renderer --crashpad-handler-pid=7 --lang=en-US"


@pytest.mark.parametrize("joined", [b" ", b"\0"])
def test_the_renderer_of_chromiums_own_interface_is_not_the_tabs(joined):
    assert draws_interface(WEBUI.replace(b" ", joined))
    assert not draws_interface(PAGE.replace(b" ", joined))
    # A switch that only begins like it is another switch.
    assert not draws_interface(PAGE + joined + b"--top-chrome-webui-tab-search")


def test_a_process_that_has_gone_holds_no_page():
    assert holds_pages(os.getpid())
    assert not holds_pages(2**22 + 1)  # above Linux's largest process id
