#!/usr/bin/env bash
# Makes the Python virtual environment with pyspark (from PyPI) that the Spark test
# (tests/spark.rs) runs `spark-submit` from, and prints its directory. Idempotent: a venv that
# already holds the pinned pyspark is reused as it is; nothing is installed by hand.
#   ROBOTS_AUDIT_PYSPARK_VENV  where the venv goes (default: robots-audit/venv-pyspark-<version>
#                              in the user's cache directory, so fresh clones and CI reuse it)
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned so every machine and CI run the same Spark (4.x needs Java 17, which the machines have).
PYSPARK_VERSION=4.0.1
venv="${ROBOTS_AUDIT_PYSPARK_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/robots-audit/venv-pyspark-$PYSPARK_VERSION}"

installed() {
    [ -x "$venv/bin/spark-submit" ] &&
        [ "$("$venv/bin/python" -c 'import pyspark; print(pyspark.__version__)' 2>/dev/null)" = "$PYSPARK_VERSION" ]
}

if ! installed; then
    echo "pyspark-venv.sh: installing pyspark $PYSPARK_VERSION into $venv" >&2
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pyspark==$PYSPARK_VERSION" >&2
    installed || { echo "pyspark-venv.sh: pyspark did not install into $venv" >&2; exit 1; }
fi
echo "$venv"
