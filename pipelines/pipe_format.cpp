#include "pipelines/pipe_format.hpp"

#include "engine/io/input_file.hpp"
#include "engine/placement/devices.hpp"
#include "pipelines/relative_paths.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

namespace pacflow {
namespace {

// ASCII only on purpose: <cctype> depends on the locale and on the sign of char.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c) || c == '-'; }

// [A-Za-z_][A-Za-z0-9_-]*
bool is_identifier(std::string_view s) {
  return !s.empty() && is_ident_start(s.front()) &&
         std::all_of(s.begin() + 1, s.end(), is_ident_char);
}

enum class Numeral { None, Integer, Real };

// [+-] digits [. digits] [(e|E) [+-] digits], with at least one digit around the point.
// Anything else (2:20:10, 1s, 0x10, inf) is not a number and stays a string.
Numeral numeral_kind(std::string_view s) {
  std::size_t i = 0;
  const auto sign = [&] {
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  };
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i - from;
  };
  sign();
  std::size_t mantissa = digits();
  bool real = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
    real = true;
  }
  if (mantissa == 0) return Numeral::None;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    sign();
    if (digits() == 0) return Numeral::None;
    real = true;
  }
  if (i != s.size()) return Numeral::None;
  return real ? Numeral::Real : Numeral::Integer;
}

// The offset of the first byte that is not part of a well-formed UTF-8 sequence, or npos.
std::size_t first_invalid_utf8(std::string_view s) {
  const auto byte = [&](std::size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  const auto continuation = [&](std::size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return byte(i) >= lo && byte(i) <= hi;
  };
  for (std::size_t i = 0; i < s.size();) {
    const unsigned b = byte(i);
    std::size_t length = 0;
    if (b < 0x80) length = 1;
    else if (b >= 0xC2 && b <= 0xDF && continuation(i + 1)) length = 2;
    else if (b >= 0xE0 && b <= 0xEF && continuation(i + 1, b == 0xE0 ? 0xA0 : 0x80, b == 0xED ? 0x9F : 0xBF) &&
             continuation(i + 2))
      length = 3;
    else if (b >= 0xF0 && b <= 0xF4 && continuation(i + 1, b == 0xF0 ? 0x90 : 0x80, b == 0xF4 ? 0x8F : 0xBF) &&
             continuation(i + 2) && continuation(i + 3))
      length = 4;
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

// A recursive-descent parser straight over the original text, so that every position it reports
// is a physical line and column; a `\` continuation is just one more kind of whitespace.
class Parser {
 public:
  // `origin` is where text[0] sits; with no line (e.g. a command-line value) errors carry it as is.
  // `comments` is false for a lone value, where a '#' is an error rather than silently dropped.
  Parser(std::string_view text, SourceLocation origin, bool comments)
      : text_(text), origin_(std::move(origin)), comments_(comments) {}

  std::vector<ElementSpec> elements() {
    require_utf8();
    std::vector<ElementSpec> out;
    while (true) {
      skip_blanks();
      if (at_end()) break;
      if (peek() == '\n') {
        advance();
        continue;
      }
      if (starts_devices_line()) {
        devices_line();
        continue;
      }
      out.push_back(element());
    }
    return out;
  }

  // The `devices LIST` line, if there was one.
  const std::string& devices() const { return devices_; }

  json single_value() {
    require_utf8();
    skip_blanks();
    if (at_end()) fail("missing value", here());
    json v = value(false);
    check_value_end();
    skip_blanks();
    if (!at_end())
      fail(fmt::format("unexpected \"{}\" after the value; quote values that contain spaces or '#'",
                       text_.substr(pos_)),
           here());
    return v;
  }

 private:
  std::string_view text_;
  SourceLocation origin_;
  bool comments_;
  std::size_t pos_ = 0;
  std::string devices_;  // the `devices` line's list
  int depth_ = 0;   // lists open around pos_
  int line_ = 1;    // of pos_ in text_, 1-based
  int column_ = 1;

  bool at_end() const { return pos_ >= text_.size(); }
  bool at_line_end() const { return at_end() || text_[pos_] == '\n'; }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  SourceLocation here() const {
    if (origin_.line <= 0) return origin_;
    const int column = line_ > 1 ? column_ : origin_.column > 0 ? origin_.column + column_ - 1 : 0;
    return {origin_.file, origin_.line + line_ - 1, column};
  }

  [[noreturn]] static void fail(const std::string& message, const SourceLocation& at) {
    throw InputError(message, at);
  }

  // Values become JSON strings, which hold UTF-8 only: a stray byte (a Latin-1 file) is an error at
  // its position, not a failure later when a report is written.
  void require_utf8() {
    const std::size_t bad = first_invalid_utf8(text_.substr(pos_));
    if (bad == std::string_view::npos) return;
    for (const std::size_t end = pos_ + bad; pos_ < end;) advance();
    fail(fmt::format("byte 0x{:02X} is not UTF-8; save the text as UTF-8", static_cast<unsigned char>(peek())), here());
  }

  // A `\` followed only by blanks up to the end of its physical line.
  bool continuation_at(std::size_t p) const {
    if (p >= text_.size() || text_[p] != '\\') return false;
    ++p;
    while (p < text_.size() && is_blank(text_[p])) ++p;
    return p >= text_.size() || text_[p] == '\n';
  }

  // Where a bare word (element kind, name, key=value token, bare value) stops.
  bool ends_bare(std::size_t p) const {
    if (p >= text_.size()) return true;
    const char c = text_[p];
    return c == '\n' || is_blank(c) || c == '#' || continuation_at(p);
  }

  // Skips blanks, continuations (joining the next physical line) and comments, never a newline.
  void skip_blanks() {
    while (!at_end()) {
      if (is_blank(peek())) {
        advance();
      } else if (continuation_at(pos_)) {
        while (!at_line_end()) advance();
        if (!at_end()) advance();
      } else if (peek() == '#' && comments_) {
        while (!at_line_end()) advance();
      } else {
        break;
      }
    }
  }

  // The word at `p`, for messages: at least one character, up to where a bare word would stop.
  std::string word_at(std::size_t p, bool in_list = false) const {
    std::size_t end = p + 1;
    const auto list_stop = [&](char c) { return in_list && (c == ',' || c == '[' || c == ']'); };
    while (end < text_.size() && !ends_bare(end) && !list_stop(text_[end])) ++end;
    return std::string(text_.substr(p, std::min(end, text_.size()) - p));
  }

  std::string take_word() {
    const std::size_t start = pos_;
    while (!ends_bare(pos_)) advance();
    return std::string(text_.substr(start, pos_ - start));
  }

  bool starts_devices_line() const {
    constexpr std::string_view word = "devices";
    return text_.substr(pos_, word.size()) == word && ends_bare(pos_ + word.size());
  }

  // `devices cpu:0,1`: the device pool for stages without on=; one per file.
  void devices_line() {
    const SourceLocation at = here();
    take_word();
    skip_blanks();
    if (at_line_end()) fail("expected a device list after \"devices\", e.g. devices cpu:0,1", here());
    const SourceLocation list_at = here();
    const std::string list = take_word();
    skip_blanks();
    if (!at_line_end()) fail(fmt::format("unexpected \"{}\" after the device list", word_at(pos_)), here());
    if (!devices_.empty()) fail("a second \"devices\" line; a file has at most one", at);
    try {
      parse_devices(list, "devices");
    } catch (const DeviceUnavailable&) {
      // Well formed, but no GPU here: the build decides (a fallback may apply).
    } catch (const ParamError& e) {
      fail(e.bare_message(), list_at);
    }
    devices_ = list;
  }

  ElementSpec element() {
    const SourceLocation kind_at = here();
    const std::string word = take_word();
    const SourceLocation after_kind = here();
    ElementSpec spec;
    if (word == "source") {
      spec.kind = ElementKind::Source;
    } else if (word == "stage") {
      spec.kind = ElementKind::Stage;
    } else if (word == "sink") {
      spec.kind = ElementKind::Sink;
    } else {
      const std::string hint = suggest(word, {"source", "stage", "sink", "devices"});
      fail(fmt::format("expected \"source\", \"stage\", \"sink\" or \"devices\", got \"{}\"{}", word,
                       hint.empty() ? "" : "; " + hint),
           kind_at);
    }

    skip_blanks();
    if (at_line_end()) fail(fmt::format("expected a {} name after \"{}\"", word, word), after_kind);
    spec.where = here();
    spec.name = take_word();
    if (!is_identifier(spec.name))
      fail(fmt::format("expected a {} name, got \"{}\"", word, spec.name), spec.where);

    while (true) {
      skip_blanks();
      if (at_line_end()) return spec;
      parameter(spec);
    }
  }

  void parameter(ElementSpec& spec) {
    const SourceLocation key_at = here();
    const std::size_t start = pos_;
    while (!ends_bare(pos_) && peek() != '=') advance();
    const std::string key(text_.substr(start, pos_ - start));
    if (peek() != '=' || key.empty())
      fail(fmt::format("expected key=value, got \"{}\"", word_at(start)), key_at);
    if (!is_identifier(key)) fail(fmt::format("invalid parameter name \"{}\"", key), key_at);
    if (spec.params.contains(key)) fail(fmt::format("duplicate parameter \"{}\"", key), key_at);
    advance();  // '='
    if (ends_bare(pos_)) fail(fmt::format("missing value after \"{}=\"", key), here());
    spec.params[key] = value(false);
    spec.param_where[key] = key_at;
    check_value_end();
  }

  // After a value at the top level, e.g. `"a"b` or `[1]]`.
  void check_value_end() const {
    if (ends_bare(pos_)) return;
    if (peek() == ']') fail("unbalanced ']'", here());
    fail(fmt::format("unexpected \"{}\" after the value", word_at(pos_)), here());
  }

  json value(bool in_list) {
    const char c = peek();
    if (c == '"' || c == '\'') return quoted();
    if (c == '[') return list();
    if (c == ']') fail("unbalanced ']'", here());
    const SourceLocation at = here();
    const std::size_t start = pos_;
    while (!ends_bare(pos_) && !(in_list && (peek() == ',' || peek() == '[' || peek() == ']')))
      advance();
    if (pos_ == start)
      fail(fmt::format("expected a value, got \"{}\"", word_at(start, in_list)), at);
    return bare(text_.substr(start, pos_ - start), at);
  }

  json quoted() {
    const SourceLocation open = here();
    const char quote = peek();
    advance();
    std::string out;
    while (true) {
      if (at_line_end()) fail("unterminated string", open);
      const char c = peek();
      if (c == quote) {
        advance();
        return out;
      }
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      const SourceLocation escape_at = here();
      advance();
      if (at_line_end()) fail("unterminated string", open);
      switch (peek()) {
        case '"': case '\'': case '\\': out += peek(); break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        // Rejected rather than kept, so that new escapes can be added later without changing
        // what an existing file means.
        default: fail(fmt::format("unknown escape \"\\{}\" in string", peek()), escape_at);
      }
      advance();
    }
  }

  json list() {
    const SourceLocation open = here();
    if (++depth_ > kMaxListDepth)
      fail(fmt::format("lists nested deeper than {} levels; no parameter takes more than 3", kMaxListDepth), open);
    const struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    advance();  // '['
    json items = json::array();
    skip_blanks();
    if (peek() == ']') {
      advance();
      return items;
    }
    while (true) {
      if (at_line_end()) fail("unbalanced '['", open);
      if (peek() == ',' || peek() == ']')
        fail(fmt::format("expected a list item before '{}'", peek()), here());
      items.push_back(value(true));
      skip_blanks();
      if (at_line_end()) fail("unbalanced '['", open);
      if (peek() == ']') {
        advance();
        return items;
      }
      if (peek() != ',')
        fail(fmt::format("expected ',' or ']' in list, got \"{}\"", word_at(pos_, true)), here());
      advance();
      skip_blanks();
    }
  }

  static json bare(std::string_view word, const SourceLocation& at) {
    if (word == "true") return true;
    if (word == "false") return false;
    const Numeral kind = numeral_kind(word);
    if (kind == Numeral::None) return std::string(word);

    std::string_view digits = word;
    if (digits.front() == '+') digits.remove_prefix(1);  // from_chars takes no '+'
    const char* first = digits.data();
    const char* last = first + digits.size();
    if (kind == Numeral::Integer) {
      std::int64_t i = 0;
      if (std::from_chars(first, last, i).ec == std::errc{}) return i;
      std::uint64_t u = 0;  // e.g. a 64-bit seed
      if (std::from_chars(first, last, u).ec == std::errc{}) return u;
    } else {
      double d = 0;
      if (std::from_chars(first, last, d).ec == std::errc{}) return d;
    }
    fail(fmt::format("number \"{}\" is out of range", word), at);
  }
};

}  // namespace

PipeText parse_pipe_text(const std::string& text, const std::string& file) {
  Parser parser(text, SourceLocation{file, 1, 1}, true);
  PipeText out;
  out.elements = parser.elements();
  out.devices = parser.devices();
  return out;
}

std::vector<ElementSpec> parse_pipe(const std::string& text, const std::string& file) {
  return parse_pipe_text(text, file).elements;
}

json parse_pipe_value(const std::string& text, const SourceLocation& where) {
  return Parser(text, where, false).single_value();
}

namespace {
[[noreturn]] void bad_override(const std::string& text, const std::string& message) {
  constexpr std::size_t kShown = 60;  // a value can be huge: quote its start
  const std::string shown = text.size() <= kShown ? text : text.substr(0, kShown) + "…";
  throw InputError(fmt::format("--set \"{}\": {}", shown, message));
}
}  // namespace

SetOverride parse_set_override(const std::string& text) {
  const auto fail = [&](const std::string& message) { bad_override(text, message); };
  const std::size_t eq = text.find('=');
  const std::string target = text.substr(0, std::min(eq, text.size()));
  const std::size_t dot = target.find('.');
  if (eq == std::string::npos || dot == std::string::npos) fail("expected NAME.key=value");
  SetOverride out{target.substr(0, dot), target.substr(dot + 1), {}};
  if (!is_identifier(out.element) || !is_identifier(out.key)) fail("expected NAME.key=value");
  const std::string value = text.substr(eq + 1);
  if (std::all_of(value.begin(), value.end(), is_blank))
    fail(fmt::format("missing value after \"{}=\"", out.key));
  try {
    out.value = parse_pipe_value(value, {});
  } catch (const InputError& e) {
    fail(e.bare_message());
  }
  return out;
}

void load_pipe_text(const std::string& text, const std::string& file, Pipeline& pipeline) {
  PipeText parsed = parse_pipe_text(text, file);
  for (auto& spec : parsed.elements) pipeline.add(std::move(spec));
  if (!parsed.devices.empty()) pipeline.devices(parsed.devices);
}

void load_pipe_file(const std::string& path, Pipeline& pipeline) {
  // Regular files only (a FIFO or /dev/zero is refused at once), and no larger than a pipeline can be.
  PipeText parsed = parse_pipe_text(InputFile(path).read_all(kMaxPipeFileBytes, "a pipeline file"), path);
  resolve_relative_paths(parsed.elements, pipeline.registry(), std::filesystem::path(path).parent_path());
  for (auto& spec : parsed.elements) pipeline.add(std::move(spec));
  if (!parsed.devices.empty()) pipeline.devices(parsed.devices);
  pipeline.add_input_file(path);
}

}  // namespace pacflow
