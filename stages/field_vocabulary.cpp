#include "stages/field_vocabulary.hpp"

namespace pacflow::stages {

void add_field_vocabulary(Registry& registry) {
  struct Entry {
    const char* name;
    const char* hint;
  };
  static constexpr Entry kEntries[] = {
      {"f_pha", "TensorPAC's phase frequencies are pha= on stage bandpass (pha=2:20:10, or its (start, stop, width, "
                "step) as pha=2:20:4:1)"},
      {"f_amp", "TensorPAC's amplitude frequencies are amp= on stage bandpass (amp=60:160:10, or amp=60:160:20:10)"},
      {"n_perm", "TensorPAC's number of permutations is n= on stage surrogates"},
      {"n_surrogates", "pactools' number of surrogates is n= on stage surrogates"},
      {"random_state", "the random seed is seed= on stage surrogates (and on source synthetic)"},
      {"idpac", "TensorPAC's idpac=(method, surrogates, norm) is three settings here: method= on stage mi (tort, "
                "mvl, ndpac, plv, hr, gc), method= on stage surrogates (timeshift, timelag, swap_trials) and norm= "
                "on stage surrogates (z, subtract, divide, both); docs/methods.md maps each idpac"},
      {"tmin", "MNE's epoch start is the first half of window=START:END on source edf, with events= (window=-1s:3s)"},
      {"tmax", "MNE's epoch end is the second half of window=START:END on source edf, with events= (window=-1s:3s)"},
      {"event_id", "MNE's event_id is events= on source edf: the annotation text to cut epochs around"},
      {"minimum_shift", "pactools' minimum_shift (in seconds) is min_shift= on stage surrogates, with its unit: "
                        "minimum_shift=1.0 is min_shift=1s"},
      {"n_bins", "the number of phase bins is bins= on stage mi"},
      {"cycle", "TensorPAC's cycle=(3, 6) is pha_cycles= and amp_cycles= on stage bandpass"},
      {"dcomplex", "TensorPAC's dcomplex='hilbert' is stage hilbert, after stage bandpass"},
      {"sf", "the sample rate is fs= on the source"},
      {"ref_channels", "MNE's set_eeg_reference(ref_channels=…) is stage reref right after the source: ref=average, "
                       "ref=CHANNEL, or bipolar=[F3-C3, …] for a bipolar montage"},
      {"freqs", "MNE's notch_filter(freqs=…) is stage notch right after the source: freq= (the line frequency) with "
                "harmonics=all or a count"},
      {"reject", "MNE's reject=dict(eeg=…) is reject_ptp= on source edf, in the channels' physical unit (reject_ptp=150 "
                 "for 150 uV); epochs overlapping BAD annotations are left out by default (reject_by_annotation=)"},
  };
  for (const Entry& e : kEntries) registry.add_foreign_name(e.name, e.hint);
}

}  // namespace pacflow::stages
