#pragma once
// TLS for the serving side (--tls-cert/--tls-key, --tls-self-signed): an OpenSSL server context
// from PEM files, and a self-signed certificate for localhost made at start, for clients that
// insist on https:// base URLs. The connection loop (connection.cpp) speaks TLS over it.
#include <memory>
#include <string>

typedef struct ssl_ctx_st SSL_CTX;

namespace emsim::http {

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const;
};
using TlsContext = std::unique_ptr<SSL_CTX, SslCtxFree>;

// TLS 1.2 and up with the certificate chain and key of these PEM files; throws
// std::runtime_error naming the file and OpenSSL's reason when one cannot be used.
TlsContext MakeServerContext(const std::string& cert_file, const std::string& key_file);

// Writes a new self-signed certificate (EC P-256, one year from now, subject CN=localhost,
// subjectAltName DNS:localhost, IP:127.0.0.1, IP:::1) and its key as PEM files. The certificate
// is its own CA (basicConstraints CA:TRUE, as `openssl req -x509` makes it), so a client trusts
// it by naming the file as its CA (curl --cacert FILE). The key file is created 0600. Throws
// std::runtime_error when a file cannot be written.
void WriteSelfSignedCertificate(const std::string& cert_file, const std::string& key_file);

}  // namespace emsim::http
