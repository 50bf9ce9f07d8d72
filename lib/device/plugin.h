// device layer, plugins: a device whose library is heavy to load (LLVM's static initialisers
// cost every process ~20 ms) is built as its own shared library beside libtgcore.so and loaded
// when it is first asked for.
#pragma once
#include <string>

namespace tg {

// Loads lib<library>.so from the folder libtgcore.so is in (once; it stays loaded) and
// returns the address of its extern "C" symbol `entry`. Throws tg::Error("RuntimeError",
// "<device>: cannot load ...") when the plugin is missing or broken.
void* load_plugin_entry(const std::string& device, const std::string& library, const std::string& entry);

} // namespace tg
