#pragma once
// Parameters declared once, as Holoscan's `spec.param(...)` does: one statement names a parameter,
// binds it to the element's field and gives its default, unit, range or choices and doc:
//
//   void BandpassStage::declare(ParamBinder<BandpassStage>& p) {
//     p.add(&BandpassStage::pha_cycles_, "pha_cycles", 3, "filter order = cycles * (fs // f_lo)")
//         .unit("cycles").range(1, 1000);
//   }
//
// The schema the engine checks (types, ranges, choices), `pipeline_cli stages` lists and the
// parser's suggestions come from these statements, and a new element gets its fields set from the
// checked values (element_info below). What one parameter cannot say alone (a bound that depends on
// another parameter) the element checks in `configured()`, called once every field is set.
#include <concepts>
#include <deque>
#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/api/errors.hpp"
#include "engine/api/params.hpp"
#include "engine/api/registry.hpp"

namespace pacflow {

namespace param_detail {

template <class T>
struct Optional : std::false_type {
  using value_type = T;
};
template <class T>
struct Optional<std::optional<T>> : std::true_type {
  using value_type = T;
};

// The parameter type a field of type T holds (a path is an input file unless declared otherwise).
template <class T>
constexpr ParamType type_of() {
  if constexpr (std::same_as<T, bool>) return ParamType::Boolean;
  else if constexpr (std::integral<T>) return ParamType::Integer;
  else if constexpr (std::floating_point<T>) return ParamType::Number;
  else if constexpr (std::same_as<T, std::string>) return ParamType::String;
  else if constexpr (std::same_as<T, std::filesystem::path>) return ParamType::InputFile;
  else if constexpr (std::same_as<T, Duration>) return ParamType::Duration;
  else if constexpr (std::same_as<T, std::vector<double>>) return ParamType::NumberList;
  // A spec (a string or a list) is read into its own type: ParamBinder::parsed, never kept as JSON.
  else static_assert(sizeof(T) == 0, "no parameter type for this field type; bind a spec with parsed()");
}

// A checked value (Params did the type, range and choice checks) as the field's type, through
// Params' own accessors.
template <class T>
T value_as(const Params& params, const std::string& name) {
  if constexpr (std::same_as<T, bool>) {
    return params.boolean(name);
  } else if constexpr (std::integral<T>) {
    const std::int64_t whole = params.integer(name);
    if (std::cmp_less(whole, std::numeric_limits<T>::min()) || std::cmp_greater(whole, std::numeric_limits<T>::max()))
      throw ParamError(name, fmt::format("must be from {} to {}, got {}", std::numeric_limits<T>::min(),
                                         std::numeric_limits<T>::max(), whole));
    return static_cast<T>(whole);
  } else if constexpr (std::floating_point<T>) {
    return static_cast<T>(params.number(name));
  } else if constexpr (std::same_as<T, std::string>) {
    return params.string(name);
  } else if constexpr (std::same_as<T, std::filesystem::path>) {
    return std::filesystem::path(params.string(name));
  } else if constexpr (std::same_as<T, Duration>) {
    return params.duration(name);
  } else {
    static_assert(std::same_as<T, std::vector<double>>, "a field of a type Params has no accessor for");
    return params.number_list(name);
  }
}

}  // namespace param_detail

template <class Element>
class ParamBinder {
  // The type of the field that `Field` (a pointer to member, or a callable) reaches in an element.
  template <class Field>
  using FieldType = std::remove_cvref_t<std::invoke_result_t<Field, Element&>>;

 public:
  // Refines the parameter just declared.
  class Param {
   public:
    explicit Param(ParamSpec& spec) : spec_(spec) {}
    Param& unit(std::string unit) {
      spec_.unit = std::move(unit);
      return *this;
    }
    Param& range(double lo, double hi) { return at_least(lo).at_most(hi); }
    Param& at_least(double lo) { return bound_below(lo, false); }
    Param& greater_than(double lo) { return bound_below(lo, true); }
    Param& at_most(double hi) { return bound_above(hi, false); }
    Param& less_than(double hi) { return bound_above(hi, true); }
    // Another type than the field's suggests: an output file or folder, a device, a spec string.
    Param& as(ParamType type) {
      spec_.type = type;
      return *this;
    }

   private:
    Param& bound_below(double lo, bool open) {
      spec_.range.min = lo;
      spec_.range.min_open = open;
      return *this;
    }
    Param& bound_above(double hi, bool open) {
      spec_.range.max = hi;
      spec_.range.max_open = open;
      return *this;
    }
    ParamSpec& spec_;
  };

  // A parameter with a default. `field` is a pointer to member, or any callable that returns the
  // field of an element (for a field inside a member struct).
  template <class Field, class Default>
  Param add(Field field, std::string name, Default default_value, std::string doc) {
    return declare(field, std::move(name), json(std::move(default_value)), std::move(doc), false);
  }
  // A parameter that may stay unset: its field is a std::optional, left empty.
  template <class Field>
  Param optional(Field field, std::string name, std::string doc) {
    static_assert(param_detail::Optional<FieldType<Field>>::value, "an unset parameter binds to a std::optional");
    return declare(field, std::move(name), json(), std::move(doc), true);
  }
  // A parameter the user must give.
  template <class Field>
  Param required(Field field, std::string name, std::string doc) {
    return declare(field, std::move(name), json(), std::move(doc), false);
  }
  // A string parameter that takes one of `values`, each naming a value of the field (an enum).
  template <class Field>
  Param choice(Field field, std::string name, std::vector<std::pair<std::string, FieldType<Field>>> values,
               std::string default_value, std::string doc) {
    ParamSpec spec{name, ParamType::String, default_value, "", std::move(doc)};
    for (const auto& [text, value] : values) spec.choices.push_back(text);
    bindings_.push_back({std::move(spec), [field, values, name](Element& e, const Params& params) {
                           const std::string given = params.string(name);
                           for (const auto& [text, value] : values)
                             if (text == given) std::invoke(field, e) = value;
                         }});
    return Param(bindings_.back().spec);
  }

  // A parameter written as a spec (a string or a list: ParamType::Spec) that `parse(name, value)`
  // reads into the field's type when the element is made: a malformed one is refused then, with the
  // other parameters' errors, and the element never holds it unread. A null `default_value`: the
  // user must give it. `parse` throws ParamError(name, …) naming what is wrong.
  template <class Field, class Parse>
  Param parsed(Field field, std::string name, json default_value, Parse parse, std::string doc) {
    return declare_parsed(field, std::move(name), std::move(default_value), parse, std::move(doc), false);
  }
  // The same for a parameter that may stay unset: its field keeps its own value then.
  template <class Field, class Parse>
  Param parsed_optional(Field field, std::string name, Parse parse, std::string doc) {
    return declare_parsed(field, std::move(name), json(), parse, std::move(doc), true);
  }

  std::vector<ParamSpec> specs() const {

    std::vector<ParamSpec> out;
    for (const auto& b : bindings_) out.push_back(b.spec);
    return out;
  }
  // Sets every bound field of `element` from checked parameters.
  void bind(Element& element, const Params& params) const {
    for (const auto& b : bindings_) b.set(element, params);
  }

 private:
  template <class Field>
  Param declare(Field field, std::string name, json default_value, std::string doc, bool optional) {
    using Stored = FieldType<Field>;
    using Value = typename param_detail::Optional<Stored>::value_type;
    ParamSpec spec{name, param_detail::type_of<Value>(), std::move(default_value), "", std::move(doc), optional};
    bindings_.push_back({std::move(spec), [field, name](Element& e, const Params& params) {
                           if (params.has(name)) std::invoke(field, e) = param_detail::value_as<Value>(params, name);
                         }});
    return Param(bindings_.back().spec);
  }

  template <class Field, class Parse>
  Param declare_parsed(Field field, std::string name, json default_value, Parse parse, std::string doc, bool optional) {
    static_assert(std::is_convertible_v<std::invoke_result_t<Parse, const std::string&, const json&>, FieldType<Field>>,
                  "parse(name, value) returns the field's type");
    ParamSpec spec{name, ParamType::Spec, std::move(default_value), "", std::move(doc), optional};
    bindings_.push_back({std::move(spec), [field, parse, name](Element& e, const Params& params) {
                           if (params.has(name)) std::invoke(field, e) = parse(name, params.raw(name));
                         }});
    return Param(bindings_.back().spec);
  }

  struct Binding {
    ParamSpec spec;
    std::function<void(Element&, const Params&)> set;
  };
  std::deque<Binding> bindings_;  // a deque: a Param refers to its spec while others are added
};

namespace param_detail {

// A new element with its fields set from checked parameters, then configured.
template <class Element>
std::unique_ptr<Element> make_bound(const ParamBinder<Element>& binder, const Params& params) {
  auto element = std::make_unique<Element>();
  binder.bind(*element, params);
  if constexpr (requires { element->configured(params); })
    element->configured(params);
  else if constexpr (requires { element->configured(); })
    element->configured();
  return element;
}

}  // namespace param_detail

// The registry entry of an element class that declares its parameters
// (`static void declare(ParamBinder<E>&)`) and is default-constructible: its schema from the
// declarations, and a factory that sets the fields from the checked values, then calls the
// element's public `configured(params)` or `configured()` when it has one (cross-parameter checks,
// derived values). A source, a sink, a preprocessing stage (Transform) or a stage, by its base.
template <class Element>
ElementInfo element_info(std::string name, std::string summary) {
  auto binder = std::make_shared<ParamBinder<Element>>();
  Element::declare(*binder);
  ElementInfo info;
  info.kind = std::derived_from<Element, Source> ? ElementKind::Source
              : std::derived_from<Element, Sink> ? ElementKind::Sink
                                                 : ElementKind::Stage;
  info.name = std::move(name);
  info.summary = std::move(summary);
  info.params = binder->specs();
  auto make = [binder](const Params& params) { return param_detail::make_bound(*binder, params); };
  if constexpr (std::derived_from<Element, Source>) info.make_source = make;
  else if constexpr (std::derived_from<Element, Sink>) info.make_sink = make;
  else if constexpr (std::derived_from<Element, Transform>) info.make_transform = make;
  else info.make_stage = make;
  return info;
}

// One element made from parameters as a user writes them, checked against its declarations as the
// builder checks them (for tests, and C++ callers that use an element alone). Throws ParamError.
template <class Element>
std::unique_ptr<Element> make_element(const json& given = json::object()) {
  ParamBinder<Element> binder;
  Element::declare(binder);
  return param_detail::make_bound(binder, Params(given, binder.specs()));
}

}  // namespace pacflow
