//===- Json.cpp - Minimal JSON value, parser and writer -------------------===//
#include "atrex-rt/Json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace atrex::rt {

const char *Json::kindName() const {
  switch (kind) {
  case Kind::Null: return "null";
  case Kind::Bool: return "bool";
  case Kind::Int: return "integer";
  case Kind::Double: return "number";
  case Kind::String: return "string";
  case Kind::Array: return "array";
  case Kind::Object: return "object";
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
    throw JsonError(std::string("cannot set key '") + key + "' on a " + kindName());
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

std::string Json::getString(const std::string &key, const std::string &def) const {
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
  case Kind::Null: return true;
  case Kind::Bool: return boolValue == o.boolValue;
  case Kind::String: return stringValue == o.stringValue;
  case Kind::Array: return arrayValue == o.arrayValue;
  case Kind::Object: return objectValue == o.objectValue;
  default: return false;
  }
}

static void escapeString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}

void Json::dumpTo(std::string &out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent < 0)
      return;
    out += '\n';
    out.append(static_cast<size_t>(indent * d), ' ');
  };
  switch (kind) {
  case Kind::Null: out += "null"; break;
  case Kind::Bool: out += boolValue ? "true" : "false"; break;
  case Kind::Int: out += std::to_string(intValue); break;
  case Kind::Double: {
    if (!std::isfinite(doubleValue)) {
      // JSON has no NaN/Inf; write null (documented in the result schema).
      out += "null";
      break;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.9g", doubleValue);
    out += buf;
    // Keep doubles recognisable as such when read back.
    if (!std::strpbrk(buf, ".eEn"))
      out += ".0";
    break;
  }
  case Kind::String: escapeString(out, stringValue); break;
  case Kind::Array:
    out += '[';
    for (size_t i = 0; i < arrayValue.size(); ++i) {
      if (i)
        out += indent < 0 ? "," : ",";
      newline(depth + 1);
      arrayValue[i].dumpTo(out, indent, depth + 1);
    }
    if (!arrayValue.empty())
      newline(depth);
    out += ']';
    break;
  case Kind::Object:
    out += '{';
    for (size_t i = 0; i < objectValue.size(); ++i) {
      if (i)
        out += ',';
      newline(depth + 1);
      escapeString(out, objectValue[i].first);
      out += indent < 0 ? ":" : ": ";
      objectValue[i].second.dumpTo(out, indent, depth + 1);
    }
    if (!objectValue.empty())
      newline(depth);
    out += '}';
    break;
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dumpTo(out, indent, 0);
  return out;
}

namespace {
class Parser {
public:
  Parser(const std::string &text, const std::string &what) : s(text), what(what) {}

  Json parseDocument() {
    skipSpace();
    Json v = parseValue(0);
    skipSpace();
    if (pos != s.size())
      fail("trailing characters after the JSON value");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string &msg) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < s.size(); ++i) {
      if (s[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw JsonError(what + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
  }
  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }
  bool consume(const char *lit) {
    size_t n = std::strlen(lit);
    if (s.compare(pos, n, lit) == 0) {
      pos += n;
      return true;
    }
    return false;
  }
  Json parseValue(int depth) {
    if (depth > 256)
      fail("nesting too deep");
    if (pos >= s.size())
      fail("unexpected end of input");
    char c = s[pos];
    if (c == '{')
      return parseObject(depth);
    if (c == '[')
      return parseArray(depth);
    if (c == '"')
      return Json(parseString());
    if (consume("true"))
      return Json(true);
    if (consume("false"))
      return Json(false);
    if (consume("null"))
      return Json();
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber();
    fail(std::string("unexpected character '") + c + "'");
  }
  Json parseObject(int depth) {
    ++pos;
    Json obj = Json::object();
    skipSpace();
    if (pos < s.size() && s[pos] == '}') {
      ++pos;
      return obj;
    }
    while (true) {
      skipSpace();
      if (pos >= s.size() || s[pos] != '"')
        fail("expected a string key");
      std::string key = parseString();
      if (obj.has(key))
        fail("duplicate key '" + key + "'");
      skipSpace();
      if (pos >= s.size() || s[pos] != ':')
        fail("expected ':' after key '" + key + "'");
      ++pos;
      skipSpace();
      obj.set(key, parseValue(depth + 1));
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == '}') {
        ++pos;
        return obj;
      }
      fail("expected ',' or '}' in object");
    }
  }
  Json parseArray(int depth) {
    ++pos;
    Json arr = Json::array();
    skipSpace();
    if (pos < s.size() && s[pos] == ']') {
      ++pos;
      return arr;
    }
    while (true) {
      skipSpace();
      arr.push(parseValue(depth + 1));
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == ']') {
        ++pos;
        return arr;
      }
      fail("expected ',' or ']' in array");
    }
  }
  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  uint32_t parseHex4() {
    if (pos + 4 > s.size())
      fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s[pos++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        fail("bad hex digit in \\u escape");
    }
    return v;
  }
  std::string parseString() {
    ++pos; // opening quote
    std::string out;
    while (true) {
      if (pos >= s.size())
        fail("unterminated string");
      char c = s[pos++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= s.size())
        fail("unterminated escape");
      char e = s[pos++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp = parseHex4();
        if (cp >= 0xD800 && cp < 0xDC00 && s.compare(pos, 2, "\\u") == 0) {
          pos += 2;
          uint32_t lo = parseHex4();
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default: fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }
  Json parseNumber() {
    size_t start = pos;
    bool isDouble = false;
    if (s[pos] == '-')
      ++pos;
    while (pos < s.size()) {
      char c = s[pos];
      if (c >= '0' && c <= '9') {
        ++pos;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        isDouble = true;
        ++pos;
      } else {
        break;
      }
    }
    std::string tok = s.substr(start, pos - start);
    char *end = nullptr;
    errno = 0;
    if (!isDouble) {
      long long v = std::strtoll(tok.c_str(), &end, 10);
      if (*end == 0 && errno == 0)
        return Json(v);
    }
    errno = 0;
    double d = std::strtod(tok.c_str(), &end);
    if (*end != 0 || tok.empty() || tok == "-")
      fail("bad number '" + tok + "'");
    return Json(d);
  }

  const std::string &s;
  std::string what;
  size_t pos = 0;
};
} // namespace

Json Json::parse(const std::string &text, const std::string &what) {
  return Parser(text, what).parseDocument();
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    throw std::runtime_error("cannot read '" + path + "'");
  return ss.str();
}

void writeFile(const std::string &path, const std::string &contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw std::runtime_error("cannot create '" + path + "': " + std::strerror(errno));
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out)
    throw std::runtime_error("cannot write '" + path + "'");
}

Json parseJsonFile(const std::string &path) { return Json::parse(readFile(path), path); }

void checkObjectKeys(const Json &obj, const std::vector<std::string> &allowed, const std::string &path,
                     const std::string &where) {
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
      throw std::runtime_error(at + "unknown key '" + kv.first + "' (allowed: " + list + ")");
    }
}

} // namespace atrex::rt
