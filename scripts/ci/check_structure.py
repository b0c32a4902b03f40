#!/usr/bin/env python3
"""Structure checks run by CI (`just test`): no import cycles between modules, no long functions.

1. Import cycles. Every `use crate::...` / `use super::...` line and every inline `crate::a::b`
   path in a crate's non-test code is an edge from the file's module to the module it names.
   An edge is lifted to the two sibling modules under the modules' common parent (an edge
   between `spec::cells` and `kinds::learning` is one between `spec` and `kinds`); an edge from
   a module to its own ancestor or descendant is a parent using its child (or the reverse) and is
   not counted. A cycle among siblings is an error, printed with the files that make it.
2. Long functions. No `fn` body in `crates/bench/src` longer than MAX_FN_LINES lines.

Exits 1 and prints every finding when one fails. `python3 scripts/ci/check_structure.py`;
`--self-test` first checks that both checks fail on a small tree made to fail them.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_FN_LINES = 150
LONG_FN_DIRS = ["crates/bench/src"]

USE_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]*);", re.S | re.M)
INLINE_RE = re.compile(r"\bcrate::([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)*)")
FN_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def strip_comments_and_strings(text: str) -> str:
    """Blanks comments, string and char literals (keeping newlines), so braces and paths in them
    do not count."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r(#*)"', text[i:i + 10]) and (i == 0 or not text[i - 1].isalnum()):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", text[i:i + 12]):
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", text[i:])
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_tests(code: str) -> str:
    """The code before the first `#[cfg(test)]` (test modules sit at the end of a file)."""
    k = code.find("#[cfg(test)]")
    return code if k < 0 else code[:k]


def module_of(src: Path, file: Path) -> tuple[str, ...]:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def expand_use(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` -> [`a::b`, `a::c::d`, `a::c::e`] (whitespace removed)."""
    tree = re.sub(r"\s+", "", tree)
    depth, start = 0, None
    for k, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                start = k
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                prefix, inner = tree[:start], tree[start + 1:k]
                items, d, cur = [], 0, ""
                for x in inner:
                    if x == "," and d == 0:
                        items.append(cur)
                        cur = ""
                        continue
                    d += x == "{"
                    d -= x == "}"
                    cur += x
                items.append(cur)
                return [p for it in items if it for p in expand_use(prefix + it)]
    return [tree.split(" as ")[0]]


def resolve(modules: set[tuple[str, ...]], here: tuple[str, ...], path: str, is_mod_file: bool):
    """The module a `use` path names (its longest prefix that is a module), or None."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        # In `a/b.rs` (module a::b) `super` is `a`; in `a/b/mod.rs` (also a::b) too.
        base = list(here)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    else:
        return None  # another crate or std
    full = tuple(base + segs)
    for k in range(len(full), -1, -1):
        if full[:k] in modules:
            return full[:k]
    return None


def crate_edges(src: Path, root: Path):
    files = [f for f in src.rglob("*.rs") if f.stem not in ("tests", "proptests")]
    modules = {module_of(src, f) for f in files}
    edges = defaultdict(set)  # (parent, a, b) -> files
    for f in files:
        here = module_of(src, f)
        code = without_tests(strip_comments_and_strings(f.read_text()))
        paths = []
        for m in USE_RE.finditer(code):
            paths += expand_use(m.group(1))
        paths += ["crate::" + p for p in INLINE_RE.findall(code)]
        for p in paths:
            target = resolve(modules, here, p, f.stem == "mod")
            if target is None:
                continue
            k = 0
            while k < min(len(here), len(target)) and here[k] == target[k]:
                k += 1
            if k == len(here) or k == len(target):
                continue  # ancestor or descendant
            edges[(here[:k], here[k], target[k])].add(f"{f.relative_to(root)} -> {'::'.join(target)}")
    return edges


def cycles(edges) -> list[str]:
    graph = defaultdict(lambda: defaultdict(set))
    for (parent, a, b), why in edges.items():
        graph[parent][a].add(b)
    found = []
    for parent, g in graph.items():
        # Strongly connected components (Tarjan).
        index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in g.get(v, ()):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))

        for v in list(g):
            if v not in index:
                visit(v)
        for comp in comps:
            where = "::".join(parent) or "crate root"
            lines = [f"import cycle under {where}: {' <-> '.join(comp)}"]
            for a in comp:
                for b in comp:
                    for why in sorted(edges.get((parent, a, b), ())):
                        lines.append(f"    {why}")
            found.append("\n".join(lines))
    return found


def long_functions(directory: Path, root: Path) -> list[str]:
    found = []
    for f in sorted(directory.rglob("*.rs")):
        lines = strip_comments_and_strings(f.read_text()).split("\n")
        for i, line in enumerate(lines):
            m = FN_RE.match(line)
            if not m:
                continue
            depth, opened, j = 0, False, i
            while j < len(lines):
                for ch in lines[j]:
                    if ch == "{":
                        depth += 1
                        opened = True
                    elif ch == "}":
                        depth -= 1
                    elif ch == ";" and not opened and depth == 0:
                        break  # a declaration without a body
                if (opened and depth == 0) or (not opened and ";" in lines[j]):
                    break
                j += 1
            length = j - i + 1
            if opened and length > MAX_FN_LINES:
                found.append(f"{f.relative_to(root)}:{i + 1}: fn {m.group(1)} is {length} lines (at most {MAX_FN_LINES})")
    return found


def findings(root: Path) -> list[str]:
    problems = []
    for src in sorted(root.glob("crates/*/src")):
        problems += cycles(crate_edges(src, root))
    for d in LONG_FN_DIRS:
        problems += long_functions(root / d, root)
    return problems


def self_test() -> None:
    """The checks find a cycle through a `use` group and an inline path, a long function, and
    nothing in a tree without them (a parent using its child is not a cycle)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        src = root / "crates/bench/src"
        (src / "a").mkdir(parents=True)
        (src / "lib.rs").write_text("mod a;\nmod b;\nmod c;\npub use a::X;\n")
        (src / "a/mod.rs").write_text("mod inner;\npub use inner::X;\nuse crate::b::{Y, Z as _};\n")
        (src / "a/inner.rs").write_text("use super::super::c::W;\npub struct X;\n")
        (src / "b.rs").write_text("pub struct Y;\n// use crate::a::X; (a comment)\n")
        (src / "c.rs").write_text("pub struct W;\nfn f() { let _ = \"crate::a::X\"; }\n")
        assert findings(root) == [], findings(root)
        (src / "c.rs").write_text("pub struct W;\nfn f() -> crate::a::X { crate::a::X }\n")
        found = findings(root)
        assert len(found) == 1 and "a <-> c" in found[0], found
        (src / "c.rs").write_text("pub struct W;\nfn f() {\n" + "    let _ = 1;\n" * MAX_FN_LINES + "}\n")
        found = findings(root)
        assert len(found) == 1 and "fn f is" in found[0], found


def main() -> int:
    if "--self-test" in sys.argv:
        self_test()
    problems = findings(ROOT)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} structure problem(s)", file=sys.stderr)
        return 1
    print("structure: no import cycles; no function over", MAX_FN_LINES, "lines in", ", ".join(LONG_FN_DIRS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
