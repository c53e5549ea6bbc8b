#include "api/exports.hpp"

#include <openssl/evp.h>

#include "model/exports.hpp"
#include "core/messages.hpp"
#include "core/text.hpp"

namespace emsim::api {
namespace {

// An optional array of strings; null or absent: empty (schema checked the types).
std::vector<std::string> Strings(const json& body, const char* key) {
  if (!body.contains(key) || body[key].is_null()) return {};
  return body[key].get<std::vector<std::string>>();
}

// An optional string; null or absent: "".
std::string String(const json& body, const char* key) {
  return body.contains(key) && body[key].is_string() ? body[key].get<std::string>() : std::string();
}

}  // namespace

std::string PasswordFingerprint(const std::string& account_id, const std::string& app, const std::string& email,
                                std::string_view password) {
  const std::string salted = "emsim-third-party|" + account_id + "|" + app + "|" + model::ToLower(email) + "|" +
                             std::string(password);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(salted.data(), salted.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 0xf];
  }
  return out;
}

app::Reply ExportMailboxes(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // shape checked by schemas/requests/exports.export_mailboxes.json
  model::ExportRequest in;
  in.apps = b.at("apps").get<std::vector<std::string>>();
  in.ids = Strings(b, "ids");
  in.excludeIds = Strings(b, "excludeIds");
  in.tagIds = Strings(b, "tagIds");
  in.contains = String(b, "contains");
  in.status = String(b, "status");
  for (const char* key : {"apps", "ids", "excludeIds", "tagIds", "contains", "status"})
    if (b.contains(key)) in.filters[key] = b[key];
  auto started = ctx.Write([&](model::State& s) { return model::StartExport(s, ctx.caller, in, ctx.now); });
  if (!started) return started.error();
  return app::Envelope(model::msg::kExportStarted, nullptr);
}

app::Reply UpdateThirdPartyAccount(app::Ctx& ctx) {
  const json& b = ctx.req.body;  // shape checked by schemas/requests/exports.update_third_party_account.json
  model::ThirdPartyCredentials in;
  in.app = b.at("app");
  in.email = b.at("email");
  in.passwordFingerprint =
      PasswordFingerprint(ctx.caller.accountId, in.app, in.email, b.at("password").get_ref<const std::string&>());
  auto done = ctx.Write(
      [&](model::State& s) { return model::UpdateThirdPartyAccount(s, ctx.caller, in, ctx.now); });
  if (!done) return done.error();
  return app::Envelope(model::msg::kThirdPartyAccountUpdated, nullptr);
}

}  // namespace emsim::api
