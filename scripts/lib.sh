# Shared helpers of scripts/run and scripts/test (sourced, not run).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# The NL API Design Rules ruleset the lint reads: $NMC_GOVERNANCE_DIR's when set, else the governance pack beside the
# repository (../shared/governance) when present, else the copy committed in api-spec/governance.
governance_ruleset() {
  local name=nl-api-design-rules.spectral.yaml
  if [[ -n ${NMC_GOVERNANCE_DIR:-} ]]; then
    printf '%s
' "$NMC_GOVERNANCE_DIR/$name"
  elif [[ -f $REPO/../shared/governance/$name ]]; then
    printf '%s
' "$REPO/../shared/governance/$name"
  else
    printf '%s
' "$REPO/api-spec/governance/$name"
  fi
}

# A JDK >= 25 (Helidon 4; the project compiles for 25): JAVA_HOME if it qualifies, else Temurin 25 or the
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

# Starts a throwaway PostgreSQL cluster in $1 (scripts/pg: PostgreSQL 17 from Maven Central), exports
# NMC_DB_URL, NMC_DB_USER, NMC_DB_PASSWORD (the schema owner), NMC_DB_APP_USER, NMC_DB_APP_PASSWORD (the NMC's
# own login, with the runtime role's privileges only), the processing log's NMC_LDV_URL, NMC_LDV_USER, NMC_LDV_PASSWORD,
# PG_PORT and PG_VERSION, and says which version runs where.
start_postgres() {
  local env
  env=$("$REPO/scripts/pg" start "$1") || die "could not start PostgreSQL (scripts/pg)"
  eval "$env"   # scripts/pg prints only shell-sourceable assignments on stdout
  export NMC_DB_URL NMC_DB_USER NMC_DB_PASSWORD NMC_DB_APP_USER NMC_DB_APP_PASSWORD NMC_LDV_URL NMC_LDV_USER NMC_LDV_PASSWORD PG_PORT PG_VERSION
  say "== $PG_VERSION at $NMC_DB_URL"
}

stop_postgres() {
  "$REPO/scripts/pg" stop "$1" >/dev/null 2>&1 || true
}
