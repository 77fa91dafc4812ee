#!/usr/bin/env bash
# Builds the benchmarks (and the modules they use) and runs one of them.
#   benchmarks/run.sh ThroughputBenchmark --changes 100000
#   benchmarks/run.sh LatencyBenchmark --help
# Set SKIP_BUILD=1 to run what was built last. JAVA_OPTS adds JVM flags (default: -Xmx6g).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 1 ]]; then
  echo "usage: benchmarks/run.sh ThroughputBenchmark|LatencyBenchmark|SnapshotBenchmark|ChurnBenchmark|EnumeratorScaleBenchmark|SinkBenchmark [flags]" >&2
  exit 2
fi
benchmark="$1"
shift
if [[ "${SKIP_BUILD:-}" != "1" ]]; then
  mvn -B -q -Pbench -pl benchmarks -am -DskipTests package
fi
# The official client would otherwise export its metrics to Cloud Monitoring.
export SPANNER_DISABLE_BUILTIN_METRICS=true
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:--Xmx6g} \
  -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  "io.spannercs.benchmarks.${benchmark}" "$@"
