"""Files a restored worker downloads only when Python first imports something new.

A worker that restored the site's snapshot (static/restore.js) has in memory every module its
figures run, so it starts without the standard library's zip: only an import the heap cannot
serve needs it (a reader's cell importing ``statistics``, say). The worker installs
``FetchFirst`` with a function that downloads those files and writes them where Python reads
them; the first import that reaches the finders calls it with the module's name, once it
succeeds.
"""

import importlib
import sys
from collections.abc import Callable


class FetchFirst:
    """A meta path finder that fetches the deferred files before the first import the heap
    cannot serve, then steps aside: it finds nothing itself."""

    def __init__(self, fetch: Callable[[str], None]):
        self.fetch = fetch

    def find_spec(self, name: str, path=None, target=None) -> None:
        try:
            self.fetch(name)
        except Exception as err:  # a JsException from the worker's download, too
            raise ImportError(
                f"{name} cannot be imported: Python's library files could not be downloaded"
                f" ({err}). Check the connection and run the cell again."
            ) from None
        sys.meta_path.remove(self)
        importlib.invalidate_caches()  # the path's importers read the files now there
        return None


def install(fetch: Callable[[str], None]) -> None:
    """Call ``fetch(name)`` before the next import the modules in memory cannot serve."""
    sys.meta_path.insert(0, FetchFirst(fetch))
