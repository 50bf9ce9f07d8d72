#include "device/llvm/plugin/llvm_jit.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include <lld/Common/CommonLinkerContext.h>
#include <lld/Common/Driver.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <thread>

#include "runtime/compile_cache.h"
#include "util/error.h"

namespace tg {

namespace {

[[noreturn]] void llvm_failed(const std::string& what) { compile_failed("LLVM", "llvm", what); }

void initialize_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

struct HostTarget {
  std::string triple, cpu, features; // features: "+avx2,-avx512f,...", sorted
};

const HostTarget& host_target() {
  static const HostTarget target = [] {
    HostTarget h{llvm::sys::getProcessTriple(), llvm::sys::getHostCPUName().str(), ""};
    llvm::StringMap<bool> flags;
    std::vector<std::string> features;
    if (llvm::sys::getHostCPUFeatures(flags))
      for (const auto& f : flags) features.push_back((f.second ? "+" : "-") + f.first().str());
    std::sort(features.begin(), features.end()); // a stable cache key: StringMap has no order
    for (const std::string& f : features) h.features += (h.features.empty() ? "" : ",") + f;
    return h;
  }();
  return target;
}

constexpr llvm::CodeGenOpt::Level kCodegenLevel = llvm::CodeGenOpt::Default; // llc -O2

std::unique_ptr<llvm::TargetMachine> host_target_machine() {
  initialize_native_target();
  const HostTarget& h = host_target();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(h.triple, error);
  if (!target) llvm_failed(error);
  llvm::TargetOptions options; // fusing fmul+fadd is up to each instruction's `contract` flag
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      h.triple, h.cpu, h.features, options, llvm::Reloc::PIC_, llvm::None, kCodegenLevel));
  if (!tm) llvm_failed("no target machine for " + h.triple);
  return tm;
}

// Without a handler, LLVMContext prints error diagnostics and exits the process.
void collect_diagnostic(const llvm::DiagnosticInfo& info, void* log) {
  if (info.getSeverity() != llvm::DS_Error) return;
  auto& text = *static_cast<std::string*>(log);
  llvm::raw_string_ostream os(text);
  if (!text.empty()) os << "; ";
  llvm::DiagnosticPrinterRawOStream printer(os);
  info.print(printer);
}

std::unique_ptr<llvm::Module> parse_kernel(llvm::LLVMContext& ctx, const std::string& name,
                                           const std::string& ir) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> m = llvm::parseIR(llvm::MemoryBufferRef(ir, name), diagnostic, ctx);
  if (!m) {
    std::string text;
    llvm::raw_string_ostream os(text);
    diagnostic.print(nullptr, os, false); // "<kernel>:line:col: error: ..."
    llvm_failed(os.str());
  }
  return m;
}

// `void tg_launch_<name>(i8** bufs, i32* vars)`: calls the kernel with pointer parameters from
// bufs and i32 parameters from vars, so a runtime needs no per-signature trampolines.
void add_launcher(llvm::Module& m, const std::string& kernel_name, const std::string& name) {
  llvm::Function* kernel = m.getFunction(name);
  if (!kernel || kernel->isDeclaration()) llvm_failed("no function @" + name + " in its IR");
  llvm::IRBuilder<> b(m.getContext());
  llvm::Type* byte_ptr = b.getInt8PtrTy();
  auto* type = llvm::FunctionType::get(b.getVoidTy(),
                                       {byte_ptr->getPointerTo(), b.getInt32Ty()->getPointerTo()}, false);
  auto* launcher =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage, llvm_launcher_name(kernel_name), m);
  launcher->addFnAttr(llvm::Attribute::NoUnwind);
  b.SetInsertPoint(llvm::BasicBlock::Create(m.getContext(), "entry", launcher));
  std::vector<llvm::Value*> args;
  unsigned bufs = 0, vars = 0;
  for (llvm::Argument& param : kernel->args()) {
    llvm::Type* t = param.getType();
    if (t->isPointerTy()) {
      llvm::Value* slot = b.CreateConstInBoundsGEP1_32(byte_ptr, launcher->getArg(0), bufs++);
      args.push_back(b.CreateBitCast(b.CreateLoad(byte_ptr, slot), t));
    } else if (t->isIntegerTy(32)) {
      llvm::Value* slot = b.CreateConstInBoundsGEP1_32(b.getInt32Ty(), launcher->getArg(1), vars++);
      args.push_back(b.CreateLoad(b.getInt32Ty(), slot));
    } else {
      llvm_failed("@" + name + " has a parameter that is neither a buffer nor an i32");
    }
  }
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
}

void optimize(llvm::Module& m, llvm::TargetMachine& tm) {
  // the analysis managers in this order: each may refer to the ones declared before it
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(m, mam);
}

std::string emit_object(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile))
    llvm_failed("the target cannot emit object files");
  pm.run(m);
  return std::string(buffer.data(), buffer.size());
}

} // namespace

std::string llvm_target_identity() {
  const HostTarget& h = host_target();
  return "llvm " LLVM_VERSION_STRING " " + h.triple + " cpu=" + h.cpu + " features=" + h.features + " O2";
}

std::string compile_llvm_object(const std::vector<std::pair<std::string, std::string>>& kernels,
                                const std::vector<std::pair<std::string, std::string>>& launchers) {
  std::unique_ptr<llvm::TargetMachine> tm = host_target_machine();
  llvm::LLVMContext ctx;
  std::string diagnostics;
  ctx.setDiagnosticHandlerCallBack(collect_diagnostic, &diagnostics);
  llvm::Module program("tg_program", ctx);
  program.setTargetTriple(tm->getTargetTriple().str());
  program.setDataLayout(tm->createDataLayout());
  for (const auto& [name, ir] : kernels) {
    std::unique_ptr<llvm::Module> kernel = parse_kernel(ctx, name, ir);
    kernel->setTargetTriple(program.getTargetTriple()); // the renderer leaves both unset
    kernel->setDataLayout(program.getDataLayout());
    if (llvm::Linker::linkModules(program, std::move(kernel)))
      llvm_failed("linking " + name + ": " + diagnostics);
  }
  if (launchers.empty())
    for (const auto& kernel : kernels) add_launcher(program, kernel.first, kernel.first);
  for (const auto& [kernel, function] : launchers) add_launcher(program, kernel, function);
  std::string verifier_log;
  llvm::raw_string_ostream log(verifier_log);
  if (llvm::verifyModule(program, &log)) llvm_failed(log.str());
  optimize(program, *tm);
  std::string object = emit_object(program, *tm);
  if (!diagnostics.empty()) llvm_failed(diagnostics);
  return object;
}

void build_llvm_shared_object(const LlvmBuild& build, const std::filesystem::path& out) {
  // Each group is its own module and object, compiled on its own thread (an LLVMContext per
  // thread); lld links the objects into one shared object, in process.
  size_t n = build.groups.size();
  std::vector<std::string> objects(n);
  std::vector<std::exception_ptr> errors(n);
  {
    std::vector<std::thread> threads;
    for (size_t g = 0; g < n; ++g)
      threads.emplace_back([&, g] {
        try {
          objects[g] = compile_llvm_object(build.groups[g], build.launchers.at(g));
        } catch (...) {
          errors[g] = std::current_exception();
        }
      });
    for (std::thread& t : threads) t.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<std::filesystem::path> paths;
  auto remove_objects = [&] {
    std::error_code ec;
    for (const auto& path : paths) std::filesystem::remove(path, ec);
  };
  for (size_t g = 0; g < n; ++g) {
    paths.push_back(out.string() + "." + std::to_string(g) + ".o");
    std::ofstream f(paths.back(), std::ios::binary);
    f.write(objects[g].data(), std::streamsize(objects[g].size()));
    if (!f) {
      remove_objects();
      fail("RuntimeError", "LLVM: cannot write " + paths.back().string());
    }
  }
  // lld keeps global state per link: one link at a time.
  static std::mutex mu;
  std::string log;
  bool ok;
  {
    std::lock_guard<std::mutex> lock(mu);
    llvm::raw_string_ostream os(log);
    std::vector<std::string> args{"ld.lld", "-shared", "--hash-style=gnu", "-o", out.string()};
    for (const auto& path : paths) args.push_back(path.string());
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    ok = lld::elf::link(argv, os, os, /*exitEarly=*/false, /*disableOutput=*/false);
    lld::CommonLinkerContext::destroy(); // lld's state of this link; the next starts fresh
  }
  remove_objects();
  if (!ok) llvm_failed("linking the shared object: " + log);
}

void build_llvm_shared_object(const std::vector<std::pair<std::string, std::string>>& kernels,
                              const std::filesystem::path& out) {
  build_llvm_shared_object(LlvmBuild{{kernels}, {{}}}, out);
}

} // namespace tg
