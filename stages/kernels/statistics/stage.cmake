# Kernels: multiple-comparison corrections (Bonferroni, Benjamini-Hochberg FDR) shared by the
# trial-level test and ERPAC.
pacflow_stage_folder(
  SOURCES multiple_comparisons.cpp)
