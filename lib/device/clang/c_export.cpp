// Standalone C export. See c_export.h.
#include "device/clang/c_export.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "device/clang/c_export_loader.h"
#include "device/clang/clang_renderer.h"
#include "util/error.h"
#include "util/identifier.h"

namespace tg {

namespace {

// CLANG's C made portable to any C11 compiler: kernels `static` and named NAME_<kernel>,
// bit casts through a union (no __builtin_bit_cast), half as _Float16.
class ExportRenderer : public ClangRenderer {
public:
  explicit ExportRenderer(std::string prefix) : prefix_(std::move(prefix)) {
    lang_.kernel_prefix = "static ";
  }
  std::string render(const std::string& function_name, const std::vector<const UOp*>& uops) const override {
    return ClangRenderer::render(prefix_ + function_name, uops);
  }
  std::string render_dtype(DType dtype, bool value = true) const override {
    if (dtype == DType::Float16) return "_Float16";
    return ClangRenderer::render_dtype(dtype, value);
  }
  std::string render_bitcast(const std::string& x, DType from, DType to) const override {
    if (from == DType::BFloat16 || to == DType::BFloat16) return ClangRenderer::render_bitcast(x, from, to);
    return pun(x, render_dtype(from), render_dtype(to));
  }
  std::string render_prefix(const std::vector<const UOp*>& uops) const override {
    std::string out = vector_prefix(uops) + half_cast_prefix(uops, pun("%s", "float", "unsigned int"),
                                                             pun("%s", "unsigned int", "float"));
    if (!uses_dtype(uops, DType::BFloat16)) return out;
    return out + bf16_helpers({"static inline ", "unsigned short", "unsigned int",
                               pun("%s", "unsigned int", "float"), pun("%s", "float", "unsigned int")});
  }

private:
  // C11 type punning: a compound literal of a union, written as one type and read as another.
  static std::string pun(const std::string& x, const std::string& from, const std::string& to) {
    return "((union { " + from + " a; " + to + " b; }){.a = " + x + "}).b";
  }
  std::string prefix_;
};

// A file tensor's dims as "32, 16", for the weight table and the header's comments.
std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out;
  for (int64_t d : dims) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return out;
}

// s in a // comment: a control character (a newline would end the comment) as '?'.
std::string comment_text(std::string s) {
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  return s;
}

// The text of a C string literal holding s.
std::string c_string_body(const std::string& s) {
  std::string lit;
  for (char ch : s)
    if (ch == '"' || ch == '\\' || ch == '?') // (? too: ??/ is a trigraph in C11)
      lit += std::string("\\") + ch;
    else if (static_cast<unsigned char>(ch) < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\%03o", static_cast<unsigned char>(ch));
      lit += esc;
    } else
      lit += ch;
  return lit;
}

// The bytes of a constant buffer as a C initializer, 16 to a line.
std::string byte_list(const Blob& data) {
  std::string out;
  char b[8];
  for (size_t i = 0; i < data.size(); ++i) {
    std::snprintf(b, sizeof b, "%s0x%02x", i % 16 == 0 ? "\n  " : " ", data[i]);
    out += b;
    if (i + 1 < data.size()) out += ",";
  }
  return out;
}

// Runs a split kernel's parts on m->threads threads, as tg-run splits it: part k computes
// [extent*k/parts, extent*(k+1)/parts) of the outermost loop, the last one up to the kernel's own
// end. Each part writes its own outputs, so any thread count gives the same bits.
std::string split_runner(const std::string& N) {
  std::string fn = N + "_part_fn";
  std::string c = "typedef void (*" + fn + ")(" + N +
                  "*, int32_t, int32_t);\n#ifndef __STDC_NO_THREADS__\n#include <threads.h>\n";
  c += "struct " + N + "_job {\n  " + N + "* m;\n  " + fn + " fn;\n  int32_t start, end;\n};\n";
  c += "static int " + N + "_job_run(void* p) {\n  struct " + N + "_job* j = (struct " + N +
       "_job*)p;\n  j->fn(j->m, j->start, j->end);\n  return 0;\n}\n#endif\n";
  c += "static void " + N + "_split(" + N + "* m, " + fn + " fn, int64_t extent) {\n";
  c += "  int parts = (int64_t)m->threads < extent ? m->threads : (int)extent;\n";
  c += "#ifndef __STDC_NO_THREADS__\n  if (parts > 1) {\n";
  c += "    thrd_t thread[" + N + "_MAX_THREADS];\n    struct " + N + "_job job[" + N + "_MAX_THREADS];\n";
  c += "    int started[" + N + "_MAX_THREADS];\n";
  c += "    for (int k = 1; k < parts; ++k) {\n";
  c += "      job[k] = (struct " + N + "_job){m, fn, (int32_t)(extent * k / parts),\n";
  c += "                  k + 1 == parts ? INT32_MAX : (int32_t)(extent * (k + 1) / parts)};\n";
  c += "      started[k] = thrd_create(&thread[k], " + N + "_job_run, &job[k]) == thrd_success;\n";
  c += "      if (!started[k]) fn(m, job[k].start, job[k].end); /* no thread: run it here */\n    }\n";
  c += "    fn(m, 0, (int32_t)(extent / parts));\n";
  c += "    for (int k = 1; k < parts; ++k)\n      if (started[k]) thrd_join(thread[k], NULL);\n    "
       "return;\n  }\n#endif\n";
  c += "  (void)parts;\n  fn(m, 0, INT32_MAX);\n}\n\n";
  return c;
}

// A dimension as a C expression over the run's variables, held in m (m->v_NAME): tinygrad's
// render() text with C's operators (dimensions are never negative, so / is its floor division).
std::string c_dim(const sint& d) {
  if (d.is_int()) return std::to_string(int64_t(d));
  std::string text = d.expr().render(), out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "//") == 0) {
      out += "/";
      i += 2;
    } else if (text.compare(i, 5, " and ") == 0) {
      out += " && ";
      i += 5;
    } else if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t end = i;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
        ++end;
      out += "((long long)m->v_" + text.substr(i, end - i) + ")"; // (no int overflow in sizes)
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// C11's keywords, and C++'s and C23's (the header is for C++ callers too), which no parameter
// may be named.
bool is_c_keyword(const std::string& s) {
  static const std::set<std::string> kKeywords = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
      "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
      "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary",
      "_Noreturn", "_Static_assert", "_Thread_local",
      // C++ and C23
      "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "consteval", "constexpr", "constinit", "const_cast",
      "co_await", "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export",
      "false", "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator",
      "or", "or_eq", "private", "protected", "public", "reinterpret_cast", "requires", "static_assert",
      "static_cast", "template", "this", "thread_local", "throw", "true", "try", "typeid", "typename",
      "typeof", "typeof_unqual", "using", "virtual", "wchar_t", "xor", "xor_eq"};
  return kKeywords.count(s) > 0;
}

// The bytes of a named buffer at the run's variables, as a C expression.
std::string c_bytes(const NamedBuffer& nb) {
  std::string n = std::to_string(int64_t(itemsize(nb.dtype)));
  for (const sint& d : nb.shape) n += "*(size_t)" + c_dim(d);
  return n;
}

std::string shape_comment(const NamedBuffer& nb) {
  std::string out = std::string(py_name(nb.dtype)) + shape_repr(nb.shape);
  for (const sint& d : nb.shape)
    if (!d.is_int()) return out; // its size is the run's
  return out + ", " + std::to_string(int64_t(prod(nb.shape))) + " elements";
}

} // namespace

namespace {

// A constant of the program that NAME_load reads from a safetensors file instead of NAME.c.
struct LoadedWeight {
  const FileTensor* tensor;
  int buffer;
};

// The constants whose bytes are exactly one tensor of `file` (each tensor used once), leaving
// out those an init kernel reads: NAME_new runs those before NAME_load could fill them.
std::vector<LoadedWeight> weights_in_file(const Program& p, const std::vector<FileTensor>& file) {
  std::set<int> read_at_init;
  for (const ProgramKernel& k : p.kernels)
    if (k.init) read_at_init.insert(k.bufs.begin(), k.bufs.end());
  std::vector<LoadedWeight> out;
  std::set<const FileTensor*> taken;
  // named constants: a key two constants share (two files' "weight") stays in NAME.c, as NAME_load
  // could not tell them apart (NAME_load reads keys of up to 511 bytes)
  std::map<std::string, int> uses;
  for (const FileTensor& t : file)
    if (t.buffer >= 0) ++uses[t.name];
  for (const FileTensor& t : file)
    if (t.buffer >= 0 && !read_at_init.count(t.buffer) && t.name.size() < 512 && uses[t.name] == 1)
      out.push_back({&t, t.buffer});
  if (!uses.empty()) return out;
  for (const BufferInfo& b : p.buffers) {
    if (b.role != BufferRole::Constant || b.data.empty() || read_at_init.count(b.id)) continue;
    const FileTensor* match = nullptr;
    int matches = 0;
    for (const FileTensor& t : file)
      if (t.buffer < 0 && t.type == b.dtype && t.shape.size() <= 8 && t.bytes.size() == b.data.size() &&
          std::equal(t.bytes.begin(), t.bytes.end(), reinterpret_cast<const char*>(b.data.data())))
        match = &t, ++matches;
    // (NAME_load reads keys of up to 511 bytes)
    if (matches == 1 && match->name.size() < 512 && taken.insert(match).second) out.push_back({match, b.id});
  }
  return out;
}

// NAME_weights: what NAME_load checks and where it writes, one row per weight.
std::string weight_table(const std::string& N, const std::vector<LoadedWeight>& weights) {
  std::string c = "typedef struct {\n  const char* name;\n  const char* dtype;\n  int ndim;\n  long long "
                  "shape[8];\n  int buf;\n  size_t bytes;\n} " +
                  N + "_weight;\n\nstatic const " + N + "_weight " + N + "_weights[" +
                  std::to_string(weights.size()) + "] = {\n";
  for (const LoadedWeight& w : weights) {
    std::string shape = dims_text(w.tensor->shape);
    c += "  {\"" + c_string_body(w.tensor->name) + "\", \"" + w.tensor->dtype + "\", " +
         std::to_string(w.tensor->shape.size()) + ", {" + (shape.empty() ? "0" : shape) + "}, " +
         std::to_string(w.buffer) + ", " + std::to_string(w.tensor->bytes.size()) + "},\n";
  }
  return c + "};\n";
}

} // namespace

CLibrary export_c_library(const Schedule& schedule, const std::string& name, const CodegenOptions& options,
                          const std::vector<FileTensor>* weights_file) {
  if (!is_identifier(name)) fail("ValueError", "--name '" + name + "' is not a C identifier");
  ExportRenderer renderer(name + "_");
  Program p = codegen_schedule(schedule, renderer, options);
  std::vector<LoadedWeight> weights;
  std::set<int> loaded_bufs;
  std::vector<std::string> notes;
  if (weights_file) {
    weights = weights_in_file(p, *weights_file);
    for (const LoadedWeight& w : weights) loaded_bufs.insert(w.buffer);
  }
  // --weights FILE (tensors matched by bytes): a file that fits nothing is a mistake, and the
  // tensors left out are named
  if (weights_file && !weights_file->empty() && weights_file->front().buffer < 0) {
    if (weights.empty())
      fail("ValueError", "--weights: no constant of the program is a tensor of that file (did the script "
                         "safe_load another file?)");
    std::set<const FileTensor*> loaded;
    for (const LoadedWeight& w : weights) loaded.insert(w.tensor);
    // the file's tensors NAME_load will not read: a fine-tuned file's values for them are not used
    std::string kept;
    size_t n_kept = 0;
    for (const FileTensor& t : *weights_file)
      if (!loaded.count(&t)) kept += (n_kept++ ? ", " : "") + comment_text(t.name);
    if (n_kept)
      notes.push_back("--weights: " + std::to_string(n_kept) + " tensor" + (n_kept == 1 ? "" : "s") +
                      " of the file stay" + (n_kept == 1 ? "s" : "") +
                      " out of NAME_load (unused by the program, "
                      "read by an init kernel, or with bytes that several tensors share): " +
                      kept);
  }
  // element types as the kernels declare their buffers
  auto c_type = [&](DType dt) { return renderer.render_dtype(dt, false); };
  const std::string N = name;

  // parameter names: the program's names, which must be distinct C identifiers
  std::set<std::string> params;
  for (const auto* list : {&p.inputs, &p.outputs})
    for (const NamedBuffer& nb : *list) {
      if (!is_identifier(nb.name))
        fail("ValueError", "cannot export '" + nb.name + "': input and output names must be C identifiers");
      if (is_c_keyword(nb.name))
        fail("ValueError",
             "cannot export '" + nb.name + "': it is a C or C++ keyword; rename it in the script");
      if (!params.insert(nb.name).second)
        fail("ValueError", "cannot export: an input and an output are both named '" + nb.name +
                               "', and C parameters need distinct names: rename one in the script "
                               "(output(\"" +
                               nb.name + "_out\", ...))");
    }
  for (const VarBinding& v : p.vars)
    if (is_c_keyword(v.name) || !params.insert(v.name).second)
      fail("ValueError", "cannot export: the variable '" + v.name +
                             "' is named like an input, an output or a C keyword, and C parameters need "
                             "distinct names");

  std::string h = "// " + N + ".h: generated by tg-codegen --emit c; C11, no dependencies.\n";
  h += "// " + N + "* m = " + N +
       "_new();   buffers, constants, and states' first values (NULL: out of memory)\n";
  h += "// " + N + "_run(m, inputs..., outputs...);   one step; states carry over between steps\n";
  h += "// " + N + "_free(m);\n// Build: cc -O2 -c " + N +
       ".c, link with -lm (the kernels use C's math functions).\n#pragma once\n#include <stddef.h>\n\n#ifdef "
       "__cplusplus\nextern \"C\" {\n#endif\n\n";
  h += "typedef struct " + N + " " + N + ";\n" + N + "* " + N + "_new(void);\nvoid " + N + "_free(" + N +
       "* m);\n";
  // NAME_run's parameters: the program's names in the header; in the definition _m, _p0, _p1
  // ... (an input named m or memcpy would shadow what the body uses).
  auto run_signature = [&](bool header) {
    std::string handle = header ? "m" : "_m";
    while (header && params.count(handle)) handle = "_" + handle;
    std::string sig = "int " + N + "_run(" + N + "* " + handle;
    size_t i = 0;
    auto param = [&](const std::string& name) { return header ? name : "_p" + std::to_string(i++); };
    for (const NamedBuffer& nb : p.inputs) sig += ", const " + c_type(nb.dtype) + "* " + param(nb.name);
    for (const NamedBuffer& nb : p.outputs) sig += ", " + c_type(nb.dtype) + "* " + param(nb.name);
    for (const VarBinding& v : p.vars) sig += ", int " + param(v.name);
    return sig + ")";
  };
  for (const NamedBuffer& nb : p.inputs) h += "// input  " + nb.name + ": " + shape_comment(nb) + "\n";
  for (const NamedBuffer& nb : p.outputs) h += "// output " + nb.name + ": " + shape_comment(nb) + "\n";
  for (const VarBinding& v : p.vars)
    h += "// var    " + v.name + ": an int in [" + std::to_string(v.min) + ", " + std::to_string(v.max) +
         "] (the script bound " + std::to_string(v.value) + ")\n";
  if (!p.vars.empty()) h += "// Returns 0, or -1 (and runs nothing) when a variable is out of its range.\n";
  if (!weights.empty()) h += "// Returns -2 (and runs nothing) until every weight is loaded.\n";
  h += run_signature(true) + ";\n";
  if (!weights.empty()) {
    h += "// The weights are not in " + N + ".c: " + N +
         "_load fills them from a safetensors file (the one the script\n// loaded, or another with the "
         "same names, dtypes and shapes). Returns 0, or -1 with the reason in\n// " +
         N + "_error(m); nothing is run before every weight is there.\n";
    for (const LoadedWeight& w : weights) {
      std::string shape = dims_text(w.tensor->shape);
      h += "// weight \"" + comment_text(w.tensor->name) + "\": " + w.tensor->dtype + " (" + shape + ")\n";
    }
    h += "int " + N + "_load(" + N + "* m, const char* path);\nconst char* " + N + "_error(" + N + "* m);\n";
  }
  h += "// A state's storage (its bytes in *bytes if not NULL), to read it or to load saved values;\n"
       "// NULL for a name that is not a state.\n";
  for (const NamedBuffer& nb : p.states) h += "// state  \"" + nb.name + "\": " + shape_comment(nb) + "\n";
  h += "void* " + N + "_state(" + N + "* m, const char* name, size_t* bytes);\n";
  h += "// Threads for the kernels that split their outermost loop (default 1; C11 <threads.h>, link\n"
       "// with -pthread where the C library needs it). Returns the number it will use: 1 where\n"
       "// the compiler has no C11 threads.\n";
  h += "int " + N + "_set_threads(" + N + "* m, int threads);\n\n";
  h += "#ifdef __cplusplus\n}\n#endif\n";

  std::string c = "// " + N + ".c: generated by tg-codegen --emit c; C11, no dependencies.\n#include \"" + N +
                  ".h\"\n\n#include <stdint.h>\n" +
                  (weights.empty() ? "" : "#include <limits.h>\n#include <stdio.h>\n") +
                  "#include <stdlib.h>\n#include <string.h>\n#include <tgmath.h>\n\n"
                  "#ifdef __clang__ /* the vector helpers some kernel does not use (clang -Wall) */\n"
                  "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif\n\n";
  for (const ProgramKernel& k : p.kernels) {
    if (!k.custom.empty())
      fail("ValueError",
           "cannot export kernel '" + k.name +
               "': it draws random numbers on the host (tinygrad's default RNG); trace with THREEFRY=1 "
               "to draw them in kernels");
    c += k.src + "\n";
  }
  size_t nbufs = 0;
  for (const BufferInfo& b : p.buffers) nbufs = std::max(nbufs, size_t(b.id) + 1);
  for (const BufferInfo& b : p.buffers)
    if (b.role == BufferRole::Constant && !b.data.empty() && !loaded_bufs.count(b.id))
      c += "static const unsigned char " + N + "_data" + std::to_string(b.id) + "[" +
           std::to_string(b.data.size()) + "] = {" + byte_list(b.data) + "};\n";
  // buffers sized for the variables' largest values; the variables of the run in progress
  std::string var_fields;
  for (const VarBinding& v : p.vars) var_fields += "  int v_" + v.name + ";\n";
  if (!weights.empty()) // which weights hold values (NAME_load, or filled through NAME_state)
    var_fields += "  unsigned char filled[" + std::to_string(weights.size()) + "];\n  char error[256];\n";
  c += "\nstruct " + N + " {\n  void* buf[" + std::to_string(std::max<size_t>(nbufs, 1)) +
       "];\n  int threads;\n" + var_fields + "};\n\n";
  if (!weights.empty()) c += weight_table(N, weights) + safetensors_loader_c(N) + "\n";
  c += "#define " + N + "_MAX_THREADS 256\n";
  c += "static const size_t " + N + "_bytes[" + std::to_string(std::max<size_t>(nbufs, 1)) + "] = {";
  {
    std::vector<int64_t> bytes(std::max<size_t>(nbufs, 1), 0);
    for (const BufferInfo& b : p.buffers) bytes[size_t(b.id)] = b.size * int64_t(itemsize(b.dtype));
    for (size_t i = 0; i < bytes.size(); ++i) c += (i ? ", " : "") + std::to_string(bytes[i]);
  }
  c += "};\n\n";

  // A kernel's call on m's buffers; a split kernel's over [start, end) of its outermost loop,
  // through a part function the thread runner calls.
  auto call = [&](const ProgramKernel& k, const std::string& start, const std::string& end) {
    std::string out = N + "_" + k.name + "(";
    for (size_t i = 0; i < k.bufs.size(); ++i) {
      const BufferInfo& b = p.buffers.at(size_t(k.bufs[i]));
      out += std::string(i ? ", " : "") + "(" + c_type(b.dtype) + "*)m->buf[" + std::to_string(b.id) + "]";
    }
    for (const std::string& v : k.vars)
      out += ", " + (v == kSplitStartVar ? start : v == kSplitEndVar ? end : "m->v_" + v);
    return out + ");";
  };
  auto is_split = [](const ProgramKernel& k) {
    return std::find(k.vars.begin(), k.vars.end(), kSplitStartVar) != k.vars.end();
  };
  if (std::any_of(p.kernels.begin(), p.kernels.end(), is_split)) c += split_runner(N);
  for (const ProgramKernel& k : p.kernels)
    if (is_split(k))
      c += "static void " + N + "_part_" + k.name + "(" + N + "* m, int32_t start, int32_t end) {\n  " +
           call(k, "start", "end") + "\n}\n";
  c += "\n";
  auto launches = [&](bool init) {
    std::string out;
    for (const ProgramKernel& k : p.kernels) {
      if (k.init != init) continue;
      if (is_split(k))
        out += "  " + N + "_split(m, " + N + "_part_" + k.name + ", " + c_dim(k.global_size.at(0)) + ");\n";
      else
        out += "  " + call(k, "0", "INT32_MAX") + "\n";
    }
    return out;
  };
  // kernel names in the program are unique, and ExportRenderer prefixed them with NAME_
  c += N + "* " + N + "_new(void) {\n  " + N + "* m = (" + N +
       "*)calloc(1, sizeof *m);\n  if (!m) return NULL;\n  m->threads = 1;\n";
  for (const VarBinding& v : p.vars) // init kernels run at the values the script bound
    c += "  m->v_" + v.name + " = " + std::to_string(v.value) + ";\n";
  c += "  for (size_t i = 0; i < sizeof m->buf / sizeof m->buf[0]; ++i) {\n";
  c += "    size_t n = (" + N + "_bytes[i] + 63) / 64 * 64;\n";
  c += "    m->buf[i] = aligned_alloc(64, n ? n : 64);\n";
  c += "    if (!m->buf[i]) {\n      " + N + "_free(m);\n      return NULL;\n    }\n";
  c += "    memset(m->buf[i], 0, n ? n : 64);\n  }\n";
  for (const BufferInfo& b : p.buffers)
    if (b.role == BufferRole::Constant && !b.data.empty() && !loaded_bufs.count(b.id))
      c += "  memcpy(m->buf[" + std::to_string(b.id) + "], " + N + "_data" + std::to_string(b.id) +
           ", sizeof " + N + "_data" + std::to_string(b.id) + ");\n";
  c += launches(true) + "  return m;\n}\n\n";
  c += "void " + N + "_free(" + N + "* m) {\n  if (!m) return;\n";
  c += "  for (size_t i = 0; i < sizeof m->buf / sizeof m->buf[0]; ++i) free(m->buf[i]);\n  free(m);\n}\n\n";
  c += run_signature(false) + " {\n  " + N + "* m = _m;\n";
  if (!weights.empty())
    c += "  for (size_t i = 0; i < sizeof m->filled; ++i)\n    if (!m->filled[i]) return -2;\n";
  size_t arg = 0;
  std::vector<std::string> in_args, out_args, var_args;
  for (size_t k = 0; k < p.inputs.size(); ++k) in_args.push_back("_p" + std::to_string(arg++));
  for (size_t k = 0; k < p.outputs.size(); ++k) out_args.push_back("_p" + std::to_string(arg++));
  for (size_t k = 0; k < p.vars.size(); ++k) var_args.push_back("_p" + std::to_string(arg++));
  for (size_t k = 0; k < p.vars.size(); ++k)
    c += "  if (" + var_args[k] + " < " + std::to_string(p.vars[k].min) + " || " + var_args[k] + " > " +
         std::to_string(p.vars[k].max) + ") return -1;\n";
  for (size_t k = 0; k < p.vars.size(); ++k) c += "  m->v_" + p.vars[k].name + " = " + var_args[k] + ";\n";
  for (size_t k = 0; k < p.inputs.size(); ++k)
    c += "  memcpy(m->buf[" + std::to_string(p.inputs[k].buffer) + "], " + in_args[k] + ", " +
         c_bytes(p.inputs[k]) + ");\n";
  c += launches(false);
  for (size_t k = 0; k < p.outputs.size(); ++k)
    c += "  memcpy(" + out_args[k] + ", m->buf[" + std::to_string(p.outputs[k].buffer) + "], " +
         c_bytes(p.outputs[k]) + ");\n";
  c += "  return 0;\n}\n\n";
  c += "void* " + N + "_state(" + N + "* m, const char* name, size_t* bytes) {\n";
  for (const NamedBuffer& nb : p.states)
    c += "  if (strcmp(name, \"" + c_string_body(nb.name) +
         "\") == 0) {\n    if (bytes) *bytes = " + c_bytes(nb) + ";\n    return m->buf[" +
         std::to_string(nb.buffer) + "];\n  }\n";
  for (size_t i = 0; i < weights.size(); ++i) // a weight asked for by name is filled by hand
    c += "  if (strcmp(name, \"" + c_string_body(weights[i].tensor->name) +
         "\") == 0) {\n    if (bytes) *bytes = " + std::to_string(weights[i].tensor->bytes.size()) +
         ";\n    m->filled[" + std::to_string(i) + "] = 1;\n    return m->buf[" +
         std::to_string(weights[i].buffer) + "];\n  }\n";
  c += "  (void)m;\n  (void)name;\n  (void)bytes;\n  return NULL;\n}\n\n";
  c += "int " + N + "_set_threads(" + N +
       "* m, int threads) {\n#ifdef __STDC_NO_THREADS__\n  (void)threads;\n  m->threads = 1;\n#else\n";
  c += "  m->threads = threads < 1 ? 1 : threads > " + N + "_MAX_THREADS ? " + N +
       "_MAX_THREADS : threads;\n#endif\n  return m->threads;\n}\n";
  return {h, c, notes};
}

} // namespace tg
