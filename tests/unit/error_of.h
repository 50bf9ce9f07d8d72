// What a call throws, for tests: a tg::Error as "Kind: message" (error_of) or any exception's
// message alone (message_of); "(no error)" when it throws nothing.
#pragma once
#include <exception>
#include <functional>
#include <string>

#include "util/error.h"

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tg::Error& e) {
    return e.kind() + ": " + e.what();
  }
  return "(no error)";
}

inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}
