# Every dependency comes from Debian 12 packages (tools/setup.sh installs them).
find_package(TBB REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3F REQUIRED IMPORTED_TARGET fftw3f)
# Double precision (same Debian package): the Gaussian copula's surrogate sums by FFT.
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3)
# xxHash: checksums of what a run reads back (engine/io/checksum.hpp).
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
# cairo: the figures, drawn once and written as PNG, SVG and PDF (stages/io/png/canvas.hpp).
pkg_check_modules(CAIRO REQUIRED IMPORTED_TARGET cairo cairo-svg cairo-pdf cairo-png)
# HDF5 C library (serial build: Debian's hdf5.pc is an alternative pointing at hdf5-serial.pc).
pkg_search_module(HDF5 REQUIRED IMPORTED_TARGET hdf5 hdf5-serial)
# Its high-level library beside it (same package): dimension scales (stages/io/hdf5/dimension_scales.hpp).
find_library(HDF5_HL_LIBRARY NAMES hdf5_hl hdf5_serial_hl HINTS ${HDF5_LIBRARY_DIRS} REQUIRED)
# minizip (zlib's contrib): NumPy's .npz archives; it gives the offset of a member's data, so stored
# members are memory-mapped like .npy files.
pkg_check_modules(MINIZIP REQUIRED IMPORTED_TARGET minizip)
# EDFlib (EDF, EDF+, BDF, BDF+): Debian's libedf-dev ships a header and a library, no CMake or
# pkg-config file.
find_path(EDFLIB_INCLUDE_DIR edflib.h REQUIRED)
find_library(EDFLIB_LIBRARY edf REQUIRED)
add_library(EDFlib::edf UNKNOWN IMPORTED)
set_target_properties(EDFlib::edf PROPERTIES IMPORTED_LOCATION "${EDFLIB_LIBRARY}"
                                             INTERFACE_INCLUDE_DIRECTORIES "${EDFLIB_INCLUDE_DIR}")
# The tests and benchmarks need GoogleTest and Google Benchmark, which `bash tools/setup.sh --tests`
# installs; without them the rest is built and CTest finds no tests (its presets then fail).
if(PACFLOW_BUILD_TESTS)
  find_package(GTest)
  if(NOT GTest_FOUND)
    message(STATUS "Tests: not configured: GoogleTest not found (bash tools/setup.sh --tests installs it)")
    set(PACFLOW_BUILD_TESTS OFF)
  endif()
endif()
if(PACFLOW_BUILD_BENCH)
  find_package(benchmark)
  if(NOT benchmark_FOUND)
    message(STATUS "Benchmarks: not configured: Google Benchmark not found (bash tools/setup.sh --tests installs it)")
    set(PACFLOW_BUILD_BENCH OFF)
  endif()
endif()
