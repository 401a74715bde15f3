"""Test-wide settings."""

from hypothesis import settings

# Speed is measured by the benchmark, not by tests: on a loaded 2-core machine the first call
# into torch or Panel can take hundreds of milliseconds, which is not a failure.
settings.register_profile("project", deadline=None)
settings.load_profile("project")
