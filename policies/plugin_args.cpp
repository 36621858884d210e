#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

Fields args_fields(const PluginArgs& args) {
  Fields f(args.node, args.file, args.path);  // no args: an empty mapping
  f.get("apiVersion");
  f.get("kind");
  return f;
}

}  // namespace tidesim::policies
