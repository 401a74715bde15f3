"""The glossary: terms defined once in glossary.toml, and the page that lists them all.

Every term is checked on load (unique ids and spellings, related ids that exist); the glossary
page shows them in alphabetical order, each at its anchor, and sitebuild/glossary.py links the
posts' first use of a term to its entry.
"""

import re
import tomllib
from pathlib import Path
from typing import NamedTuple

SLUG = "glossary"
DATA = Path(__file__).resolve().parent.parent / "glossary.toml"
_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_REQUIRED = ("id", "name", "short", "long")
_OPTIONAL = ("symbol", "aliases", "related")


class Term(NamedTuple):
    """One glossary entry, as the data file gives it."""

    id: str
    name: str
    short: str
    long: str
    symbol: str = ""
    aliases: tuple[str, ...] = ()
    related: tuple[str, ...] = ()


def _term(entry: dict) -> Term:
    """One checked entry of the data file."""
    missing = [k for k in _REQUIRED if not str(entry.get(k, "")).strip()]
    if missing:
        raise ValueError(f"glossary entry {entry.get('id', '?')!r} lacks {', '.join(missing)}")
    unknown = set(entry) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise ValueError(f"glossary entry {entry['id']!r} has unknown fields {sorted(unknown)}")
    if not _ID.fullmatch(entry["id"]):
        raise ValueError(f"glossary id {entry['id']!r} must be lower-case words joined by '-'")
    return Term(
        id=entry["id"],
        name=entry["name"].strip(),
        short=" ".join(entry["short"].split()),
        long=" ".join(entry["long"].split()),
        symbol=entry.get("symbol", ""),
        aliases=tuple(entry.get("aliases", ())),
        related=tuple(entry.get("related", ())),
    )


def load(path: Path = DATA) -> dict[str, Term]:
    """Every term by id, checked: unique ids and spellings, related ids that exist."""
    with path.open("rb") as f:
        entries = tomllib.load(f).get("term", [])
    if not entries:
        raise ValueError(f"{path.name} defines no [[term]]")
    terms: dict[str, Term] = {}
    spellings: dict[str, str] = {}
    for entry in entries:
        t = _term(entry)
        if t.id in terms:
            raise ValueError(f"glossary id {t.id!r} is defined twice")
        terms[t.id] = t
        for spelling in {t.id, t.name.lower(), *(a.lower() for a in t.aliases)}:
            if spellings.setdefault(spelling, t.id) != t.id:
                raise ValueError(f"{spelling!r} names both {spellings[spelling]!r} and {t.id!r}")
    for t in terms.values():
        for other in t.related:
            if other not in terms or other == t.id:
                raise ValueError(f"glossary entry {t.id!r} relates to unknown {other!r}")
    return terms


def lookup(terms: dict[str, Term], key: str) -> Term:
    """A term by its id, its name or one of its aliases (any case)."""
    if key in terms:
        return terms[key]
    wanted = key.lower()
    for t in terms.values():
        if wanted == t.name.lower() or wanted in (a.lower() for a in t.aliases):
            return t
    raise ValueError(f"no glossary term {key!r}; add it to glossary.toml")


TEMPLATE = "glossary.html"
TITLE = "Glossary"
SUMMARY = "The terms these pages use, each defined once: scores, weights, context vectors and more."


def context() -> dict:
    terms = load()
    entries = sorted(terms.values(), key=lambda t: t.name.lower())
    return {"terms": entries, "names": {t.id: t.name for t in entries}}
