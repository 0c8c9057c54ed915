#!/usr/bin/env bash
# Settled volume per merchant per day, computed by Apache Spark (local mode) from session.events.
# Usage: examples/analytics/run.sh [output file]   (default: examples/analytics/out/settled-volume.jsonl)
# Brokers: KAFKA_BROKERS, else the local stack's (.local/stack.json, `npm run stack start`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$here/out/settled-volume.jsonl}"
mkdir -p "$(dirname "$out")"

brokers="${KAFKA_BROKERS:-}"
if [ -z "$brokers" ]; then
  brokers="$(node -e 'console.log(require(process.argv[1]).kafka.brokers.join(","))' "$root/.local/stack.json")"
fi

# Spark, its Kafka source and spark-avro from Maven Central, and the job compiled against them.
spark="$here/spark"
jar="$spark/target/settled-volume-1.0.0.jar"
if [ ! -f "$jar" ] || [ ! -d "$spark/target/lib" ] || [ "$spark/src/main/java/example/SettledVolume.java" -nt "$jar" ]; then
  mvn -q -B -f "$spark/pom.xml" package dependency:copy-dependencies \
    -DskipTests -DoutputDirectory="$spark/target/lib" -DincludeScope=runtime
fi

# Spark 4 on JDK 17 reaches into these JDK internals.
opens=()
for p in java.lang java.lang.invoke java.nio java.util sun.nio.ch sun.util.calendar; do
  opens+=("--add-opens=java.base/$p=ALL-UNNAMED")
done
java "${opens[@]}" -cp "$jar:$spark/target/lib/*" \
  example.SettledVolume "$brokers" "$root/schemas" "$out" >"$(dirname "$out")/spark.log" 2>&1 ||
  { tail -n 40 "$(dirname "$out")/spark.log" >&2; exit 1; }
cat "$out"
