#!/usr/bin/env python3
"""The documentation's Swift snippets, compiled: every ```swift block of README.md and of the DocC articles of
DeepLinks, DeepLinksSwiftUI, DeepLinksUIKit and DeepLinksTesting.

Usage: snippets.py MODULES PLATFORM SWIFTC-FLAGS...  (run by Tools/AppleTypecheck/run, which built MODULES: the
stand-ins and the app-side modules for PLATFORM)

- A block that imports Testing is a test: it must appear word for word in
  Tests/DeepLinksTests/Documentation/DocumentationSnippetTests.swift, where `make test-core` runs it on Linux.
- A block that declares the example app (`enum AppRoute`, `enum Screen`, `extension AppRoute`) must appear word for
  word in Tests/DeepLinksTests/Documentation/DocExampleApp.swift, which every other snippet compiles against (and
  which the Linux tests use).
- Every other block is compiled to SIL, each as a module of its own, against the stand-ins with the example app and
  Snippets/AppScreens.swift (the app's own views the snippets name). Each block file starts with
  `import DeepLinks` and `import Foundation`; any other import is the block's own.

What it proves: each snippet type-checks, with Swift 6's concurrency checking, against the stand-ins (what they
prove: README.md beside this script) and the project's modules; the testing snippets pass on Linux. What it does
not: that a snippet does what its prose says, beyond the tests.
"""

import os
import re
import subprocess
import textwrap
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = ["README.md"] + [
    os.path.join(folder, name)
    for folder in [
        "Sources/DeepLinks/Documentation.docc",
        "Sources/DeepLinksSwiftUI/Documentation.docc",
        "Sources/DeepLinksUIKit/Documentation.docc",
        "Sources/DeepLinksTesting/Documentation.docc",
    ]
    for name in sorted(os.listdir(os.path.join(ROOT, folder)))
    if name.endswith(".md")
]
EXAMPLE = "Tests/DeepLinksTests/Documentation/DocExampleApp.swift"
TESTS = "Tests/DeepLinksTests/Documentation/DocumentationSnippetTests.swift"
SCREENS = "Tools/AppleTypecheck/Snippets/AppScreens.swift"
DECLARES_EXAMPLE = re.compile(r"^(enum AppRoute\b|enum Screen\b|extension AppRoute\b)", re.M)


def blocks(path):
    """The ```swift blocks of a document, with their line numbers."""
    found, current, start = [], None, 0
    for number, line in enumerate(open(os.path.join(ROOT, path)).read().split("\n"), 1):
        if current is None and line.strip() == "```swift":
            current, start = [], number + 1
        elif current is not None and line.strip() == "```":
            found.append((start, textwrap.dedent("\n".join(current))))
            current = None
        elif current is not None:
            current.append(line)
    return found


def normalized(text):
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def compile_module(files, modules, platform, flags, work):
    result = subprocess.run(
        ["swiftc", *flags, "-I", modules, "-D", platform, "-module-name", "Snippet", "-emit-sil", "-o", os.devnull,
         *files],
        capture_output=True,
        text=True,
        cwd=work,
    )
    return result.returncode == 0, result.stderr


def main():
    modules, platform, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    example = normalized(open(os.path.join(ROOT, EXAMPLE)).read())
    tests = normalized(open(os.path.join(ROOT, TESTS)).read())
    failures, compiled, mirrored = [], 0, 0
    with tempfile.TemporaryDirectory() as work:
        for doc in DOCS:
            for line, code in blocks(doc):
                where = f"{doc}:{line}"
                if re.search(r"^import Testing$", code, re.M):
                    mirrored += 1
                    if normalized(code) not in tests:
                        failures.append(f"{where}: this test snippet is not in {TESTS} word for word")
                    continue
                if DECLARES_EXAMPLE.search(code):
                    mirrored += 1
                    if normalized(code) not in example:
                        failures.append(f"{where}: this declaration of the example app is not in {EXAMPLE} word for word")
                    continue
                name = os.path.join(work, re.sub(r"\W", "_", where) + ".swift")
                with open(name, "w") as file:
                    file.write("import DeepLinks\nimport Foundation\n" + code + "\n")
                ok, errors = compile_module(
                    [name, os.path.join(ROOT, EXAMPLE), os.path.join(ROOT, SCREENS)], modules, platform, flags, work
                )
                compiled += 1
                if not ok:
                    failures.append(f"{where}: does not compile\n{errors}")
    for failure in failures:
        print(f"✘ {platform}: {failure}", file=sys.stderr)
    print(f"{'✘' if failures else '✔'} {platform}: {compiled} documentation snippets compiled, {mirrored} held word "
          f"for word to the Linux tests' files (run by make test-core), from {len(DOCS)} documents")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
