//===- atrex-ref.cpp - Write and check operator reference tensors ---------===//
//
//   atrex-ref --list | --list-json
//   atrex-ref --op NAME --signature
//   atrex-ref --op NAME --shape K=V,... --seed N --out DIR [--device cpu|cuda]
//   atrex-ref --op NAME --check REFDIR --candidate DIR
//
// Exit status: 0 success / match, 1 mismatch, 2 usage or input error.
//
//===----------------------------------------------------------------------===//
#include "Cli.h"
#include "atrex-rt/OpSpecs.h"
#include "atrex-rt/Reference.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

using namespace atrex::rt;

static const char *const kUsage =
    "usage:\n"
    "  atrex-ref --list | --list-json\n"
    "  atrex-ref --op NAME --signature\n"
    "  atrex-ref --op NAME --shape K=V,... --seed N --out DIR [--device "
    "cpu|cuda]\n"
    "  atrex-ref --op NAME --check REFDIR --candidate DIR\n"
    "  atrex-ref --validate PROBLEMS.json [--seed N] [--device cpu|cuda]\n"
    "      suite validity: one JSON line per problem of PROBLEMS.json (an "
    "object\n"
    "      with a \"problems\" array of {id?, operator, shape}, e.g. a sealed\n"
    "      bundle); exit 1 when a problem is invalid\n";
static void usage() { std::cerr << kUsage; }

int main(int argc, char **argv) {
  std::string op, shapeText, out, device = "cpu", checkDir, candDir,
                                  validatePath;
  uint64_t seed = 0;
  bool haveSeed = false, list = false, listJson = false, signature = false;
  std::string seedText;
  // CLI11 as every runtime tool reads it (tools/Cli.h); the usage above is the
  // reference.
  CLI::App app;
  cli::configure(app);
  app.add_flag("--list", list);
  app.add_flag("--list-json", listJson);
  app.add_flag("--signature", signature);
  app.add_option("--op", op);
  app.add_option("--shape", shapeText);
  app.add_option("--seed", seedText);
  app.add_option("--out", out);
  app.add_option("--device", device);
  app.add_option("--check", checkDir);
  app.add_option("--candidate", candDir);
  app.add_option("--validate", validatePath);
  cli::Leftover left;
  if (auto rc = cli::parse(app, argc, argv, 1, "atrex-ref", kUsage, kUsage,
                           left, std::cerr))
    return *rc;
  if (!left.unknown.empty() || left.sawDashDash) {
    std::cerr << "atrex-ref: unknown argument '"
              << (left.unknown.empty() ? "--" : left.unknown.front()) << "'\n";
    usage();
    return 2;
  }
  if (app.count("--seed")) {
    char *end = nullptr;
    seed = std::strtoull(seedText.c_str(), &end, 10);
    if (seedText.empty() || *end) {
      std::cerr << "atrex-ref: --seed '" << seedText
                << "' is not a non-negative integer\n";
      return 2;
    }
    haveSeed = true;
  }

  try {
    if (listJson) {
      Json ops = Json::array();
      for (const OpSpec &s : allOpSpecs()) {
        Json o = Json::object();
        o.set("name", s.name);
        o.set("summary", s.summary);
        Json keys = Json::array();
        for (const auto &k : s.shapeKeys)
          keys.push(k);
        o.set("shape_keys", keys);
        o.set("key_doc", s.keyDoc);
        o.set("example_shape", shapeToJson(s.exampleShape));
        o.set("signature", s.signature());
        Json outs = Json::object();
        for (const ArgSpec &a : s.args)
          if (a.kind == ArgKind::OutTensor || a.kind == ArgKind::InOutTensor) {
            Json t = a.tol.toJson();
            t.set("dtype", dtypeName(a.dtype));
            outs.set(OpSpec::outputName(a), t);
          }
        o.set("outputs", outs);
        ops.push(o);
      }
      std::cout << ops.dump(2) << "\n";
      return 0;
    }
    if (!validatePath.empty()) {
      Json doc = parseJsonFile(validatePath);
      const Json *problems = doc.isObject() ? doc.get("problems") : nullptr;
      if (!problems || !problems->isArray()) {
        std::cerr << "atrex-ref: error: " << validatePath
                  << ": expected an object with a \"problems\" array\n";
        return 2;
      }
      size_t n = 0, invalid = 0;
      for (const Json &p : problems->asArray()) {
        ++n;
        Json line = Json::object();
        std::string id =
            p.isObject() && p.get("id") ? p.getString("id", "") : "";
        line.set("id", id.empty() ? Json("#" + std::to_string(n)) : Json(id));
        auto t0 = std::chrono::steady_clock::now();
        try {
          std::string name = p.getString("operator", "");
          const OpSpec *s = findOpSpec(name);
          if (!s)
            throw std::runtime_error("unknown operator '" + name + "'");
          line.set("operator", name);
          const Json *sj = p.get("shape");
          if (!sj)
            throw std::runtime_error("no shape");
          ShapeMap shape = shapeFromJson(*s, *sj);
          line.set("shape", shapeToJson(shape));
          Json v = validateProblem(*s, shape, haveSeed ? seed : 1, device);
          for (const auto &kv : v.asObject())
            line.set(kv.first, kv.second);
        } catch (const std::exception &e) {
          line.set("ok", false);
          Json reasons = Json::array();
          reasons.push(std::string("error: ") + e.what());
          line.set("reasons", reasons);
        }
        line.set("seconds", std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - t0)
                                .count());
        if (!line.get("ok")->asBool()) {
          ++invalid;
          std::cerr << "atrex-ref: " << validatePath << ": problem "
                    << line.get("id")->dump()
                    << " is invalid: " << line.get("reasons")->dump() << "\n";
        }
        std::cout << line.dump() << "\n" << std::flush;
      }
      std::cerr << "atrex-ref: " << n - invalid << " of " << n
                << " problems valid\n";
      return invalid ? 1 : 0;
    }
    if (list) {
      for (const OpSpec &s : allOpSpecs()) {
        std::cout << s.name << "\n  keys: " << s.keyDoc
                  << "\n  example: --shape " << shapeMapToString(s.exampleShape)
                  << "\n  entry: " << s.signature() << "\n";
      }
      return 0;
    }
    if (op.empty()) {
      std::cerr << "atrex-ref: --op NAME is required (known: " << knownOpNames()
                << ")\n";
      return 2;
    }
    const OpSpec *spec = findOpSpec(op);
    if (!spec) {
      std::cerr << "atrex-ref: unknown operator '" << op
                << "' (known: " << knownOpNames() << ")\n";
      return 2;
    }
    if (signature) {
      std::cout << spec->signature() << "\n";
      return 0;
    }
    if (!checkDir.empty() || !candDir.empty()) {
      if (checkDir.empty() || candDir.empty()) {
        std::cerr << "atrex-ref: --check REFDIR needs --candidate DIR (and "
                     "vice versa)\n";
        return 2;
      }
      TensorDir ref = readTensorDir(checkDir);
      TensorDir cand = readTensorDir(candDir);
      if (!ref.op.empty() && ref.op != op) {
        std::cerr << "atrex-ref: " << checkDir
                  << "/tensors.json is for operator '" << ref.op << "', not '"
                  << op << "'\n";
        return 2;
      }
      Json report = checkTensorDirs(*spec, ref, cand);
      std::cout << report.dump(2) << "\n";
      return report.get("ok")->asBool() ? 0 : 1;
    }
    if (out.empty() || shapeText.empty() || !haveSeed) {
      std::cerr << "atrex-ref: generating needs --shape, --seed and --out\n";
      usage();
      return 2;
    }
    ShapeMap shape = parseShape(*spec, shapeText);
    TensorDir td = makeReferenceDir(*spec, shape, seed, device);
    writeTensorDir(out, td);
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "atrex-ref: error: " << e.what() << "\n";
    return 2;
  }
}
