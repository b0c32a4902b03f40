#!/usr/bin/env python3
"""Structure checks run by CI (`just test`): no import cycles between modules, no long functions.

Every crate `crates/*/src` is read, from each crate root (`lib.rs`, `main.rs`, `bin/*.rs`)
through its `mod` declarations, every line of non-test code: comments and string literals are
blanked first, and a `#[cfg(test)]` item (a `mod tests { ... }` block, a `mod NAME;` whose file
is then not read, a helper fn, impl or use) is cut out, brace-matched, and nothing else (so is a
`#[cfg(doc)]` one: an import that only documentation links need).

1. Import cycles. Every path that names a module of the crate is an edge from the module it is
   written in to the module that defines what it names: `use` declarations (grouped trees
   `use a::{b, c::{d as e}}` included, at any depth), and inline paths `crate::a::B`,
   `super::super::a::B`, `self::a::B`, `child::B`, or `name::B` where `name` was imported.
   Re-exports are followed, so `crate::parse_csv` is an edge to the module that defines
   `parse_csv`, not to the crate root that re-exports it.
   a. Siblings. An edge is lifted to the two sibling modules under the modules' common parent
      (an edge between `spec::cells` and `kinds::learning` is one between `spec` and `kinds`);
      a cycle among siblings is an error, printed with the lines that make it.
   b. Parent and child. An edge between a module and its own ancestor is not a sibling edge: a
      parent may use (and re-export) its children, and a child may name its parent's children.
      But a child that uses an item *defined in* its ancestor's own file, while that ancestor
      uses (or re-exports) the child, is the same cycle one level up, and an error too (the
      pairs of KNOWN_PARENT_CHILD excepted, a list that may only shrink).
2. Long functions. No non-test `fn` longer than MAX_FN_LINES lines (its first line to its
   closing brace), in any crate. A `fn` without a body is not one: a declaration, or a
   signature a macro call passes on (`vector_builds!(fn f(x: f64) => body);`).

Exits 1 and prints every finding when one fails.

    python3 scripts/ci/check_structure.py [--self-test] [ROOT]

ROOT defaults to this checkout. `--self-test` first builds small trees in a temporary directory
and checks that each kind of problem is found there, and that a clean tree passes.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_FN_LINES = 120

# Parent/child cycles (rule 1b) that were there when the rule came (issue 39), each a hub module
# whose own file holds what its children share (a context type, formatting helpers) and which
# dispatches to them. To remove one, move the shared items into a sibling module of the children
# (as crates/data's `dataset.rs` and crates/maps' `kernels/checks.rs` did) and delete its line:
# the check fails on a listed pair that is gone, so the list only shrinks, and on any new pair.
KNOWN_PARENT_CHILD = {
    "crates/bench/src/lib.rs": [
        "catalogue <-> catalogue::rankings",
        "kinds <-> kinds::gram_error",
        "kinds <-> kinds::kernel_error",
        "kinds <-> kinds::learning",
        "kinds <-> kinds::timing",
        "outputs <-> outputs::claim",
        "outputs <-> outputs::claims_file",
        "outputs <-> outputs::figure",
        "outputs <-> outputs::paper",
        "outputs <-> outputs::plot",
        "outputs <-> outputs::report",
        "outputs <-> outputs::table",
        "results <-> results::csv",
    ],
}

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
TEST_ATTR_RE = re.compile(r"#\s*\[\s*cfg\s*\(\s*(?:all\s*\(\s*)?(?:test|doc)\s*[,)]")
INNER_TEST_ATTR_RE = re.compile(r"#!\s*\[\s*cfg\s*\(\s*(?:test|doc)\s*\)\s*\]")
USE_RE = re.compile(r"\b(?:pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]*);", re.S)
MOD_RE = re.compile(rf"\b(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+({IDENT})\s*([;{{])")
ITEM_RE = re.compile(
    rf"\b(?:fn|struct|enum|trait|type|union|mod)\s+({IDENT})|\bmacro_rules!\s*({IDENT})"
    rf"|\b(?:const|static)\s+(?:mut\s+)?({IDENT})\s*:"
)
PATH_RE = re.compile(rf"(?<![A-Za-z0-9_:$#])({IDENT}(?:\s*::\s*{IDENT})+)")
FN_RE = re.compile(rf"\bfn\s+({IDENT})")


# ---------------------------------------------------------------------------------------------
# Lexing: comments, strings and test items blanked, keeping every offset and newline.


def blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def strip_comments_and_strings(text: str) -> str:
    """Blanks comments, string and char literals (keeping newlines), so braces and paths in them
    do not count."""
    out = []
    i, n = 0, len(text)
    raw = re.compile(r'b?r(#*)"')
    char = re.compile(r"b?'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'")
    while i < n:
        c = text[i]
        prev_ident = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2  # block comments nest
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "br" and not prev_ident and raw.match(text, i):
            m = raw.match(text, i)
            end = '"' + m.group(1)
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or (c == "b" and not prev_ident and text.startswith('b"', i)):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c in "'b" and not prev_ident and char.match(text, i):
            m = char.match(text, i)
            out.append(" " * len(m.group(0)))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching(code: str, k: int) -> int:
    """The index just past the bracket that closes the one at `k`."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack = []
    for j in range(k, len(code)):
        ch = code[j]
        if ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
    return len(code)


def skip_attributes(code: str, k: int) -> int:
    """The index of the first character after `k` that is neither white space nor an attribute."""
    while True:
        while k < len(code) and code[k].isspace():
            k += 1
        if code.startswith("#", k) and code[k + 1:].lstrip().startswith("["):
            k = matching(code, code.index("[", k))
        else:
            return k


def item_end(code: str, k: int) -> int:
    """The end of the item (or statement) starting at `k`: its `;`, or its brace-matched body."""
    if re.match(r"(?:pub(?:\s*\([^)]*\))?\s+)?use\b", code[k:k + 40]):
        j = code.find(";", k)
        return len(code) if j < 0 else j + 1
    depth = 0
    for j in range(k, len(code)):
        ch = code[j]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == ";" and depth == 0:
            return j + 1
        elif ch == "{" and depth == 0:
            return matching(code, j)
    return len(code)


def without_test_items(code: str) -> str:
    """Blanks every `#[cfg(test)]` item, attribute included; a file with `#![cfg(test)]` is all
    test code. The same for `cfg(doc)`: an import for a documentation link only."""
    if INNER_TEST_ATTR_RE.search(code):
        return blank(code, 0, len(code))
    while True:
        m = TEST_ATTR_RE.search(code)
        if not m:
            return code
        attr_end = matching(code, code.index("[", m.start()))
        code = blank(code, m.start(), item_end(code, skip_attributes(code, attr_end)))


def depth_zero(code: str) -> str:
    """`code` with everything inside braces blanked: what is left is module level."""
    out, depth = [], 0
    for ch in code:
        if ch == "}":
            depth -= 1
        out.append(ch if depth == 0 or ch == "\n" else " ")
        if ch == "{":
            depth += 1
    return "".join(out)


def line_of(code: str, pos: int) -> int:
    return code.count("\n", 0, pos) + 1


# ---------------------------------------------------------------------------------------------
# The module tree of one crate root.


@dataclass
class Import:
    segs: list[str]
    name: str | None  # the name it binds; "*" for a glob; None for `as _`
    line: int
    module_level: bool


@dataclass
class Module:
    path: tuple[str, ...]
    file: Path
    code: str  # the whole file's length; only this module's own code is not blank
    children: dict[str, tuple[str, ...]] = field(default_factory=dict)
    items: dict[str, int] = field(default_factory=dict)  # name -> line
    imports: list[Import] = field(default_factory=list)
    inline_paths: list[tuple[list[str], int]] = field(default_factory=list)

    def bindings(self, module_level_only: bool) -> dict[str, Import]:
        return {
            i.name: i
            for i in self.imports
            if i.name not in (None, "*") and (i.module_level or not module_level_only)
        }


def expand_use(tree: str) -> list[tuple[list[str], str | None]]:
    """`a::{b, c::{d as e, self}, f::*}` -> [(a::b, b), (a::c::d, e), (a::c, c), (a::f, *)]."""
    if tree.lstrip().startswith("::"):
        return []  # `use ::name::...`: another crate
    tokens = re.findall(rf"::|[{{}},*]|{IDENT}", tree)

    def parse(i: int, prefix: list[str]):
        segs, out = list(prefix), []
        while i < len(tokens):
            t = tokens[i]
            if t == "::":
                i += 1
            elif t == "{":
                i += 1
                while i < len(tokens) and tokens[i] != "}":
                    sub, i = parse(i, segs)
                    out += sub
                    if i < len(tokens) and tokens[i] == ",":
                        i += 1
                return out, i + 1
            elif t == "*":
                return out + [(segs, "*")], i + 1
            elif t in (",", "}"):
                return out, i
            else:
                segs = segs + [t]
                i += 1
                if i < len(tokens) and tokens[i] == "::":
                    continue
                name = segs[-1]
                if i + 1 < len(tokens) and tokens[i] == "as":
                    name, i = tokens[i + 1], i + 2
                if segs[-1] == "self":
                    segs = segs[:-1]
                    name = segs[-1] if name == "self" and segs else name
                return out + [(segs, None if name == "_" else name)], i
        return out, i

    return parse(0, [])[0]


def child_file(directory: Path, name: str) -> Path | None:
    for f in (directory / f"{name}.rs", directory / name / "mod.rs"):
        if f.is_file():
            return f
    return None


def load_modules(root_file: Path) -> dict[tuple[str, ...], Module]:
    """Every non-test module reachable from `root_file` through `mod` declarations."""
    modules: dict[tuple[str, ...], Module] = {}

    def read_file(path: tuple[str, ...], file: Path, directory: Path):
        code = without_test_items(strip_comments_and_strings(file.read_text()))
        read_module(path, file, code, directory)

    def read_module(path: tuple[str, ...], file: Path, code: str, directory: Path):
        module = Module(path, file, code)
        modules[path] = module
        level = depth_zero(code)
        inline = []
        for m in MOD_RE.finditer(level):
            name = m.group(1)
            module.children[name] = path + (name,)
            if m.group(2) == ";":
                f = child_file(directory, name)
                if f is not None:
                    read_file(path + (name,), f, f.parent if f.name == "mod.rs" else f.parent / name)
            else:
                brace = m.end() - 1
                inline.append((name, brace, matching(code, brace)))
        for name, start, end in inline:
            body = blank(blank(code, end - 1, len(code)), 0, start + 1)
            read_module(path + (name,), file, body, directory / name)
            code = blank(code, start + 1, end - 1)
        module.code = code
        level = depth_zero(code)
        for m in ITEM_RE.finditer(level):
            name = m.group(1) or m.group(2) or m.group(3)
            if name not in module.children:
                module.items.setdefault(name, line_of(code, m.start()))
        rest = code
        for m in USE_RE.finditer(code):
            module_level = level[m.start()] != " "
            line = line_of(code, m.start())
            module.imports += [Import(segs, name, line, module_level) for segs, name in expand_use(m.group(1))]
            rest = blank(rest, m.start(), m.end())
        for m in PATH_RE.finditer(rest):
            module.inline_paths.append((re.split(r"\s*::\s*", m.group(1)), line_of(code, m.start())))

    directory = root_file.parent
    read_file((), root_file, directory)
    return modules


class Resolver:
    """Where a path written in a module leads: (module, item) with item None for a module itself,
    "*" for a glob, or None for a path out of the crate (std, another crate, a local name)."""

    def __init__(self, modules: dict[tuple[str, ...], Module]):
        self.modules = modules

    def resolve(self, here: tuple[str, ...], segs: list[str], seen=frozenset()):
        if not segs:
            return None
        first = segs[0]
        if first == "crate":
            return self.walk((), segs[1:], seen)
        if first in ("super", "self"):
            base = list(here)
            k = 0
            while k < len(segs) and segs[k] in ("super", "self"):
                if segs[k] == "super":
                    if not base:
                        return None
                    base.pop()
                k += 1
            return self.walk(tuple(base), segs[k:], seen)
        return self.walk(here, segs, seen, local=True)

    def walk(self, at: tuple[str, ...], segs: list[str], seen, local: bool = False):
        """Follows `segs` from module `at`. `local`: the first segment is a name in scope there
        (any `use` of the module binds it), not necessarily a module-level one."""
        for k, seg in enumerate(segs):
            module = self.modules.get(at)
            if module is None:
                return None
            if seg == "*":
                return (at, "*")
            if seg in module.children and module.children[seg] in self.modules:
                at = module.children[seg]
                continue
            if seg in module.items:
                return (at, seg)
            binding = module.bindings(module_level_only=not (local and k == 0)).get(seg)
            if binding is not None and (at, seg) not in seen:
                target = self.resolve(at, binding.segs, seen | {(at, seg)})
                if target is None:
                    return None
                if target[1] is not None:
                    return target
                at = target[0]
                continue
            for glob in (i for i in module.imports if i.name == "*" and i.module_level):
                key = (at, "*" + "::".join(glob.segs))
                target = self.resolve(at, glob.segs, seen | {key}) if key not in seen else None
                if target is not None and target[1] is None:
                    found = self.walk(target[0], segs[k:], seen | {key})
                    if found is not None:
                        return found
            if local and k == 0:
                return None  # std, another crate, or a local name
            return (at, seg)  # an item this reader does not see (a macro-made one, say)
        return (at, None)


# ---------------------------------------------------------------------------------------------
# The checks.


def crate_roots(src: Path) -> list[Path]:
    roots = [src / "lib.rs", src / "main.rs"] + sorted((src / "bin").glob("*.rs"))
    return [r for r in roots if r.is_file()]


def name(path: tuple[str, ...]) -> str:
    return "::".join(path) or "crate root"


def by_place(evidence) -> list[str]:
    """`file:line: ...` lines, by file, then line number."""
    def key(e: str):
        file, line, rest = e.split(":", 2)
        return (file, int(line), rest)

    return sorted(evidence, key=key)


def references(modules, root: Path):
    """(from, to, item, where) for every path of the crate's code that names one of its modules."""
    resolver = Resolver(modules)
    for here, module in modules.items():
        where = module.file.relative_to(root)
        paths = [(i.segs + (["*"] if i.name == "*" else []), i.line) for i in module.imports]
        for segs, line in paths + module.inline_paths:
            target = resolver.resolve(here, segs)
            if target is not None and target[0] != here:
                yield here, target[0], target[1], f"{where}:{line}: {'::'.join(segs)} -> {name(target[0])}"


def structure_problems(modules, root: Path) -> tuple[list[str], dict[str, str]]:
    """The sibling cycles, and the parent/child pairs that use each other ("p <-> c": report)."""
    siblings = defaultdict(set)  # (parent, a, b) -> evidence
    child_uses = defaultdict(set)  # (ancestor, child) -> evidence
    parent_uses = defaultdict(set)  # (ancestor, child) -> evidence
    for here, target, item, why in references(modules, root):
        k = 0
        while k < min(len(here), len(target)) and here[k] == target[k]:
            k += 1
        if k == len(target):  # `here` is a descendant of `target`
            if item in modules[target].items or (item == "*" and modules[target].items):
                child_uses[(target, here[:k + 1])].add(why)
        elif k == len(here):  # `target` is a descendant of `here`
            parent_uses[(here, target[:k + 1])].add(why)
        else:
            siblings[(here[:k], here[k], target[k])].add(why)
    pairs = {
        f"{name(p)} <-> {name(c)}": f"parent and child use each other: {name(p)} <-> {name(c)}\n"
        + "\n".join(f"    {w}" for w in by_place(parent_uses[(p, c)]) + by_place(child_uses[(p, c)]))
        for (p, c) in sorted(child_uses)
        if (p, c) in parent_uses
    }
    return sibling_cycles(siblings), pairs


def sibling_cycles(edges) -> list[str]:
    graph = defaultdict(lambda: defaultdict(set))
    for (parent, a, b) in edges:
        graph[parent][a].add(b)
    found = []
    for parent in sorted(graph):
        g = graph[parent]
        index, low, stack, on, comps = {}, {}, [], set(), []

        def visit(v):  # Tarjan's strongly connected components
            index[v] = low[v] = len(index)
            stack.append(v)
            on.add(v)
            for w in sorted(g.get(v, ())):
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

        for v in sorted(g):
            if v not in index:
                visit(v)
        for comp in comps:
            lines = [f"import cycle under {name(parent)}: {' <-> '.join(comp)}"]
            for a in comp:
                for b in comp:
                    lines += [f"    {w}" for w in by_place(edges.get((parent, a, b), ()))]
            found.append("\n".join(lines))
    return found


def long_functions(code: str, where: Path) -> list[str]:
    found = []
    for m in FN_RE.finditer(code):
        k = m.end()
        depth = 0
        # The body's `{`; or the `;` of a declaration without one, or the `)` that closes a macro
        # call around a `fn` without one (`vector_builds!(fn f(x: f64) => body);`).
        while k < len(code):
            ch = code[k]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0 and ch in "{;":
                break
            k += 1
        if k >= len(code) or code[k] != "{":
            continue
        first, last = line_of(code, m.start()), line_of(code, matching(code, k) - 1)
        if last - first + 1 > MAX_FN_LINES:
            found.append(
                f"{where}:{first}: fn {m.group(1)} is {last - first + 1} lines (at most {MAX_FN_LINES})"
            )
    return found


def findings(root: Path, known: dict[str, list[str]] | None = None) -> list[str]:
    known = KNOWN_PARENT_CHILD if known is None else known
    problems = []
    for src in sorted(root.glob("crates/*/src")):
        files = {}
        for root_file in crate_roots(src):
            crate = str(root_file.relative_to(root))
            modules = load_modules(root_file)
            cycles, pairs = structure_problems(modules, root)
            problems += [f"{crate}: {c}" for c in cycles]
            excused = known.get(crate, [])
            problems += [f"{crate}: {text}" for pair, text in pairs.items() if pair not in excused]
            problems += [
                f"{crate}: {pair} is in KNOWN_PARENT_CHILD but no longer a parent/child cycle: delete it there"
                for pair in excused
                if pair not in pairs
            ]
            for module in modules.values():
                files.setdefault(module.file, without_test_items(strip_comments_and_strings(module.file.read_text())))
        for file, code in sorted(files.items()):
            problems += long_functions(code, file.relative_to(root))
    return problems


# ---------------------------------------------------------------------------------------------
# Self-test: small trees made to fail each check, and one that passes.


def self_test() -> None:
    import tempfile

    clean = {
        "crates/one/src/lib.rs": (
            "//! `crate::b::Y` in a doc comment is no edge.\n"
            "mod a;\nmod b;\nmod c;\npub mod d;\n"
            "pub use a::X;\npub use c::W;\n"
            "pub fn top() -> d::inner::V { a::make(); d::inner::V }\n"
        ),
        "crates/one/src/a/mod.rs": (
            "mod inner;\npub use inner::X;\nuse crate::{b::{self, Y}, c::W as _};\n"
            "pub fn make() -> Y { b::y() }\n"
        ),
        "crates/one/src/a/inner.rs": "use super::super::c::W;\npub struct X(W);\n",
        "crates/one/src/b.rs": (
            "pub struct Y;\npub fn y() -> Y { let _ = \"crate::a::X\"; let _ = 'a'; Y }\n"
            "// use crate::a::X;\n/* crate::a::X /* nested */ crate::a::X */\n"
            "pub fn uses_root_reexport() -> crate::W { crate::W }\n"
        ),
        "crates/one/src/c.rs": (
            "pub struct W;\n"
            "#[cfg(test)]\nfn helper() -> crate::a::X { unimplemented!() }\n"
            "pub fn after_the_helper() {}\n"
            "#[cfg(test)]\nmod tests {\n    use crate::a::X;\n    fn t() {\n"
            + "        let _ = 1;\n" * MAX_FN_LINES + "    }\n}\n"
            "#[cfg(test)]\nmod helpers;\n"
        ),
        "crates/one/src/c/helpers.rs": "use crate::a::X;\n",
        "crates/one/src/d/mod.rs": "pub mod inner;\n",
        "crates/one/src/d/inner.rs": "pub struct V;\npub fn v() -> crate::d::inner::V { self::V }\n",
        "crates/two/src/main.rs": "mod builds;\nmod x;\nfn main() { x::run() }\n",
        # A `fn` without a body in a macro call, then items a scan from inside the call misreads:
        # the `{` of the closure in `sum`, 130 lines below, is no body of `with_isa`.
        "crates/two/src/builds.rs": (
            "builds!(\n    fn with_isa(x: f64) => body\n);\n"
            "pub fn body(x: f64) -> f64 {\n" + "    let _ = 1;\n" * (MAX_FN_LINES - 10) + "    x\n}\n"
            "pub fn sum(x: &[f64]) -> f64 {\n    x.iter().map(|v| {\n"
            + "        let _ = 1;\n" * 20 + "        v * 2.0\n    }).sum()\n}\n"
        ),
        "crates/two/src/x.rs": "pub fn run() {\n" + "    let _ = 1;\n" * (MAX_FN_LINES - 2) + "}\n",
    }
    cases = {
        "an inline super:: cycle": (
            {
                "crates/one/src/d/mod.rs": "pub mod inner;\nmod other;\n",
                "crates/one/src/d/other.rs": "pub struct O;\npub fn o() { super::inner::v(); }\n",
                "crates/one/src/d/inner.rs": "pub struct V;\npub fn v() { let _ = super::super::d::other::O; }\n",
            },
            "import cycle under d: inner <-> other\n",
            "crates/one/src/d/inner.rs:2: super::super::d::other::O -> d::other",
        ),
        "a cycle after an early #[cfg(test)] helper": (
            {
                "crates/one/src/b.rs": (
                    "pub struct Y;\npub fn y() -> Y { Y }\n#[cfg(test)]\nimpl Y {\n    fn t(&self) {}\n}\n"
                    "#[cfg(test)]\nuse std::fmt;\n"
                    "pub fn late() -> crate::c::W { crate::c::W }\n"
                ),
                "crates/one/src/c.rs": "pub struct W;\npub fn w() { crate::b::y(); }\n",
            },
            "import cycle under crate root: b <-> c\n",
            "crates/one/src/b.rs:9: crate::c::W -> c",
        ),
        "a long function in another crate": (
            {"crates/two/src/x.rs": "pub fn run() {\n" + "    let _ = 1;\n" * MAX_FN_LINES + "}\n"},
            f"crates/two/src/x.rs:1: fn run is {MAX_FN_LINES + 2} lines",
            "",
        ),
        "a use-tree cycle": (
            {"crates/one/src/c.rs": "use crate::{d, a::{self, X as Renamed}};\npub struct W;\n"},
            "import cycle under crate root: a <-> b <-> c\n",
            "crates/one/src/c.rs:1: crate::a::X -> a::inner",
        ),
        "a cycle through a re-export": (
            {"crates/one/src/c.rs": "pub struct W(crate::X);\n"},
            "import cycle under crate root: a <-> b <-> c\n",
            "crates/one/src/c.rs:1: crate::X -> a::inner",
        ),
        "a child using its parent's item while the parent uses the child": (
            {"crates/one/src/d/inner.rs": "pub struct V;\npub fn v() { super::super::top(); }\n"},
            "parent and child use each other: crate root <-> d\n",
            "crates/one/src/d/inner.rs:2: super::super::top -> crate root",
        ),
    }
    with tempfile.TemporaryDirectory() as tmp:

        def build(files, name):
            root = Path(tmp) / name
            for path, text in files.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text)
            return root

        clean_root = build(clean, "clean")
        found = findings(clean_root, known={})
        assert found == [], f"clean tree: {found}"
        print("self-test: a clean tree passes")
        for k, (what, (changes, header, evidence)) in enumerate(cases.items()):
            found = findings(build({**clean, **changes}, f"case{k}"), known={})
            assert len(found) == 1 and header in found[0] and evidence in found[0], f"{what}: {found}"
            print(f"self-test: finds {what}: {found[0].splitlines()[0]}")
        known = {"crates/one/src/lib.rs": ["crate root <-> d"]}
        assert findings(build({**clean, **changes}, f"case{k}"), known=known) == []
        found = findings(clean_root, known=known)
        assert len(found) == 1 and "no longer a parent/child cycle" in found[0], found
        print("self-test: a KNOWN_PARENT_CHILD pair is excused, and reported once it is gone")


def main(argv: list[str]) -> int:
    args = [a for a in argv if a != "--self-test"]
    if len(args) != len(argv):
        self_test()
    root = Path(args[0]).resolve() if args else ROOT
    problems = findings(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} structure problem(s)", file=sys.stderr)
        return 1
    crates = ", ".join(p.parent.name for p in sorted(root.glob("crates/*/src")))
    print(f"structure: no import cycles, no function over {MAX_FN_LINES} lines ({crates})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
