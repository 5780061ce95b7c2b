#!/usr/bin/env python3
"""Every module a target's files import is one its Package.swift entry declares, and no SQL driver is imported above
storage.

    python3 Tools/ImportCheck/imports.py Server        (make lint runs it for Server/ and the root package)

SwiftPM builds a file that imports a module its target does not declare whenever another target brought that
module in (HTTPTypes through Hummingbird): the build passes until that other dependency changes. This reads the
package's manifest (`swift package dump-package`) and each target's files, and lists the undeclared imports. The
toolchain's own modules (Foundation, Glibc, Synchronization, Testing...) need no declaration. SQLKit and the
database drivers may be imported only by DeepLinksStorage and the tests' support for it: the server holds a
storage `DatabaseConnection`, never SQL.
"""
import json
import os
import re
import subprocess
import sys

TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Darwin", "Musl", "Android", "WinSDK",
    "Synchronization", "Dispatch", "Testing", "XCTest", "os", "_Concurrency", "Swift", "Observation", "RegexBuilder",
    "Combine", "UIKit", "SwiftUI", "AppKit", "SafariServices", "CoreFoundation",
}
DRIVERS = {"SQLKit", "SQLiteKit", "PostgresKit", "SQLiteNIO", "PostgresNIO"}
DRIVER_TARGETS = {"DeepLinksStorage", "DeepLinksStorageTests", "DeepLinksTestSupport", "DeepLinksServerTests"}
# Modules a product brings besides its own: a declared product covers them.
INSIDE = {"VaporCSQLite": "SQLiteNIO"}

root = sys.argv[1] if len(sys.argv) > 1 else "."
manifest = json.loads(subprocess.run(
    ["swift", "package", "--package-path", root, "dump-package"], capture_output=True, text=True, check=True
).stdout)
names = {target["name"] for target in manifest["targets"]}
problems = []
for target in manifest["targets"]:
    if target["type"] in ("plugin", "system", "binary"):
        continue
    declared = set()
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        declared.add(value[0])
    folder = target.get("path") or os.path.join(
        "Tests" if target["type"] == "test" else "Sources", target["name"]
    )
    imports = {}
    for directory, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            for line in open(path, encoding="utf-8"):
                # The imports are the file's head: stop at its first declaration (a Python program in a string
                # below may say `import http`).
                if line.strip() and not re.match(r"\s*(//|#if|#else|#elseif|#endif|@testable|@_exported|@preconcurrency|(public |package |internal )?import )", line):
                    break
                match = re.match(r"\s*(?:@testable\s+|@_exported\s+|public\s+|package\s+|internal\s+)*import\s+(?:struct\s+|enum\s+|class\s+|func\s+)?([A-Za-z_][A-Za-z0-9_]*)", line)
                if match:
                    imports.setdefault(match.group(1), path)
    for module, path in sorted(imports.items()):
        if module in TOOLCHAIN or module == target["name"]:
            continue
        if module in DRIVERS and target["name"] not in DRIVER_TARGETS:
            problems.append(f"{path}: imports {module}: only DeepLinksStorage speaks SQL")
        elif module not in declared and INSIDE.get(module) not in declared:
            problems.append(f"{path}: imports {module}, which target {target['name']} does not declare")
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
