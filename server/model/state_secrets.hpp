#pragma once
// The secrets of a whole-state dump (GET /_sim/state), masked unless asked for: DESIGN.md gap
// decision "secrets in GET /_sim/state". A dump is often pasted into a bug report or a CI log; the
// keys and webhook secrets in it would let anyone who reads it act as the accounts.
#include <optional>
#include <string>

#include "core/json.hpp"

namespace emsim::model {

// What a masked secret reads as. Not a value any secret takes, so a masked dump loaded back is
// recognised (FindMaskedSecret) instead of replacing real keys with it.
inline constexpr const char* kMaskedSecret = "<masked>";

// Replaces every secret of a DumpState document with kMaskedSecret: accounts[].apiKey,
// webhookEndpoints[].secret, thirdPartyAccounts[].passwordFingerprint, faults[].apiKey.
// Answers how many were masked.
size_t MaskSecrets(json& dump);

// The first secret field of a dump that holds kMaskedSecret ("accounts[0].apiKey"), if any.
std::optional<std::string> FindMaskedSecret(const json& dump);

// The same secrets wherever else the control plane shows JSON it was sent or answered (the request
// journal: a state dump PUT with its secrets, a fault's apiKey, a webhook endpoint's secret in the
// answer that created it): every non-empty string under a key that names a secret field above
// ("apiKey", "secret", "passwordFingerprint"), at any depth, becomes kMaskedSecret. Walks with an
// explicit stack. Answers how many were masked.
size_t MaskSecretValues(json& value);

}  // namespace emsim::model
