#pragma once
// Paths written in a `.pipe` file are relative to the file's folder, so a pipeline and its data can
// move together and run from anywhere. Values given later (`--set`, `--out`, the DSL) and the
// elements' defaults stay relative to the working directory.
#include <filesystem>
#include <vector>

#include "engine/api/pipeline.hpp"
#include "engine/api/registry.hpp"

namespace pacflow {

// Rewrites every relative input file, output file and output folder parameter (ParamType InputFile,
// OutputFile, OutputDir) of `elements` to the same place seen from the working directory:
// `folder / value`, shortened where that names the same place (`pipelines/../out/pac` →
// `out/pac`). Unknown elements are left for Pipeline::add to refuse.
void resolve_relative_paths(std::vector<ElementSpec>& elements, const Registry& registry,
                            const std::filesystem::path& folder);

}  // namespace pacflow
