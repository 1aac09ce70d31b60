#pragma once
// `outputs=` of the stages that can also hand over what they usually keep to themselves (mi's
// distributions, surrogates' values, hilbert's phase and amplitude, bandpass's filtered signals):
// a comma-separated word list (outputs=phase,amplitude) or a list of words.
#include <string>
#include <vector>

#include "engine/api/params.hpp"

namespace pacflow::stages {

// The words of `spec`, each one of `valid`. Throws ParamError("outputs", …) naming an unknown word
// and the valid ones, or a value that is neither a string nor a list of strings.
std::vector<std::string> output_names(const json& spec, const std::vector<std::string>& valid);

// output_names as a parameter binding takes it (ParamBinder::parsed_optional).
inline auto outputs_parser(std::vector<std::string> valid) {
  return [valid = std::move(valid)](const std::string&, const json& spec) { return output_names(spec, valid); };
}

// Whether `word` is among the outputs= given (none when unset).
bool asks_for(const std::vector<std::string>& outputs, const std::string& word);

}  // namespace pacflow::stages
