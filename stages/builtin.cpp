#include "stages/builtin.hpp"

#include "stages/bandpass/bandpass_stage.hpp"
#include "stages/envelope_phase/envelope_phase_stage.hpp"
#include "stages/erpac/erpac_stage.hpp"
#include "stages/field_vocabulary.hpp"
#include "stages/hilbert/hilbert_stage.hpp"
#include "stages/io/edf/edf_source.hpp"
#include "stages/io/hdf5/hdf5_sink.hpp"
#include "stages/io/hdf5/hdf5_source.hpp"
#include "stages/io/npy/npy_sink.hpp"
#include "stages/io/npy/npy_source.hpp"
#include "stages/io/png/png_sink.hpp"
#include "stages/modulation_index/mi_stage.hpp"
#include "stages/notch/notch_stage.hpp"
#include "stages/reref/reref_stage.hpp"
#include "stages/surrogates/surrogates_stage.hpp"
#include "stages/synthetic/synthetic_source.hpp"

namespace pacflow::stages {

const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    r.add(SyntheticSource::info());
    r.add(NpySource::info());
    r.add(EdfSource::info());
    r.add(Hdf5Source::info());
    r.add(NotchStage::info());
    r.add(RerefStage::info());
    r.add(BandpassStage::info());
    r.add(HilbertStage::info());
    r.add(EnvelopePhaseStage::info());
    r.add(ModulationIndexStage::info());
    r.add(SurrogatesStage::info());
    r.add(ErpacStage::info());
    r.add(NpySink::info());
    r.add(Hdf5Sink::info());
    r.add(PngSink::info());
    add_field_vocabulary(r);
    return r;
  }();
  return registry;
}

}  // namespace pacflow::stages
