#pragma once
// The text of a BrainVision header (.vhdr) or marker file (.vmrk), as the BrainVision Core Data
// Format 1.0 lays it out: an identification line, then INI-like sections ("[Common Infos]") of
// KEY=VALUE lines and ";" comments; "[Comment]" starts free text up to the end. The text is UTF-8
// or, with Codepage=ANSI, Latin-1 (turned into UTF-8 here, so "µV" reads the same either way); a
// UTF-8 file that is not valid UTF-8 is read as Latin-1, as MNE does. Every error is one InputError
// "PATH:LINE: what is wrong".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pacflow::stages {

struct IniEntry {
  std::string key;    // as written, e.g. "DataFile"
  std::string value;  // without the spaces around it
  int line = 0;       // 1-based
};

struct IniSection {
  std::string name;  // without the brackets, e.g. "Common Infos"
  int line = 0;      // of "[Common Infos]"
  std::vector<IniEntry> entries;  // its KEY=VALUE lines, in order
  std::vector<IniEntry> other_lines;  // neither KEY=VALUE nor comments (refused where read): the text as value
};

class IniText {
 public:
  // Splits `bytes` into lines and sections. Refuses a Codepage= other than UTF-8 or ANSI, and a
  // section given twice.
  IniText(std::string_view bytes, std::string path);

  const std::string& path() const { return path_; }
  // Line 1, without a byte-order mark or trailing spaces.
  const std::string& first_line() const { return first_line_; }
  // The section of that name (compared without regard to case), or null.
  const IniSection* section(std::string_view name) const;
  // The section, refused as missing when absent (`what` says what it holds).
  const IniSection& require_section(std::string_view name, std::string_view what) const;
  // The entry of that key (without regard to case), or null; refused when given twice.
  const IniEntry* find(const IniSection& section, std::string_view key) const;
  // The entry, refused as missing when absent (`what` says what it gives).
  const IniEntry& require(const IniSection& section, std::string_view key, std::string_view what) const;
  // Refuses the first line of `section` that is not KEY=VALUE.
  void require_entries_only(const IniSection& section, std::string_view expected) const;
  // Throws InputError "PATH:LINE: what" ("PATH: what" for line 0).
  [[noreturn]] void fail(int line, const std::string& what) const;

 private:
  // Whether the text is Latin-1 (Codepage=ANSI, or not valid UTF-8), else UTF-8.
  bool latin1(std::string_view bytes) const;

  std::string path_;
  std::string first_line_;
  std::vector<IniSection> sections_;
};

// Text from a file for a message: at most 60 characters, control bytes as \xNN, in quotes.
std::string shown_text(std::string_view text);
// The comma-separated fields of a value, each with "\1" turned into the comma it stands for.
std::vector<std::string> comma_fields(std::string_view value);
// Without the spaces and tabs around it.
std::string_view trimmed(std::string_view text);
// Compares without regard to ASCII case.
bool same_word(std::string_view a, std::string_view b);
// A whole number, or a number, filling all of `text` (no spaces, no trailing characters).
std::optional<std::int64_t> whole_number(std::string_view text);
std::optional<double> real_number(std::string_view text);

}  // namespace pacflow::stages
