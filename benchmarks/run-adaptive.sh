#!/usr/bin/env bash
# Simulates max-concurrent: adaptive against a partner whose capacity changes (4, then 12, then 2
# requests at once), in virtual time, beside a fixed limit that is too high (32) and one that is too
# low (4); writes the plot docs/images/adaptive-concurrency.png and its section of docs/benchmarks.md.
# Deterministic: the same build gives the same figures. Takes well under a minute.
#
#   benchmarks/run-adaptive.sh
#   benchmarks/run-adaptive.sh phases=4:60,12:60,2:60 callers=64    other scenarios (not for the report)
#
# SKIP_BUILD=1 reuses the last build. The time series is kept in benchmarks/target/results/adaptive-concurrency.csv.
set -euo pipefail

cd "$(dirname "$0")/.."

if [[ -z "${SKIP_BUILD:-}" ]]; then
	./mvnw -B -q -pl benchmarks -am package -DskipTests
fi
classpath="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
if [[ $# -eq 0 ]]; then
	set -- out=docs/benchmarks.md image=docs/images/adaptive-concurrency.png
fi
java -Djava.awt.headless=true -cp "$classpath" dev.resilience.benchmarks.AdaptiveConcurrencySimulation \
	results=benchmarks/target/results "$@"
