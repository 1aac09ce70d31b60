#include "stages/io/edf/edf_header_check.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <fmt/format.h>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "engine/io/input_file.hpp"

namespace pacflow::stages {

namespace {

constexpr std::size_t kFixedHeader = 256;  // bytes before the per-signal fields
constexpr std::size_t kPerSignal = 256;    // header bytes per signal
constexpr int kMaxSignals = 640;           // EDFlib's EDFLIB_MAXSIGNALS
constexpr const char* kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};

std::string_view trimmed_field(std::string_view field) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\0')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\0')) field.remove_suffix(1);
  return field;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

// EDFlib's integer field: an optional sign, digits, then only spaces (no leading space).
bool integer_field(std::string_view f) {
  std::size_t i = f.empty() || (f[0] != '+' && f[0] != '-') ? 0 : 1;
  const std::size_t first = i;
  while (i < f.size() && digit(f[i])) ++i;
  if (i == first) return false;
  return f.find_first_not_of(' ', i) == std::string_view::npos;
}

// EDFlib's number field: an optional sign, digits with at most one point (a digit on either side
// of it at least), an optional exponent, then only spaces.
bool number_field(std::string_view f) {
  std::size_t i = f.empty() || (f[0] != '+' && f[0] != '-') ? 0 : 1;
  std::size_t digits = 0;
  bool point = false;
  for (; i < f.size() && (digit(f[i]) || (f[i] == '.' && !point)); ++i) {
    if (f[i] == '.') point = true;
    else ++digits;
  }
  if (digits == 0) return false;
  if (i < f.size() && (f[i] == 'e' || f[i] == 'E')) {
    ++i;
    if (i < f.size() && (f[i] == '+' || f[i] == '-')) ++i;
    const std::size_t first = i;
    while (i < f.size() && digit(f[i])) ++i;
    if (i == first) return false;
  }
  return f.find_first_not_of(' ', i) == std::string_view::npos;
}

template <typename T>
T value_of(std::string_view field) {
  field = trimmed_field(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  T value{};
  std::from_chars(field.data(), field.data() + field.size(), value);
  return value;
}

// A field's text for messages: its printable bytes as they are, the others as \xNN.
std::string shown(std::string_view field) {
  std::string out;
  for (const char c : trimmed_field(field)) {
    const auto b = static_cast<unsigned char>(c);
    out += b >= 32 && b <= 126 ? std::string(1, c) : fmt::format("\\x{:02X}", b);
  }
  return "\"" + out + "\"";
}

// The header's fields, each named as the EDF specification names it, with its bytes.
class Header {
 public:
  Header(std::string_view fixed, std::string_view table, std::size_t signals)
      : fixed_(fixed), table_(table), n_(signals) {}

  struct Field {
    std::string name;  // "startdate (bytes 168-175)", "signal 2 ("Fz"): its label (bytes 288-303)"
    std::string_view text;
  };
  Field fixed(const char* name, std::size_t offset, std::size_t width) const {
    return {fmt::format("its {} (bytes {}-{})", name, offset, offset + width - 1), fixed_.substr(offset, width)};
  }
  // Per-signal field `index` of the table (0: label … 9: reserved), of signal `s`.
  Field signal(std::size_t s, std::size_t index) const {
    static constexpr std::array<std::size_t, 10> kWidths = {16, 80, 8, 8, 8, 8, 8, 80, 8, 32};
    static constexpr std::array<const char*, 10> kNames = {
        "label", "transducer type", "physical dimension", "physical minimum", "physical maximum", "digital minimum",
        "digital maximum", "prefiltering", "number of samples in each data record", "reserved field"};
    std::size_t before = 0;
    for (std::size_t k = 0; k < index; ++k) before += kWidths[k] * n_;
    const std::size_t at = before + s * kWidths[index];
    const std::size_t offset = kFixedHeader + at;
    return {fmt::format("signal {} ({}): its {} (bytes {}-{})", s, shown(table_.substr(s * 16, 16)), kNames[index],
                        offset, offset + kWidths[index] - 1),
            table_.substr(at, kWidths[index])};
  }

 private:
  std::string_view fixed_, table_;
  std::size_t n_;
};

// "" when every byte is printable ASCII, as the specification requires of header text.
std::string unprintable(const Header::Field& f) {
  for (std::size_t i = 0; i < f.text.size(); ++i) {
    const auto b = static_cast<unsigned char>(f.text[i]);
    if (b < 32 || b > 126)
      return fmt::format("{} holds byte 0x{:02X} at its position {}: header fields must be printable ASCII", f.name, b,
                         i);
  }
  return "";
}

// dd-MMM-yyyy (an EDF+ birthdate or recording date), or "" when it is not one.
bool plus_date(std::string_view d) {
  if (d.size() < 11 || d[2] != '-' || d[6] != '-') return false;
  for (const std::size_t i : {0, 1, 7, 8, 9, 10})
    if (!digit(d[i])) return false;
  const int day = (d[0] - '0') * 10 + (d[1] - '0');
  bool month = false;
  for (const char* m : kMonths) month = month || d.substr(3, 3) == m;
  return day >= 1 && day <= 31 && month;
}

// The EDF+ subfields of the local patient identification: code, sex, birthdate, name, separated by
// single spaces (each may be X); "" when they follow the rules EDFlib enforces.
std::string plus_patient(std::string_view p) {
  const std::string rule = "; EDF+ wants \"CODE SEX BIRTHDATE NAME\" (X for each unknown one, SEX M or F, "
                           "BIRTHDATE dd-MMM-yyyy)";
  const std::size_t space = p.find(' ');
  if (space == std::string_view::npos || space == 0) return "the patient code is missing" + rule;
  const std::size_t sex = space + 1;
  if (sex > 73) return "the patient code is longer than 72 characters" + rule;
  if (p[sex] != 'M' && p[sex] != 'F' && p[sex] != 'X')
    return fmt::format("the sex {} is not M, F or X", shown(p.substr(sex, 1))) + rule;
  if (p[sex + 1] != ' ') return "the sex is not one character" + rule;
  const std::size_t birth = sex + 2;
  if (p[birth] == 'X') {
    if (p[birth + 1] != ' ' || p[birth + 2] == ' ') return "the birthdate X is not followed by one space and a name" + rule;
    return "";
  }
  if (sex > 65) return "the patient code is longer than 64 characters" + rule;
  if (!plus_date(p.substr(birth))) return fmt::format("the birthdate {} is not dd-MMM-yyyy", shown(p.substr(birth, 11))) + rule;
  if (p[birth + 11] != ' ' || p[birth + 12] == ' ') return "the birthdate is not followed by one space and a name" + rule;
  return "";
}

// The EDF+ subfields of the local recording identification: "Startdate dd-MMM-yyyy ADMIN TECH
// EQUIPMENT" (each may be X), the date matching the header's startdate.
std::string plus_recording(std::string_view r, std::string_view startdate) {
  const std::string rule = "; EDF+ wants \"Startdate dd-MMM-yyyy ADMINCODE TECHNICIAN EQUIPMENT\" (X for each unknown one)";
  if (r.substr(0, 10) != "Startdate ") return "it does not start with \"Startdate \"" + rule;
  std::size_t next = 0;
  if (r[10] == 'X') {
    if (r[11] != ' ' || r[12] == ' ') return "the date X is not followed by one space" + rule;
    next = 12;
  } else {
    if (!plus_date(r.substr(10))) return fmt::format("the date {} is not dd-MMM-yyyy", shown(r.substr(10, 11))) + rule;
    if (r[21] != ' ' || r[22] == ' ') return "the date is not followed by one space" + rule;
    // The header's startdate dd.mm.yy must be this date, its year yy read as 1985-2084.
    int month = 0;
    for (int m = 0; m < 12; ++m)
      if (r.substr(13, 3) == kMonths[m]) month = m + 1;
    const int year = value_of<int>(r.substr(17, 4));
    const int yy = (startdate[6] - '0') * 10 + (startdate[7] - '0');
    const bool same = r.substr(10, 2) == startdate.substr(0, 2) && startdate.substr(3, 2) == fmt::format("{:02}", month) &&
                      (yy > 84 ? 1900 + yy : 2000 + yy) == year;
    if (!same)
      return fmt::format("the date {} is not the header's startdate {} (whose year yy means 1985-2084)",
                         shown(r.substr(10, 11)), shown(startdate));
    next = 22;
  }
  // Admin code, technician and equipment: non-empty, one space apart, within the 80 bytes.
  for (int k = 0; k < 2; ++k) {
    const std::size_t space = r.find(' ', next);
    if (space == std::string_view::npos || space > 78 || r[space + 1] == ' ')
      return "the admin code, technician and equipment are not all there, one space apart" + rule;
    next = space + 1;
  }
  return "";
}

}  // namespace

std::string diagnose_edf_header(const std::string& path) {
  std::optional<InputFile> file;
  try {
    file.emplace(path);
  } catch (const std::exception&) {
    return "cannot open for reading";
  }
  const std::uint64_t size = file->size();
  if (size < kFixedHeader)
    return fmt::format("truncated: the file has {} bytes, fewer than the {}-byte fixed EDF/BDF header", size,
                       kFixedHeader);
  std::string fixed_bytes(kFixedHeader, '\0');
  file->read_at(0, fixed_bytes.data(), kFixedHeader);
  const std::string_view head(fixed_bytes);
  const bool bdf = head.substr(0, 8) == "\xff" "BIOSEMI";
  if (!bdf && head.substr(0, 8) != "0       ")
    return "it starts with neither the EDF version \"0\" nor the BDF marker \"\\xffBIOSEMI\"";
  const Header fixed(head, {}, 0);
  // EDFlib's order: text fields, dates, the signal count, the header size, the rest.
  for (const auto& f : {fixed.fixed("local patient identification", 8, 80), fixed.fixed("local recording identification", 88, 80)})
    if (std::string why = unprintable(f); !why.empty()) return why;
  const auto startdate = fixed.fixed("startdate", 168, 8);
  const auto starttime = fixed.fixed("starttime", 176, 8);
  for (const auto& [f, what, limits] :
       {std::tuple{startdate, "dd.mm.yy", std::array{31, 12, 99}}, std::tuple{starttime, "hh.mm.ss", std::array{23, 59, 59}}}) {
    if (std::string why = unprintable(f); !why.empty()) return why;
    const std::string_view t = f.text;
    bool ok = t[2] == '.' && t[5] == '.';
    for (const std::size_t i : {0, 1, 3, 4, 6, 7}) ok = ok && digit(t[i]);
    const auto part = [&](std::size_t i) { return (t[i] - '0') * 10 + (t[i + 1] - '0'); };
    const bool date = limits[0] == 31;
    ok = ok && part(0) >= (date ? 1 : 0) && part(0) <= limits[0] && part(3) >= (date ? 1 : 0) && part(3) <= limits[1] &&
         part(6) <= limits[2];
    if (!ok) return fmt::format("{} {} is not a valid {}", f.name, shown(t), what);
  }
  const auto signal_count = fixed.fixed("number of signals", 252, 4);
  if (std::string why = unprintable(signal_count); !why.empty()) return why;
  if (!integer_field(signal_count.text) || value_of<int>(signal_count.text) < 1)
    return fmt::format("the signal count {} is not a positive number", shown(signal_count.text));
  const int signals = value_of<int>(signal_count.text);
  if (signals > kMaxSignals)
    return fmt::format("the signal count {} exceeds the {} signals EDFlib reads", signals, kMaxSignals);
  const std::uint64_t header_bytes = kFixedHeader + kPerSignal * static_cast<std::uint64_t>(signals);
  const auto header_size = fixed.fixed("number of bytes in the header", 184, 8);
  if (!unprintable(header_size).empty() || !integer_field(header_size.text) ||
      value_of<std::uint64_t>(header_size.text) != header_bytes)
    return fmt::format("the header size field {} does not match the {} bytes that {} signals need",
                       shown(header_size.text), header_bytes, signals);
  if (std::string why = unprintable(fixed.fixed("reserved field", 192, 44)); !why.empty()) return why;
  const bool plus = head.substr(192, 5) == (bdf ? "BDF+C" : "EDF+C") || head.substr(192, 5) == (bdf ? "BDF+D" : "EDF+D");
  const auto records_field = fixed.fixed("number of data records", 236, 8);
  if (!unprintable(records_field).empty() || !integer_field(records_field.text) ||
      value_of<std::int64_t>(records_field.text) < 1)
    return fmt::format("the data record count {} is not a positive number (-1 means the recording was never closed)",
                       shown(records_field.text));
  const std::int64_t records = value_of<std::int64_t>(records_field.text);
  const auto duration_field = fixed.fixed("duration of a data record", 244, 8);
  if (!unprintable(duration_field).empty() || !number_field(duration_field.text) ||
      value_of<double>(duration_field.text) < -0.000001)
    return fmt::format("{} {} is not a duration in seconds (>= 0)", duration_field.name, shown(duration_field.text));
  if (size < header_bytes)
    return fmt::format("truncated header: {} signals need a {}-byte header, the file has {} bytes", signals,
                       header_bytes, size);

  std::string table_bytes(header_bytes - kFixedHeader, '\0');
  file->read_at(kFixedHeader, table_bytes.data(), table_bytes.size());
  const auto n = static_cast<std::size_t>(signals);
  const Header header(head, table_bytes, n);
  const std::string annotations = bdf ? "BDF Annotations " : "EDF Annotations ";
  std::vector<bool> annotation(n, false);
  std::size_t annotation_signals = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const auto label = header.signal(s, 0);
    if (std::string why = unprintable(label); !why.empty()) return why;
    annotation[s] = plus && label.text == annotations;
    annotation_signals += annotation[s] ? 1 : 0;
  }
  if (plus && annotation_signals == 0)
    return fmt::format("it is {}+ (reserved field) but no signal is labelled \"{}\"", bdf ? "BDF" : "EDF",
                       annotations.substr(0, 15));
  if (value_of<double>(duration_field.text) < 0.0000001 && annotation_signals < n)
    return fmt::format("{} is {}: only an EDF+ file of annotations alone may have records of no duration",
                       duration_field.name, shown(duration_field.text));
  // Each field over every signal, in EDFlib's order: the first fault found is the one it refused.
  for (std::size_t s = 0; s < n; ++s) {
    const auto f = header.signal(s, 1);
    if (std::string why = unprintable(f); !why.empty()) return why;
    if (annotation[s] && !trimmed_field(f.text).empty()) return f.name + " must be blank for an annotation signal";
  }
  for (std::size_t s = 0; s < n; ++s)
    if (std::string why = unprintable(header.signal(s, 2)); !why.empty()) return why;
  std::vector<double> physical_min(n);
  for (std::size_t index : {3, 4})
    for (std::size_t s = 0; s < n; ++s) {
      const auto f = header.signal(s, index);
      if (std::string why = unprintable(f); !why.empty()) return why;
      if (!number_field(f.text)) return fmt::format("{} {} is not a number", f.name, shown(f.text));
      const double v = value_of<double>(f.text);
      if (index == 3) physical_min[s] = v;
      const std::string who = fmt::format("signal {} ({})", s, shown(header.signal(s, 0).text));
      if (index == 4 && v == physical_min[s])
        return fmt::format("{}: its physical minimum equals its maximum ({})", who, v);
    }
  const int digital_floor = bdf ? -8388608 : -32768, digital_ceiling = bdf ? 8388607 : 32767;
  std::vector<int> digital_min(n);
  for (std::size_t index : {5, 6})
    for (std::size_t s = 0; s < n; ++s) {
      const auto f = header.signal(s, index);
      const std::string who = fmt::format("signal {} ({})", s, shown(header.signal(s, 0).text));
      if (std::string why = unprintable(f); !why.empty()) return why;
      if (!integer_field(f.text)) return fmt::format("{} {} is not a whole number", f.name, shown(f.text));
      const int v = value_of<int>(f.text);
      const int wanted = index == 5 ? digital_floor : digital_ceiling;
      if (annotation[s] && v != wanted)
        return fmt::format("{} is {}; an annotation signal's must be {}", f.name, v, wanted);
      if (v < digital_floor || v > digital_ceiling)
        return fmt::format("{}: its digital range {}..{} exceeds the {} range {}..{}", who, index == 5 ? v : digital_min[s],
                           index == 5 ? digital_ceiling : v, bdf ? "24-bit BDF" : "16-bit EDF", digital_floor,
                           digital_ceiling);
      if (index == 5) digital_min[s] = v;
      if (index == 6 && v <= digital_min[s])
        return fmt::format("{}: its digital minimum {} is not below its maximum {}", who, digital_min[s], v);
    }
  for (std::size_t s = 0; s < n; ++s) {
    const auto f = header.signal(s, 7);
    if (std::string why = unprintable(f); !why.empty()) return why;
    if (annotation[s] && !trimmed_field(f.text).empty()) return f.name + " must be blank for an annotation signal";
  }
  std::uint64_t samples_per_record = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const auto f = header.signal(s, 8);
    if (std::string why = unprintable(f); !why.empty()) return why;
    if (!integer_field(f.text) || value_of<int>(f.text) < 1)
      return fmt::format("signal {} ({}): its samples per data record {} is not a positive number", s,
                         shown(header.signal(s, 0).text), shown(f.text));
    samples_per_record += static_cast<std::uint64_t>(value_of<int>(f.text));
  }
  const std::uint64_t record_bytes = samples_per_record * (bdf ? 3 : 2);
  const std::uint64_t record_limit = bdf ? 15u << 20 : 10u << 20;
  if (record_bytes > record_limit)
    return fmt::format("a data record of {} bytes exceeds the {} MiB EDFlib reads", record_bytes, record_limit >> 20);
  for (std::size_t s = 0; s < n; ++s)
    if (std::string why = unprintable(header.signal(s, 9)); !why.empty()) return why;
  if (plus) {
    if (const std::string why = plus_patient(head.substr(8, 80)); !why.empty())
      return fmt::format("its local patient identification (bytes 8-87) {}: {}", shown(head.substr(8, 80)), why);
    if (const std::string why = plus_recording(head.substr(88, 80), startdate.text); !why.empty())
      return fmt::format("its local recording identification (bytes 88-167) {}: {}", shown(head.substr(88, 80)), why);
  }
  const std::uint64_t data = size - header_bytes;
  if (data != static_cast<std::uint64_t>(records) * record_bytes)
    return fmt::format("the header declares {} data records of {} bytes, but the file holds {} bytes of data ({} whole "
                       "records): the file is truncated or its record count is wrong",
                       records, record_bytes, data, data / record_bytes);
  return "";
}

}  // namespace pacflow::stages
