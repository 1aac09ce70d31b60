#include "pipelines/pipe_format.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include <gtest/gtest.h>

namespace pacflow {
namespace {

const char* const kExample = R"(# comment
source  npy        path=data.npy fs=512
stage   bandpass   pha=2:20:10 amp=[[60,80],[80,100]] on=cpu:0
stage   hilbert    pad=fast
stage   mi         bins=18
stage   surrogates n=200 seed=42 min_shift=1s
sink    npy        dir=out/pac
sink    png        path=out/pac/comodulogram.png
)";

// The full message (with its file:line:col prefix) of the InputError `f` throws.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string parse_error(const std::string& text) {
  return error_of([&] { (void)parse_pipe(text, "t.pipe"); });
}

// The value of `key=...` on a one-element stage line.
json value_of(const std::string& value_text) {
  const auto elements = parse_pipe("stage x v=" + value_text + "\n", "t.pipe");
  return elements.at(0).params.at("v");
}

SourceLocation at(int line, int column) { return {"t.pipe", line, column}; }

void expect_location(const SourceLocation& actual, const SourceLocation& expected) {
  EXPECT_EQ(actual.file, expected.file);
  EXPECT_EQ(actual.line, expected.line);
  EXPECT_EQ(actual.column, expected.column);
}

Registry fake_registry() {
  Registry registry;
  const auto add = [&](ElementKind kind, const std::string& name) {
    ElementInfo info;
    info.kind = kind;
    info.name = name;
    registry.add(std::move(info));  // empty factories: nothing is built or run here
  };
  add(ElementKind::Source, "npy");
  for (const char* name : {"bandpass", "hilbert", "mi", "surrogates"})
    add(ElementKind::Stage, name);
  add(ElementKind::Sink, "npy");
  add(ElementKind::Sink, "png");
  return registry;
}

// --- Parsing ----------------------------------------------------------------------------------

TEST(PipeFormat, ParsesTheExampleIntoSevenElementsWithTypedValues) {
  const auto e = parse_pipe(kExample, "ex.pipe");
  ASSERT_EQ(e.size(), 7u);

  EXPECT_EQ(e[0].kind, ElementKind::Source);
  EXPECT_EQ(e[0].name, "npy");
  EXPECT_EQ(e[0].params, (json{{"path", "data.npy"}, {"fs", 512}}));
  EXPECT_TRUE(e[0].params["fs"].is_number_integer());

  EXPECT_EQ(e[1].kind, ElementKind::Stage);
  EXPECT_EQ(e[1].name, "bandpass");
  EXPECT_EQ(e[1].params["pha"], "2:20:10");
  EXPECT_EQ(e[1].params["amp"], json::parse("[[60,80],[80,100]]"));
  EXPECT_TRUE(e[1].params["amp"][0][0].is_number_integer());
  EXPECT_EQ(e[1].params["on"], "cpu:0");

  EXPECT_EQ(e[2].name, "hilbert");
  EXPECT_EQ(e[2].params, (json{{"pad", "fast"}}));
  EXPECT_EQ(e[3].name, "mi");
  EXPECT_EQ(e[3].params, (json{{"bins", 18}}));
  EXPECT_EQ(e[4].name, "surrogates");
  EXPECT_EQ(e[4].params, (json{{"n", 200}, {"seed", 42}, {"min_shift", "1s"}}));

  EXPECT_EQ(e[5].kind, ElementKind::Sink);
  EXPECT_EQ(e[5].name, "npy");
  EXPECT_EQ(e[5].params, (json{{"dir", "out/pac"}}));
  EXPECT_EQ(e[6].kind, ElementKind::Sink);
  EXPECT_EQ(e[6].name, "png");
  EXPECT_EQ(e[6].params, (json{{"path", "out/pac/comodulogram.png"}}));
}

TEST(PipeFormat, RecordsPositionsOfNamesAndKeys) {
  const auto e = parse_pipe(kExample, "ex.pipe");
  ASSERT_EQ(e.size(), 7u);
  expect_location(e[0].where, {"ex.pipe", 2, 9});
  expect_location(e[1].where, {"ex.pipe", 3, 9});
  expect_location(e[1].param_where.at("pha"), {"ex.pipe", 3, 20});
  expect_location(e[1].param_where.at("amp"), {"ex.pipe", 3, 32});
  expect_location(e[1].param_where.at("on"), {"ex.pipe", 3, 55});
  expect_location(e[4].param_where.at("min_shift"), {"ex.pipe", 6, 34});
  EXPECT_EQ(e[4].param_where.size(), 3u);
}

TEST(PipeFormat, IgnoresCommentsBlankLinesAndIndentation) {
  const auto e = parse_pipe("\n   # only a comment\n\t\n  stage mi bins=18 # trailing comment\n"
                            "stage hilbert# glued comment\n\n",
                            "t.pipe");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].params, (json{{"bins", 18}}));
  EXPECT_EQ(e[1].name, "hilbert");
  EXPECT_TRUE(e[1].params.empty());
}

TEST(PipeFormat, HashEndsABareValue) {
  EXPECT_EQ(parse_pipe("stage mi bins=18#comment\n", "t.pipe").at(0).params["bins"], 18);
}

TEST(PipeFormat, AcceptsAnEmptyTextAndAMissingFinalNewline) {
  EXPECT_TRUE(parse_pipe("", "t.pipe").empty());
  EXPECT_TRUE(parse_pipe("# nothing\n", "t.pipe").empty());
  EXPECT_EQ(parse_pipe("stage mi bins=18", "t.pipe").at(0).params["bins"], 18);
  EXPECT_EQ(parse_pipe("stage mi bins=18\r\nstage hilbert\r\n", "t.pipe").size(), 2u);
}

TEST(PipeFormat, JoinsLinesEndingInABackslash) {
  const auto e =
      parse_pipe("stage surrogates \\\n    n=200 \\   \n    seed=42\nsink npy\n", "t.pipe");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].params, (json{{"n", 200}, {"seed", 42}}));
  EXPECT_EQ(e[1].kind, ElementKind::Sink);
}

TEST(PipeFormat, ContinuationEndsABareValue) {
  const auto e = parse_pipe("stage x path=a\\b dir=c\\\n  n=1\n", "t.pipe");
  EXPECT_EQ(e.at(0).params, (json{{"path", "a\\b"}, {"dir", "c"}, {"n", 1}}));
}

TEST(PipeFormat, ReportsPhysicalPositionsOnContinuedLines) {
  const auto e = parse_pipe("# header\nstage \\\n  surrogates \\\n\tn=200 seed=42\n", "t.pipe");
  ASSERT_EQ(e.size(), 1u);
  expect_location(e[0].where, at(3, 3));
  expect_location(e[0].param_where.at("n"), at(4, 2));
  expect_location(e[0].param_where.at("seed"), at(4, 8));
  EXPECT_EQ(parse_error("stage mi \\\n  bins=18 \\\n   oops\n"),
            "t.pipe:3:4: expected key=value, got \"oops\"");
}

TEST(PipeFormat, ListMaySpanAContinuation) {
  const auto e = parse_pipe("stage bandpass amp=[ \\\n  [60, 80], \\\n  [80, 100] \\\n] on=cpu\n",
                            "t.pipe");
  EXPECT_EQ(e.at(0).params["amp"], json::parse("[[60,80],[80,100]]"));
  EXPECT_EQ(e.at(0).params["on"], "cpu");
  expect_location(e.at(0).param_where.at("on"), at(4, 3));
}

TEST(PipeFormat, BackslashInACommentDoesNotContinue) {
  EXPECT_EQ(parse_error("stage mi # not joined \\\nbins=18\n"),
            "t.pipe:2:1: expected \"source\", \"stage\", \"sink\" or \"devices\", got \"bins=18\"");
}

TEST(PipeFormat, KeepsRangesPresetsDurationsDevicesAndPathsVerbatim) {
  for (const char* text : {"2:20:10", "log:2:20:10", "2:20:4:1", "mres", "1s", "250ms", "cpu:0",
                           "sim:0-7", "cuda:*", "out/pac/x.png", "-", "1e", "0x10", "inf", "1.2.3",
                           "+", "null", "True", "a[1]", "2,3"}) {
    const json v = value_of(text);
    EXPECT_TRUE(v.is_string()) << text;
    EXPECT_EQ(v, text);
  }
}

TEST(PipeFormat, TypesIntegersAsIntegersAndOtherNumbersAsFloats) {
  EXPECT_TRUE(value_of("18").is_number_integer());
  EXPECT_EQ(value_of("18"), 18);
  EXPECT_EQ(value_of("-3"), -3);
  EXPECT_EQ(value_of("+7"), 7);
  EXPECT_TRUE(value_of("0.5").is_number_float());
  EXPECT_DOUBLE_EQ(value_of("0.5").get<double>(), 0.5);
  EXPECT_TRUE(value_of("1e3").is_number_float());
  EXPECT_DOUBLE_EQ(value_of("1e3").get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(value_of("1.5e3").get<double>(), 1500.0);
  EXPECT_DOUBLE_EQ(value_of("-2.5E-1").get<double>(), -0.25);
  EXPECT_DOUBLE_EQ(value_of(".25").get<double>(), 0.25);
  EXPECT_EQ(value_of("18446744073709551615").get<std::uint64_t>(), 18446744073709551615u);
}

TEST(PipeFormat, TrueAndFalseAreBooleans) {
  EXPECT_EQ(value_of("true"), json(true));
  EXPECT_EQ(value_of("false"), json(false));
  EXPECT_EQ(value_of("[true, false]"), json::parse("[true,false]"));
}

TEST(PipeFormat, ParsesNestedListsWithMixedItems) {
  EXPECT_EQ(value_of("[]"), json::array());
  EXPECT_EQ(value_of("[ ]"), json::array());
  EXPECT_EQ(value_of("[[],[[1]]]"), json::parse("[[],[[1]]]"));
  const json v = value_of("[ 1, -2.5 ,\"a b\", 'c', mres, 2:20:10, [x, [true]] ]");
  EXPECT_EQ(v, json::parse(R"([1, -2.5, "a b", "c", "mres", "2:20:10", ["x", [true]]])"));
  EXPECT_TRUE(v[0].is_number_integer());
  EXPECT_TRUE(v[1].is_number_float());
}

TEST(PipeFormat, QuotedStringsKeepSpacesAndHashes) {
  const auto e =
      parse_pipe("sink png path=\"out/my pac#1.png\" title='a # b' # comment\n", "t.pipe");
  EXPECT_EQ(e.at(0).params, (json{{"path", "out/my pac#1.png"}, {"title", "a # b"}}));
  EXPECT_EQ(value_of("\"18\""), "18");  // quoting keeps a number a string
  EXPECT_EQ(value_of("''"), "");
}

TEST(PipeFormat, QuotedStringsUnderstandEscapes) {
  EXPECT_EQ(value_of(R"("say \"hi\"")"), "say \"hi\"");
  EXPECT_EQ(value_of(R"('it\'s')"), "it's");
  EXPECT_EQ(value_of(R"("a\\b")"), "a\\b");
  EXPECT_EQ(value_of(R"("two\nlines")"), "two\nlines");
  EXPECT_EQ(value_of(R"('"')"), "\"");
}

// --- Errors -----------------------------------------------------------------------------------

TEST(PipeFormat, SuggestsTheElementKindForAMisspelledFirstWord) {
  EXPECT_EQ(parse_error("source npy path=x.npy\n  stge hilbert\n"),
            "t.pipe:2:3: expected \"source\", \"stage\", \"sink\" or \"devices\", got \"stge\"; did you mean "
            "\"stage\"?");
  EXPECT_EQ(parse_error("pipeline x\n"),
            "t.pipe:1:1: expected \"source\", \"stage\", \"sink\" or \"devices\", got \"pipeline\"");
}

TEST(PipeFormat, DevicesLineSetsThePoolAndIsCheckedWhereItStands) {
  const PipeText parsed = parse_pipe_text("# pool\ndevices cpu:*   # every CPU device\nsource npy path=x.npy\n", "t.pipe");
  EXPECT_EQ(parsed.devices, "cpu:*");
  ASSERT_EQ(parsed.elements.size(), 1u);
  EXPECT_EQ(parse_pipe_text("source npy path=x.npy\n", "t.pipe").devices, "");
  EXPECT_EQ(parse_error("devices\n"), "t.pipe:1:8: expected a device list after \"devices\", e.g. devices cpu:0,1");
  EXPECT_EQ(parse_error("devices cpu cpu:0\n"), "t.pipe:1:13: unexpected \"cpu:0\" after the device list");
  EXPECT_EQ(parse_error("devices cpu\ndevices cpu:0\n"), "t.pipe:2:1: a second \"devices\" line; a file has at most one");
  const std::string unknown = parse_error("devices tpu:0\n");
  EXPECT_EQ(unknown.rfind("t.pipe:1:9: device list \"tpu:0\": unknown device", 0), 0u) << unknown;
}

TEST(PipeFormat, ReportsLineAndColumnOfUnknownToken) {
  EXPECT_EQ(parse_error("stage mi\nstage surrogates n=200 abc seed=1\n"),
            "t.pipe:2:24: expected key=value, got \"abc\"");
  EXPECT_EQ(parse_error("stage mi =18\n"), "t.pipe:1:10: expected key=value, got \"=18\"");
}

TEST(PipeFormat, ErrorCarriesItsLocation) {
  try {
    (void)parse_pipe("stage mi\nstage mi abc\n", "t.pipe");
    FAIL() << "no error";
  } catch (const InputError& e) {
    expect_location(e.where(), at(2, 10));
    EXPECT_EQ(e.bare_message(), "expected key=value, got \"abc\"");
  }
}

TEST(PipeFormat, RejectsAMissingOrInvalidElementName) {
  EXPECT_EQ(parse_error("stage   # no name\n"),
            "t.pipe:1:6: expected a stage name after \"stage\"");
  EXPECT_EQ(parse_error("sink 3d\n"), "t.pipe:1:6: expected a sink name, got \"3d\"");
  EXPECT_EQ(parse_error("stage pha=2:20:10\n"),
            "t.pipe:1:7: expected a stage name, got \"pha=2:20:10\"");
}

TEST(PipeFormat, RejectsAnInvalidParameterName) {
  EXPECT_EQ(parse_error("stage mi 2x=1\n"), "t.pipe:1:10: invalid parameter name \"2x\"");
}

TEST(PipeFormat, RejectsADuplicateParameterAtItsSecondUse) {
  EXPECT_EQ(parse_error("stage surrogates n=200 seed=1 \\\n  n=100\n"),
            "t.pipe:2:3: duplicate parameter \"n\"");
}

TEST(PipeFormat, RejectsAKeyWithoutValue) {
  EXPECT_EQ(parse_error("stage surrogates n= seed=1\n"), "t.pipe:1:20: missing value after \"n=\"");
  EXPECT_EQ(parse_error("stage surrogates n=\n"), "t.pipe:1:20: missing value after \"n=\"");
  EXPECT_EQ(parse_error("stage surrogates n=# c\n"), "t.pipe:1:20: missing value after \"n=\"");
}

TEST(PipeFormat, PointsAtTheOpeningQuoteOfAnUnterminatedString) {
  EXPECT_EQ(parse_error("stage mi\nsink png path=\"out/x.png title=a\nsink npy\n"),
            "t.pipe:2:15: unterminated string");
  EXPECT_EQ(parse_error("sink png path='abc\\'"), "t.pipe:1:15: unterminated string");
  // A backslash before the end of the line escapes nothing: strings never span lines.
  EXPECT_EQ(parse_error("sink png path=\"abc\\\n\"\n"), "t.pipe:1:15: unterminated string");
}

TEST(PipeFormat, RejectsAnUnknownEscape) {
  EXPECT_EQ(parse_error("sink png path=\"C:\\data\"\n"),
            "t.pipe:1:18: unknown escape \"\\d\" in string");
}

TEST(PipeFormat, PointsAtTheOpeningBracketOfAnUnbalancedList) {
  EXPECT_EQ(parse_error("stage bandpass amp=[[60,80],[80,100]\n"),
            "t.pipe:1:20: unbalanced '['");
  EXPECT_EQ(parse_error("stage bandpass amp=[[60,80],[80,100 on=cpu\n"),
            "t.pipe:1:37: expected ',' or ']' in list, got \"on=cpu\"");
  EXPECT_EQ(parse_error("stage bandpass amp=[[60,80],[80,100\n"), "t.pipe:1:29: unbalanced '['");
  EXPECT_EQ(parse_error("stage bandpass amp=[1, # comment hides the rest ]\n"),
            "t.pipe:1:20: unbalanced '['");
  EXPECT_EQ(parse_error("stage bandpass \\\n  amp=[1, \\\n  2\nsink npy\n"),
            "t.pipe:2:7: unbalanced '['");
}

TEST(PipeFormat, RejectsAStrayClosingBracket) {
  EXPECT_EQ(parse_error("stage bandpass amp=[1,2]]\n"), "t.pipe:1:25: unbalanced ']'");
  EXPECT_EQ(parse_error("stage bandpass amp=]\n"), "t.pipe:1:20: unbalanced ']'");
}

TEST(PipeFormat, RejectsMalformedListItems) {
  EXPECT_EQ(parse_error("stage x v=[1 2]\n"),
            "t.pipe:1:14: expected ',' or ']' in list, got \"2\"");
  EXPECT_EQ(parse_error("stage x v=[1,,2]\n"), "t.pipe:1:14: expected a list item before ','");
  EXPECT_EQ(parse_error("stage x v=[1,]\n"), "t.pipe:1:14: expected a list item before ']'");
  EXPECT_EQ(parse_error("stage x v=[,]\n"), "t.pipe:1:12: expected a list item before ','");
}

// Lists nest at most kMaxListDepth deep: deeper ones are refused where the list that goes too deep
// opens, in a file and in a --set value, however deep they go (50 000 levels once overflowed the stack).
TEST(PipeFormat, ListsNestedDeeperThanTheLimitAreRefusedWhereTheyOpen) {
  const auto nested = [](int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); };
  const auto parsed = parse_pipe("stage mi pairs=" + nested(kMaxListDepth) + "\n", "t.pipe");
  json value = parsed.at(0).params.at("pairs");
  for (int level = 1; level < kMaxListDepth; ++level) value = value.at(0);
  EXPECT_EQ(value, json::array({1}));
  const std::string message = "lists nested deeper than 32 levels; no parameter takes more than 3";
  EXPECT_EQ(parse_error("stage mi pairs=" + nested(kMaxListDepth + 1) + "\n"), "t.pipe:1:48: " + message);
  EXPECT_EQ(parse_error("stage mi pairs=" + nested(50000) + "\n"), "t.pipe:1:48: " + message);
  const std::string set = error_of([&] { parse_set_override("mi.pairs=" + nested(50000)); });
  EXPECT_NE(set.find(message), std::string::npos) << set.substr(0, 200);
  EXPECT_LT(set.size(), 200u);
}

TEST(PipeFormat, RejectsTextGluedToAQuotedStringOrList) {
  EXPECT_EQ(parse_error("stage x v=\"a\"b\n"), "t.pipe:1:14: unexpected \"b\" after the value");
  EXPECT_EQ(parse_error("stage x v=[1]x\n"), "t.pipe:1:14: unexpected \"x\" after the value");
}

TEST(PipeFormat, RejectsANumberOutOfRange) {
  EXPECT_EQ(parse_error("stage x v=1e999\n"), "t.pipe:1:11: number \"1e999\" is out of range");
  EXPECT_EQ(parse_error("stage x v=-99999999999999999999\n"),
            "t.pipe:1:11: number \"-99999999999999999999\" is out of range");
}

// --- Single values and --set ------------------------------------------------------------------

TEST(PipeFormat, ParsesASingleValueWithTheFileGrammar) {
  EXPECT_EQ(parse_pipe_value("20", {}), 20);
  EXPECT_EQ(parse_pipe_value(" [[4,8], [8,12]] ", {}), json::parse("[[4,8],[8,12]]"));
  EXPECT_EQ(parse_pipe_value("2:20:10", {}), "2:20:10");
  EXPECT_EQ(parse_pipe_value("'a b'", {}), "a b");
  EXPECT_EQ(parse_pipe_value("\"x#1\"", {}), "x#1");
}

TEST(PipeFormat, SingleValueErrorsAreOffsetFromTheGivenLocation) {
  const SourceLocation where{"cmd", 1, 10};
  EXPECT_EQ(error_of([&] { (void)parse_pipe_value("[1, \"x", where); }),
            "cmd:1:14: unterminated string");
  EXPECT_EQ(error_of([&] { (void)parse_pipe_value("[1, 2", {"--set", 0, 0}); }),
            "--set: unbalanced '['");
}

TEST(PipeFormat, SingleValueRejectsEmptinessAndTrailingText) {
  EXPECT_EQ(error_of([] { (void)parse_pipe_value("  ", {}); }), "missing value");
  EXPECT_EQ(error_of([] { (void)parse_pipe_value("my file.npy", {}); }),
            "unexpected \"file.npy\" after the value; quote values that contain spaces or '#'");
  EXPECT_EQ(error_of([] { (void)parse_pipe_value("out#1", {}); }),
            "unexpected \"#1\" after the value; quote values that contain spaces or '#'");
}

TEST(PipeFormat, ParsesSetOverrides) {
  const SetOverride n = parse_set_override("surrogates.n=20");
  EXPECT_EQ(n.element, "surrogates");
  EXPECT_EQ(n.key, "n");
  EXPECT_EQ(n.value, 20);
  EXPECT_TRUE(n.value.is_number_integer());

  const SetOverride path = parse_set_override("source.path=x.npy");
  EXPECT_EQ(path.element, "source");
  EXPECT_EQ(path.key, "path");
  EXPECT_EQ(path.value, "x.npy");

  EXPECT_EQ(parse_set_override("bandpass.amp=[[60,80],[80,100]]").value,
            json::parse("[[60,80],[80,100]]"));
  EXPECT_EQ(parse_set_override("sink.title=\"a=b c\"").value, "a=b c");
  EXPECT_EQ(parse_set_override("bandpass.on=cuda:*").value, "cuda:*");
}

TEST(PipeFormat, RejectsMalformedSetOverrides) {
  const auto set_error = [](const std::string& text) {
    return error_of([&] { (void)parse_set_override(text); });
  };
  EXPECT_EQ(set_error("foo"), "--set \"foo\": expected NAME.key=value");
  EXPECT_EQ(set_error("foo=1"), "--set \"foo=1\": expected NAME.key=value");
  EXPECT_EQ(set_error(".n=1"), "--set \".n=1\": expected NAME.key=value");
  EXPECT_EQ(set_error("mi.=1"), "--set \"mi.=1\": expected NAME.key=value");
  EXPECT_EQ(set_error("a.b.c=1"), "--set \"a.b.c=1\": expected NAME.key=value");
  EXPECT_EQ(set_error("surrogates.n="), "--set \"surrogates.n=\": missing value after \"n=\"");
  EXPECT_EQ(set_error("bandpass.amp=[1,2"), "--set \"bandpass.amp=[1,2\": unbalanced '['");
}

// Found by fuzzing (tests/fuzz/pipe_format/regressions/): a Latin-1 byte became a JSON string that
// could not be written, failing far from the cause. It is refused where it stands.
TEST(PipeFormat, RejectsBytesThatAreNotUtf8AtTheirPosition) {
  EXPECT_EQ(parse_error("source npy fs=512\nsink npy dir=caf\xe9\n"),
            "t.pipe:2:17: byte 0xE9 is not UTF-8; save the text as UTF-8");
  EXPECT_EQ(parse_error("stage mi bins=18 # \xff in a comment\n"), "t.pipe:1:20: byte 0xFF is not UTF-8; save the text as UTF-8");
  EXPECT_EQ(parse_error("stage mi x=\xed\xa0\x80\n"), "t.pipe:1:12: byte 0xED is not UTF-8; save the text as UTF-8");
  EXPECT_EQ(value_of("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(error_of([] { (void)parse_set_override("sink.dir=caf\xe9"); }),
            "--set \"sink.dir=caf\xe9\": byte 0xE9 is not UTF-8; save the text as UTF-8");
}

// --- Loading into a pipeline ------------------------------------------------------------------

TEST(PipeFormat, LoadsTheExampleIntoAPipeline) {
  const Registry registry = fake_registry();
  Pipeline pipeline(registry);
  load_pipe_text(kExample, "ex.pipe", pipeline);
  ASSERT_EQ(pipeline.elements().size(), 7u);
  EXPECT_EQ(pipeline.elements()[4].params["n"], 200);
  expect_location(pipeline.elements()[4].param_where.at("n"), {"ex.pipe", 6, 20});
}

TEST(PipeFormat, UnknownStageNameIsReportedWithSuggestionAndLocation) {
  const Registry registry = fake_registry();
  Pipeline pipeline(registry);
  EXPECT_EQ(error_of([&] {
              load_pipe_text("source npy path=x.npy\n\nstage   hilbret\n", "t.pipe", pipeline);
            }),
            "t.pipe:3:9: unknown stage \"hilbret\"; did you mean \"hilbert\"?");
}

TEST(PipeFormat, LoadsAFileAndReportsAMissingOrUnreadableOne) {
  const Registry registry = fake_registry();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("pipe_format_test_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "a.pipe").string();
  std::ofstream(file) << "source npy path=x.npy\nstage mi\nsink npy dir=out\n";

  Pipeline pipeline(registry);
  load_pipe_file(file, pipeline);
  ASSERT_EQ(pipeline.elements().size(), 3u);
  expect_location(pipeline.elements()[1].where, {file, 2, 7});

  const std::string missing = (dir / "missing.pipe").string();
  EXPECT_EQ(error_of([&] { load_pipe_file(missing, pipeline); }), missing + ": no such file");
  const std::string unreadable = error_of([&] { load_pipe_file(dir.string(), pipeline); });
  EXPECT_EQ(unreadable.rfind(dir.string() + ": is a directory", 0), 0u) << unreadable;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pacflow
