#!/usr/bin/python3
"""Checks three structural rules of the C++ sources (docs/ci.md, "Structure check").

1. No function is longer than 100 physical lines (from the line of its name to its closing
   brace, as universal-ctags reports them), except those in LONG_FUNCTIONS_ALLOWED.
2. No include cycle: no two units of the project depend on each other, directly or through
   others, except the cycles in KNOWN_CYCLES. A unit is a header and its source (x.hpp and
   x.cpp) taken together, as Lakos' components: x depends on y when x.hpp or x.cpp includes
   y.hpp (or y.cpp). So registry.cpp including a plugin's header while that header includes
   registry.hpp is a cycle, though no file includes itself through the others.
3. No class or struct defined in a header has more than MAX_MEMBERS members: data members and
   member functions declared in its body (each overload and constructor counts; types and
   aliases do not; a nested class counts on its own), as universal-ctags reports them, except
   those in LARGE_CLASSES_ALLOWED.

Usage: tools/check-structure.py [--root DIR]
Exits 0 when the rules hold, 1 with the offenders listed when one does not, 2 when it cannot
run (universal-ctags missing: tools/deps.sh installs it). Standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

MAX_LINES = 100

# (file, function name) pairs allowed over MAX_LINES, each with the reason.
LONG_FUNCTIONS_ALLOWED = {
    # The fluid solver's progressive filling, kept whole on purpose (issue 40; the comment
    # above it): every round reads and updates the same state in a fixed order that keeps the
    # floating-point sums identical run to run; split, that state would pass through every helper.
    ("sim/engine/fluid.cpp", "solve"): "the fluid solver's progressive filling",
}

# Include cycles allowed, each the set of files of one strongly connected component (none: the
# last three were undone). A component inside one of these sets passes; a component with any
# other file, or a new component, fails. Remove an entry when its cycle is gone (the script
# prints a note then).
KNOWN_CYCLES = []

MAX_MEMBERS = 40

# (header, class name with its namespaces) pairs allowed over MAX_MEMBERS, each with the reason.
LARGE_CLASSES_ALLOWED = {}

CPP_SUFFIXES = (".cpp", ".hpp")
SKIP_DIRS = {".git", "out", "__pycache__"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def source_files(root):
    """The repository's C++ sources, relative to root: git's list, or a walk without git."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "*.cpp", "*.hpp"], cwd=root,
                             check=True, capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        for name in filenames:
            if name.endswith(CPP_SUFFIXES):
                files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(files)


def ctags_program():
    """The path of universal-ctags; exits 2 when it is missing."""
    ctags = shutil.which("ctags")
    if ctags is None:
        print("check-structure: no ctags; install Debian's universal-ctags (tools/deps.sh)",
              file=sys.stderr)
        sys.exit(2)
    version = subprocess.run([ctags, "--version"], capture_output=True, text=True).stdout
    if "Universal Ctags" not in version:
        print("check-structure: ctags is not universal-ctags (Debian's universal-ctags)",
              file=sys.stderr)
        sys.exit(2)
    return ctags


def ctags_fields(line):
    """A ctags line's name, file and its extension fields (kind:, line:, end:, scope:...)."""
    parts = line.split("\t")
    if len(parts) < 4:
        return None
    fields = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
    return parts[0], parts[1], fields


def long_functions(root, files):
    """(file, name, first line, lines) of every function over MAX_LINES, from universal-ctags."""
    ctags = ctags_program()
    out = subprocess.run([ctags, "--fields=+ne", "--c++-kinds=f", "--language-force=C++", "-f",
                          "-", *files], cwd=root, check=True, capture_output=True,
                         text=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) < 4:
            continue
        fields = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
        if "line" not in fields or "end" not in fields:
            continue
        first, last = int(fields["line"]), int(fields["end"])
        length = last - first + 1
        if length > MAX_LINES:
            found.append((parts[1], parts[0], first, length))
    return sorted(found)


def large_classes(root, files):
    """(header, class, first line, members) of every class or struct of a header with more than
    MAX_MEMBERS members. A member is a data member, a function prototype or a function defined
    in the body, whose line lies within the class's lines (a member function defined after the
    class, in a header, is counted once: by its declaration)."""
    ctags = ctags_program()
    headers = [f for f in files if f.endswith(".hpp")]
    out = subprocess.run([ctags, "--fields=+neKzZ", "--c++-kinds=cspmf",
                          "--language-force=C++", "-f", "-", *headers], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    classes, members = {}, []
    for line in out.splitlines():
        tag = ctags_fields(line)
        if tag is None:
            continue
        name, path, fields = tag
        kind = fields.get("kind")
        if kind in ("class", "struct") and "line" in fields and "end" in fields:
            scope = fields.get("scope", "").split(":", 1)[-1]
            full = f"{scope}::{name}" if scope else name
            classes[(path, full)] = (int(fields["line"]), int(fields["end"]))
        elif kind in ("member", "prototype", "function") and "line" in fields:
            scope = fields.get("scope", "")
            if scope.startswith(("class:", "struct:")):
                members.append((path, scope.split(":", 1)[1], int(fields["line"])))
    counts = {}
    for path, owner, at in members:
        span = classes.get((path, owner))
        if span is not None and span[0] <= at <= span[1]:
            counts[(path, owner)] = counts.get((path, owner), 0) + 1
    return sorted((path, owner, classes[(path, owner)][0], n)
                  for (path, owner), n in counts.items() if n > MAX_MEMBERS)


def resolve(including, style, name, known):
    """The repository file an #include names, or None (system and generated headers)."""
    candidates = []
    if style == '"':
        candidates.append(os.path.normpath(os.path.join(os.path.dirname(including), name)))
    # build/include/tidesim is a link to the repository root (CMakeLists.txt), so
    # "tidesim/sim/api/x.hpp" is sim/api/x.hpp; tests also include "tests/common/..." from the root.
    if name.startswith("tidesim/"):
        candidates.append(os.path.normpath(name[len("tidesim/"):]))
    candidates.append(os.path.normpath(name))
    for c in candidates:
        if c in known:
            return c
    return None


def include_graph(root, files):
    known = set(files)
    graph = {f: set() for f in files}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as text:
            for line in text:
                m = INCLUDE_RE.match(line)
                if m:
                    target = resolve(f, m.group(1), m.group(2).strip(), known)
                    if target is not None:
                        graph[f].add(target)
    return graph


def unit(path):
    """A file's unit: its path without the suffix (x.hpp and x.cpp are unit x)."""
    return os.path.splitext(path)[0]


def unit_graph(graph):
    units = {}
    for f, targets in graph.items():
        units.setdefault(unit(f), set()).update(unit(t) for t in targets if unit(t) != unit(f))
    return units


def cycles(graph):
    """Strongly connected components of more than one node, or of one with an edge to itself
    (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    result.append(sorted(component))
    return sorted(result)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the repository root (default: this script's ..)")
    root = os.path.abspath(parser.parse_args().root)
    files = source_files(root)
    if not files:
        sys.exit(f"check-structure: no C++ sources under {root}")
    failed = False

    longs = long_functions(root, files)
    new_longs = [x for x in longs if (x[0], x[1]) not in LONG_FUNCTIONS_ALLOWED]
    for allowed in sorted(set(LONG_FUNCTIONS_ALLOWED) - {(x[0], x[1]) for x in longs}):
        print(f"note: {allowed[0]} {allowed[1]} is no longer over {MAX_LINES} lines; "
              f"remove it from LONG_FUNCTIONS_ALLOWED")
    if new_longs:
        failed = True
        print(f"Functions over {MAX_LINES} physical lines (split them into smaller ones):")
        for path, name, first, length in new_longs:
            print(f"  {path}:{first}: {name} ({length} lines)")

    larges = large_classes(root, files)
    new_larges = [x for x in larges if (x[0], x[1]) not in LARGE_CLASSES_ALLOWED]
    for allowed in sorted(set(LARGE_CLASSES_ALLOWED) - {(x[0], x[1]) for x in larges}):
        print(f"note: {allowed[0]} {allowed[1]} no longer has over {MAX_MEMBERS} members; "
              f"remove it from LARGE_CLASSES_ALLOWED")
    if new_larges:
        failed = True
        print(f"Classes with over {MAX_MEMBERS} members (split them by responsibility):")
        for path, name, first, count in new_larges:
            print(f"  {path}:{first}: {name} ({count} members)")

    files_graph = include_graph(root, files)
    components = cycles(unit_graph(files_graph))
    known = [set(c) for c in KNOWN_CYCLES]
    new_cycles = [c for c in components if not any(set(c) <= k for k in known)]
    for k in KNOWN_CYCLES:
        if not any(set(c) & k for c in components):
            print(f"note: the known include cycle through {sorted(k)[0]} is gone; remove it "
                  f"from KNOWN_CYCLES")
    if new_cycles:
        failed = True
        print("Include cycles (units that depend on each other; a unit is x.hpp with x.cpp):")
        for c in new_cycles:
            members = set(c)
            print(f"  {len(c)} units: " + " ".join(c))
            for f in sorted(files_graph):
                for t in sorted(files_graph[f]):
                    if unit(f) in members and unit(t) in members and unit(f) != unit(t):
                        print(f"    {f} includes {t}")

    if failed:
        print("check-structure: FAILED (docs/ci.md, \"Structure check\")")
        return 1
    print(f"check-structure: {len(files)} files, no function over {MAX_LINES} lines "
          f"(besides {len(LONG_FUNCTIONS_ALLOWED)} allowed), no class over {MAX_MEMBERS} "
          f"members (besides {len(LARGE_CLASSES_ALLOWED)} allowed), no new include cycle "
          f"({len(components)} known)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
