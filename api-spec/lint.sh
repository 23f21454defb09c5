#!/usr/bin/env bash
# Lints the NMC OpenAPI documents against the NL API Design Rules (Logius ADR linter, Spectral).
# Fails on any error or warning. Needs only the npm registry (or a warm npx cache); the ruleset is
# read from a local file, never from the internet.
#
#   NMC_GOVERNANCE_DIR  directory holding nl-api-design-rules.spectral.yaml (default: the governance pack
#                       ../shared/governance when present, else the copy in api-spec/governance)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$REPO"

ruleset=$(governance_ruleset)

if [[ ! -f "${ruleset}" ]]; then
  echo "lint.sh: ruleset not found: ${ruleset} (set NMC_GOVERNANCE_DIR)" >&2
  exit 2
fi

specs=(
  api-spec/nmc-dv-api.yaml
  api-spec/notifynl-callback.yaml
  api-spec/profielservice.yaml
  api-spec/notifynl.yaml
  api-spec/dv-webhook.yaml
  api-spec/nmc-operator-api.yaml
)

# The governance ruleset, plus the stated exceptions of api-spec/real-contract-exceptions.yaml as overrides (a
# party's real contract wins where the two differ). Written next to the documents, since Spectral resolves an
# override's files relative to its ruleset.
effective=$(mktemp api-spec/.lint-ruleset.XXXXXX.yaml)
trap 'rm -f "${effective}"' EXIT
{
  echo "extends: [\"$(realpath "${ruleset}")\"]"
  echo "overrides:"
  awk '
    /^  - document:/ { doc = $3 }
    /^    rule:/ { rule = $2 }
    /^    where:/ { where = $2; gsub(/"/, "", where)
                   printf "  - files: [\"%s%s\"]\n    rules:\n      \"%s\": \"off\"\n", doc, where, rule }
  ' api-spec/real-contract-exceptions.yaml
} > "${effective}"

status=0
for spec in "${specs[@]}"; do
  echo "== ${spec}"
  npx --yes @stoplight/spectral-cli@6 lint --fail-severity=warn -r "${effective}" "${spec}" || status=1
done

exit "${status}"
