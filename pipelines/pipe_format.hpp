#pragma once
// The `.pipe` text format: one pipeline element per logical line.
//
//   # comment
//   source  npy        path=data.npy fs=512
//   stage   bandpass   pha=2:20:10 amp=[[60,80],[80,100]] on=cpu:0
//   stage   surrogates n=200 seed=42 min_shift=1s
//   sink    png        path="out/pac/comodulogram.png"   # quoted: may hold spaces and '#'
//
// A trailing `\` joins the next physical line. Values become JSON: integers and floats, true/false,
// quoted strings, [lists] (nested, commas between items); every other bare word (ranges such as
// 2:20:10, durations such as 1s, devices such as cpu:0, paths) stays a verbatim string.
// Errors are InputErrors located at the physical line and column (1-based) of the fault.
// Lists nest at most kMaxListDepth deep, and a file holds at most kMaxPipeFileBytes.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/api/params.hpp"
#include "engine/api/pipeline.hpp"

namespace pacflow {

// The deepest list nesting a value may have ([[4, 8]] is 2 deep); deeper values are refused where
// the list that goes too deep opens. The recursive-descent parser, JSON and every report stay far
// from the stack's limit, and no parameter needs more than 3.
inline constexpr int kMaxListDepth = 32;
// The largest `.pipe` file read (a pipeline is a few lines; a huge file is a mistake).
inline constexpr std::size_t kMaxPipeFileBytes = std::size_t{16} << 20;

// Parses `.pipe` text; `file` names the text in error locations.
// A parsed file: its elements and its `devices LIST` line (empty when it has none).
struct PipeText {
  std::vector<ElementSpec> elements;
  std::string devices;
};
PipeText parse_pipe_text(const std::string& text, const std::string& file);

// The elements only.
std::vector<ElementSpec> parse_pipe(const std::string& text, const std::string& file);

// Parses one value with the grammar of a `.pipe` file (e.g. the value of `--set NAME.key=value`).
// Errors carry `where`; when it has a line and column, they are offset to the fault's position.
json parse_pipe_value(const std::string& text, const SourceLocation& where);

// One `--set NAME.key=value` from the command line.
struct SetOverride {
  std::string element;  // "source", "sink" or an element's name
  std::string key;
  json value;
};
// Throws InputError (its message starts with `--set "TEXT": `) when TEXT is malformed.
SetOverride parse_set_override(const std::string& text);

// Reads and parses `path`, then adds each element to `pipeline` (which rejects unknown names). Input
// and output paths written in the file are relative to its folder (pipelines/relative_paths.hpp);
// load_pipe_text leaves them as written.
void load_pipe_file(const std::string& path, Pipeline& pipeline);
void load_pipe_text(const std::string& text, const std::string& file, Pipeline& pipeline);

}  // namespace pacflow
