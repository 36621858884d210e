#pragma once
/// Scenario files: the cluster, the workload, the policies to compare, seeds, telemetry, outputs.
#include <string>

namespace tidesim::app {}
