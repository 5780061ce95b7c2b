# The test command of the README and of .ci/run: every test of both packages.
.PHONY: test test-core test-server serve benchmark

test: test-core test-server

test-core:
	swift test

test-server:
	swift test --package-path Server

serve:
	swift run --package-path Server deeplinks serve

benchmark:
	cd Benchmarks && swift package --disable-sandbox benchmark
