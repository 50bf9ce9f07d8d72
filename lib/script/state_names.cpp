// Names for the states a script left unnamed (issue 30): tg-run --save-state writes states by
// name, and "state.16" says nothing. After the script runs, each state still called state.N
// (or state.N@DEVICE, a shard) takes the name of what holds it at module level, in this order:
//   1. a model (an object, list or dict of layers): the names get_state_dict gives it, as
//      tinygrad's load_state_dict reads them ("layers.0.weight");
//   2. an optimizer: tinygrad's get_state_dict(opt) names ("m.0", "v.0", "b1_t");
//   3. a tensor in a variable: the variable's name;
//   4. an optimizer's params and buffers that none of these named: "params.0", as tinygrad.
// With two or more models (or optimizers) each name starts with its variable's ("l1.weight").
// A name already taken (by a state or an input) leaves the state as it was.
#include <regex>
#include <set>
#include <unordered_map>

#include "script/interp.h"
#include "script/state_names.h"

namespace tg::script {

namespace {

const std::regex& auto_name() {
  static const std::regex re(R"(state\.\d+(@.*)?)");
  return re;
}

// The state names a tensor's buffer(s) have now: one per shard of a sharded tensor.
std::vector<std::string> state_names_of(const Tensor& t) {
  const LazyGraph& g = lazy_graph();
  std::vector<LazyBuffer> lbs =
      t.lazydata().is_multi() ? t.lazydata().lbs() : std::vector<LazyBuffer>{t.lazydata()};
  std::vector<std::string> out;
  for (const LazyBuffer& lb : lbs) {
    const LazyNode& n = g[g.storage(lb.id())];
    if (n.is_state()) out.push_back(n.name);
  }
  return out;
}

bool holds_layers(const Value& v, std::set<const void*>& seen) {
  switch (v.kind) {
  case VKind::Module:
    return v.as<ModuleObj>().instance;
  case VKind::List:
  case VKind::Tuple:
    if (!seen.insert(v.obj.get()).second) return false; // a list that holds itself
    for (const Value& x : v.items())
      if (holds_layers(x, seen)) return true;
    return false;
  case VKind::Dict:
    return true;
  default:
    return false;
  }
}

} // namespace

std::map<std::string, std::string>
automatic_state_names(const std::vector<std::pair<std::string, Value>>& globals,
                      const std::set<std::string>& inputs) {
  std::map<std::string, std::string> renamed;
  std::set<std::string> taken = inputs; // a state may not share an input's name
  for (const GraphState& s : lazy_graph().states())
    if (!std::regex_match(s.name, auto_name())) taken.insert(s.name);
  auto give = [&](const Tensor& t, const std::string& name) {
    for (const std::string& old : state_names_of(t)) {
      std::smatch m;
      if (!std::regex_match(old, m, auto_name()) || renamed.count(old)) continue;
      std::string fresh = name + m[1].str(); // a shard keeps its @DEVICE
      if (!taken.insert(fresh).second) continue;
      renamed[old] = fresh;
    }
  };
  std::vector<std::pair<std::string, const Value*>> models, optimizers;
  for (const auto& [name, v] : globals) {
    if (is_optimizer(v))
      optimizers.emplace_back(name, &v);
    else if (std::set<const void*> seen; holds_layers(v, seen))
      models.emplace_back(name, &v);
  }
  // `borrowed`: an optimizer's params and buffers, which a model or a variable names better
  auto name_group = [&](const std::vector<std::pair<std::string, const Value*>>& group, bool borrowed) {
    for (const auto& [gname, v] : group) {
      std::vector<std::pair<std::string, Value>> dict;
      std::set<const void*> seen;
      state_dict_of(*v, "", dict, &seen);
      for (const auto& [path, t] : dict) {
        bool is_borrowed = path.rfind("params.", 0) == 0 || path.rfind("buffers.", 0) == 0;
        if (t.kind != VKind::Tensor || (is_optimizer(*v) && is_borrowed != borrowed)) continue;
        give(t.t(), group.size() == 1 && !path.empty() ? path : gname + (path.empty() ? "" : "." + path));
      }
    }
  };
  name_group(models, false);
  name_group(optimizers, false);
  for (const auto& [name, v] : globals)
    if (v.kind == VKind::Tensor) give(v.t(), name);
  name_group(optimizers, true);
  return renamed;
}

} // namespace tg::script
