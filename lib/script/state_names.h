// Names for a script's unnamed states (state_names.cpp).
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "script/value.h"

namespace tg::script {

// old state name -> new, for the states still called state.N after the script ran, from the
// module-level variables that hold them (`globals`, in the order the script named them). No
// state takes a name in `inputs` (the script's input names).
std::map<std::string, std::string>
automatic_state_names(const std::vector<std::pair<std::string, Value>>& globals,
                      const std::set<std::string>& inputs);

} // namespace tg::script
