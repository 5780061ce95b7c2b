#!/usr/bin/env python3
"""Checks each reference app's Xcode project against the repository, on Linux.

Usage: projects.py NAME:FOLDER[,FOLDER...] ...  (the same app list Tools/AppleTypecheck/run type-checks)

What it proves: the project file parses (with the `pbxproj` package's OpenStep parser, not ours); every object it
names exists and every object is used; its target compiles exactly the folders the type-check compiles, and those
folders hold only Swift files (anything else in a synchronized folder is copied into the app); its Info.plist and
entitlements are the files `deeplinks check` is tested with; its local package is this repository and every product
it links is one the root package declares, and every module the sources import is linked or Apple's; its
deployment target is at least the package's; the API address is set for each configuration (a local server in
Debug, HTTPS otherwise); the shared scheme builds the target. What it does not prove: that Xcode opens or builds
the project (no Xcode here); that runs on a Mac with Xcode 16 or later.
"""

import os
import plistlib
import re
import sys

try:
    from pbxproj import XcodeProject
except ImportError:
    sys.exit("projects.py: needs the pbxproj package (pip install pbxproj); scripts/with-services installs it")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APPLE_MODULES = {"Combine", "Foundation", "FoundationNetworking", "SwiftUI", "UIKit"}


def package_facts():
    manifest = open(os.path.join(ROOT, "Package.swift")).read()
    products = set(re.findall(r'\.library\(name: "([^"]+)"', manifest))
    ios = re.search(r"\.iOS\(\.v(\d+)\)", manifest)
    return products, float(ios.group(1)) if ios else 0.0


def check(app, folders, products, package_ios):
    problems = []
    app_dir = os.path.join(ROOT, "Examples", app)
    project_dir = os.path.join(app_dir, f"{app}.xcodeproj")
    path = os.path.join(project_dir, "project.pbxproj")
    text = open(path).read()
    try:
        project = XcodeProject.load(path)
    except Exception as error:  # the parser raises several kinds, each meaning the file does not parse
        return [f"does not parse as a property list: {type(error).__name__} {error}"]
    objects = {key: project.objects[key] for key in project.objects.get_keys()}

    # Every identifier the file names is an object, and every object but the root is named somewhere else.
    defined = set(re.findall(r"^\t\t([0-9A-F]{24}) ", text, re.M))
    named = re.findall(r"(?<![0-9A-F])([0-9A-F]{24})(?![0-9A-F])", text)
    for identifier in sorted(set(named) - defined):
        problems.append(f"names {identifier}, which is not an object")
    root = re.search(r"rootObject = ([0-9A-F]{24})", text).group(1)
    for identifier in sorted(defined - {root}):
        if named.count(identifier) < 2:
            problems.append(f"object {identifier} is never used")
    if len(defined) != len(objects):
        problems.append(f"{len(defined)} objects written, the parser read {len(objects)}")
    if project["objectVersion"] != "77":
        problems.append(f"objectVersion is {project['objectVersion']}; keep 77 (Xcode 16 and later open it)")

    target = project.get_target_by_name(app)
    if target is None or target.productType != "com.apple.product-type.application":
        return problems + [f"no application target named {app}"]
    synchronized = [objects[g] for g in target.fileSystemSynchronizedGroups]
    compiled = sorted(os.path.normpath(os.path.join(app_dir, g.path)) for g in synchronized)
    expected = sorted(os.path.join(ROOT, f) for f in folders)
    if compiled != expected:
        shown = [os.path.relpath(f, ROOT) for f in compiled]
        problems.append(f"the target compiles {shown}, the type-check compiles {folders}")
    for folder in compiled:
        for dirpath, _, files in os.walk(folder):
            for name in files:
                if not name.endswith(".swift"):
                    rel = os.path.relpath(os.path.join(dirpath, name), ROOT)
                    problems.append(f"{rel} is in a synchronized folder: Xcode would copy it into the app")

    imported = set()
    for folder in compiled:
        for dirpath, _, files in os.walk(folder):
            for name in files:
                source = open(os.path.join(dirpath, name)).read()
                imported |= set(re.findall(r"^import (\w+)", source, re.M))

    # The local package is this repository; each product linked is declared there and linked in the build phase.
    references = [o for o in objects.values() if o.isa == "XCLocalSwiftPackageReference"]
    if len(references) != 1 or os.path.normpath(os.path.join(app_dir, references[0].relativePath)) != ROOT:
        problems.append("the project's one local package must be the repository root")
    linked = set()
    for dependency in (objects[d] for d in target.packageProductDependencies):
        linked.add(dependency.productName)
        if dependency.productName not in products:
            problems.append(f"links {dependency.productName}, which Package.swift does not declare as a product")
        if references and dependency.package != references[0].get_id():
            problems.append(f"{dependency.productName} does not come from the local package")
    phase_products = {
        objects[objects[f].productRef].productName
        for phase in target.buildPhases
        if objects[phase].isa == "PBXFrameworksBuildPhase"
        for f in objects[phase].files
    }
    if phase_products != linked:
        problems.append(f"the Frameworks phase links {sorted(phase_products)}, the target depends on {sorted(linked)}")
    for module in sorted(imported - linked - APPLE_MODULES):
        problems.append(f"the sources import {module}, which the target does not link")

    configurations = list(project.objects.get_configurations_on_targets(app))
    project_level = {
        objects[c].name: objects[c].buildSettings
        for c in objects[objects[project.rootObject].buildConfigurationList].buildConfigurations
    }
    for configuration in configurations:
        name = configuration.name
        target_level = configuration.buildSettings

        def setting(key):  # the target's value, else the project's (as Xcode resolves it)
            value = target_level[key]
            return value if value is not None else project_level.get(name, {})[key]

        for key, file in (("INFOPLIST_FILE", "Info.plist"), ("CODE_SIGN_ENTITLEMENTS", f"{app}.entitlements")):
            if setting(key) != file or not os.path.isfile(os.path.join(app_dir, file)):
                problems.append(f"{name}: {key} must be {file}, the file `deeplinks check` is tested with")
        if float(setting("IPHONEOS_DEPLOYMENT_TARGET") or 0) < package_ios:
            problems.append(f"{name}: deployment target below the package's iOS {package_ios:g}")
        address = setting("DEEPLINKS_API_BASE_URL") or ""
        wanted = "http://localhost:" if name == "Debug" else "https://"
        if not address.startswith(wanted):
            problems.append(f"{name}: DEEPLINKS_API_BASE_URL is '{address}', expected {wanted}...")
    if sorted(c.name for c in configurations) != ["Debug", "Release"]:
        problems.append("the target needs a Debug and a Release configuration")
    with open(os.path.join(app_dir, "Info.plist"), "rb") as file:
        info = plistlib.load(file)
    if info.get("DeepLinksAPIBaseURL") != "$(DEEPLINKS_API_BASE_URL)":
        problems.append("Info.plist: DeepLinksAPIBaseURL must be $(DEEPLINKS_API_BASE_URL), set per configuration")

    scheme = open(os.path.join(project_dir, "xcshareddata", "xcschemes", f"{app}.xcscheme")).read()
    if f'BlueprintIdentifier = "{target.get_id()}"' not in scheme or f'BuildableName = "{app}.app"' not in scheme:
        problems.append(f"the shared scheme does not build the {app} target")
    if not os.path.isfile(os.path.join(project_dir, "project.xcworkspace", "contents.xcworkspacedata")):
        problems.append("project.xcworkspace/contents.xcworkspacedata is missing")
    return problems


def main():
    products, package_ios = package_facts()
    failures = 0
    for argument in sys.argv[1:]:
        app, folders = argument.split(":", 1)
        problems = check(app, folders.split(","), products, package_ios)
        for problem in problems:
            print(f"✘ {app}.xcodeproj: {problem}", file=sys.stderr)
        if problems:
            failures += 1
        else:
            print(f"✔ {app}.xcodeproj: parses, links what its sources import, compiles what the type-check compiles")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
