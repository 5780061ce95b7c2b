"""The availability gate's own tests: real swiftc ASTs of small files, checked against the toolchain's symbol graphs.

Run by `make apple-typecheck` (python3 -m unittest discover -s Tools/AppleTypecheck -p 'test_*.py').
"""

import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import availability  # noqa: E402


class AvailabilityGateTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = Path(tempfile.mkdtemp())
        graphs = cls.work / "graphs"
        graphs.mkdir()
        for module in ("Swift", "Synchronization"):
            subprocess.run(
                ["swift", "symbolgraph-extract", "-module-name", module, "-minimum-access-level", "public",
                 "-target", f"{subprocess.check_output(['uname', '-m'], text=True).strip()}-unknown-linux-gnu",
                 "-output-dir", str(graphs)],
                check=True, capture_output=True)
        cls.index = cls.work / "index.json"
        availability.build_index(cls.index, [graphs])

    def gate(self, source, platform="iOS=16.0"):
        """The gate's verdict on one file: the lines it prints (empty when it accepts)."""
        folder = Path(tempfile.mkdtemp(dir=self.work))
        path = folder / "Case.swift"
        path.write_text(textwrap.dedent(source))
        out = folder / "Case.json"
        subprocess.run(["swiftc", "-frontend", "-dump-ast", "-dump-ast-format", "json", "-parse-as-library",
                        "-module-name", "Case", "-primary-file", str(path), "-o", str(out)], check=True)
        result = subprocess.run([sys.executable, availability.__file__, "check", str(self.index), platform, str(out)],
                                capture_output=True, text=True)
        lines = result.stdout.splitlines()
        self.assertEqual(result.returncode, 1 if lines else 0, result.stderr)
        return lines

    validating = "String(validating: bytes, as: UTF8.self)"

    def test_an_api_newer_than_the_minimum_is_refused_with_file_line_api_and_version(self):
        lines = self.gate(f"""
            func f(_ bytes: [UInt8]) -> String? {{
                {self.validating}
            }}
            """)
        self.assertEqual(len(lines), 1)
        self.assertRegex(lines[0], r"Case\.swift:3:\d+: error: 'String\.init\(validating:as:\)' is only available in "
                                   r"iOS 18\.0 or newer \(the package declares iOS 16\.0\)")

    def test_if_available_and_guard_available_raise_the_floor_for_their_code_only(self):
        source = f"""
            func f(_ bytes: [UInt8]) -> String? {{
                if #available(iOS 18, macOS 15, *) {{ return {self.validating} }}
                guard #available(iOS 18, macOS 15, *) else {{ return nil }}
                return {self.validating}
            }}
            func g(_ bytes: [UInt8]) -> String? {{
                if #available(macOS 15, *) {{ return {self.validating} }}
                if #unavailable(iOS 18) {{ return {self.validating} }}
                return nil
            }}
            """
        self.assertEqual([line.split(":")[1] for line in self.gate(source)], ["8", "9"])
        self.assertEqual([line.split(":")[1] for line in self.gate(source, "macOS=13.0")], ["9"])

    def test_an_available_attribute_on_an_enclosing_declaration_raises_the_floor_of_its_platform(self):
        source = f"""
            @available(iOS 18, *)
            struct S {{
                func f(_ bytes: [UInt8]) -> String? {{ {self.validating} }}
            }}
            """
        self.assertEqual(self.gate(source), [])
        self.assertIn("tvOS 18.0", self.gate(source, "tvOS=16.0")[0])

    def test_visionos_inherits_ios_availability_where_a_declaration_names_only_ios(self):
        # Duration is declared for iOS 16 and not visionOS: available on visionOS 1.0, as Apple's compiler infers.
        self.assertEqual(self.gate("func f(_ d: Duration) -> Duration { d * 2 }", "visionOS=1.0"), [])
        lines = self.gate(f"func f(_ bytes: [UInt8]) -> String? {{ {self.validating} }}", "visionOS=1.0")
        self.assertIn("visionOS 2.0", lines[0])

    def test_a_type_named_in_a_declaration_is_a_use_of_it(self):
        lines = self.gate("""
            import Synchronization
            final class Box: Sendable { let lock: Mutex<Int> = Mutex(0) }
            """)
        self.assertTrue(lines)
        self.assertTrue(all("'Mutex" in line and "iOS 18.0" in line for line in lines), lines)

    def test_the_projects_own_declarations_count_with_the_availability_they_declare(self):
        lines = self.gate("""
            @available(iOS 17, *)
            func newer() {}
            func caller() { newer() }
            @available(iOS 17, *)
            func alsoNewer() { newer() }
            """)
        self.assertEqual(len(lines), 1)
        self.assertIn("Case.swift:4:", lines[0])
        self.assertIn("'newer' is only available in iOS 17.0", lines[0])

    def test_the_compilers_own_choices_by_deployment_target_are_not_uses(self):
        # `&*` became a FixedWidthInteger requirement in iOS 18 over an implementation as old as the protocol; a
        # for-await loop calls `next(isolation:)` from iOS 18 and `next()` before. Xcode builds both for iOS 16.
        self.assertEqual(self.gate("""
            func f(_ a: UInt64, _ s: AsyncStream<Int>) async -> UInt64 {
                for await x in s { _ = x }
                return a &* 0x9E37_79B9_7F4A_7C15
            }
            """), [])

    def test_what_every_declared_platform_has_is_accepted(self):
        self.assertEqual(self.gate("func f(_ s: String) -> Int { s.utf8.count + String(decoding: [65], as: UTF8.self).count }"), [])


if __name__ == "__main__":
    unittest.main()
