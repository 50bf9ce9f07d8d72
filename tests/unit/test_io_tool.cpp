// Tool support: input/output plumbing and run_tool's exit codes and messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "error_of.h"
#include "io/tool.h"
#include "temp_dir.h"
#include "util/error.h"

using namespace tg;

namespace {

struct ToolRun {
  int code;
  std::string out, err;
};

ToolRun run(std::vector<std::string> args, const std::function<int()>& body,
            ArtifactOptions* options = nullptr) {
  args.insert(args.begin(), "tg-test");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  CLI::App app{"a test tool"};
  ArtifactOptions local;
  add_artifact_options(app, options ? *options : local, "the input artifact (default: stdin)");
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int code = run_tool("tg-test", app, int(argv.size()), argv.data(), body);
  std::string out = testing::internal::GetCapturedStdout();
  return {code, out, testing::internal::GetCapturedStderr()};
}

} // namespace

TEST(ToolIo, read_input_reads_a_file) {
  TempDir dir("tg-tool-test");
  write_output(std::string("a\0b", 3), dir.file("in"), true);
  EXPECT_EQ(read_input(dir.file("in")), std::string("a\0b", 3));
}
TEST(ToolIo, a_large_file_is_read_whole_and_pieces_are_written_in_order) {
  // from 1 MiB a file is mapped rather than read; pieces are written one after another
  TempDir dir("tg-tool-test");
  std::string big(size_t(3) << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = char(i * 31 + i / 4096);
  write_output(Pieces{std::string_view(big).substr(0, 1000), std::string_view(big).substr(1000)},
               dir.file("big"), true);
  auto in = read_input_shared(dir.file("big"));
  EXPECT_TRUE(in->view() == big);
  write_output(Pieces{}, dir.file("empty"), true);
  EXPECT_EQ(read_input(dir.file("empty")), "");
}
TEST(ToolIo, read_input_names_a_missing_file) {
  std::string message = message_of([] { read_input("/nonexistent/in.graph"); });
  EXPECT_EQ(message.rfind("/nonexistent/in.graph: cannot open: ", 0), 0u) << message;
}
TEST(ToolIo, read_input_reads_piped_stdin) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "TGART", 5), 5);
  ::close(fds[1]);
  int saved = ::dup(STDIN_FILENO);
  ::dup2(fds[0], STDIN_FILENO);
  ::close(fds[0]);
  std::string got = read_input("-");
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_EQ(got, "TGART");
}
TEST(ToolIo, write_output_replaces_a_file_without_leftovers) {
  TempDir dir("tg-tool-test");
  write_output("first", dir.file("out"), true);
  write_output("second", dir.file("out"), false);
  EXPECT_EQ(read_input(dir.file("out")), "second");
  EXPECT_EQ(dir.entries(), 1u);
}
TEST(ToolIo, a_failed_write_leaves_no_file) {
  TempDir dir("tg-tool-test");
  EXPECT_NE(message_of([&] { write_output("x", dir.file("no/such/dir/out"), true); }), "(no error)");
  EXPECT_EQ(dir.entries(), 0u);
}
TEST(ToolIo, write_output_writes_stdout_when_it_is_not_a_terminal) {
  testing::internal::CaptureStdout();
  write_output("{\"format\": \"tg-graph\"}\n", "-", false);
  write_output(std::string("TGART\1", 6), "", true);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), std::string("{\"format\": \"tg-graph\"}\nTGART\1"));
}
TEST(ToolIo, write_output_goes_through_special_files) {
  EXPECT_EQ(message_of([] { write_output("x", "/dev/null", true); }), "(no error)");
}

TEST(RunTool, version_prints_name_and_version) {
  ToolRun r = run({"--version"}, [] { return 5; });
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "tg-test " TG_VERSION "\n");
}
TEST(RunTool, help_exits_zero) {
  ToolRun r = run({"--help"}, [] { return 5; });
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--json"), std::string::npos);
}
TEST(RunTool, a_usage_error_is_one_line_and_exit_2) {
  ToolRun r = run({"--bogus"}, [] { return 5; });
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("tg-test: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
TEST(RunTool, options_reach_the_body) {
  ArtifactOptions options;
  ToolRun r = run(
      {"in.graph", "-o", "out.sched", "--json"}, [] { return 0; }, &options);
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(options.input, "in.graph");
  EXPECT_EQ(options.output, "out.sched");
  EXPECT_TRUE(options.json);
}
TEST(RunTool, returns_the_body_exit_code) {
  EXPECT_EQ(run({}, [] { return 3; }).code, 3);
}
TEST(RunTool, a_tg_error_is_reported_with_the_tool_name) {
  ToolRun r = run(
      {}, []() -> int { throw Error("RuntimeError", "expected a graph (from tg-trace), got a schedule"); });
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "tg-test: expected a graph (from tg-trace), got a schedule\n");
}
TEST(RunTool, other_exceptions_are_internal_errors) {
  ToolRun r = run({}, []() -> int { throw std::out_of_range("vector::at"); });
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "tg-test: internal error: vector::at\n");
}
