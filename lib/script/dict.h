// script layer, dicts: the minimum of Python's dict a .tg script needs for state dicts and
// command-line arguments — string keys in insertion order, d[k], d[k] = v, len, `in`,
// iteration over keys, keys()/values()/items()/get(). Methods are registered in dict.cpp.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "script/value.h"

namespace tg::script {

struct DictObj : Object {
  std::vector<std::pair<std::string, Value>> items;
  Value* find(const std::string& key) {
    for (auto& [k, v] : items)
      if (k == key) return &v;
    return nullptr;
  }
  bool erase(const std::string& key) { // del d[key]
    for (auto it = items.begin(); it != items.end(); ++it)
      if (it->first == key) return items.erase(it), true;
    return false;
  }
  void set(const std::string& key, Value v) {
    if (Value* p = find(key))
      *p = std::move(v);
    else
      items.emplace_back(key, std::move(v));
  }
};

Value make_dict(std::vector<std::pair<std::string, Value>> items = {});
const std::string& dict_key(const Value& key);       // the key's string, else TypeError
Value dict_get(const Value& dict, const Value& key); // KeyError when missing
std::vector<Value> dict_keys(const Value& dict);

} // namespace tg::script
