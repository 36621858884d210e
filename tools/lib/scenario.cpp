#include "tools/lib/scenario.hpp"
