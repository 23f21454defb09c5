#!/usr/bin/env bash
# Lints the NMC OpenAPI documents against the NL API Design Rules (Logius ADR linter, Spectral).
# Fails on any error or warning. Needs only the npm registry (or a warm npx cache); the ruleset is
# read from the local governance directory, never from the internet.
#
#   NMC_GOVERNANCE_DIR  directory holding nl-api-design-rules.spectral.yaml
#                       (default ../shared/governance, relative to the repository root)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

governance_dir="${NMC_GOVERNANCE_DIR:-../shared/governance}"
ruleset="${governance_dir}/nl-api-design-rules.spectral.yaml"

if [[ ! -f "${ruleset}" ]]; then
  echo "lint.sh: ruleset not found: ${ruleset} (set NMC_GOVERNANCE_DIR)" >&2
  exit 2
fi

specs=(
  api-spec/nmc-dv-api.yaml
  api-spec/notifynl-callback.yaml
  api-spec/profielservice.yaml
  api-spec/ldv.yaml
  api-spec/dv-webhook.yaml
  api-spec/nmc-operator-api.yaml
)

status=0
for spec in "${specs[@]}"; do
  echo "== ${spec}"
  npx --yes @stoplight/spectral-cli@6 lint --fail-severity=warn -r "${ruleset}" "${spec}" || status=1
done

exit "${status}"
