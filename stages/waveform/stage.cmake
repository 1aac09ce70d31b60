pacflow_stage_folder(ORDER 64
  SOURCES waveform_stage.cpp
  ELEMENTS waveform_stage.hpp:WaveformStage
  TESTS waveform_test.cpp)
