#pragma once
// The names of the tensors the built-in stages hand to one another and the sinks keep, declared
// once, like their plan facts (*_facts.hpp): a stage names what it reads by the constant its writer
// declares it with, so a renamed tensor is one edit and a misspelt one does not compile. The
// trial-level test's tensors are declared with it (stages/kernels/surrogates/trial_statistics.hpp).
namespace pacflow::stages::tensors {

inline constexpr const char* kSignal = "signal";               // a source's series [T]
inline constexpr const char* kFilteredPha = "filtered_pha";    // bandpass: [n_pha][T]
inline constexpr const char* kFilteredAmp = "filtered_amp";    // bandpass: [n_amp][T]
inline constexpr const char* kPhase = "phase";                 // hilbert, given_bands: [n_pha][T]
inline constexpr const char* kAmplitude = "amplitude";         // hilbert, given_bands: [n_amp][T]
inline constexpr const char* kEnvelopePhase = "envelope_phase";  // envelope_phase: [n_pha][n_amp][T]
inline constexpr const char* kPhaseWaveform = "phase_waveform";  // waveform: [n_pha][bins], the signal by phase
inline constexpr const char* kPac = "pac";                     // mi: [n_pha][n_amp]
inline constexpr const char* kPacZ = "pac_z";                  // surrogates: [n_pha][n_amp]
inline constexpr const char* kSurrogateMean = "surrogate_mean";
inline constexpr const char* kSurrogateStd = "surrogate_std";
inline constexpr const char* kPvalues = "pvalues";
inline constexpr const char* kPvaluesMaxstat = "pvalues_maxstat";
inline constexpr const char* kPacNorm = "pac_norm";            // surrogates, norm other than z
inline constexpr const char* kErpac = "erpac";                 // erpac: [n_pha][n_amp][T]
inline constexpr const char* kErpacPvalues = "erpac_pvalues";
inline constexpr const char* kErpacRankZ = "erpac_rank_z";  // erpac n=: rank among epoch permutations
inline constexpr const char* kErpacTimes = "erpac_times";   // the coordinate of erpac's last axis

}  // namespace pacflow::stages::tensors
