#include "tidesim/llm/execution.hpp"

namespace tidesim::llm {

int bytes_per_element(const std::string& datatype) {
  if (datatype == "float8") {
    return 1;
  }
  if (datatype == "float16" || datatype == "bfloat16") {
    return 2;
  }
  if (datatype == "float32") {
    return 4;
  }
  return 0;
}

}  // namespace tidesim::llm
