#!/usr/bin/env bash
# Measures line coverage of the scoring core (gcov/lcov): instrumented build in build-cov/,
# runs the tests, prints the summary and writes an HTML report to build-cov/html/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null   # packages (lcov included)
cmake -S . -B build-cov -G Ninja -DCMAKE_BUILD_TYPE=Debug -DNERTZ_COVERAGE=ON -DNERTZ_BUILD_BENCH=OFF >/dev/null
cmake --build build-cov -j "$(nproc)" --target scoring_tests ratings_tests io_tests
find build-cov -name '*.gcda' -delete
ctest --test-dir build-cov -R '^(Card|Presets|RuleSet|Hand|Game|LakeChecksum|PileCheck|DeckSanity|IdleProcedure|Ratings|ParseJson)' >/dev/null
lcov --quiet --capture --directory build-cov --output-file build-cov/all.info 2> >(grep -v "redefined at" >&2)
lcov --quiet --extract build-cov/all.info "$PWD/${1:-scoring}/*" --output-file build-cov/module.info
lcov --summary build-cov/module.info
genhtml --quiet build-cov/module.info --output-directory build-cov/html || true
