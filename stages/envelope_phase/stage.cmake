pacflow_stage_folder(ORDER 64
  SOURCES envelope_phase_stage.cpp
  ELEMENTS envelope_phase_stage.hpp:EnvelopePhaseStage
  TESTS envelope_phase_test.cpp)
