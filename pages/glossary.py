"""The glossary page: every term of glossary.toml, in alphabetical order, each at its anchor."""

from sitebuild import glossary

SLUG = glossary.SLUG
TEMPLATE = "glossary.html"
TITLE = "Glossary"
SUMMARY = "The terms these pages use, each defined once: scores, weights, context vectors and more."


def context() -> dict:
    terms = glossary.load()
    entries = sorted(terms.values(), key=lambda t: t.name.lower())
    return {"terms": entries, "names": {t.id: t.name for t in entries}}
