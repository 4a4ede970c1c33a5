"""Rewrite bare decimal literals (``0.85``) in Turtle files as doubles (``0.85e0``).

Turtle reads ``0.85`` as xsd:decimal; the KB keeps every number an xsd:double so that
SPARQL never compares mixed numeric types. Quoted strings and comments are left alone.

Run: python tools/normalize_numbers.py kb/*.ttl ontology/*.ttl
"""
import re
import sys

TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|<[^>]*>|#[^\n]*|(?<![\w.:-])([+-]?\d+\.\d+)(?![\d.eE\w])')


def fix(text):
    return TOKEN.sub(lambda m: m.group(1) + "e0" if m.group(1) else m.group(0), text)


for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as f:
        old = f.read()
    new = fix(old)
    if new != old:
        with open(name, "w", encoding="utf-8") as f:
            f.write(new)
        print("normalised", name)
