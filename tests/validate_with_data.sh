#!/usr/bin/env bash
# ShippedScenarios.ValidateWithData: `tidesim validate` on the shipped scenarios that read the data
# folder (docs/data.md): $TIDESIM_DATA when set, else ../shared/data beside the source tree (the
# working folder). Without it the test is skipped (exit 77), and fails under CI=true, as the tests
# of tests/common/require.hpp do (docs/ci.md, "The test suite under CI").
#   validate_with_data.sh TIDESIM_CLI SCENARIO...
set -euo pipefail
cli="$1"
shift
data="${TIDESIM_DATA:-../shared/data}"
if [[ ! -d "$data" ]]; then
  echo "no data folder $data (docs/data.md): these scenarios read it"
  [[ "${CI:-}" == "true" ]] && exit 1
  exit 77
fi
exec "$cli" validate "$@"
