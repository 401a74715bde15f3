"""Build-time helpers for build.py: math typesetting, code snippets, figure slots."""
