// Scenario loading: parse, apply --set overrides, check every key against the parameter
// table, fill defaults, check the kernel's cross-key rules, convert to the typed Scenario.
// Every step collects errors instead of stopping, so one run shows every mistake.
#include "platform/config/loader.h"

#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_mmap.h"
#include "models/kernel/sched_weight.h"
#include "models/user/readers.h"
#include "platform/config/params.h"
#include "platform/config/units.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unordered_map>
#include <utility>

namespace ringsim::config {

namespace perf = ringsim::models::perf;
using nlohmann::json;

std::string ConfigError::message() const {
    // The whole document has the empty pointer: say nothing rather than ": expected".
    return (pointer.empty() ? "" : pointer + ": ") + "expected " + expected + ", found " + found;
}

namespace {

using K = ParamKind;

// ---- pointers ------------------------------------------------------------------------

std::string escape_token(const std::string& key) {
    std::string out;
    for (char c : key)
        out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
}

std::vector<std::string> split_pointer(const std::string& pointer) {
    std::vector<std::string> tokens;
    size_t i = 0;
    while (i < pointer.size()) {
        const size_t next = std::min(pointer.find('/', i + 1), pointer.size());
        tokens.push_back(pointer.substr(i + 1, next - i - 1));
        i = next;
    }
    return tokens;
}

// An array index as JSON pointers write it: digits, no leading zero.
bool is_index(const std::string& token) {
    return !token.empty() && token.size() < 10 && (token == "0" || token[0] != '0') &&
           std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string join_keys(const std::vector<const Param*>& rows) {
    std::vector<std::string> names;
    for (const Param* p : rows)
        names.push_back(p->path.substr(p->path.rfind('/') + 1));
    return join(names, ", ");
}

// The value as the user wrote it, cut short so a misplaced object cannot flood the output.
std::string json_text(const json& v) {
    std::string text = v.dump();
    return text.size() <= 80 ? text : text.substr(0, 77) + "...";
}

// Document order: keys in table order, array elements by index; unknown keys after the
// known ones. A stable sort then keeps several errors on one pointer in the order found.
size_t rank_of(const std::string& pattern) {
    const auto& table = params();
    for (size_t i = 0; i < table.size(); ++i)
        if (table[i].path == pattern) return i;
    return table.size();
}

bool pointer_less(const std::string& a, const std::string& b) {
    const auto ta = split_pointer(a), tb = split_pointer(b);
    std::string pattern;
    for (size_t i = 0; i < std::min(ta.size(), tb.size()); ++i) {
        if (ta[i] != tb[i]) {
            if (is_index(ta[i]) && is_index(tb[i])) return std::stoul(ta[i]) < std::stoul(tb[i]);
            const size_t ra = rank_of(pattern + "/" + ta[i]), rb = rank_of(pattern + "/" + tb[i]);
            return ra != rb ? ra < rb : ta[i] < tb[i];
        }
        pattern += "/" + (is_index(ta[i]) ? "*" : ta[i]);
    }
    return ta.size() < tb.size();
}

// The longest string a scenario may hold (a description, a writer's name).
constexpr size_t kMaxStringBytes = 4096;

// ---- errors --------------------------------------------------------------------------

// Text an error echoes from the input (a key, a pointer, a value), cut short: a 10 MB key
// must not print 20 MB.
std::string clipped(std::string s) {
    constexpr size_t kMax = 200;
    if (s.size() <= kMax) return s;
    const std::string total = " ... (" + std::to_string(s.size()) + " bytes)";
    s.resize(kMax);
    return s + total;
}

class Errors {
public:
    void add(std::string pointer, std::string expected, std::string found) {
        m_bad.insert(pointer); // whole: later rules look it up
        m_list.push_back(
            {clipped(std::move(pointer)), std::move(expected), clipped(std::move(found))});
    }
    // True when the value at `pointer`, or anything inside it, was reported: later rules
    // skip it rather than pile a second, confusing error on the same mistake.
    bool bad(const std::string& pointer) const {
        if (m_bad.empty()) return false; // a good scenario: every key's read asks
        if (m_bad.count(pointer) != 0) return true;
        const std::string inside = pointer + "/";
        const auto it = m_bad.lower_bound(inside); // pointers inside sort right after it
        return it != m_bad.end() && it->rfind(inside, 0) == 0;
    }
    // True when the value at `pointer` itself was reported.
    bool reported(const std::string& pointer) const { return m_bad.count(pointer) != 0; }
    bool empty() const { return m_list.empty(); }
    // A number's text as the scenario typed it: nlohmann keeps an integer beyond 64 bits
    // as a double, and an error must not echo 18446744073709551616 as 1.8446744073709552e+19.
    void typed(const std::string& pointer, std::string text) { m_typed[pointer] = std::move(text); }
    // A value replaced (--set) is no longer what the file typed there.
    void forget_typed(const std::string& pointer) {
        const auto first = m_typed.lower_bound(pointer);
        auto last = first;
        while (last != m_typed.end() &&
               (last->first == pointer || last->first.rfind(pointer + "/", 0) == 0))
            ++last;
        m_typed.erase(first, last);
    }
    // What an error echoes of the value at `pointer`.
    std::string echo(const std::string& pointer, const json& v) const {
        const auto it = m_typed.find(pointer);
        return it != m_typed.end() && v.is_number() ? it->second : json_text(v);
    }
    std::vector<ConfigError> sorted() && {
        std::stable_sort(m_list.begin(), m_list.end(), [](const auto& x, const auto& y) {
            return pointer_less(x.pointer, y.pointer);
        });
        return std::move(m_list);
    }

private:
    std::vector<ConfigError> m_list;
    std::set<std::string> m_bad;
    std::map<std::string, std::string> m_typed;
};

// ---- scans of the raw text ------------------------------------------------------------

// Follows a JSON text byte by byte, for the linear scans made before nlohmann parses it.
class OutsideStrings {
public:
    // True when `c`, the next byte, lies outside every string (a quote is the string's).
    bool structural(char c) {
        if (m_in_string) {
            if (m_escaped)
                m_escaped = false;
            else if (c == '\\')
                m_escaped = true;
            else if (c == '"')
                m_in_string = false;
            return false;
        }
        m_in_string = c == '"';
        return !m_in_string;
    }

private:
    bool m_in_string = false, m_escaped = false;
};

// ---- numbers as typed ----------------------------------------------------------------

// A number token of the text, outside strings, in document order.
struct NumberToken {
    std::string text;
    bool beyond_double; // "1e400": no double holds it
};

// The text's number tokens. Each that no double holds is overwritten in `text` with a 0
// padded by spaces (byte offsets unchanged), so parsing goes on and every other error in
// the file is still found; the parse callback reports it at its pointer.
std::vector<NumberToken> take_numbers(std::string& text) {
    std::vector<NumberToken> tokens;
    OutsideStrings json;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!json.structural(c)) continue;
        if (c != '-' && !std::isdigit(static_cast<unsigned char>(c))) continue;
        size_t end = i + 1;
        auto in_number = [](char n) {
            return std::isdigit(static_cast<unsigned char>(n)) || n == '.' || n == 'e' ||
                   n == 'E' || n == '+' || n == '-';
        };
        while (end < text.size() && in_number(text[end]))
            ++end;
        NumberToken token{text.substr(i, end - i), false};
        const double d = std::strtod(token.text.c_str(), nullptr);
        token.beyond_double = !std::isfinite(d);
        if (token.beyond_double) text.replace(i, end - i, "0" + std::string(end - i - 1, ' '));
        tokens.push_back(std::move(token));
        i = end - 1;
    }
    return tokens;
}

// ---- parsing -------------------------------------------------------------------------

// Watches the parse as it streams by, tracking the pointer of the current value: nlohmann
// keeps the last of two equal keys silently, and a strict loader reports it; a number no
// double holds is reported where it is, and numbers kept as doubles are remembered as typed.
class ParseWatch {
public:
    ParseWatch(Errors& errors, std::vector<NumberToken> numbers)
        : m_errors(errors), m_numbers(std::move(numbers)) {}

    bool operator()(int, json::parse_event_t event, json& parsed) {
        switch (event) {
        case json::parse_event_t::object_start:
            m_stack.push_back({false, 0, {}, {}});
            break;
        case json::parse_event_t::array_start:
            m_stack.push_back({true, 0, {}, {}});
            break;
        case json::parse_event_t::key:
            on_key(parsed.get<std::string>());
            break;
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            m_stack.pop_back();
            element_done();
            break;
        case json::parse_event_t::value:
            if (parsed.is_number()) on_number(parsed);
            element_done();
            break;
        }
        return true;
    }

private:
    struct Frame {
        bool array;
        size_t index;
        std::string key;
        std::set<std::string> keys;
    };

public:
    // The pointer of the value being parsed: where a number too large for a double lies.
    std::string pointer() const {
        std::string pointer;
        for (const Frame& f : m_stack)
            pointer += "/" + (f.array ? std::to_string(f.index) : escape_token(f.key));
        return pointer;
    }

private:
    void on_key(const std::string& key) {
        Frame& frame = m_stack.back();
        frame.key = key;
        if (frame.keys.insert(key).second) return;
        m_errors.add(pointer(), "each key at most once in an object", "\"" + key + "\" again");
    }
    // The numbers arrive in the order take_numbers found them.
    void on_number(const json& parsed) {
        if (m_next_number >= m_numbers.size()) return;
        const NumberToken& token = m_numbers[m_next_number++];
        if (token.beyond_double)
            m_errors.add(pointer(), "a number a double can hold", token.text);
        else if (parsed.is_number_float())
            m_errors.typed(pointer(), token.text);
    }
    void element_done() {
        if (!m_stack.empty() && m_stack.back().array) ++m_stack.back().index;
    }

    Errors& m_errors;
    std::vector<Frame> m_stack;
    std::vector<NumberToken> m_numbers;
    size_t m_next_number = 0;
};

// The deepest nesting a scenario may have: its own keys go four levels down; the cap keeps
// every recursive walk of the document (error messages, defaults) far from the stack's end.
constexpr size_t kMaxJsonDepth = 32;

// The byte at which `text` opens its (kMaxJsonDepth + 1)-th nested array or object, outside
// strings; none when it never does. A linear scan, before anything recursive sees the text.
std::optional<size_t> too_deep(const std::string& text) {
    size_t depth = 0;
    OutsideStrings json;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!json.structural(c)) continue;
        if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

std::string depth_expected() {
    return "arrays and objects nested at most " + std::to_string(kMaxJsonDepth) + " deep";
}

std::optional<json> parse_document(const std::string& text, const std::string& origin,
                                   Errors& errors) {
    // nlohmann's lexer takes a NUL byte for the end of the input: what follows would be
    // ignored without a word.
    if (const size_t nul = text.find('\0'); nul != std::string::npos) {
        errors.add("", "a JSON text without NUL bytes",
                   origin + ": a NUL byte at byte " + std::to_string(nul));
        return std::nullopt;
    }
    if (const auto at = too_deep(text)) {
        errors.add("", depth_expected(),
                   origin + ": deeper nesting at byte " + std::to_string(*at));
        return std::nullopt;
    }
    std::string parsed = text;
    ParseWatch watch(errors, take_numbers(parsed));
    try {
        return json::parse(parsed, std::ref(watch));
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        // Drop "[json.exception.parse_error.101] "; keep the line, column and byte.
        if (const size_t close = what.find("] "); close != std::string::npos)
            what = what.substr(close + 2);
        errors.add("", "valid JSON",
                   origin + ": " + what + " (byte " + std::to_string(e.byte) + ")");
        return std::nullopt;
    } catch (const json::out_of_range& e) {
        // take_numbers replaced every number no double holds; should nlohmann still find
        // one, it stops there: say where it was.
        std::string what = e.what();
        if (const size_t close = what.find("] "); close != std::string::npos)
            what = what.substr(close + 2);
        errors.add(watch.pointer(), "a number a double can hold", origin + ": " + what);
        return std::nullopt;
    }
}

// ---- --set overrides -----------------------------------------------------------------

// Checks that a --set pointer names a table key, or an element of a list key.
bool check_set_pointer(const std::string& pointer, const std::string& set, Errors& errors) {
    const auto tokens = split_pointer(pointer);
    const std::string in_set = " (in --set " + set + ")";
    std::string pattern;
    for (size_t i = 0; i < tokens.size(); ++i) {
        const Param* parent = find_param(pattern);
        const K kind = parent ? parent->kind : K::object;
        const std::string& token = tokens[i];
        if (kind == K::object_array || kind == K::integer_list || kind == K::time_list ||
            kind == K::enum_list) {
            if (!is_index(token)) {
                errors.add(pointer, "an element index of " + dotted_key(pattern),
                           json(token).dump() + in_set);
                return false;
            }
            if (kind == K::object_array) { // element rows are "<path>/*/<key>"
                pattern += "/*";
                continue;
            }
            if (i + 1 == tokens.size()) return true;
            errors.add(pointer, "a path that stops at " + dotted_key(pattern) + "." + token,
                       json(tokens[i + 1]).dump() + " after it" + in_set);
            return false;
        }
        if (kind != K::object) {
            errors.add(pointer,
                       "a path that stops at " + dotted_key(pattern) + ", which holds no keys",
                       json(token).dump() + " after it" + in_set);
            return false;
        }
        pattern += "/" + token;
        if (find_param(pattern) == nullptr) {
            const std::string siblings = pattern.substr(0, pattern.rfind('/'));
            errors.add(pointer, "one of the keys " + join_keys(child_params(siblings)),
                       "unknown key \"" + token + "\"" + in_set);
            return false;
        }
    }
    return !tokens.empty();
}

// nlohmann would pad a far index with nulls; say what is wrong instead.
bool check_set_indices(const json& doc, const std::string& pointer, Errors& errors) {
    const json* node = &doc;
    for (const std::string& token : split_pointer(pointer)) {
        // A missing list is created empty, so only its index 0 can be set.
        const size_t size = node != nullptr && node->is_array() ? node->size() : 0;
        const bool list = node == nullptr || node->is_array();
        if (list && is_index(token) && std::stoul(token) > size) {
            const std::string n = std::to_string(size);
            errors.add(pointer, "an index below " + n + ", or " + n + " to append", token);
            return false;
        }
        if (node == nullptr) continue;
        if (node->is_array() && is_index(token))
            node = std::stoul(token) < size ? &(*node)[std::stoul(token)] : nullptr;
        else if (node->is_object() && node->contains(token))
            node = &(*node)[token];
        else
            node = nullptr;
    }
    return true;
}

void apply_set(json& doc, const std::string& set, Errors& errors) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
        errors.add("", "PATH=VALUE", "--set " + json(set).dump());
        return;
    }
    if (const auto problem = set_path_problem(set.substr(0, eq))) {
        errors.add("", kSetPathExpected,
                   json(set.substr(0, eq)).dump() + ": " + *problem + " (in --set " + set + ")");
        return;
    }
    const std::string pointer = set_path_to_pointer(set.substr(0, eq));
    if (!check_set_pointer(pointer, set, errors) || !check_set_indices(doc, pointer, errors))
        return;
    if (const auto at = too_deep(set.substr(eq + 1))) {
        errors.add(pointer, depth_expected(),
                   "deeper nesting at byte " + std::to_string(*at) + " of the value (in --set)");
        return;
    }
    json value = json::parse(set.substr(eq + 1), nullptr, false);
    if (value.is_discarded()) value = set.substr(eq + 1); // --set duration=5ms
    errors.forget_typed(pointer);
    if (value.is_number_float()) errors.typed(pointer, set.substr(eq + 1));
    try {
        doc[json::json_pointer(pointer)] = std::move(value);
    } catch (const json::exception&) {
        errors.add(pointer, "a path through objects and arrays of the scenario",
                   "a value of another type on the way (in --set " + set + ")");
    }
}

// ---- per-key checks ------------------------------------------------------------------

std::string noun(K kind) {
    switch (kind) {
    case K::integer:
        return "an integer";
    case K::size:
        return "a size";
    case K::time:
    case K::time_distribution:
        return "a time";
    case K::frequency:
        return "a frequency";
    case K::bandwidth:
        return "a bandwidth";
    default:
        return "a value";
    }
}

// "an integer in 1..64", "a time > 0".
std::string bounded_noun(const Param& p) {
    const std::string bounds = param_bounds_text(p);
    if (bounds.empty()) return noun(p.kind);
    return noun(p.kind) + (p.min && p.max && !p.min_exclusive ? " in " : " ") + bounds;
}

bool in_bounds(const Param& p, double v) {
    if (p.min && (p.min_exclusive ? v <= *p.min : v < *p.min)) return false;
    return !(p.max && v > *p.max);
}

std::string quoted_list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + json(item).dump();
    return out;
}

// What a missing or mistyped value should have been.
std::string expected_text(const Param& p) {
    switch (p.kind) {
    case K::integer:
        return bounded_noun(p);
    case K::boolean:
        return "true or false";
    case K::string:
        return "a non-empty string of at most " + std::to_string(kMaxStringBytes) + " bytes";
    case K::enumeration:
        return "one of " + quoted_list(p.choices);
    case K::size:
        return kSizeSyntax;
    case K::time:
        return kTimeSyntax;
    case K::time_distribution:
        return kTimeDistributionSyntax;
    case K::frequency:
        return kFrequencySyntax;
    case K::bandwidth:
        return kBandwidthSyntax;
    case K::integer_list:
        return "a list of integers";
    case K::time_list:
        return std::string("a list of times, each ") + kTimeSyntax;
    case K::enum_list:
        return "a list of names from " + quoted_list(p.choices);
    case K::object_array:
        return p.min_items > 0 ? "a list of at least " + std::to_string(p.min_items) + " object"
                               : "a list of objects";
    case K::object:
        return "an object";
    }
    return "";
}

class Validator {
public:
    explicit Validator(Errors& errors) : m_errors(errors) {}

    void members(const json& object, const std::string& pointer, const std::string& pattern) {
        const auto& children = child_params(pattern);
        for (const auto& [name, value] : object.items()) {
            const std::string child = pointer + "/" + escape_token(name);
            const Param* p = find_param(pattern + "/" + name);
            if (p == nullptr)
                m_errors.add(child, "one of the keys " + join_keys(children),
                             "unknown key \"" + name + "\"");
            else
                value_of(value, child, *p);
        }
        for (const Param* p : children) {
            const std::string name = p->path.substr(p->path.rfind('/') + 1);
            if (object.contains(name)) continue;
            if (p->default_kind == DefaultKind::required)
                m_errors.add(pointer + "/" + name, expected_text(*p), "nothing");
            else if (p->kind == K::object) // a missing section may still hide required keys
                members(json::object(), pointer + "/" + name, p->path);
        }
    }

private:
    void value_of(const json& v, const std::string& pointer, const Param& p) {
        switch (p.kind) {
        case K::object:
            if (v.is_object()) return members(v, pointer, p.path);
            fail(pointer, expected_text(p), v);
            return;
        case K::object_array:
            return object_array(v, pointer, p);
        case K::integer_list:
        case K::time_list:
        case K::enum_list:
            return list(v, pointer, p);
        default:
            scalar(v, pointer, p);
        }
    }

    void object_array(const json& v, const std::string& pointer, const Param& p) {
        if (!v.is_array() || v.size() < p.min_items) {
            fail(pointer, expected_text(p), v);
            return;
        }
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string element = pointer + "/" + std::to_string(i);
            if (!v[i].is_object())
                fail(element, "an object", v[i]);
            else
                members(v[i], element, p.path + "/*");
        }
    }

    void list(const json& v, const std::string& pointer, const Param& p) {
        if (!v.is_array()) {
            fail(pointer, expected_text(p), v);
            return;
        }
        Param item = p;
        item.kind = p.kind == K::integer_list ? K::integer
                    : p.kind == K::time_list  ? K::time
                                              : K::enumeration;
        std::optional<uint64_t> previous; // time_list: the last valid time, for the order
        std::map<json, size_t> seen;      // unique_items: the first index of each value
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string element = pointer + "/" + std::to_string(i);
            if (!scalar(v[i], element, item)) continue;
            if (p.kind == K::time_list) {
                const uint64_t t = *parse_time(v[i].get<std::string>()).value;
                if (previous && t <= *previous)
                    fail(element,
                         "a time after " + format_time(*previous) +
                             ", the one before it (the list is strictly increasing: sorted, "
                             "no time twice)",
                         v[i]);
                previous = std::max(t, previous.value_or(0));
            }
            if (!p.unique_items) continue;
            // Each value's first index, looked up in log time: a list of 100,000 took
            // minutes with a linear search per element.
            const auto [first, fresh] = seen.emplace(v[i], i);
            if (!fresh)
                fail(element,
                     "each value once (it is already at index " + std::to_string(first->second) +
                         ")",
                     v[i]);
        }
    }

    // Checks one scalar; true when it is valid.
    bool scalar(const json& v, const std::string& pointer, const Param& p) {
        switch (p.kind) {
        case K::integer:
            return integer(v, pointer, p);
        case K::boolean:
            return v.is_boolean() || fail(pointer, expected_text(p), v);
        case K::string:
            return (v.is_string() && !v.get<std::string>().empty() &&
                    v.get_ref<const std::string&>().size() <= kMaxStringBytes) ||
                   fail(pointer, expected_text(p), v);
        case K::enumeration:
            return (v.is_string() &&
                    std::count(p.choices.begin(), p.choices.end(), v.get<std::string>()) == 1) ||
                   fail(pointer, expected_text(p), v);
        case K::size:
            return quantity(v, pointer, p, parse_size);
        case K::time:
            return quantity(v, pointer, p, parse_time);
        case K::time_distribution:
            return distribution(v, pointer, p);
        case K::frequency:
            return quantity(v, pointer, p, parse_frequency);
        case K::bandwidth:
            return quantity(v, pointer, p, parse_bandwidth);
        default:
            return false;
        }
    }

    // A time_distribution: a time, or one of the objects kTimeDistributionSyntax names, each
    // time within the key's bounds. (An empirical "file" was read into "histogram" before.)
    bool distribution(const json& v, const std::string& pointer, const Param& p) {
        Param time = p;
        time.kind = K::time;
        if (v.is_string()) return quantity(v, pointer, time, parse_time);
        if (!v.is_object()) return fail(pointer, expected_text(p), v);
        const json* kind = v.contains("distribution") ? &v.at("distribution") : nullptr;
        static const std::map<std::string, std::vector<std::string>> keys = {
            {"exponential", {"distribution", "mean"}},
            {"lognormal", {"distribution", "median", "sigma"}},
            {"empirical", {"distribution", "histogram"}}};
        if (kind == nullptr || !kind->is_string() || !keys.count(kind->get<std::string>())) {
            const std::string expected =
                "one of \"exponential\", \"lognormal\", \"empirical\" (a fixed time is written "
                "as the time itself, e.g. \"10us\")";
            if (kind == nullptr) return missing(pointer + "/distribution", expected);
            return fail(pointer + "/distribution", expected, *kind);
        }
        // An empirical "file" still here could not be read, and was reported.
        if (kind->get<std::string>() == "empirical" && v.contains("file")) return false;
        const auto& allowed = keys.at(kind->get<std::string>());
        bool ok = true;
        for (const auto& [name, value] : v.items())
            if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
                m_errors.add(pointer + "/" + escape_token(name),
                             "one of the keys " + join(allowed, ", ") + " of " +
                                 (kind->get<std::string>() == "lognormal" ? "a " : "an ") +
                                 kind->get<std::string>() + " distribution",
                             "unknown key \"" + clipped(name) + "\"");
                ok = false;
            }
        for (const auto& name : allowed)
            if (!v.contains(name))
                ok = missing(pointer + "/" + name, name == "sigma" ? "a number in 0..4"
                                                   : name == "histogram"
                                                       ? "a list of [TIME, COUNT] pairs"
                                                       : kTimeSyntax);
        // The values present are checked too: one run shows every mistake.
        const std::string k = kind->get<std::string>();
        auto time_at = [&](const char* name) {
            return !v.contains(name) ||
                   quantity(v.at(name), pointer + "/" + name, time, parse_time);
        };
        if (k == "exponential") return time_at("mean") && ok;
        if (k == "lognormal") {
            const bool median = time_at("median");
            const json* sigma = v.contains("sigma") ? &v.at("sigma") : nullptr;
            if (sigma &&
                (!sigma->is_number() || sigma->get<double>() < 0 || sigma->get<double>() > 4))
                ok = fail(pointer + "/sigma",
                          "a number in 0..4 (the standard deviation of ln(time))", *sigma);
            return median && ok;
        }
        return v.contains("histogram") &&
               histogram(v.at("histogram"), pointer + "/histogram", time) && ok;
    }

    // [[TIME, COUNT], ...]: times strictly increasing, counts >= 0, some count > 0.
    bool histogram(const json& v, const std::string& pointer, const Param& time) {
        constexpr size_t kMaxBins = 100000;
        if (!v.is_array() || v.empty() || v.size() > kMaxBins)
            return fail(pointer,
                        "a list of 1 to " + std::to_string(kMaxBins) + " [TIME, COUNT] pairs", v);
        bool ok = true;
        std::optional<uint64_t> previous;
        uint64_t total = 0;
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string element = pointer + "/" + std::to_string(i);
            const json& bin = v[i];
            if (!bin.is_array() || bin.size() != 2) {
                ok = fail(element, "a [TIME, COUNT] pair, e.g. [\"25us\", 120]", bin);
                continue;
            }
            if (quantity(bin[0], element + "/0", time, parse_time)) {
                const uint64_t t = *parse_time(bin[0].get<std::string>()).value;
                if (previous && t <= *previous)
                    ok = fail(element + "/0",
                              "a time after " + format_time(*previous) +
                                  ", the one before it (the bins are strictly increasing)",
                              bin[0]);
                previous = std::max(t, previous.value_or(0));
            } else {
                ok = false;
            }
            const json& count = bin[1];
            // 2^40 each keeps the total of 100000 bins far inside 64 bits.
            if (!count.is_number_unsigned() || count.get<uint64_t>() > (uint64_t(1) << 40)) {
                ok = fail(element + "/1", "a count: an integer in 0..2^40", count);
                continue;
            }
            total += count.get<uint64_t>();
        }
        if (ok && total == 0) return fail(pointer, "some bin with a count above 0", v);
        return ok;
    }

    bool missing(const std::string& pointer, const std::string& expected) {
        m_errors.add(pointer, expected, "nothing");
        return false;
    }

    bool integer(const json& v, const std::string& pointer, const Param& p) {
        if (!v.is_number_integer()) return fail(pointer, expected_text(p), v);
        const bool negative = !v.is_number_unsigned() && v.get<int64_t>() < 0;
        const double d = negative ? static_cast<double>(v.get<int64_t>())
                                  : static_cast<double>(v.get<uint64_t>());
        const uint64_t u = negative ? 0 : v.get<uint64_t>();
        if (in_bounds(p, d) && pow2_ok(p, u)) return true;
        std::string expected = bounded_noun(p);
        if (p.power_of_two) {
            const std::string bounds = param_bounds_text(p);
            expected =
                "a power of two" + (bounds.empty() ? "" : (p.min && p.max ? " in " : " ") + bounds);
        }
        return fail(pointer, with_rule(p, expected), v);
    }

    static bool pow2_ok(const Param& p, uint64_t u) {
        return !p.power_of_two || (u != 0 && (u & (u - 1)) == 0);
    }

    static std::string with_rule(const Param& p, std::string expected) {
        return p.rule.empty() ? expected : expected + " (" + p.rule + ")";
    }

    template <typename Parse>
    bool quantity(const json& v, const std::string& pointer, const Param& p, Parse parse) {
        if (!v.is_string()) return fail(pointer, expected_text(p), v);
        const auto parsed = parse(v.get<std::string>());
        if (!parsed) return fail(pointer, parsed.error, v);
        const double value = static_cast<double>(*parsed.value);
        if (!p.choices.empty()) {
            const bool listed = std::any_of(p.choices.begin(), p.choices.end(), [&](auto& c) {
                const auto choice = parse(c);
                return choice && static_cast<double>(*choice.value) == value;
            });
            if (!listed) return fail(pointer, "one of " + quoted_list(p.choices), v);
        }
        // Only sizes are powers of two (whole bytes); the bound and the power in one message.
        const bool pow2 = !p.power_of_two || pow2_ok(p, static_cast<uint64_t>(*parsed.value));
        if (in_bounds(p, value) && pow2) return true;
        const std::string expected = bounded_noun(p) + (p.power_of_two ? ", a power of two" : "");
        return fail(pointer, with_rule(p, expected), v);
    }

    bool fail(const std::string& pointer, const std::string& expected, const json& v) {
        // A value reported while parsing (a number beyond a double, standing as 0) is not
        // reported twice.
        if (!m_errors.reported(pointer)) m_errors.add(pointer, expected, m_errors.echo(pointer, v));
        return false;
    }

    Errors& m_errors;
};

// ---- typed reads of checked values ---------------------------------------------------

// The table's pattern of a pointer: array indices become "*" ("/workload/writers/0/rate" ->
// "/workload/writers/*/rate").
std::string pattern_of(const std::string& pointer) {
    std::string out;
    for (const std::string& token : split_pointer(pointer)) {
        const bool index = !token.empty() && std::all_of(token.begin(), token.end(), ::isdigit);
        out += "/" + (index ? std::string("*") : token);
    }
    return out;
}

// A list row's element, as a row of its own kind: integer, time or enumeration; nullptr
// for any other row.
const Param* list_element(const Param& list) {
    static const std::map<ParamKind, Param> elements = [] {
        std::map<ParamKind, Param> m;
        m[ParamKind::integer_list].kind = ParamKind::integer;
        m[ParamKind::time_list].kind = ParamKind::time;
        m[ParamKind::enum_list].kind = ParamKind::enumeration;
        return m;
    }();
    const auto it = elements.find(list.kind);
    return it == elements.end() ? nullptr : &it->second;
}

// What a pointer the loader reads stands for in the table: its pattern, its row (a list's
// element row for an element), and its tokens. Worked out once per pointer and process (the
// table is fixed), as find_param's index is: a scenario's load reads a few hundred keys, and
// a worker of a sweep loads one scenario after another.
struct ReadKey {
    std::string pattern;
    const Param* param = nullptr; // nullptr: a key the table does not declare
    std::vector<std::string> tokens;
};

const ReadKey& read_key(const std::string& pointer) {
    static std::unordered_map<std::string, ReadKey> known;
    const auto [it, fresh] = known.try_emplace(pointer);
    ReadKey& key = it->second;
    if (!fresh) return key;
    key.pattern = pattern_of(pointer);
    key.param = find_param(key.pattern);
    key.tokens = split_pointer(pointer);
    const size_t n = key.pattern.size();
    if (key.param == nullptr && n > 2 && key.pattern.compare(n - 2, 2, "/*") == 0) {
        // An element of a list: read as the list's element kind.
        key.pattern.resize(n - 2);
        key.param = find_param(key.pattern);
        if (key.param != nullptr) key.param = list_element(*key.param);
    }
    return key;
}

// Reads values that passed the per-key checks; empty when absent or reported, so a
// cross-key rule never fires on top of an earlier error.
// Every read names a key of the table and reads it as the kind declared there: a key
// misspelt here, or read as another kind, is a bug of ringsim's that throws at the first
// load (every test loads scenarios), never a value silently missing. `read` collects the
// keys read, for the test that every declared key is read.
class Values {
public:
    Values(const json& doc, const Errors& errors, std::set<std::string>* read = nullptr)
        : m_doc(doc), m_errors(errors), m_read(read) {}

    const json* at(const std::string& pointer) const { return at(pointer, {}); }
    std::optional<uint64_t> integer(const std::string& pointer) const {
        const json* v = at(pointer, {ParamKind::integer});
        // Table defaults are signed JSON integers; parsed non-negative numbers are unsigned.
        if (v == nullptr || !v->is_number_integer()) return std::nullopt;
        if (!v->is_number_unsigned() && v->get<int64_t>() < 0) return std::nullopt;
        return v->get<uint64_t>();
    }
    // An integer whose bounds allow negative values (a nice level).
    std::optional<int64_t> signed_integer(const std::string& pointer) const {
        const json* v = at(pointer, {ParamKind::integer});
        if (v == nullptr || !v->is_number_integer()) return std::nullopt;
        if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t(INT64_MAX))
            return std::nullopt;
        return v->get<int64_t>();
    }
    // A string or an enumeration's name.
    std::optional<std::string> text(const std::string& pointer) const {
        return text(pointer, {ParamKind::string, ParamKind::enumeration});
    }
    std::optional<bool> boolean(const std::string& pointer) const {
        const json* v = at(pointer, {ParamKind::boolean});
        if (v == nullptr || !v->is_boolean()) return std::nullopt;
        return v->get<bool>();
    }
    std::optional<uint64_t> size(const std::string& pointer) const {
        const auto t = text(pointer, {ParamKind::size});
        return t ? parse_size(*t).value : std::nullopt;
    }
    std::optional<uint64_t> time(const std::string& pointer) const {
        const auto t = text(pointer, {ParamKind::time});
        return t ? parse_time(*t).value : std::nullopt;
    }
    // A time_distribution; its cap is the key's upper bound.
    std::optional<models::TimeDistribution> distribution(const std::string& pointer) const {
        using D = models::TimeDistribution;
        const json* v = at(pointer, {ParamKind::time_distribution});
        if (v == nullptr) return std::nullopt;
        auto time = [](const json& t) { return *parse_time(t.get<std::string>()).value; };
        D d;
        if (v->is_string()) {
            d = D(time(*v));
        } else {
            const std::string kind = v->at("distribution").get<std::string>();
            if (kind == "exponential") {
                d.kind = D::Kind::exponential;
                d.value = time(v->at("mean"));
            } else if (kind == "lognormal") {
                d.kind = D::Kind::lognormal;
                d.value = time(v->at("median"));
                d.sigma = v->at("sigma").get<double>();
            } else {
                d.kind = D::Kind::empirical;
                uint64_t total = 0;
                for (const json& bin : v->at("histogram")) {
                    d.times.push_back(time(bin[0]));
                    d.cumulative.push_back(total += bin[1].get<uint64_t>());
                }
            }
        }
        if (const Param* p = read_key(pointer).param; p && p->max)
            d.cap = static_cast<models::Picos>(*p->max);
        return d;
    }
    std::optional<double> frequency(const std::string& pointer) const {
        const auto t = text(pointer, {ParamKind::frequency});
        return t ? parse_frequency(*t).value : std::nullopt;
    }
    std::optional<double> bandwidth(const std::string& pointer) const {
        const auto t = text(pointer, {ParamKind::bandwidth});
        return t ? parse_bandwidth(*t).value : std::nullopt;
    }
    // The elements of a list or an array of objects.
    size_t count(const std::string& pointer) const {
        const json* v = at(pointer, {ParamKind::integer_list, ParamKind::time_list,
                                     ParamKind::enum_list, ParamKind::object_array});
        return v != nullptr && v->is_array() ? v->size() : 0;
    }
    std::optional<std::vector<uint64_t>> integers(const std::string& pointer) const {
        const json* v = at(pointer, {ParamKind::integer_list});
        if (v == nullptr || !v->is_array()) return std::nullopt;
        return v->get<std::vector<uint64_t>>();
    }
    std::optional<std::vector<std::string>> names(const std::string& pointer) const {
        const json* v = at(pointer, {ParamKind::enum_list});
        if (v == nullptr || !v->is_array()) return std::nullopt;
        return v->get<std::vector<std::string>>();
    }
    // data_pages x page_size, the kernel's data_size.
    std::optional<uint64_t> data_size() const {
        const auto pages = integer("/session/data_pages");
        const auto page = size("/session/page_size");
        if (!pages || !page) return std::nullopt;
        return *pages * *page;
    }
    // session.aux.pages x page_size, the AUX buffer's size; empty when too big to multiply.
    std::optional<uint64_t> aux_size() const {
        const auto pages = integer("/session/aux/pages");
        const auto page = size("/session/page_size");
        if (!pages || !page || *pages > UINT64_MAX / *page) return std::nullopt;
        return *pages * *page;
    }
    // The times of a time_list, or empty when any of them was reported.
    std::optional<std::vector<uint64_t>> times(const std::string& pointer) const {
        const json* v = at(pointer, {ParamKind::time_list});
        if (v == nullptr || !v->is_array()) return std::nullopt;
        std::vector<uint64_t> out;
        for (const json& e : *v) {
            const auto t = e.is_string() ? parse_time(e.get<std::string>()).value : std::nullopt;
            if (!t) return std::nullopt;
            out.push_back(*t);
        }
        return out;
    }
    // PERF_SAMPLE_* bits of session.sample_type.
    std::optional<uint64_t> sample_bits() const {
        const auto v = names("/session/sample_type");
        if (!v) return std::nullopt;
        uint64_t bits = 0;
        for (const std::string& name : *v)
            bits |= perf::sample_bit(name).value_or(0);
        return bits;
    }

private:
    // The value at `pointer`, a key the table declares with one of `kinds` (any kind when
    // empty: a presence test).
    const json* at(const std::string& pointer, std::initializer_list<ParamKind> kinds) const {
        const ReadKey& key = read_key(pointer);
        if (key.param == nullptr)
            throw std::logic_error("the loader reads " + pointer +
                                   ", a key params.cpp does not declare");
        if (kinds.size() != 0 &&
            std::find(kinds.begin(), kinds.end(), key.param->kind) == kinds.end())
            throw std::logic_error("the loader reads " + pointer +
                                   " as another kind than params.cpp declares");
        if (m_read) m_read->insert(key.pattern);
        if (m_errors.bad(pointer)) return nullptr;
        // As json::contains and json::at with a json_pointer, without parsing it again.
        const json* v = &m_doc;
        for (const std::string& token : key.tokens) {
            if (v->is_object()) {
                const auto it = v->find(token);
                if (it == v->end()) return nullptr;
                v = &*it;
            } else if (v->is_array() && is_index(token)) {
                const size_t i = std::stoul(token);
                if (i >= v->size()) return nullptr;
                v = &(*v)[i];
            } else {
                return nullptr;
            }
        }
        return v;
    }
    std::optional<std::string> text(const std::string& pointer,
                                    std::initializer_list<ParamKind> kinds) const {
        const json* v = at(pointer, kinds);
        if (v == nullptr || !v->is_string()) return std::nullopt;
        return v->get<std::string>();
    }

    const json& m_doc;
    const Errors& m_errors;
    std::set<std::string>* m_read;
};

// ---- defaults (the one place) --------------------------------------------------------

void fill_static(json& object, const std::string& pattern) {
    for (const Param* p : child_params(pattern)) {
        const std::string name = p->path.substr(p->path.rfind('/') + 1);
        if (!object.contains(name) && p->default_kind == DefaultKind::value)
            object[name] = p->default_value;
        if (!object.contains(name)) continue;
        json& v = object[name];
        if (p->kind == K::object && v.is_object()) fill_static(v, p->path);
        if (p->kind == K::object_array && v.is_array())
            for (json& element : v)
                if (element.is_object()) fill_static(element, p->path + "/*");
    }
}

json* member_object(json& parent, const char* name) {
    if (!parent.contains(name) || !parent[name].is_object()) return nullptr;
    return &parent[name];
}

// memory.timing.consumer.X defaults to memory.timing.X.
void fill_consumer_timing(json& eff) {
    json* memory = member_object(eff, "memory");
    json* timing = memory ? member_object(*memory, "timing") : nullptr;
    json* consumer = timing ? member_object(*timing, "consumer") : nullptr;
    if (consumer == nullptr) return;
    for (const char* k : {"store_drain_max", "load_early_max", "load_late_max"})
        if (!consumer->contains(k) && timing->contains(k)) (*consumer)[k] = (*timing)[k];
}

// Derived defaults, computed only from values that passed their checks.
// The hrtimer's floor on a cpu-clock period (R12, perf_swevent_hrtimer: max_t(u64, 10000,
// sample_period) ns), in picoseconds.
constexpr uint64_t kCpuClockMinPeriodPs = 10'000'000;

// The most samples per second a cpu-clock event with this period can take.
double cpu_clock_max_rate(uint64_t period_ps) {
    return 1e12 / double(std::max(period_ps, kCpuClockMinPeriodPs));
}

// That rate as a scenario writes it ("100000Hz"): the derived default, and the bound an
// error names, in one spelling.
std::string cpu_clock_max_rate_text(uint64_t period_ps) {
    char text[64];
    std::snprintf(text, sizeof text, "%.12gHz", cpu_clock_max_rate(period_ps));
    return text;
}

// A writer's context and sample size follow its event (cpu-clock samples from its hrtimer's
// hard interrupt, with the sample_type's fields alone).
void fill_writers(json& eff, const Values& r) {
    json* workload = member_object(eff, "workload");
    if (workload == nullptr || !workload->contains("writers") || !(*workload)["writers"].is_array())
        return;
    json& writers = (*workload)["writers"];
    for (size_t i = 0; i < writers.size(); ++i) {
        if (!writers[i].is_object()) continue;
        const std::string w = "/workload/writers/" + std::to_string(i);
        const auto event = r.text(w + "/event");
        if (!event) continue;
        const bool cpu_clock = *event == "cpu-clock";
        if (!writers[i].contains("context")) writers[i]["context"] = cpu_clock ? "irq" : "nmi";
        // A cpu-clock sample is what its sample_type builds, nothing more (no RAW).
        const auto bits = r.sample_bits();
        if (!writers[i].contains("size"))
            writers[i]["size"] = cpu_clock && bits
                                     ? format_size(models::perf::sample_fixed_size(*bits))
                                     : std::string("64B");
    }
}

// A cpu-clock writer without a rate samples at its timer's (R12): filled before the table's
// check, which then finds the rate every other writer must give.
void fill_cpu_clock_rates(json& doc) {
    if (!doc.is_object() || !doc.contains("workload") || !doc["workload"].is_object()) return;
    json& workload = doc["workload"];
    if (!workload.contains("writers") || !workload["writers"].is_array()) return;
    for (json& w : workload["writers"]) {
        if (!w.is_object() || w.contains("rate") || w.value("event", json()) != "cpu-clock" ||
            !w.contains("period") || !w["period"].is_string())
            continue;
        const auto period = parse_time(w["period"].get<std::string>()).value;
        if (!period || *period == 0) continue; // the table's check reports it
        w["rate"] = cpu_clock_max_rate_text(*period);
    }
}

void fill_derived(json& eff, const Errors& errors) {
    fill_consumer_timing(eff);
    const Values r(eff, errors);
    fill_writers(eff, r);
    const auto cpus = r.integer("/platform/cpus");
    json* consumer = member_object(eff, "consumer");
    if (consumer != nullptr && !consumer->contains("cpu") && cpus) (*consumer)["cpu"] = *cpus - 1;
    if (consumer != nullptr && !consumer->contains("lost_record_cost") &&
        r.at("/consumer/per_record_cost") != nullptr)
        (*consumer)["lost_record_cost"] = (*consumer)["per_record_cost"];
    // Each reader stores data_tail when its code does (models/user/readers.h): libperf's
    // users call perf_mmap__consume after every event, perf record's push once per pass; a
    // read-only (overwrite) mapping is read with push, which stores none (R11).
    const auto reader = r.text("/consumer/reader");
    const auto overwrite = r.boolean("/session/overwrite");
    const models::ReaderTraits* traits = reader ? models::reader_named(reader->c_str()) : nullptr;
    if (consumer != nullptr && !consumer->contains("tail_update") && traits && overwrite)
        (*consumer)["tail_update"] =
            traits->tail == models::TailUpdate::per_record && !*overwrite ? "per_record" : "batch";
    // The consumer's barriers (C) and (D) are the reader's own unless switched.
    json* barriers = member_object(eff, "barriers");
    json* data = barriers ? member_object(*barriers, "data") : nullptr;
    if (data != nullptr && traits) {
        if (!data->contains("C")) (*data)["C"] = models::barrier_kind_name(traits->c);
        if (!data->contains("D")) (*data)["D"] = models::barrier_kind_name(traits->d);
    }
    json* session = member_object(eff, "session");
    if (session == nullptr) return;
    // perf maps the AUX area right after the data mapping.
    json* aux = member_object(*session, "aux");
    const auto data_pages = r.integer("/session/data_pages");
    const auto page = r.size("/session/page_size");
    if (aux != nullptr && !aux->contains("offset") && data_pages && page)
        (*aux)["offset"] =
            format_size(models::perf::default_aux_offset(*data_pages * *page, *page));
    const bool listed = session->contains("cpus");
    if (listed && !((*session)["cpus"].is_array() && (*session)["cpus"].empty())) return;
    const auto deployment = r.text("/session/deployment");
    const auto consumer_cpu = r.integer("/consumer/cpu");
    if (!cpus || !deployment || !consumer_cpu || *consumer_cpu >= *cpus) return;
    json traced = json::array();
    for (uint64_t c = 0; c < *cpus; ++c)
        if (c != *consumer_cpu || *deployment == "system-wide") traced.push_back(c);
    (*session)["cpus"] = traced;
}

json fill_defaults(const json& doc, const Errors& errors) {
    json eff = doc;
    if (!eff.is_object()) return eff;
    fill_static(eff, "");
    fill_derived(eff, errors);
    return eff;
}

// ---- cross-key kernel rules ----------------------------------------------------------

class CrossChecks {
public:
    CrossChecks(const json& eff, Errors& errors) : m_eff(eff), m_errors(errors) {}

    void run() {
        cpu_ids();
        watermark();
        pauses();
        migration_and_snapshots();
        mmap_flush();
        consumer_share();
        tail_update();
        writers();
        aux();
        switches();
        trace_phases();
        etr_burst();
        sg_table_fault();
    }

private:
    Values r() const { return Values(m_eff, m_errors); }

    void error(const std::string& pointer, const std::string& expected) {
        m_errors.add(pointer, expected, json_text(m_eff.at(json::json_pointer(pointer))));
    }

    void cpu_ids() {
        const auto cpus = r().integer("/platform/cpus");
        if (!cpus) return;
        const std::string below = "a CPU id below platform.cpus (" + std::to_string(*cpus) + ")";
        if (const auto c = r().integer("/consumer/cpu"); c && *c >= *cpus)
            error("/consumer/cpu", below);
        if (r().at("/session/cpus") == nullptr) return;
        const size_t n = r().count("/session/cpus");
        for (size_t i = 0; i < n; ++i) {
            const std::string element = "/session/cpus/" + std::to_string(i);
            if (const auto c = r().integer(element); c && *c >= *cpus) error(element, below);
        }
        if (n == 0 && r().integer("/consumer/cpu") && r().text("/session/deployment"))
            error("/session/cpus",
                  "at least one traced CPU (the default, every CPU but the consumer's, leaves "
                  "none: list session.cpus or raise platform.cpus)");
    }

    void watermark() {
        // Any watermark: ring_buffer_init caps it at the buffer size (R6).
        const auto mark = r().size("/session/wakeup_watermark");
        const auto events = r().integer("/session/wakeup_events");
        if (mark && events && *mark != 0 && *events != 0)
            error("/session/wakeup_events",
                  "0 when session.wakeup_watermark is set (wakeup_events and wakeup_watermark "
                  "share a union in perf_event_attr)");
    }

    void pauses() {
        uint64_t previous_end = 0;
        for (size_t i = 0; i < r().count("/session/pause"); ++i) {
            const std::string window = "/session/pause/" + std::to_string(i);
            const auto at = r().time(window + "/at");
            const auto length = r().time(window + "/length");
            if (!at || !length) return;
            if (i > 0 && *at < previous_end)
                error(window + "/at", "a time at or after " + format_time(previous_end) +
                                          ", the end of the previous pause window (windows "
                                          "must be sorted and must not overlap)");
            previous_end = *at + std::min(*length, UINT64_MAX - *at);
        }
    }

    void migration_and_snapshots() {
        const auto deployment = r().text("/session/deployment");
        const auto migrate = r().time("/session/migrate_every");
        if (deployment && migrate && *migrate != 0 && *deployment != "per-thread")
            error("/session/migrate_every",
                  "\"0s\" unless session.deployment is \"per-thread\" (only a per-thread event "
                  "follows its task from CPU to CPU)");
        const auto overwrite = r().boolean("/session/overwrite");
        const auto backward = r().boolean("/session/write_backward");
        if (overwrite && backward && *backward && !*overwrite)
            error("/session/write_backward",
                  "false unless session.overwrite is true (perf reads a write_backward buffer "
                  "only through a read-only, overwrite mapping: libperf's md->overwrite)");
        const auto snapshot = r().time("/consumer/snapshot_every");
        if (overwrite && snapshot && *snapshot != 0 && !*overwrite)
            error("/consumer/snapshot_every",
                  "\"0s\" unless session.overwrite is true (only overwrite buffers are read in "
                  "snapshots)");
    }

    void tail_update() {
        const auto tail = r().text("/consumer/tail_update");
        const auto overwrite = r().boolean("/session/overwrite");
        if (tail && overwrite && *tail == "per_record" && *overwrite)
            error("/consumer/tail_update",
                  "\"batch\" when session.overwrite is true (an overwrite mapping is read-only: "
                  "the tool never stores data_tail, R11)");
        const auto reader = r().text("/consumer/reader");
        for (const char* key : {"/consumer/per_record_cost", "/consumer/lost_record_cost"}) {
            // A lost_record_cost equal to per_record_cost (its default) is told by it.
            const json::json_pointer lost("/consumer/lost_record_cost"),
                per("/consumer/per_record_cost");
            if (std::string(key) == lost.to_string() && m_eff.contains(lost) &&
                m_eff.contains(per) && m_eff.at(lost) == m_eff.at(per))
                continue;
            const auto cost = r().distribution(key);
            if (cost && !cost->is_fixed() && reader && tail && *reader == "push" &&
                *tail == "batch")
                error(key, "a fixed time unless a reader charges it (any consumer.reader but "
                           "push, or push with tail_update per_record): perf_mmap__push with a "
                           "batch tail copies whole chunks and has no per-record cost to draw");
        }
        // Only perf maps a buffer read-only to overwrite it; the other projects' readers
        // (models/user/readers.h) read forward buffers.
        if (reader && overwrite && *overwrite && *reader != "push" && *reader != "libperf")
            error("/consumer/reader",
                  "\"push\" or \"libperf\" when session.overwrite is true (only perf reads "
                  "overwrite buffers; " +
                      *reader + " reads forward buffers only)");
    }

    // The consumer's CPU work stretches by 1 / its share (sched_weight.h): below 1/64 it is
    // not a consumer that runs, and its waits would outgrow any run.
    void consumer_share() {
        const size_t n = r().count("/consumer/competitors");
        const auto nice = r().signed_integer("/consumer/nice");
        if (n == 0 || !nice) return;
        std::vector<int> others;
        for (size_t i = 0; i < n; ++i) {
            const auto o =
                r().signed_integer("/consumer/competitors/" + std::to_string(i) + "/nice");
            if (!o) return;
            others.push_back(int(*o));
        }
        const double share = models::fair_share(int(*nice), others);
        if (share < 1.0 / 64) {
            char text[128];
            std::snprintf(text, sizeof text,
                          "competitors that leave the consumer at least 1/64 of its CPU (these "
                          "leave it %.3g%%: sched_prio_to_weight)",
                          100 * share);
            error("/consumer/competitors", text);
        }
    }

    void mmap_flush() {
        const auto data = r().data_size();
        const auto flush = r().size("/consumer/mmap_flush");
        if (data && flush && *flush > *data / 4)
            error("/consumer/mmap_flush", "a size of at most a quarter of the data buffer, " +
                                              format_size(*data / 4) +
                                              " (perf record caps --mmap-flush there)");
    }

    void writers() {
        std::vector<std::string> names;
        for (size_t i = 0; i < r().count("/workload/writers"); ++i) {
            const std::string w = "/workload/writers/" + std::to_string(i);
            const auto name = r().text(w + "/name");
            if (name) {
                const auto it = std::find(names.begin(), names.end(), *name);
                if (it != names.end())
                    error(w + "/name", "a writer name not used before (writer " +
                                           std::to_string(it - names.begin()) + " has it)");
            }
            if (name && name->find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
                            std::string::npos)
                error(w + "/name", "a name of letters, digits, '_' and '-' (it names the "
                                   "writer's SystemC process)");
            names.push_back(name.value_or(""));
            if (r().text(w + "/record") == std::optional<std::string>("sample"))
                sample_size(w + "/size");
            event(w);
        }
    }

    // A pmu writer has a rate and no period; a cpu-clock writer has a period, writes samples
    // from its hrtimer (irq), and samples no faster than the timer fires.
    void event(const std::string& w) {
        const auto event = r().text(w + "/event");
        if (!event) return;
        const json& writer = m_eff.at(json::json_pointer(w));
        if (*event == "pmu") {
            if (writer.contains("period"))
                error(w + "/period", "no period unless event is cpu-clock (a pmu writer's pace is "
                                     "its rate)");
            return;
        }
        if (!writer.contains("period")) {
            m_errors.add(w + "/period",
                         "a time > 0 (required for event cpu-clock: the sample period, perf "
                         "record -c)",
                         "nothing");
            return;
        }
        if (const auto record = r().text(w + "/record"); record && *record != "sample")
            error(w + "/record", "\"sample\" for event cpu-clock (its hrtimer writes samples)");
        if (const auto context = r().text(w + "/context"); context && *context != "irq")
            error(w + "/context", "\"irq\" for event cpu-clock (perf_swevent_hrtimer runs in the "
                                  "hrtimer's hard interrupt)");
        const auto period = r().time(w + "/period");
        if (period && *period % 1000 != 0)
            error(w + "/period", "a whole number of nanoseconds (attr.sample_period counts ns)");
        const auto rate = r().frequency(w + "/rate");
        if (period && rate && *rate > cpu_clock_max_rate(*period) * (1 + 1e-12)) {
            error(w + "/rate", "a frequency <= " + cpu_clock_max_rate_text(*period) +
                                   " for event cpu-clock with period " + format_time(*period) +
                                   " (its hrtimer fires every max(period, 10us) and "
                                   "hrtimer_forward_now never catches up on missed periods)");
        }
    }

    void sample_size(const std::string& pointer) {
        const auto size = r().size(pointer);
        const auto bits = r().sample_bits();
        if (!size || !bits) return;
        const uint64_t fixed = perf::sample_fixed_size(*bits);
        if (perf::sample_size_exact(*bits, *size) == 0) {
            const uint64_t fields = (fixed - perf::kHeaderSize) / 8;
            return error(pointer,
                         "a sample size the sample_type fields can build: exactly the fixed part "
                         "of " +
                             format_size(fixed) + " (8B header + " + std::to_string(fields) +
                             " fields of 8B), or at least " + format_size(fixed + 8) +
                             " and a multiple of 8 up to 65528B (PERF_SAMPLE_RAW fills the "
                             "rest)");
        }
        // A record the buffer can never hold is accepted, as perf_event_open does: every
        // reservation of it fails (R1), and one that fits only without a PERF_RECORD_LOST
        // before it fails from the first loss on (R5).
    }

    // The AUX keys other than enabled are ignored, and so not checked against each other,
    // while the AUX path is off.
    void aux() {
        if (r().boolean("/session/aux/enabled") != std::optional<bool>(true)) return;
        const auto overwrite = r().boolean("/session/overwrite");
        const auto backward = r().boolean("/session/write_backward");
        if ((overwrite && *overwrite) || (backward && *backward))
            error("/session/aux/enabled",
                  "false when session.overwrite or session.write_backward is true (the AUX path "
                  "needs a forward, non-overwrite data buffer in ringsim)");
        const auto snapshot = r().boolean("/session/aux/snapshot");
        const auto on_exit = r().boolean("/session/aux/snapshot_on_exit");
        if (snapshot && !*snapshot && on_exit && *on_exit)
            error("/session/aux/snapshot_on_exit",
                  "false unless session.aux.snapshot is true (-S's 'e' option: "
                  "auxtrace_parse_snapshot_options)");
        if (snapshot && !*snapshot && r().count("/session/aux/snapshot_at") != 0)
            error("/session/aux/snapshot_at",
                  "[] unless session.aux.snapshot is true (perf record takes AUX snapshots on "
                  "SIGUSR2 only in snapshot mode, -S)");

        const auto pages = r().integer("/session/aux/pages");
        const auto page = r().size("/session/page_size");
        const auto aux = r().aux_size();
        if (pages && page && (!aux || *aux > kMaxAuxSize)) {
            const uint64_t most = kMaxAuxSize / *page;
            error("/session/aux/pages", "at most " + std::to_string(most) + " pages of " +
                                            format_size(*page) + ", an AUX area of at most " +
                                            format_size(kMaxAuxSize) + " (ringsim's limit)");
            return; // the size rules below would only repeat it
        }
        if (!aux) return;
        const auto snapshot_size = r().size("/session/aux/snapshot_size");
        if (snapshot_size && *snapshot_size > *aux)
            error("/session/aux/snapshot_size",
                  "a size of at most the AUX buffer, session.aux.pages x page_size = " +
                      format_size(*aux) + " (a snapshot reads no more than the buffer holds)");
        // perf_mmap's own checks of the AUX mapping (M3): the tool maps the area at the
        // offset it wrote into the control page, so only the offset itself can be wrong.
        const auto offset = r().size("/session/aux/offset");
        const auto data_pages = r().integer("/session/data_pages");
        if (offset && data_pages) {
            const std::string why = models::perf::aux_mmap_error(*offset, *aux, *offset, *aux,
                                                                 *data_pages * *page, *page);
            if (!why.empty())
                error("/session/aux/offset",
                      "an offset perf_mmap accepts for the AUX mapping (EINVAL: " + why + ")");
        }
    }

    // etr.sg_table_fault breaks a scatter-gather table: the ETR must run in SG mode (E2)
    // and the table must have what the fault changes.
    void sg_table_fault() {
        const auto fault = r().text("/etr/sg_table_fault");
        const auto mode = r().text("/etr/mode");
        const auto buffer = r().size("/etr/buffer_size");
        if (!fault || *fault == "none" || !mode || !buffer) return;
        uint64_t etr = *buffer; // E1: the AUX size when that is larger
        if (r().boolean("/session/aux/enabled") == std::optional<bool>(true))
            if (const auto aux = r().aux_size()) etr = std::max(etr, *aux);
        const bool sg = *mode == "sg" || (*mode == "auto" && etr >= (uint64_t{1} << 20));
        if (!sg) {
            error("/etr/sg_table_fault",
                  "\"none\" unless the ETR uses a scatter-gather table (etr.mode sg, or auto "
                  "with a buffer of 1MiB or more; this one is flat, " +
                      format_size(etr) + ")");
            return;
        }
        const uint64_t pages = etr / 4096;
        if (*fault == "missing_link" && pages <= 1023)
            error("/etr/sg_table_fault",
                  "a fault this table can have: missing_link needs two table pages, a buffer "
                  "of more than 1023 pages (this one has " +
                      std::to_string(pages) + ")");
        if (*fault == "last_too_early" && pages < 2)
            error("/etr/sg_table_fault",
                  "a fault this table can have: last_too_early needs a buffer of two pages "
                  "or more (with one, LAST on the first entry is right)");
    }

    void switches() {
        const auto every = r().time("/workload/switch_every");
        const auto out = r().time("/workload/switch_out");
        if (!every || !out || *out == 0) return;
        if (*every == 0)
            error("/workload/switch_out",
                  "\"0s\" when workload.switch_every is \"0s\" (the task is never switched out)");
        else if (*out >= *every)
            error("/workload/switch_out", "a time below workload.switch_every, " +
                                              format_time(*every) +
                                              " (the task must run between two switch-outs)");
    }

    void trace_phases() {
        std::optional<uint64_t> previous;
        for (size_t i = 0; i < r().count("/trace/phases"); ++i) {
            const std::string phase = "/trace/phases/" + std::to_string(i);
            const auto at = r().time(phase + "/at");
            if (!at) return;
            if (previous && *at <= *previous)
                error(phase + "/at", "a time after " + format_time(*previous) +
                                         ", the previous phase's (phases are sorted by at, no "
                                         "two at the same time)");
            previous = std::max(*at, previous.value_or(0));
        }
    }

    void etr_burst() {
        const auto burst = r().size("/etr/burst");
        if (burst && *burst % 16 != 0)
            error("/etr/burst", "a size that is a multiple of 16B (the TMC formatter packs "
                                "trace into 16-byte frames, and a burst is whole frames)");
    }

    // ringsim maps each AUX area in simulated memory; a larger one is a typo, not a scenario.
    static constexpr uint64_t kMaxAuxSize = uint64_t(1) << 30;

    const json& m_eff;
    Errors& m_errors;
};

// ---- conversion ----------------------------------------------------------------------

// The enumerator a validated choice names. A choice of the table without one here is a bug
// of ringsim's (the table and this mapping disagree): thrown, never a silent default.
template <typename E, size_t N>
E enum_of(const std::string& name, const std::pair<const char*, E> (&names)[N]) {
    for (const auto& [n, e] : names)
        if (name == n) return e;
    throw std::logic_error("the loader has no enumerator for the choice \"" + name + "\"");
}

Writer to_writer(const Values& r, const std::string& w) {
    static const std::pair<const char*, RecordKind> records[] = {{"sample", RecordKind::sample},
                                                                 {"switch", RecordKind::switch_},
                                                                 {"comm", RecordKind::comm}};
    static const std::pair<const char*, Context> contexts[] = {{"task", Context::task},
                                                               {"softirq", Context::softirq},
                                                               {"irq", Context::irq},
                                                               {"nmi", Context::nmi}};
    static const std::pair<const char*, Arrival> arrivals[] = {{"periodic", Arrival::periodic},
                                                               {"poisson", Arrival::poisson},
                                                               {"bursty", Arrival::bursty}};
    Writer out;
    out.name = *r.text(w + "/name");
    out.record = enum_of(*r.text(w + "/record"), records);
    out.context = enum_of(*r.text(w + "/context"), contexts);
    out.rate_hz = *r.frequency(w + "/rate");
    out.arrival = enum_of(*r.text(w + "/arrival"), arrivals);
    out.size = *r.size(w + "/size");
    out.write_time_ps = *r.time(w + "/write_time");
    out.cpu_clock = *r.text(w + "/event") == "cpu-clock";
    out.period_ps = r.time(w + "/period").value_or(0);
    out.burst_size = *r.integer(w + "/burst_size");
    out.burst_spacing_ps = *r.time(w + "/burst_spacing");
    out.start_ps = *r.time(w + "/start");
    return out;
}

void to_session(const Values& r, Scenario& s) {
    static const std::pair<const char*, Deployment> deployments[] = {
        {"per-cpu", Deployment::per_cpu},
        {"per-thread", Deployment::per_thread},
        {"system-wide", Deployment::system_wide}};
    s.deployment = enum_of(*r.text("/session/deployment"), deployments);
    const std::vector<uint64_t> cpus = *r.integers("/session/cpus");
    for (uint64_t c : cpus)
        s.traced_cpus.push_back(unsigned(c));
    s.page_size = *r.size("/session/page_size");
    s.data_pages = *r.integer("/session/data_pages");
    s.overwrite = *r.boolean("/session/overwrite");
    s.write_backward = *r.boolean("/session/write_backward");
    s.wakeup_watermark = *r.size("/session/wakeup_watermark");
    s.wakeup_events = *r.integer("/session/wakeup_events");
    s.sample_id_all = *r.boolean("/session/sample_id_all");
    s.sample_type = *r.names("/session/sample_type");
    for (size_t i = 0; i < r.count("/session/pause"); ++i) {
        const std::string window = "/session/pause/" + std::to_string(i);
        s.pauses.push_back({*r.time(window + "/at"), *r.time(window + "/length")});
    }
    s.migrate_every_ps = *r.time("/session/migrate_every");
    static const std::pair<const char*, Mapping> mappings[] = {{"eager", Mapping::eager},
                                                               {"lazy", Mapping::lazy}};
    s.mapping = enum_of(*r.text("/session/mapping"), mappings);
    s.aux.enabled = *r.boolean("/session/aux/enabled");
    s.aux.pages = *r.integer("/session/aux/pages");
    s.aux.watermark = *r.size("/session/aux/watermark");
    s.aux.snapshot = *r.boolean("/session/aux/snapshot");
    s.aux.snapshot_size = *r.size("/session/aux/snapshot_size");
    s.aux.snapshot_on_exit = *r.boolean("/session/aux/snapshot_on_exit");
    s.aux.offset = *r.size("/session/aux/offset");
    s.aux.snapshot_at_ps = *r.times("/session/aux/snapshot_at");
}

void to_trace_and_etr(const Values& r, Scenario& s) {
    static const std::pair<const char*, EtrMode> modes[] = {
        {"auto", EtrMode::auto_}, {"flat", EtrMode::flat}, {"sg", EtrMode::sg}};
    s.trace.rate = *r.bandwidth("/trace/rate");
    for (size_t i = 0; i < r.count("/trace/phases"); ++i) {
        const std::string phase = "/trace/phases/" + std::to_string(i);
        s.trace.phases.push_back({*r.time(phase + "/at"), *r.bandwidth(phase + "/rate")});
    }
    s.trace.sync_period = *r.integer("/trace/sync_period");
    s.etr.buffer_size = *r.size("/etr/buffer_size");
    s.etr.mode = enum_of(*r.text("/etr/mode"), modes);
    s.etr.mem_bandwidth = *r.bandwidth("/etr/mem_bandwidth");
    s.etr.fifo_size = *r.size("/etr/fifo_size");
    s.etr.flush_latency_ps = *r.time("/etr/flush_latency");
    s.etr.burst = *r.size("/etr/burst");
    s.etr.memerr_at_ps = *r.times("/etr/memerr_at");
    s.etr.sg_walk_ps = *r.time("/etr/sg_walk");
    static const std::pair<const char*, SgTableFault> faults[] = {
        {"none", SgTableFault::none},
        {"invalid_entry", SgTableFault::invalid_entry},
        {"missing_link", SgTableFault::missing_link},
        {"last_too_early", SgTableFault::last_too_early}};
    s.etr.sg_table_fault = enum_of(*r.text("/etr/sg_table_fault"), faults);
}

void to_consumer(const Values& r, Scenario& s) {
    s.consumer_cpu = static_cast<unsigned>(*r.integer("/consumer/cpu"));
    s.reader = models::reader_named(r.text("/consumer/reader")->c_str())->kind;
    s.wakeup_latency = *r.distribution("/consumer/wakeup_latency");
    s.wakeup_cost = *r.distribution("/consumer/wakeup_cost");
    s.consumer_nice = int(*r.signed_integer("/consumer/nice"));
    for (size_t i = 0; i < r.count("/consumer/competitors"); ++i)
        s.competitor_nices.push_back(
            int(*r.signed_integer("/consumer/competitors/" + std::to_string(i) + "/nice")));
    s.per_record_cost = *r.distribution("/consumer/per_record_cost");
    s.lost_record_cost = *r.distribution("/consumer/lost_record_cost");
    static const std::pair<const char*, TailUpdate> tails[] = {
        {"batch", TailUpdate::batch}, {"per_record", TailUpdate::per_record}};
    s.tail_update = enum_of(*r.text("/consumer/tail_update"), tails);
    s.copy_bandwidth = *r.bandwidth("/consumer/copy_bandwidth");
    s.write_bandwidth = *r.bandwidth("/consumer/write_bandwidth");
    s.poll_timeout_ps = *r.time("/consumer/poll_timeout");
    s.mmap_flush = *r.size("/consumer/mmap_flush");
    s.snapshot_every_ps = *r.time("/consumer/snapshot_every");
}

models::BarrierKind barrier_kind(const std::string& name) {
    using models::BarrierKind;
    static const std::pair<const char*, BarrierKind> kinds[] = {
        {"none", BarrierKind::none},      {"ctrl", BarrierKind::ctrl},
        {"rmb", BarrierKind::rmb},        {"wmb", BarrierKind::wmb},
        {"mb", BarrierKind::mb},          {"acquire", BarrierKind::acquire},
        {"release", BarrierKind::release}};
    return enum_of(name, kinds);
}

Scenario::Barriers to_barriers(const Values& r, const std::string& path) {
    Scenario::Barriers b;
    b.a = barrier_kind(*r.text(path + "/A"));
    b.b = barrier_kind(*r.text(path + "/B"));
    b.c = barrier_kind(*r.text(path + "/C"));
    b.d = barrier_kind(*r.text(path + "/D"));
    return b;
}

void to_memory(const Values& r, Scenario& s) {
    using models::MemoryModel;
    using models::TimingPolicy;
    static const std::pair<const char*, MemoryModel> models_[] = {
        {"sc", MemoryModel::sc}, {"tso", MemoryModel::tso}, {"arm", MemoryModel::arm}};
    static const std::pair<const char*, TimingPolicy> policies[] = {
        {"none", TimingPolicy::none},
        {"random", TimingPolicy::random},
        {"adversarial", TimingPolicy::adversarial}};
    s.memory_model = enum_of(*r.text("/memory/model"), models_);
    s.timing_policy = enum_of(*r.text("/memory/timing/policy"), policies);
    s.timing.store_drain_max = *r.time("/memory/timing/store_drain_max");
    s.timing.load_early_max = *r.time("/memory/timing/load_early_max");
    s.timing.load_late_max = *r.time("/memory/timing/load_late_max");
    s.consumer_timing.store_drain_max = *r.time("/memory/timing/consumer/store_drain_max");
    s.consumer_timing.load_early_max = *r.time("/memory/timing/consumer/load_early_max");
    s.consumer_timing.load_late_max = *r.time("/memory/timing/consumer/load_late_max");
    s.data_barriers = to_barriers(r, "/barriers/data");
    s.aux_barriers = to_barriers(r, "/barriers/aux");
}

// Only called on an error-free effective config, where every key is present and valid.
Scenario to_scenario(const json& eff, std::set<std::string>& read) {
    const Errors none;
    const Values r(eff, none, &read);
    Scenario s;
    s.description = *r.text("/description");
    s.seed = *r.integer("/seed");
    s.duration_ps = *r.time("/duration");
    s.cpus = static_cast<unsigned>(*r.integer("/platform/cpus"));
    to_session(r, s);
    s.irq_work_latency_ps = *r.time("/kernel/irq_work_latency");
    s.ipi_latency_ps = *r.time("/kernel/ipi_latency");
    s.page_fault_ps = *r.time("/kernel/page_fault");
    s.mmu.tlb_entries = static_cast<unsigned>(*r.integer("/mmu/tlb_entries"));
    s.mmu.tlb_hit_ps = *r.time("/mmu/tlb_hit");
    s.mmu.tlb_miss_ps = *r.time("/mmu/tlb_miss");
    s.mmu.page_walk_ps = *r.time("/mmu/page_walk");
    s.aux_copy_bandwidth = *r.bandwidth("/kernel/aux_copy_bandwidth");
    to_memory(r, s);
    to_consumer(r, s);
    for (size_t i = 0; i < r.count("/workload/writers"); ++i)
        s.writers.push_back(to_writer(r, "/workload/writers/" + std::to_string(i)));
    s.switch_every_ps = *r.time("/workload/switch_every");
    s.switch_out_ps = *r.time("/workload/switch_out");
    to_trace_and_etr(r, s);
    return s;
}

// consumer.per_record_cost_distribution became the form of per_record_cost itself: an old
// file is refused with the new spelling, not read as something else.
void refuse_cost_distribution_key(json& doc, Errors& errors) {
    if (!doc.is_object() || !doc.contains("consumer") || !doc["consumer"].is_object()) return;
    json& consumer = doc["consumer"];
    if (!consumer.contains("per_record_cost_distribution")) return;
    errors.add("/consumer/per_record_cost_distribution",
               "no such key: the distribution is now the form of consumer.per_record_cost "
               "itself, e.g. \"per_record_cost\": {\"distribution\": \"exponential\", "
               "\"mean\": \"1us\"} (lost_record_cost takes the same form; "
               "docs/scenario-reference.md)",
               json_text(consumer["per_record_cost_distribution"]));
    consumer.erase("per_record_cost_distribution");
}

// A regular file of at most `limit` bytes, read whole: a scenario, or a histogram file it
// names. /dev/zero never ends, a FIFO blocks the open itself until a writer comes, a
// directory is not a file, and a file may grow after stat looked (bounded again while
// reading): each is refused, saying what it is, and never read without bound.
struct FileText {
    enum class Refused { no, unreadable, not_regular, too_large };
    Refused refused = Refused::no;
    std::string why; // when refused: the system's reason, the kind of file, or its size
    std::string text;
};

FileText read_regular_file(const std::string& path, uint64_t limit) {
    FileText r;
    const auto refuse = [&r](FileText::Refused how, std::string why) {
        r.refused = how;
        r.why = std::move(why);
        return std::move(r); // what was read so far moves out, not copied
    };
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return refuse(FileText::Refused::unreadable, std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
        const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        return refuse(FileText::Refused::not_regular, kind);
    }
    if (uint64_t(st.st_size) > limit)
        return refuse(FileText::Refused::too_large, "larger than that");
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return refuse(FileText::Refused::unreadable, std::strerror(errno));
    char buffer[65536];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0 && r.text.size() <= limit)
        r.text.append(buffer, n);
    const int error = std::ferror(file) != 0 ? errno : 0;
    std::fclose(file);
    if (error != 0) return refuse(FileText::Refused::unreadable, std::strerror(error));
    if (r.text.size() > limit) return refuse(FileText::Refused::too_large, "larger than that");
    return r;
}

// Reads every {"distribution": "empirical", "file": F} of a time_distribution key into
// "histogram", F relative to the scenario's directory: the effective scenario (run.json's
// effective_config, what a sweep hashes a point's id from) then holds the bins themselves.
// F's text comes from `planned` when it holds F, else from the disk and is then added to
// `read` (a sweep's plan collects them there, and its points read no file: ScenarioTexts).
void read_histogram_files(json& v, const std::string& pointer, const std::string& pattern,
                          const std::string& dir, Errors& errors, const FileTexts* planned,
                          FileTexts* read) {
    if (v.is_array()) {
        for (size_t i = 0; i < v.size(); ++i)
            read_histogram_files(v[i], pointer + "/" + std::to_string(i), pattern + "/*", dir,
                                 errors, planned, read);
        return;
    }
    if (!v.is_object()) return;
    const Param* p = find_param(pattern);
    if (p == nullptr || p->kind != K::time_distribution) {
        for (auto& [name, child] : v.items())
            read_histogram_files(child, pointer + "/" + escape_token(name), pattern + "/" + name,
                                 dir, errors, planned, read);
        return;
    }
    if (!v.contains("file") || v.value("distribution", json()) != "empirical") return;
    // On any mistake "file" stays, and the validator leaves the value to this message.
    const std::string where = pointer + "/file";
    const json file = v["file"];
    if (v.contains("histogram")) {
        errors.add(where, "either a file or a histogram, not both", json_text(file));
        return;
    }
    const std::string expected = "a readable histogram file: one TIME,COUNT line per bin, e.g. "
                                 "25us,120 (# starts a comment)";
    if (!file.is_string() || file.get<std::string>().empty()) {
        errors.add(where, expected, json_text(file));
        return;
    }
    const std::string name = file.get<std::string>();
    const std::string path = name[0] == '/' ? name : dir + "/" + name;
    // As the plan this load belongs to read it, or else as read from the disk now.
    const std::string* found = nullptr;
    if (planned)
        if (const auto known = planned->find(path); known != planned->end()) found = &known->second;
    FileText disk;
    if (!found) {
        disk = read_regular_file(path, kMaxScenarioBytes);
        if (disk.refused != FileText::Refused::no || disk.text.find('\0') != std::string::npos) {
            errors.add(where, expected + ", at most " + format_size(kMaxScenarioBytes),
                       json_text(file) + " (" +
                           (disk.refused != FileText::Refused::no ? disk.why : "not text") + ")");
            return;
        }
        if (read) read->try_emplace(path, disk.text);
        found = &disk.text;
    }
    const std::string& text = *found;
    json bins = json::array();
    size_t number = 0;
    for (size_t at = 0; at < text.size();) {
        const size_t end = std::min(text.find('\n', at), text.size());
        std::string line = text.substr(at, end - at);
        at = end + 1;
        ++number;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        const size_t comma = line.find(',');
        char* stop = nullptr;
        const std::string count = comma == std::string::npos ? "" : line.substr(comma + 1);
        errno = 0;
        const unsigned long long c = std::strtoull(count.c_str(), &stop, 10);
        if (comma == std::string::npos || count.empty() || *stop != '\0' || errno != 0 ||
            !std::isdigit(static_cast<unsigned char>(count[0]))) {
            errors.add(where, expected,
                       json_text(file) + " line " + std::to_string(number) + ": " +
                           json_text(clipped(line)));
            return;
        }
        bins.push_back(json::array({line.substr(0, comma), c}));
    }
    v.erase("file");
    v["histogram"] = std::move(bins); // checked with the rest, at .../histogram
}

std::string directory_of(const std::string& origin) {
    const size_t slash = origin.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : origin.substr(0, slash);
}

LoadResult load_document(std::optional<json> doc, Errors errors,
                         const std::vector<std::string>& sets,
                         std::optional<uint64_t> seed_override, const std::string& origin,
                         const FileTexts* planned, FileTexts* read) {
    LoadResult result;
    if (doc) {
        for (const std::string& set : sets)
            apply_set(*doc, set, errors);
        if (seed_override && doc->is_object()) (*doc)["seed"] = *seed_override;
        refuse_cost_distribution_key(*doc, errors);
        read_histogram_files(*doc, "", "", directory_of(origin), errors, planned, read);
        fill_cpu_clock_rates(*doc);
        if (doc->is_object())
            Validator(errors).members(*doc, "", "");
        else
            errors.add("", "a JSON object of scenario keys", json_text(*doc));
        result.effective = fill_defaults(*doc, errors);
        if (result.effective.is_object()) CrossChecks(result.effective, errors).run();
        if (errors.empty()) result.scenario = to_scenario(result.effective, result.keys_read);
    }
    result.errors = std::move(errors).sorted();
    return result;
}

} // namespace

const char* const kSetPathExpected =
    "a PATH of keys joined by '.', a list element as [N] or .N (e.g. workload.writers[0].rate)";

std::optional<std::string> set_path_problem(const std::string& path) {
    if (path.empty()) return "an empty path";
    if (path[0] == '/') return std::nullopt;
    // KEY (('.' KEY) | ('.' DIGITS) | ('[' DIGITS ']'))*, a KEY being anything but . [ ]
    size_t i = 0;
    auto key = [&]() -> bool {
        const size_t from = i;
        while (i < path.size() && path[i] != '.' && path[i] != '[' && path[i] != ']')
            ++i;
        return i > from;
    };
    if (!key()) return "no key before byte " + std::to_string(i);
    while (i < path.size()) {
        const char c = path[i++];
        if (c == '.') {
            if (!key()) return "an empty key at byte " + std::to_string(i);
        } else if (c == '[') {
            const size_t from = i;
            while (i < path.size() && std::isdigit(static_cast<unsigned char>(path[i])))
                ++i;
            if (i == from || i == path.size() || path[i] != ']')
                return "an unclosed or non-numeric [index] at byte " + std::to_string(from - 1);
            ++i;
        } else {
            return "a stray '" + std::string(1, c) + "' at byte " + std::to_string(i - 1);
        }
    }
    return std::nullopt;
}

std::string set_path_to_pointer(const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    std::string pointer = "/";
    for (char c : path) {
        if (c == '.' || c == '[')
            pointer += pointer.back() == '/' ? "" : "/";
        else if (c != ']')
            pointer += c == '~' ? "~0" : std::string(1, c);
    }
    return pointer;
}

LoadResult load_scenario_json(const std::string& text, const std::vector<std::string>& sets,
                              std::optional<uint64_t> seed_override, const std::string& origin,
                              const FileTexts* planned, FileTexts* read) {
    try {
        Errors errors;
        auto doc = parse_document(text, origin, errors);
        return load_document(std::move(doc), std::move(errors), sets, seed_override, origin,
                             planned, read);
    } catch (const std::exception& e) {
        // A bug of ours, not of the scenario; still reported rather than thrown.
        LoadResult result;
        result.errors.push_back({"", "a scenario the loader can handle", e.what()});
        return result;
    }
}

std::optional<std::string> read_scenario_file(const std::string& path, ConfigError& error) {
    FileText file = read_regular_file(path, kMaxScenarioBytes);
    std::string expected;
    switch (file.refused) {
    case FileText::Refused::no:
        return std::move(file.text);
    case FileText::Refused::unreadable:
        expected = "a readable scenario file";
        break;
    case FileText::Refused::not_regular:
        expected = "a regular scenario file";
        break;
    case FileText::Refused::too_large:
        expected = "a scenario file of at most " + format_size(kMaxScenarioBytes);
        break;
    }
    error = {"", expected, path + " (" + file.why + ")"};
    return std::nullopt;
}

LoadResult load_scenario_file(const std::string& path, const std::vector<std::string>& sets,
                              std::optional<uint64_t> seed_override) {
    ConfigError error;
    if (const auto text = read_scenario_file(path, error))
        return load_scenario_json(*text, sets, seed_override, path);
    LoadResult result;
    result.errors.push_back(std::move(error));
    return result;
}

} // namespace ringsim::config
