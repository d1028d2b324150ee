#!/usr/bin/env bash
# Runs the whole test suite from a fresh machine: installs the Debian packages the tests
# use when their files are missing (Scripts/install-dependencies.sh test: libffi-dev,
# libobjc-12-dev, libblocksruntime-dev, libxml2-dev, libgnustep-base-dev, gobjc, python3,
# python3-jsonschema; what each is for is listed there), then builds and runs `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh test
swift build
swift test
