#pragma once
// Error types shared by the engine, the stages and the tools.
//  - InputError: the user's input is wrong (file, parameter, data). The CLI exits with code 2.
//  - ParamError: an InputError about one parameter; the builder adds where it was written.
//  - MissingFileError: an InputError about an input file that does not exist.
//  - StageError: a stage failed while running; names the stage and the batch.
//  - DeviceError: the failure happened on a device; names it.
//  - RunCancelled: the caller asked the run to stop (RunOptions::stop); no stage failed.
// Context is added by nesting (std::throw_with_nested): a StageError nests the DeviceError, which
// nests the error the stage or its library threw, with its own type. Each level's what() carries
// the whole message, so one line tells the story; `caused_by_input` reads the chain.
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace pacflow {

// Where an element or parameter was written (a `.pipe` file position); empty for the C++ DSL.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  bool empty() const { return file.empty(); }
  // "file:line:col: " or "" when unknown.
  std::string prefix() const;
};

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message, SourceLocation where = {});
  const SourceLocation& where() const { return where_; }
  const std::string& bare_message() const { return bare_; }

 private:
  SourceLocation where_;
  std::string bare_;
};

class ParamError : public InputError {
 public:
  ParamError(std::string param, const std::string& message);
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

// An InputError about an input file that does not exist (the Python module raises it as
// FileNotFoundError). Found in an error's nested chain when an element adds its context.
class MissingFileError : public InputError {
 public:
  MissingFileError(std::string path, const std::string& message);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class StageError : public std::runtime_error {
 public:
  // `kind` is "source", "stage" or "sink"; `batch` is -1 for a failure outside any batch (a stage's
  // prepare(), a sink writing its outputs). Thrown with `cause` nested (detail::guarded).
  StageError(const std::string& kind, const std::string& stage, long long batch, const std::exception& cause);
  const std::string& stage() const { return stage_; }
  long long batch() const { return batch_; }
  // True when the cause was bad input (caused_by_input; the CLI then exits with 2 instead of 1).
  bool input_error() const { return input_error_; }

 private:
  std::string stage_;
  long long batch_;
  bool input_error_;
};

class DeviceError : public std::runtime_error {
 public:
  // Thrown with `cause` nested; the message reads "on DEVICE: cause".
  DeviceError(std::string device, const std::exception& cause);
  const std::string& device() const { return device_; }

 private:
  std::string device_;
};

// The run stopped because its stop token was triggered (e.g. the CLI received SIGINT). Sinks have
// discarded their partial outputs (or kept them in the checkpoint, when the run has one).
class RunCancelled : public std::runtime_error {
 public:
  explicit RunCancelled(long long batches_delivered);
  // Batches the sinks had received when the run stopped.
  long long batches_delivered() const { return delivered_; }

 private:
  long long delivered_;
};

// True when `error`, or an error it nests, says the user's input is wrong: an InputError, or a
// library's error about the user's data or files (a JSON parse error, a path that does not exist, is
// not a folder, or cannot be written).
bool caused_by_input(const std::exception& error);

// "did you mean "x"?" for a near-miss name, or "" when nothing is close.
std::string suggest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pacflow
