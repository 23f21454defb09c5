# Shared helpers of scripts/run and scripts/test (sourced, not run).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# A JDK >= 21 (Helidon 4; the project compiles for 25): JAVA_HOME if it qualifies, else Temurin 25 or the
# newest JDK under /usr/lib/jvm.
find_jdk() {
  local candidate version
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-* $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    candidate=${candidate%/}
    [[ -n $candidate && -x $candidate/bin/javac ]] || continue
    version=$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
    if [[ ${version%%.*} -ge 25 ]]; then
      export JAVA_HOME=$candidate
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
  done
  die "no JDK 25 found: install Temurin 25 (or set JAVA_HOME to a JDK >= 25)"
}

require_maven() {
  command -v mvn >/dev/null 2>&1 || die "Maven (mvn) is not on PATH"
}

# Starts a throwaway PostgreSQL cluster in $1 and exports NMC_DB_URL, NMC_DB_USER, NMC_DB_PASSWORD.
start_postgres() {
  local dir=$1 env
  env=$("$REPO/scripts/pg-local" start "$dir") || die "could not start PostgreSQL (scripts/pg-local)"
  # shellcheck disable=SC2046
  export $(printf '%s\n' "$env" | grep -E '^(NMC_DB_URL|NMC_DB_USER|NMC_DB_PASSWORD|PG_PORT)=')
}

stop_postgres() {
  "$REPO/scripts/pg-local" stop "$1" >/dev/null 2>&1 || true
}
