//===- Json.h - The runtime's JSON value (nlohmann-json underneath) -*- C++
//-*-===//
//
// The runtime builds without LLVM (no llvm::json). Parsing and writing are
// nlohmann-json's (Debian nlohmann-json3-dev, header-only; Json.cpp): this
// class is the value the ~40 users of the runtime hold, with typed lookups
// whose errors name the key and the kinds (plans, results and job documents
// are validated through them). Objects keep their insertion order so that
// written results are stable and diffable (nlohmann::ordered_json on output).
//
// Why not nlohmann::ordered_json itself: its children are ordered_json, so
// get() could not hand out a Json* without rewriting every call site;
// nlohmann 3.12's custom base class would allow it, Debian 12 has 3.11.2.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_JSON_H
#define ATREX_RT_JSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace atrex::rt {

class JsonError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Json {
public:
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : kind(Kind::Bool), boolValue(b) {}
  Json(int v) : kind(Kind::Int), intValue(v) {}
  Json(long v) : kind(Kind::Int), intValue(v) {}
  Json(long long v) : kind(Kind::Int), intValue(v) {}
  Json(unsigned v) : kind(Kind::Int), intValue(v) {}
  Json(unsigned long v) : kind(Kind::Int), intValue(static_cast<int64_t>(v)) {}
  Json(unsigned long long v)
      : kind(Kind::Int), intValue(static_cast<int64_t>(v)) {}
  Json(double v) : kind(Kind::Double), doubleValue(v) {}
  Json(const char *s) : kind(Kind::String), stringValue(s) {}
  Json(std::string s) : kind(Kind::String), stringValue(std::move(s)) {}
  Json(Array a) : kind(Kind::Array), arrayValue(std::move(a)) {}
  Json(Object o) : kind(Kind::Object), objectValue(std::move(o)) {}

  static Json object() { return Json(Object{}); }
  static Json array() { return Json(Array{}); }

  Kind getKind() const { return kind; }
  bool isNull() const { return kind == Kind::Null; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Double; }
  bool isInt() const { return kind == Kind::Int; }
  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  // Accessors throw JsonError naming the expected kind on mismatch.
  bool asBool() const;
  int64_t asInt() const;
  double asDouble() const;
  const std::string &asString() const;
  const Array &asArray() const;
  Array &asArray();
  const Object &asObject() const;

  // Object access. get() returns nullptr when absent.
  const Json *get(const std::string &key) const;
  Json *get(const std::string &key);
  bool has(const std::string &key) const { return get(key) != nullptr; }
  // Inserts or replaces, keeping the position of an existing key.
  Json &set(const std::string &key, Json value);
  Json &operator[](const std::string &key);
  // Array append.
  void push(Json value);
  size_t size() const;

  // Typed lookups with defaults (throw on a present value of the wrong kind).
  std::string getString(const std::string &key, const std::string &def) const;
  int64_t getInt(const std::string &key, int64_t def) const;
  double getDouble(const std::string &key, double def) const;
  bool getBool(const std::string &key, bool def) const;

  // Compact single-line text (JSON Lines) or indented with `indent` spaces.
  // Doubles with 9 significant digits, NaN/Inf as null, bytes that are not
  // UTF-8 as U+FFFD.
  std::string dump(int indent = -1) const;

  // Parses a whole document (RFC 8259; nesting up to 256 levels, no
  // duplicate keys); throws JsonError "<what>:<line>:<col>: message".
  static Json parse(const std::string &text,
                    const std::string &what = "<json>");

  bool operator==(const Json &other) const;
  bool operator!=(const Json &other) const { return !(*this == other); }

private:
  friend class JsonReader; // Json.cpp: nlohmann's SAX events -> Json
  friend struct JsonCodec; // Json.cpp: Json -> nlohmann::ordered_json for
                           // dump()
  const char *kindName() const;

  Kind kind = Kind::Null;
  bool boolValue = false;
  int64_t intValue = 0;
  double doubleValue = 0;
  std::string stringValue;
  Array arrayValue;
  Object objectValue;
};

// Reads a whole file; throws std::runtime_error naming the file.
std::string readFile(const std::string &path);
// Writes a whole file; throws std::runtime_error naming the file.
void writeFile(const std::string &path, const std::string &contents);
Json parseJsonFile(const std::string &path);

// Throws std::runtime_error "<path>: <where>: ..." unless `obj` is an object
// whose keys are all in `allowed` (the message lists them). `where` may be
// empty (the document itself).
void checkObjectKeys(const Json &obj, const std::vector<std::string> &allowed,
                     const std::string &path, const std::string &where);

} // namespace atrex::rt

#endif // ATREX_RT_JSON_H
