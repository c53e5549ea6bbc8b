#pragma once
#include <string>
#include <string_view>

#include "app/types.hpp"

namespace emsim::api {
app::Reply ExportMailboxes(app::Ctx& ctx);           // exports.export_mailboxes  POST /v1/exports/export-mailboxes
app::Reply UpdateThirdPartyAccount(app::Ctx& ctx);   // exports.update_third_party_account  POST /v1/exports/update-third-party-account

// "sha256:<hex>" of the password salted with who it belongs to. The model cannot link OpenSSL,
// so the digest is made here and the password goes no further than this layer.
std::string PasswordFingerprint(const std::string& account_id, const std::string& app, const std::string& email,
                                std::string_view password);
}  // namespace emsim::api
