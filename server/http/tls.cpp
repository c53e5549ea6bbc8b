#include "http/tls.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <stdexcept>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace emsim::http {

namespace {

std::string OpenSslReason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown reason";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct FileClose {
  void operator()(FILE* f) const { std::fclose(f); }
};

void AddExtension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) throw std::runtime_error("cannot make the certificate's extension " + std::string(value) + ": " + OpenSslReason());
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace

void SslCtxFree::operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }

TlsContext MakeServerContext(const std::string& cert_file, const std::string& key_file) {
  TlsContext ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) throw std::runtime_error("TLS: " + OpenSslReason());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // Writes may be retried with another buffer address after SSL_ERROR_WANT_WRITE (SendAll's).
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1)
    throw std::runtime_error("--tls-cert " + cert_file + ": " + OpenSslReason());
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    throw std::runtime_error("--tls-key " + key_file + ": " + OpenSslReason());
  if (SSL_CTX_check_private_key(ctx.get()) != 1)
    throw std::runtime_error("--tls-key " + key_file + " is not the key of --tls-cert " + cert_file);
  return ctx;
}

void WriteSelfSignedCertificate(const std::string& cert_file, const std::string& key_file) {
  std::unique_ptr<EVP_PKEY, PkeyFree> key(EVP_EC_gen("P-256"));
  if (!key) throw std::runtime_error("cannot make a key: " + OpenSslReason());
  std::unique_ptr<X509, X509Free> cert(X509_new());
  X509_set_version(cert.get(), 2);  // v3
  // A random serial: two certificates of two runs must not share issuer and serial (browsers
  // and some clients refuse that).
  unsigned char serial[16];
  FILE* urandom = std::fopen("/dev/urandom", "rb");
  if (!urandom || std::fread(serial, 1, sizeof serial, urandom) != sizeof serial) {
    if (urandom) std::fclose(urandom);
    throw std::runtime_error("cannot read /dev/urandom for the certificate's serial");
  }
  std::fclose(urandom);
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);  // an hour of slack for clocks behind ours
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("emsim"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  AddExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(cert.get(), NID_subject_key_identifier, "hash");
  AddExtension(cert.get(), NID_authority_key_identifier, "keyid:always");
  AddExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign");
  AddExtension(cert.get(), NID_ext_key_usage, "serverAuth");
  AddExtension(cert.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0) throw std::runtime_error("cannot sign the certificate: " + OpenSslReason());

  const int key_fd = ::open(key_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (key_fd < 0) throw std::runtime_error("cannot write the TLS key " + key_file);
  std::unique_ptr<FILE, FileClose> key_out(::fdopen(key_fd, "wb"));
  if (!key_out) {
    ::close(key_fd);
    throw std::runtime_error("cannot write the TLS key " + key_file);
  }
  std::unique_ptr<FILE, FileClose> cert_out(std::fopen(cert_file.c_str(), "wb"));
  if (!cert_out) throw std::runtime_error("cannot write the TLS certificate " + cert_file);
  if (PEM_write_PrivateKey(key_out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      PEM_write_X509(cert_out.get(), cert.get()) != 1 || std::fflush(key_out.get()) != 0 || std::fflush(cert_out.get()) != 0)
    throw std::runtime_error("cannot write the TLS certificate " + cert_file + " or its key " + key_file);
}

}  // namespace emsim::http
