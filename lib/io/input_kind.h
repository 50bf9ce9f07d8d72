// io layer, what an input that is not a tg artifact is: a script, an ONNX model, a .npy array,
// a safetensors file ... so that a tool handed the wrong file says which tool reads it
// ("tg-schedule cnn.tg": the input is a tg script; tg-trace reads it).
#pragma once
#include <string>
#include <string_view>

namespace tg {

// "a tg script (tg-trace reads it)", or "" when the bytes look like nothing tg knows.
std::string describe_foreign_input(std::string_view bytes);

} // namespace tg
