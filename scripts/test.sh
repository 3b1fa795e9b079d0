#!/usr/bin/env bash
# The project's test command (README "Quick start"; .ci/run calls it too). It installs what the
# tests need beyond cargo, only when missing, then runs every test of the workspace:
#   - Chromium (Debian's `chromium` package) for the browser test of report.html;
#   - a Python virtual environment with pyspark from PyPI (scripts/pyspark-venv.sh, reused when
#     present) for the Spark test (tests/spark.rs), which needs Java 17 as well.
# Each install is idempotent and reuses what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "test.sh: need root to run: $*" >&2
        return 1
    fi
}

if ! command -v chromium >/dev/null && [ -z "${ROBOTS_AUDIT_CHROMIUM:-}" ]; then
    echo "test.sh: installing Debian's chromium for the report.html browser test" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
export ROBOTS_AUDIT_REQUIRE_BROWSER=1

ROBOTS_AUDIT_PYSPARK_VENV="$(scripts/pyspark-venv.sh)"
export ROBOTS_AUDIT_PYSPARK_VENV
export ROBOTS_AUDIT_REQUIRE_SPARK=1

cargo test --workspace --locked "$@"
