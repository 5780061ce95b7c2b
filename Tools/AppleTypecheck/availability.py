#!/usr/bin/env python3
"""The availability gate of `make apple-typecheck`.

swiftc on Linux ignores `@available(iOS ...)`: code that calls an API newer than the package's minimums compiles
here and fails in every adopter's Xcode. This gate does the check the Apple compiler would do, from two things the
Linux toolchain does know:

- which declaration each expression refers to: `swiftc -dump-ast -dump-ast-format json` gives every reference's USR
  (and every expression's type, as a mangled name), with the source offset of the expression;
- when each declaration appeared on each Apple platform: the symbol graphs of the toolchain's modules
  (`swift symbolgraph-extract`: Swift, _Concurrency, Foundation and FoundationEssentials carry Apple's
  `@available`), of the stand-ins (which declare Apple's), and of the project's own declarations (their
  `@available` attributes, read from the same AST).

A reference is accepted when the declaration is available at the platform's minimum, or when the code around it
raises the floor: an `if #available`/`guard #available` that names the platform, or an `@available` attribute on an
enclosing declaration. visionOS inherits iOS availability where a declaration names iOS and not visionOS (iOS 17 and
earlier are visionOS 1.0; iOS 18 is visionOS 2.0; from 26 the numbers are the same), as Apple's compiler infers it.

    availability.py index OUT SYMBOL_GRAPH_DIR...       the USR -> availability table, written once per run
    availability.py check INDEX PLATFORM=VERSION AST...  every reference in the ASTs against PLATFORM's minimum

`check` prints one line per violation, `file:line:col: error: 'API' is only available in iOS 18.0 or newer (the
package declares iOS 16.0)`, and exits 1 when there is any.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

PLATFORMS = ("iOS", "macOS", "tvOS", "visionOS", "watchOS")
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"}
NEVER = (1 << 30,)  # the version of an unavailable declaration: no minimum reaches it


def version(text):
    """'18', '18.0' or {'major': 18, 'minor': 0} as a comparable tuple without trailing zeros."""
    if isinstance(text, dict):
        parts = [text.get("major", 0), text.get("minor", 0), text.get("patch", 0)]
    else:
        parts = [int(p) for p in str(text).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def spelled(v):
    return ".".join(str(p) for p in (v if len(v) > 1 else v + (0,)))


def vision_from_ios(v):
    """The visionOS version Apple's compiler infers from an iOS one."""
    if v == NEVER:
        return NEVER
    if v[0] >= 26:
        return v
    return (v[0] - 16,) + v[1:] if v[0] >= 18 else (1,)


def requirements(entries):
    """{platform: version} from symbol-graph availability entries (or the same shape built from attributes)."""
    needs = {}
    for entry in entries:
        domain = entry.get("domain")
        if domain not in PLATFORMS:
            continue
        if entry.get("isUnconditionallyUnavailable") or entry.get("unavailable"):
            needs[domain] = NEVER
        elif "introduced" in entry:
            needs[domain] = max(needs.get(domain, (0,)), version(entry["introduced"]))
    if "iOS" in needs and "visionOS" not in needs:
        needs["visionOS"] = vision_from_ios(needs["iOS"])
    return needs


def build_index(out, folders):
    """Every symbol with Apple availability, by USR, and every type's qualified name, by name.

    A protocol requirement that a default implementation also provides counts as available where either is: the
    standard library adds requirements (`FixedWidthInteger.&*`, iOS 18) over implementations as old as the
    protocol, and a call on a concrete type reaches the old implementation when the requirement is too new.
    """
    symbols, types, defaults = {}, {}, {}
    for folder in folders:
        for path in sorted(Path(folder).glob("*.symbols.json")):
            graph = json.loads(path.read_text())
            module = graph["module"]["name"]
            for symbol in graph["symbols"]:
                usr = symbol["identifier"]["precise"]
                name = ".".join(symbol["pathComponents"])
                symbols[usr] = (name, requirements(symbol.get("availability", [])))
                if symbol["kind"]["identifier"] in TYPE_KINDS:
                    types[f"{module}.{name}"] = usr
            for relation in graph["relationships"]:
                if relation["kind"] == "defaultImplementationOf":
                    defaults.setdefault(relation["target"], []).append(relation["source"])
    for requirement, implementations in defaults.items():
        if requirement not in symbols:
            continue
        name, needs = symbols[requirement]
        for implementation in implementations:
            older = symbols.get(implementation, (name, {}))[1]
            needs = {k: min(v, older[k]) for k, v in needs.items() if k in older}
        symbols[requirement] = (name, needs)
    table = {usr: {"name": name, "needs": {k: list(v) for k, v in needs.items()}}
             for usr, (name, needs) in symbols.items() if needs}
    types = {name: usr for name, usr in types.items() if usr in table}
    Path(out).write_text(json.dumps({"symbols": table, "types": types}))
    print(f"availability index: {len(table)} declarations with Apple availability, {len(types)} types")


def json_documents(text):
    """`-dump-ast` writes one JSON document per source file, one after another."""
    decoder, at = json.JSONDecoder(), 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return
        document, at = decoder.raw_decode(text, at)
        yield document


def floors_from_attributes(attrs):
    entries = [a for a in attrs or [] if a.get("_kind") == "available_attr"]
    return requirements(entries)


def floors_from_query(condition):
    """`#available(iOS 18, macOS 15, *)` raises those floors; `#unavailable` (no `*`) raises none in its body."""
    queries = condition.get("queries", [])
    if not any(q.get("domain") == "*" for q in queries):
        return {}
    return {q["domain"]: version(q["version"]) for q in queries if q.get("domain") in PLATFORMS and "version" in q}


def raised(floors, more):
    merged = dict(floors)
    for domain, v in more.items():
        merged[domain] = max(merged.get(domain, (0,)), v)
    return merged


class Walker:
    """Visits an AST with the availability floors in force at each node; calls `visit(node, floors, offset)`."""

    def __init__(self, visit):
        self.visit = visit

    def walk(self, node, floors, offset):
        if isinstance(node, list):
            for item in node:
                self.walk(item, floors, offset)
            return
        if not isinstance(node, dict):
            return
        offset = node.get("range", {}).get("start", offset)
        floors = raised(floors, floors_from_attributes(node.get("attrs")))
        self.visit(node, floors, offset)
        kind = node.get("_kind")
        if kind == "if_stmt":
            inside = floors
            for condition in node.get("conditions", []):
                if condition.get("_kind") == "#available":
                    inside = raised(inside, floors_from_query(condition))
                else:
                    self.walk(condition, floors, offset)
            self.walk(node.get("then_stmt"), inside, offset)
            self.walk(node.get("else_stmt"), floors, offset)
            return
        if kind == "brace_stmt":
            for element in node.get("elements", []):
                self.walk(element, floors, offset)
                if isinstance(element, dict) and element.get("_kind") == "guard_stmt":
                    for condition in element.get("conditions", []):
                        if condition.get("_kind") == "#available":
                            floors = raised(floors, floors_from_query(condition))
            return
        for key, value in node.items():
            # A for-in's `next` is the compiler's choice by deployment target (`next(isolation:)` from iOS 18,
            # `next()` before), not the code's: skipped.
            if key == "next_call" and kind == "for_each_stmt":
                continue
            if key != "attrs" and isinstance(value, (dict, list)):
                self.walk(value, floors, offset)


def mangled_types(node):
    return [v for v in node.values() if isinstance(v, str) and v.startswith("$s")]


def check(index_path, platform, ast_paths):
    domain, minimum = platform.split("=")
    minimum = version(minimum)
    index = json.loads(Path(index_path).read_text())
    symbols = {usr: (s["name"], {k: tuple(v) for k, v in s["needs"].items()}) for usr, s in index["symbols"].items()}
    documents = [d for path in ast_paths for d in json_documents(Path(path).read_text())]

    # The project's own declarations, with the availability they declare (and inherit from their context).
    def own(node, floors, offset):
        usr = node.get("usr")
        if usr and node.get("_kind", "").endswith("_decl") and floors.get(domain, (0,)) > minimum:
            name = node.get("name", {}).get("base_name", {}).get("name", usr) if isinstance(node.get("name"), dict) else usr
            symbols.setdefault(usr, (name, {domain: floors[domain]}))

    for document in documents:
        Walker(own).walk(document.get("items"), {}, 0)

    # Types are referenced by mangled name; the demangler gives their qualified names (one process for all).
    mangled = sorted({m for d in documents for m in _all_mangled(d)})
    demangled = {}
    if mangled:
        out = subprocess.run(["swift", "demangle"], input="\n".join(mangled), capture_output=True, text=True, check=True)
        demangled = dict(zip(mangled, out.stdout.splitlines()))
    types = index["types"]
    qualified = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")

    violations = set()
    for document in documents:
        path = document["filename"]
        source = Path(path).read_bytes()

        def visit(node, floors, offset):
            used = []
            decl = node.get("decl")
            if isinstance(decl, dict) and decl.get("decl_usr"):
                used.append(decl["decl_usr"])
            if node.get("_kind") == "decl_ref" and node.get("decl_usr"):
                used.append(node["decl_usr"])
            for name in mangled_types(node):
                used += [types[q] for q in qualified.findall(demangled.get(name, "")) if q in types]
            for usr in used:
                if usr not in symbols:
                    continue
                api, needs = symbols[usr]
                needed = needs.get(domain)
                if needed is None or needed <= max(minimum, floors.get(domain, (0,))):
                    continue
                line = source.count(b"\n", 0, offset) + 1
                column = offset - (source.rfind(b"\n", 0, offset) + 1) + 1
                if needed == NEVER:
                    message = f"'{api}' is unavailable in {domain}"
                else:
                    message = (f"'{api}' is only available in {domain} {spelled(needed)} or newer"
                               f" (the package declares {domain} {spelled(minimum)})")
                violations.add((path, line, column, message))

        Walker(visit).walk(document.get("items"), {}, 0)

    for path, line, column, message in sorted(violations):
        print(f"{path}:{line}:{column}: error: {message}")
    return 1 if violations else 0


def _all_mangled(node):
    if isinstance(node, dict):
        for value in node.values():
            if isinstance(value, str) and value.startswith("$s"):
                yield value
            else:
                yield from _all_mangled(value)
    elif isinstance(node, list):
        for item in node:
            yield from _all_mangled(item)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "index":
        build_index(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4:]))
    else:
        sys.exit(__doc__)
