// Errors a user can act on. `kind` is the tinygrad 0.9.1 exception type the same failure
// raises there (RuntimeError, AssertionError, ValueError, IndexError, TypeError, ...), so the
// script layer and the differential tests can report and compare it.
#pragma once
#include <concepts>
#include <stdexcept>
#include <string>

namespace tg {

class Error : public std::runtime_error {
public:
  Error(std::string kind, const std::string& message) : std::runtime_error(message), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

private:
  std::string kind_;
};

[[noreturn]] inline void fail(const std::string& kind, const std::string& message) {
  throw Error(kind, message);
}
inline void check(bool ok, const std::string& kind, const std::string& message) {
  if (!ok) fail(kind, message);
}
// The message built only when the check fails: for checks on hot paths.
template <class F>
requires std::invocable<F&>
inline void check(bool ok, const char* kind, F&& message) {
  if (!ok) fail(kind, message());
}

} // namespace tg
