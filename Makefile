# The test command of the README and of .ci/run: starts the services the tests use (scripts/with-services:
# PostgreSQL, SMTP, Chromium, nginx), then runs every test of both packages, the browser tests and the cluster test.
.PHONY: test test-all lint format apple-typecheck test-core test-server test-browser test-backend test-contract test-cluster release test-release serve benchmark

test:
	bash scripts/with-services $(MAKE) test-all

test-all: lint apple-typecheck test-core test-server test-browser test-backend test-contract test-cluster test-release

# The repository's .swift-format, as `swift format --in-place` leaves the code (fix with: make format).
SWIFT_SOURCES = Package.swift Sources Tests Server/Package.swift Server/Sources Server/Tests Examples Tools Benchmarks/Package.swift Benchmarks/Benchmarks Benchmarks/http/FloorServers Fuzz
lint:
	swift format lint --strict --recursive $(SWIFT_SOURCES)
	python3 Tools/FolderGraph/folder-graph.py Server/Sources/DeepLinksServer --check > /dev/null
	python3 Tools/ImportCheck/imports.py .
	python3 Tools/ImportCheck/imports.py Server

format:
	swift format --in-place --recursive $(SWIFT_SOURCES)

# The UIKit and SwiftUI code (adapters and reference apps) against stand-in declarations of Apple's API, per platform.
apple-typecheck:
	bash Tools/AppleTypecheck/run

# Each test process runs under scripts/watch-tests: when it crashes, fails or outlives its limit, the end of the log
# names the tests that never finished and the crashed thread (a CI log is often read from its last lines).
WATCH = python3 scripts/watch-tests --minutes

test-core:
	$(WATCH) 20 swift test

# SwiftPM's import check fails the build on an undeclared import of another target of the package (the other
# packages' modules: Tools/ImportCheck, in make lint). The fuzzer of the link document (seconds of one core) runs on
# its own, after the suite: beside it, the suite's timing-sensitive tests (idle timeouts) would share two cores with
# it. Then the reset tests a second time with the accounts in a team's backend (its hooks on a live socket).
# The analytics' suites (ten thousand clicks over the socket, servers in pairs, MMDB files written by Python) run
# after the others, so the suites with deadlines (imports of 20,000 rows, slow bodies) keep their timings.
ANALYTICS_SUITES = AnalyticsPrivacyTests ClickAnalyticsTests PlacesTests FunnelTests
# The suites whose checks are deadlines or timings (idle timeouts, slow bodies, the reset request's constant time,
# concurrent confirms, imports of 20,000 rows): each alone, one after the other, after the parallel run, so that the
# three hundred tests beside them on two cores cannot push a deadline past its bound (rehearsals saw each fail there).
DEADLINE_SUITES = BodyDeadlineTests CachedRedirectTests ResetRequestTests ResetTokenTests LinkImportTests
space := $(subst ,, )
test-server:
	$(WATCH) 40 swift test --package-path Server --explicit-target-dependency-import-check=error --skip LinkDocumentFuzzTests $(ANALYTICS_SUITES:%=--skip %) $(DEADLINE_SUITES:%=--skip %)
	for suite in $(DEADLINE_SUITES); do $(WATCH) 10 swift test --package-path Server --skip-build --filter "$$suite" || exit 1; done
	$(WATCH) 10 swift test --package-path Server --skip-build --filter LinkDocumentFuzzTests
	$(WATCH) 15 swift test --package-path Server --skip-build --filter '$(subst $(space),|,$(ANALYTICS_SUITES))'

	DEEPLINKS_TEST_ACCOUNTS=external $(WATCH) 20 swift test --package-path Server --skip-build --filter 'Reset|OtherApp'

# The web pages in a real headless Chromium (Debian's chromium and chromium-driver, PyPI's selenium).
test-browser:
	swift build --package-path Server --product deeplinks
	python3 Server/Tests/Browser/reset_page_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"
	python3 Server/Tests/Browser/stats_page_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"
	python3 Server/Tests/Browser/landing_page_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"
	python3 Server/Tests/Browser/console_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"
	python3 Server/Tests/Browser/link_rules_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"

# External accounts: the example backend (Examples/ExistingBackend, Python's standard library) beside the
# server, the whole journey both ways in and both ways to confirm, and its faults (Chromium for the web form).
test-backend:
	swift build --package-path Server --product deeplinks
	python3 Examples/ExistingBackend/journey_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"

# The API against its own OpenAPI document (schemathesis): no 5xx, every answer as documented; SQLite, SQLite with
# external accounts (the example backend answering the hooks), PostgreSQL.
test-contract:
	swift build --package-path Server --product deeplinks
	bash Server/Tests/Contract/schemathesis_test.sh "$$(swift build --package-path Server --show-bin-path)/deeplinks"

# Three servers on one PostgreSQL behind nginx, with SMTP and PostgreSQL failing (Server/Tests/Cluster/run), built
# for release as replicas are deployed. A debug build stops on PostgresNIO's debug-only assertion ("PostgresConnection
# deinitialized before being closed") when a connection opened while PostgreSQL was frozen completes after nobody
# waits for it any more: in a release build that connection just stays open, unused (README).
test-cluster: release
	python3 Server/Tests/Cluster/run "$$(ls -d dist/deeplinks-*-linux-*/ | head -1)deeplinks"

# The release (scripts/release): deeplinks built for release once, with the Swift runtime linked in, as
# dist/deeplinks-VERSION-linux-ARCH.tar.gz and dist/SHA256SUMS. The cluster and release tests run that binary.
RELEASE_STAMP = dist/.built-$(shell git rev-parse --short=12 HEAD 2>/dev/null)
release: $(RELEASE_STAMP)
$(RELEASE_STAMP):
	bash scripts/release
	touch $@

# The tarball in a bare Debian root, the container image under podman, Caddy in front with certificates from Pebble
# (Server/Tests/Release/run).
test-release: release
	python3 Server/Tests/Release/run "$$(ls dist/deeplinks-*-linux-*.tar.gz | head -1)"

serve:
	swift run --package-path Server deeplinks serve --config Server/Examples/demo-app.json

benchmark:
	cd Benchmarks && swift package --disable-sandbox benchmark
