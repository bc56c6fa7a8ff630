//===- TensorDir.cpp - The tensor directory format ------------------------===//
#include "atrex-rt/TensorDir.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace atrex::rt {
namespace fs = std::filesystem;

namespace {
struct DTypeInfo {
  DType dtype;
  const char *name;
  size_t size;
  bool floating;
};
const DTypeInfo kDTypes[] = {
    {DType::F64, "f64", 8, true},       {DType::F32, "f32", 4, true},
    {DType::F16, "f16", 2, true},       {DType::BF16, "bf16", 2, true},
    {DType::F8E4M3, "f8e4m3", 1, true}, {DType::F8E5M2, "f8e5m2", 1, true},
    {DType::I64, "i64", 8, false},      {DType::I32, "i32", 4, false},
    {DType::I16, "i16", 2, false},      {DType::I8, "i8", 1, false},
    {DType::U8, "u8", 1, false},        {DType::Bool, "bool", 1, false},
};
const DTypeInfo &info(DType d) {
  for (const auto &i : kDTypes)
    if (i.dtype == d)
      return i;
  throw std::logic_error("unknown dtype");
}
} // namespace

const char *dtypeName(DType dtype) { return info(dtype).name; }
size_t dtypeSize(DType dtype) { return info(dtype).size; }
bool isFloating(DType dtype) { return info(dtype).floating; }
std::optional<DType> parseDType(const std::string &name) {
  for (const auto &i : kDTypes)
    if (name == i.name)
      return i.dtype;
  return std::nullopt;
}

double decodeBF16(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
double decodeF16(uint16_t bits) {
  int sign = (bits >> 15) & 1, exp = (bits >> 10) & 0x1f, man = bits & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(man, -24);
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = std::ldexp(1024 + man, exp - 25);
  return sign ? -v : v;
}
double decodeF8E4M3(uint8_t bits) {
  int sign = (bits >> 7) & 1, exp = (bits >> 3) & 0xf, man = bits & 0x7;
  double v;
  if (exp == 15 && man == 7)
    v = NAN;
  else if (exp == 0)
    v = std::ldexp(man, -9);
  else
    v = std::ldexp(8 + man, exp - 10);
  return sign ? -v : v;
}
double decodeF8E5M2(uint8_t bits) {
  int sign = (bits >> 7) & 1, exp = (bits >> 2) & 0x1f, man = bits & 0x3;
  double v;
  if (exp == 31)
    v = man ? NAN : INFINITY;
  else if (exp == 0)
    v = std::ldexp(man, -16);
  else
    v = std::ldexp(4 + man, exp - 17);
  return sign ? -v : v;
}

int64_t RawTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<double> RawTensor::toDoubles() const {
  size_t n = static_cast<size_t>(numel());
  std::vector<double> out(n);
  const uint8_t *p = data.data();
  auto load = [&](auto tag, size_t i) {
    decltype(tag) v;
    std::memcpy(&v, p + i * sizeof(v), sizeof(v));
    return v;
  };
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
    case DType::F64:
      out[i] = load(double(), i);
      break;
    case DType::F32:
      out[i] = load(float(), i);
      break;
    case DType::F16:
      out[i] = decodeF16(load(uint16_t(), i));
      break;
    case DType::BF16:
      out[i] = decodeBF16(load(uint16_t(), i));
      break;
    case DType::F8E4M3:
      out[i] = decodeF8E4M3(p[i]);
      break;
    case DType::F8E5M2:
      out[i] = decodeF8E5M2(p[i]);
      break;
    case DType::I64:
      out[i] = static_cast<double>(load(int64_t(), i));
      break;
    case DType::I32:
      out[i] = load(int32_t(), i);
      break;
    case DType::I16:
      out[i] = load(int16_t(), i);
      break;
    case DType::I8:
      out[i] = static_cast<int8_t>(p[i]);
      break;
    case DType::U8:
      out[i] = p[i];
      break;
    case DType::Bool:
      out[i] = p[i] ? 1 : 0;
      break;
    }
  }
  return out;
}

const RawTensor *TensorDir::find(const std::string &name) const {
  for (const auto &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

static bool isSafeFileName(const std::string &f) {
  if (f.empty() || f == "." || f == "..")
    return false;
  for (char c : f)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
          c == '.'))
      return false;
  return true;
}

TensorDir readTensorDir(const std::string &dir) {
  std::string metaPath = (fs::path(dir) / "tensors.json").string();
  Json meta = parseJsonFile(metaPath);
  TensorDir td;
  try {
    if (!meta.isObject())
      throw JsonError("top level must be an object");
    td.op = meta.getString("operator", "");
    if (const Json *s = meta.get("shape"))
      td.shape = *s;
    td.seed = meta.getInt("seed", 0);
    const Json *tensors = meta.get("tensors");
    if (!tensors || !tensors->isArray())
      throw JsonError("missing array 'tensors'");
    std::set<std::string> names;
    for (const Json &jt : tensors->asArray()) {
      RawTensor t;
      t.name = jt.getString("name", "");
      if (t.name.empty())
        throw JsonError("a tensor has no 'name'");
      if (!names.insert(t.name).second)
        throw JsonError("duplicate tensor name '" + t.name + "'");
      t.role = jt.getString("role", "");
      if (t.role != "input" && t.role != "output")
        throw JsonError("tensor '" + t.name +
                        "': role must be 'input' or 'output', got '" + t.role +
                        "'");
      std::string dt = jt.getString("dtype", "");
      auto d = parseDType(dt);
      if (!d)
        throw JsonError("tensor '" + t.name + "': unknown dtype '" + dt + "'");
      t.dtype = *d;
      const Json *shape = jt.get("shape");
      if (!shape || !shape->isArray())
        throw JsonError("tensor '" + t.name + "': missing array 'shape'");
      for (const Json &e : shape->asArray()) {
        int64_t v = e.asInt();
        if (v < 0)
          throw JsonError("tensor '" + t.name + "': negative dimension");
        t.shape.push_back(v);
      }
      t.alias = jt.getString("alias", "");
      std::string file = jt.getString("file", t.name + ".bin");
      if (!isSafeFileName(file))
        throw JsonError("tensor '" + t.name + "': file name '" + file +
                        "' must be a plain name inside the directory");
      std::string path = (fs::path(dir) / file).string();
      std::string bytes = readFile(path);
      if (bytes.size() != t.byteSize())
        throw std::runtime_error(
            path + ": holds " + std::to_string(bytes.size()) +
            " bytes, but tensor '" + t.name + "' (" + dt + " " +
            shapeToString(t.shape) + ") needs " + std::to_string(t.byteSize()));
      t.data.assign(bytes.begin(), bytes.end());
      td.tensors.push_back(std::move(t));
    }
    for (const auto &t : td.tensors)
      if (!t.alias.empty()) {
        const RawTensor *a = td.find(t.alias);
        if (!a || a->role != "input")
          throw JsonError("tensor '" + t.name + "': alias '" + t.alias +
                          "' is not an input");
      }
  } catch (const JsonError &e) {
    throw std::runtime_error(metaPath + ": " + e.what());
  }
  return td;
}

void writeTensorDir(const std::string &dir, const TensorDir &td) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error("cannot create directory '" + dir +
                             "': " + ec.message());
  Json meta = Json::object();
  meta.set("operator", td.op);
  meta.set("shape", td.shape);
  meta.set("seed", td.seed);
  Json tensors = Json::array();
  for (const auto &t : td.tensors) {
    if (t.data.size() != t.byteSize())
      throw std::logic_error("tensor '" + t.name +
                             "': data size does not match its shape");
    Json jt = Json::object();
    jt.set("name", t.name);
    jt.set("role", t.role);
    jt.set("dtype", dtypeName(t.dtype));
    Json shape = Json::array();
    for (int64_t d : t.shape)
      shape.push(d);
    jt.set("shape", shape);
    jt.set("file", t.name + ".bin");
    if (!t.alias.empty())
      jt.set("alias", t.alias);
    tensors.push(jt);
    std::string path = (fs::path(dir) / (t.name + ".bin")).string();
    writeFile(path, std::string(t.data.begin(), t.data.end()));
  }
  meta.set("tensors", tensors);
  writeFile((fs::path(dir) / "tensors.json").string(), meta.dump(2) + "\n");
}

} // namespace atrex::rt
