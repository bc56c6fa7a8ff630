//===- Json.cpp - The runtime's JSON value over nlohmann-json
//---------------===//
//
// Parsing and writing are nlohmann-json's (Debian nlohmann-json3-dev): its
// parser through the SAX interface, building Json values directly, and its
// serializer on an nlohmann::ordered_json copy (key order kept). What is
// here: the value's typed accessors (errors naming the key and the kinds)
// and the reader's guarantees on top of nlohmann's (nesting limit,
// duplicate keys rejected, errors "<what>:<line>:<col>: message").
//
//===----------------------------------------------------------------------===//
#include "atrex-rt/Json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_set>

namespace atrex::rt {

const char *Json::kindName() const {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "bool";
  case Kind::Int:
    return "integer";
  case Kind::Double:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "?";
}

bool Json::asBool() const {
  if (kind != Kind::Bool)
    throw JsonError(std::string("expected a bool, found ") + kindName());
  return boolValue;
}
int64_t Json::asInt() const {
  if (kind == Kind::Int)
    return intValue;
  if (kind == Kind::Double && std::nearbyint(doubleValue) == doubleValue &&
      std::fabs(doubleValue) < 9.2e18)
    return static_cast<int64_t>(doubleValue);
  throw JsonError(std::string("expected an integer, found ") + kindName());
}
double Json::asDouble() const {
  if (kind == Kind::Double)
    return doubleValue;
  if (kind == Kind::Int)
    return static_cast<double>(intValue);
  throw JsonError(std::string("expected a number, found ") + kindName());
}
const std::string &Json::asString() const {
  if (kind != Kind::String)
    throw JsonError(std::string("expected a string, found ") + kindName());
  return stringValue;
}
const Json::Array &Json::asArray() const {
  if (kind != Kind::Array)
    throw JsonError(std::string("expected an array, found ") + kindName());
  return arrayValue;
}
Json::Array &Json::asArray() {
  if (kind != Kind::Array)
    throw JsonError(std::string("expected an array, found ") + kindName());
  return arrayValue;
}
const Json::Object &Json::asObject() const {
  if (kind != Kind::Object)
    throw JsonError(std::string("expected an object, found ") + kindName());
  return objectValue;
}

const Json *Json::get(const std::string &key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const auto &kv : objectValue)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}
Json *Json::get(const std::string &key) {
  return const_cast<Json *>(static_cast<const Json *>(this)->get(key));
}
Json &Json::set(const std::string &key, Json value) {
  if (kind == Kind::Null)
    kind = Kind::Object;
  if (kind != Kind::Object)
    throw JsonError(std::string("cannot set key '") + key + "' on a " +
                    kindName());
  if (Json *existing = get(key)) {
    *existing = std::move(value);
    return *existing;
  }
  objectValue.emplace_back(key, std::move(value));
  return objectValue.back().second;
}
Json &Json::operator[](const std::string &key) {
  if (Json *existing = get(key))
    return *existing;
  return set(key, Json());
}
void Json::push(Json value) {
  if (kind == Kind::Null)
    kind = Kind::Array;
  if (kind != Kind::Array)
    throw JsonError(std::string("cannot append to a ") + kindName());
  arrayValue.push_back(std::move(value));
}
size_t Json::size() const {
  if (kind == Kind::Array)
    return arrayValue.size();
  if (kind == Kind::Object)
    return objectValue.size();
  return 0;
}

std::string Json::getString(const std::string &key,
                            const std::string &def) const {
  const Json *v = get(key);
  if (!v || v->isNull())
    return def;
  try {
    return v->asString();
  } catch (const JsonError &e) {
    throw JsonError("key '" + key + "': " + e.what());
  }
}
int64_t Json::getInt(const std::string &key, int64_t def) const {
  const Json *v = get(key);
  if (!v || v->isNull())
    return def;
  try {
    return v->asInt();
  } catch (const JsonError &e) {
    throw JsonError("key '" + key + "': " + e.what());
  }
}
double Json::getDouble(const std::string &key, double def) const {
  const Json *v = get(key);
  if (!v || v->isNull())
    return def;
  try {
    return v->asDouble();
  } catch (const JsonError &e) {
    throw JsonError("key '" + key + "': " + e.what());
  }
}
bool Json::getBool(const std::string &key, bool def) const {
  const Json *v = get(key);
  if (!v || v->isNull())
    return def;
  try {
    return v->asBool();
  } catch (const JsonError &e) {
    throw JsonError("key '" + key + "': " + e.what());
  }
}

bool Json::operator==(const Json &o) const {
  if (isNumber() && o.isNumber()) {
    if (kind == Kind::Int && o.kind == Kind::Int)
      return intValue == o.intValue;
    return asDouble() == o.asDouble();
  }
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Kind::Null:
    return true;
  case Kind::Bool:
    return boolValue == o.boolValue;
  case Kind::String:
    return stringValue == o.stringValue;
  case Kind::Array:
    return arrayValue == o.arrayValue;
  case Kind::Object:
    return objectValue == o.objectValue;
  default:
    return false;
  }
}

// ---- writing: nlohmann's serializer
// ------------------------------------------
namespace {
using njson = nlohmann::ordered_json;

// Doubles are written with 9 significant digits, as the runtime always wrote
// them (timings and errors, not bit patterns): rounded here, nlohmann's
// serializer (Grisu2) then writes a text that reads back as the rounded
// value: its 9 digits or fewer, except rarely where Grisu2 is not shortest
// (1.84467441e19 is written 1.8446744099999998e+19; it still reads back the
// same). From 1e9 up to 1e16 nlohmann writes positionally (1500000000.0).
double round9(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return std::strtod(buf, nullptr);
}
} // namespace

// A friend of Json (reads its storage without the kind checks).
struct JsonCodec {
  static njson toNlohmann(const Json &j) {
    switch (j.kind) {
    case Json::Kind::Null:
      return njson();
    case Json::Kind::Bool:
      return njson(j.boolValue);
    case Json::Kind::Int:
      return njson(j.intValue);
    case Json::Kind::Double:
      // JSON has no NaN/Inf: null (documented in the result schema); nlohmann
      // writes null for them too, checked here so the rounding never sees them.
      return std::isfinite(j.doubleValue) ? njson(round9(j.doubleValue))
                                          : njson();
    case Json::Kind::String:
      return njson(j.stringValue);
    case Json::Kind::Array: {
      njson out = njson::array();
      auto &arr = *out.get_ptr<njson::array_t *>();
      arr.reserve(j.arrayValue.size());
      for (const Json &v : j.arrayValue)
        arr.push_back(toNlohmann(v));
      return out;
    }
    case Json::Kind::Object: {
      njson out = njson::object();
      // Keys are unique already (set() replaces, the reader rejects
      // duplicates): append without ordered_map's linear key search.
      auto &obj = *out.get_ptr<njson::object_t *>();
      obj.reserve(j.objectValue.size());
      for (const auto &kv : j.objectValue)
        obj.push_back({kv.first, toNlohmann(kv.second)});
      return out;
    }
    }
    return njson();
  }
};

std::string Json::dump(int indent) const {
  // Bytes that are not UTF-8 (a child's stderr tail, a path) become U+FFFD
  // rather than an exception or a document no JSON reader accepts.
  return JsonCodec::toNlohmann(*this).dump(indent, ' ', false,
                                           njson::error_handler_t::replace);
}

// ---- reading: nlohmann's parser, through its SAX interface
// ---------------------
namespace {
constexpr size_t kMaxDepth = 256;

// Input iterator over the text that records how far nlohmann's lexer has read
// (the position of a duplicate key, which the SAX events do not carry).
struct CountingIter {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char *;
  using reference = const char &;
  const char *p = nullptr;
  size_t *consumed = nullptr;
  const char *base = nullptr;
  reference operator*() const { return *p; }
  CountingIter &operator++() {
    ++p;
    *consumed = static_cast<size_t>(p - base);
    return *this;
  }
  CountingIter operator++(int) {
    CountingIter old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIter &o) const { return p == o.p; }
  bool operator!=(const CountingIter &o) const { return p != o.p; }
};
} // namespace

// Builds Json values from nlohmann's SAX events: no intermediate DOM; nesting
// deeper than kMaxDepth and duplicate keys are errors (nlohmann accepts both).
class JsonReader {
public:
  JsonReader(const std::string &text, const std::string &what)
      : text(text), what(what) {}

  Json run() {
    CountingIter first{text.data(), &consumed, text.data()};
    CountingIter last{text.data() + text.size(), &consumed, text.data()};
    njson::sax_parse(first, last, this);
    if (!error.empty())
      throw JsonError(error);
    return std::move(result);
  }

  // SAX interface (nlohmann::json_sax).
  bool null() { return value(Json()); }
  bool boolean(bool v) { return value(Json(v)); }
  bool number_integer(int64_t v) {
    return number(Json(static_cast<long long>(v)));
  }
  bool number_unsigned(uint64_t v) {
    // Integers beyond int64 are doubles, as the runtime always read them.
    if (v > static_cast<uint64_t>(INT64_MAX))
      return number(Json(static_cast<double>(v)));
    return number(Json(static_cast<long long>(v)));
  }
  bool number_float(double v, const std::string &) { return number(Json(v)); }
  bool string(std::string &v) { return value(Json(std::move(v))); }
  bool binary(njson::binary_t &) {
    return fail(consumed, "binary values are not JSON");
  }
  bool start_object(size_t) { return open(Json::object()); }
  bool key(std::string &k) {
    if (!keys.back().insert(k).second)
      return fail(consumed, "duplicate key '" + k + "'");
    pendingKey = std::move(k);
    accepted = consumed;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(size_t) { return open(Json::array()); }
  bool end_array() { return close(); }
  bool parse_error(size_t, const std::string &,
                   const nlohmann::detail::exception &ex) {
    // nlohmann's message is "[json.exception.parse_error.N] parse error at
    // line L, column C: <message>" (where its lexer stopped): keep <message>
    // and place it at the token that failed, the first one after the last
    // token the parser accepted (and the ',' or ':' after that).
    std::string msg = ex.what();
    if (msg.rfind("[json.exception.", 0) == 0 &&
        msg.find("] ") != std::string::npos)
      msg = msg.substr(msg.find("] ") + 2);
    if (msg.rfind("parse error", 0) == 0 && msg.find(": ") != std::string::npos)
      msg = msg.substr(msg.find(": ") + 2);
    size_t at = accepted;
    auto skipSpace = [&] {
      while (at < text.size() && (text[at] == ' ' || text[at] == '\t' ||
                                  text[at] == '\n' || text[at] == '\r'))
        ++at;
    };
    skipSpace();
    if (at < text.size() && (text[at] == ',' || text[at] == ':')) {
      ++at;
      skipSpace();
    }
    return fail(at, msg);
  }

private:
  bool fail(size_t offset, const std::string &msg) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    if (error.empty())
      error = what + ":" + std::to_string(line) + ":" + std::to_string(col) +
              ": " + msg;
    return false;
  }
  // Places `v` in the open container (or as the document) and returns it.
  Json *place(Json v) {
    if (stack.empty()) {
      result = std::move(v);
      return &result;
    }
    Json &top = *stack.back();
    if (top.kind == Json::Kind::Array) {
      top.arrayValue.push_back(std::move(v));
      return &top.arrayValue.back();
    }
    top.objectValue.emplace_back(std::move(pendingKey), std::move(v));
    return &top.objectValue.back().second;
  }
  bool value(Json v) {
    accepted = consumed;
    place(std::move(v));
    return true;
  }
  // The lexer reads one character past a number (unless at the end).
  bool number(Json v) {
    bool atEnd = consumed == text.size() && consumed > 0 &&
                 text[consumed - 1] >= '0' && text[consumed - 1] <= '9';
    place(std::move(v));
    accepted = atEnd || consumed == 0 ? consumed : consumed - 1;
    return true;
  }
  bool open(Json container) {
    if (stack.size() >= kMaxDepth)
      return fail(consumed > 0 ? consumed - 1 : 0,
                  "nesting too deep (more than " + std::to_string(kMaxDepth) +
                      " levels)");
    bool isObject = container.kind == Json::Kind::Object;
    // The parent only grows after this container closes: the pointer stays
    // valid.
    stack.push_back(place(std::move(container)));
    if (isObject)
      keys.emplace_back();
    accepted = consumed;
    return true;
  }
  bool close() {
    if (stack.back()->kind == Json::Kind::Object)
      keys.pop_back();
    stack.pop_back();
    accepted = consumed;
    return true;
  }

  const std::string &text;
  const std::string &what;
  size_t consumed = 0; // characters nlohmann's lexer has read
  size_t accepted = 0; // the end of the last token the parser accepted
  Json result;
  std::vector<Json *> stack;
  std::vector<std::unordered_set<std::string>> keys; // per open object
  std::string pendingKey;
  std::string error;
};

Json Json::parse(const std::string &text, const std::string &what) {
  return JsonReader(text, what).run();
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open '" + path +
                             "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    throw std::runtime_error("cannot read '" + path + "'");
  return ss.str();
}

void writeFile(const std::string &path, const std::string &contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw std::runtime_error("cannot create '" + path +
                             "': " + std::strerror(errno));
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out)
    throw std::runtime_error("cannot write '" + path + "'");
}

Json parseJsonFile(const std::string &path) {
  return Json::parse(readFile(path), path);
}

void checkObjectKeys(const Json &obj, const std::vector<std::string> &allowed,
                     const std::string &path, const std::string &where) {
  std::string at = path + ": " + where + (where.empty() ? "" : ": ");
  if (!obj.isObject())
    throw std::runtime_error(at + "must be an object");
  for (const auto &kv : obj.asObject())
    if (std::find(allowed.begin(), allowed.end(), kv.first) == allowed.end()) {
      std::vector<std::string> sorted = allowed;
      std::sort(sorted.begin(), sorted.end());
      std::string list;
      for (const auto &a : sorted)
        list += (list.empty() ? "" : ", ") + a;
      throw std::runtime_error(at + "unknown key '" + kv.first +
                               "' (allowed: " + list + ")");
    }
}

} // namespace atrex::rt
