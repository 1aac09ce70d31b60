#pragma once
// A BIDS dataset (the bids source, stages/io/bids/bids_source.hpp) read into a dataset's table: one
// recording per EEG or iEEG file of the task (pipelines/bids/bids_tree.hpp), after the subjects=,
// sessions= and runs= filters, each with
//   - its id: the file's name before _<datatype> (sub-01_ses-1_task-oddball_run-1),
//   - its reader: edf (.edf, .bdf) or brainvision (.vhdr); EEGLAB .set and other formats are refused,
//     naming the file; a BrainVision header's .eeg/.vmrk and EEGLAB's .fdt are companions, not
//     recordings,
//   - its parameters: path=, the source's reader parameters (events=, epoch=, channels=, …), the
//     channels its channels.tsv does not mark bad (channels.tsv, bids_channels.hpp), and with
//     events= its events.tsv as events_file= (its trial_types stand for the file's annotations),
//   - line 0: messages name the recording's file (origin_of in pipelines/manifest_table.hpp).
// participants.tsv, when there is one, is checked against the subjects' folders (warnings: a folder
// it does not list, a subject it lists with no recording of the task). Not read: companions higher
// in the tree (BIDS's inheritance principle), derivatives, EEGLAB files.
#include "engine/api/pipeline.hpp"
#include "engine/api/registry.hpp"
#include "pipelines/manifest_table.hpp"

namespace pacflow::bids {

// Throws InputError (located at the source's parameter when one is at fault), MissingFileError for
// a missing root or events.tsv.
ManifestTable read_bids(const ElementSpec& source, const Registry& registry);

}  // namespace pacflow::bids
