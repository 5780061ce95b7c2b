# The test command of the README and of .ci/run: every test of both packages, and the browser test.
.PHONY: test test-core test-server test-browser serve benchmark

test: test-core test-server test-browser

test-core:
	swift test

test-server:
	swift test --package-path Server

# The web pages in a real headless Chromium (Debian's chromium and chromium-driver, PyPI's selenium).
test-browser:
	swift build --package-path Server --product deeplinks
	python3 Server/Tests/Browser/reset_page_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"
	python3 Server/Tests/Browser/stats_page_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"
	python3 Server/Tests/Browser/landing_page_test.py "$$(swift build --package-path Server --show-bin-path)/deeplinks"

serve:
	swift run --package-path Server deeplinks serve

benchmark:
	cd Benchmarks && swift package --disable-sandbox benchmark
