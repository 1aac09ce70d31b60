#include "pipelines/report/references.hpp"

#include <algorithm>

namespace pacflow::report {

namespace {

struct Entry {
  Work work;
  const char* in_text;
  const char* full;
};

// Checked against the journals' records (issue 36); docs/methods.md lists the same works.
constexpr Entry kWorks[] = {
    {Work::Tort2010, "Tort et al. 2010",
     "Tort ABL, Komorowski R, Eichenbaum H, Kopell N (2010) Measuring phase-amplitude coupling between neuronal "
     "oscillations of different frequencies. J Neurophysiol 104:1195–1210."},
    {Work::Canolty2006, "Canolty et al. 2006",
     "Canolty RT, Edwards E, Dalal SS, Soltani M, Nagarajan SS, Kirsch HE, Berger MS, Barbaro NM, Knight RT (2006) "
     "High gamma power is phase-locked to theta oscillations in human neocortex. Science 313:1626–1628."},
    {Work::Ozkurt2012, "Özkurt 2012",
     "Özkurt TE (2012) Statistically reliable and fast direct estimation of phase-amplitude cross-frequency "
     "coupling. IEEE Trans Biomed Eng 59:1943–1950."},
    {Work::Penny2008, "Penny et al. 2008",
     "Penny WD, Duzel E, Miller KJ, Ojemann JG (2008) Testing for nested oscillation. J Neurosci Methods "
     "174:50–61."},
    {Work::Lachaux1999, "Lachaux et al. 1999",
     "Lachaux JP, Rodriguez E, Martinerie J, Varela FJ (1999) Measuring phase synchrony in brain signals. Hum Brain "
     "Mapp 8:194–208."},
    {Work::Lakatos2005, "Lakatos et al. 2005",
     "Lakatos P, Shah AS, Knuth KH, Ulbert I, Karmos G, Schroeder CE (2005) An oscillatory hierarchy controlling "
     "neuronal excitability and stimulus processing in the auditory cortex. J Neurophysiol 94:1904–1911."},
    {Work::Ince2017, "Ince et al. 2017",
     "Ince RAA, Giordano BL, Kayser C, Rousselet GA, Gross J, Schyns PG (2017) A statistical framework for "
     "neuroimaging data analysis based on mutual information estimated via a Gaussian copula. Hum Brain Mapp "
     "38:1541–1573."},
    {Work::Voytek2013, "Voytek et al. 2013",
     "Voytek B, D'Esposito M, Crone N, Knight RT (2013) A method for event-related phase/amplitude coupling. "
     "NeuroImage 64:416–424."},
    {Work::Combrisson2020, "Combrisson et al. 2020",
     "Combrisson E, Nest T, Brovelli A, Ince RAA, Soto JLP, Guillot A, Jerbi K (2020) Tensorpac: an open-source "
     "Python toolbox for tensor-based phase-amplitude coupling measurement in electrophysiological brain signals. "
     "PLoS Comput Biol 16:e1008302."},
    {Work::NicholsHolmes2002, "Nichols and Holmes 2002",
     "Nichols TE, Holmes AP (2002) Nonparametric permutation tests for functional neuroimaging: a primer with "
     "examples. Hum Brain Mapp 15:1–25."},
    {Work::PhipsonSmyth2010, "Phipson and Smyth 2010",
     "Phipson B, Smyth GK (2010) Permutation p-values should never be zero: calculating exact p-values when "
     "permutations are randomly drawn. Stat Appl Genet Mol Biol 9:Article 39."},
    {Work::BenjaminiHochberg1995, "Benjamini and Hochberg 1995",
     "Benjamini Y, Hochberg Y (1995) Controlling the false discovery rate: a practical and powerful approach to "
     "multiple testing. J R Stat Soc Series B 57:289–300."},
    {Work::Janssen1997, "Janssen 1997",
     "Janssen A (1997) Studentized permutation tests for non-i.i.d. hypotheses and the generalized Behrens-Fisher "
     "problem. Stat Probab Lett 36:9–21."},
    {Work::ChungRomano2013, "Chung and Romano 2013",
     "Chung E, Romano JP (2013) Exact and asymptotically robust permutation tests. Ann Stat 41:484–507."},
    {Work::Aru2015, "Aru et al. 2015",
     "Aru J, Aru J, Priesemann V, Wibral M, Lana L, Pipa G, Singer W, Vicente R (2015) Untangling cross-frequency "
     "coupling in neuroscience. Curr Opin Neurobiol 31:51–61."},
};

const Entry& entry(Work work) {
  return *std::find_if(std::begin(kWorks), std::end(kWorks), [&](const Entry& e) { return e.work == work; });
}

}  // namespace

std::string in_text(Work work) { return entry(work).in_text; }

std::string full_reference(Work work) { return entry(work).full; }

std::string Citations::cite(Work work) {
  if (!cited(work)) cited_.push_back(work);
  return in_text(work);
}

std::string Citations::cite(const std::vector<Work>& works) {
  std::string out;
  for (const Work w : works) out += (out.empty() ? "" : "; ") + cite(w);
  return out;
}

bool Citations::cited(Work work) const { return std::find(cited_.begin(), cited_.end(), work) != cited_.end(); }

std::vector<std::string> Citations::list() const {
  std::vector<std::string> out;
  for (const Work w : cited_) out.push_back(full_reference(w));
  // Author-year order; "Ö" sorts as "O" would (its UTF-8 bytes would put it last).
  const auto key = [](const std::string& s) { return s.rfind("Özkurt", 0) == 0 ? "Ozkurt" + s.substr(7) : s; };
  std::sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  return out;
}

}  // namespace pacflow::report
