#!/usr/bin/env python3
"""The folder graph of a Swift module: which folder's files name a type another folder declares.

    python3 Tools/FolderGraph/folder-graph.py Server/Sources/DeepLinksServer [--check] [--why A B]

A folder is a file's directory relative to the module (a file at the root is the folder `.`; `Rules/Conditions`
is a folder of its own). An arrow A -> B means a file in A names a type (struct, class, enum, protocol, actor,
typealias) declared at the top level of a file in B. Prints every folder with its Swift files and lines, the
arrows, and the two-way pairs (A -> B and B -> A), the smell the structure is measured by. With --check, exits 1
when a folder holds more than 17 Swift files or 2,400 lines, or when there are more than 7 two-way pairs
(docs/development.md, "Where things are").
"""
import os
import re
import sys
from collections import defaultdict

MAX_FILES, MAX_LINES, MAX_TWO_WAY = 17, 2400, 7

root = sys.argv[1]
check = "--check" in sys.argv
declaration = re.compile(r"^(?:(?:public|package|internal|private|fileprivate|final|open|indirect)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)", re.M)
comment = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
string = re.compile(r'"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"')

files = defaultdict(list)
for directory, _, names in os.walk(root):
    for name in names:
        if name.endswith(".swift"):
            folder = os.path.relpath(directory, root)
            files[folder].append(os.path.join(directory, name))

declared = {}
texts = {}
for folder, paths in files.items():
    for path in paths:
        text = open(path, encoding="utf-8").read()
        texts[path] = (folder, text)
        for match in declaration.finditer(text):
            declared.setdefault(match.group(1), folder)

arrows = defaultdict(set)
reasons = defaultdict(set)  # (from, to) -> "file: Type"
for path, (folder, text) in texts.items():
    code = string.sub('""', comment.sub("", text))
    for word in set(re.findall(r"\b[A-Z][A-Za-z0-9_]*\b", code)):
        target = declared.get(word)
        if target is not None and target != folder:
            arrows[folder].add(target)
            reasons[(folder, target)].add(f"{os.path.basename(path)}: {word}")
if "--why" in sys.argv:
    a, b = sys.argv[sys.argv.index("--why") + 1:][:2]
    for pair in [(a, b), (b, a)]:
        print(f"{pair[0]} -> {pair[1]}: " + "; ".join(sorted(reasons[pair])))
    sys.exit(0)

problems = []
print("folder                      files  lines")
for folder in sorted(files):
    count = len(files[folder])
    lines = sum(texts[path][1].count("\n") for path in files[folder])
    flag = ""
    if count > MAX_FILES or lines > MAX_LINES:
        flag = "  <- over 17 files or 2,400 lines"
        problems.append(f"{folder}: {count} files, {lines} lines")
    print(f"{folder:<27} {count:>5} {lines:>6}{flag}")
print("\narrows:")
for folder in sorted(arrows):
    print(f"  {folder} -> {', '.join(sorted(arrows[folder]))}")
pairs = sorted({tuple(sorted((a, b))) for a in arrows for b in arrows[a] if a in arrows.get(b, set())})
print(f"\ntwo-way pairs: {len(pairs)}")
for a, b in pairs:
    print(f"  {a} <-> {b}")
if len(pairs) > MAX_TWO_WAY:
    problems.append(f"{len(pairs)} two-way pairs (at most {MAX_TWO_WAY})")
if check and problems:
    print("\n" + "\n".join(problems), file=sys.stderr)
    sys.exit(1)
