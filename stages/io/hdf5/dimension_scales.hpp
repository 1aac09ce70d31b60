#pragma once
// Named, labelled axes as netCDF-4, xarray and h5py read them: HDF5 dimension scales (H5DS, the
// high-level library). A labelled axis (the recordings, channels, conditions, band centres, ERPAC
// times) is a 1-D dataset made a scale named after the axis; it is attached to every dimension of
// the given datasets whose `dims` attribute names that axis and whose extent is the scale's length,
// and each such dimension gets the axis's name as its label. In h5py: f["pac"].dims[2].label is
// "channels" and f["pac"].dims[2][0] the channel names.
#include <string>
#include <vector>

#include <hdf5.h>

namespace pacflow::hdf5 {

struct AxisScale {
  std::string axis;                // as `dims` names it, e.g. "channels"
  std::string dataset;             // the scale's dataset: written at the root, or one there already
  std::vector<std::string> labels; // text labels (UTF-8), or
  std::vector<double> values;      // numbers (float64), with
  std::string unit;                // their unit ("Hz", "s"; none for labels)
  std::string doc;
};

// Writes each scale whose dataset is not in `file` yet (labels as variable-length UTF-8 strings,
// values as float64 with `unit`), makes it a dimension scale, and attaches it to the matching
// dimensions of the datasets at `paths` (absolute, e.g. "/pac" or "/pac/sub-01"). An axis a dataset's
// `dims` does not name, or names with another extent, is left alone. `file_name` names the file in
// errors.
void attach_dimension_scales(hid_t file, const std::vector<AxisScale>& scales, const std::vector<std::string>& paths,
                             const std::string& file_name);

}  // namespace pacflow::hdf5
