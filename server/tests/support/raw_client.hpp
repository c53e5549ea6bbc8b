#pragma once
// A client connection that speaks raw bytes to a server on loopback (the transport tests): what
// a client sends exactly, and each answer as the bytes that came. A receive timeout only makes a
// regression fail instead of hanging; no test waits on it to pass.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace emsim::testing {

// A client connection that speaks raw bytes.
class RawClient {
 public:
  explicit RawClient(int port, int receive_timeout_ms = 5000) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{receive_timeout_ms / 1000, (receive_timeout_ms % 1000) * 1000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawClient() { Close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  RawClient(RawClient&& o) noexcept : fd_(o.fd_), connected_(o.connected_), pending_(std::move(o.pending_)) { o.fd_ = -1; }

  bool connected() const { return connected_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool Send(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  // One complete answer (head + Content-Length body); "" when the connection ended or timed out first.
  std::string ReadAnswer() {
    for (;;) {
      const size_t head_end = pending_.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        size_t length = 0;
        const std::string head = Lower(pending_.substr(0, head_end));
        if (auto p = head.find("content-length:"); p != std::string::npos) length = std::stoul(head.substr(p + 15));
        if (pending_.size() >= head_end + 4 + length) {
          std::string answer = pending_.substr(0, head_end + 4 + length);
          pending_.erase(0, answer.size());
          return answer;
        }
      }
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return {};
      pending_.append(buf, static_cast<size_t>(n));
    }
  }
  // True when nothing more has come yet (checked without waiting).
  bool NothingYet() {
    if (!pending_.empty()) return false;
    char c;
    return ::recv(fd_, &c, 1, MSG_DONTWAIT | MSG_PEEK) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  // True when the server closed the connection (EOF) before sending anything more.
  bool ClosedByServer() {
    if (!pending_.empty()) return false;
    char c;
    return ::recv(fd_, &c, 1, 0) == 0;
  }

 private:
  static std::string Lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  int fd_ = -1;
  bool connected_ = false;
  std::string pending_;
};

// The status code of an answer RawClient read ("HTTP/1.1 200 ..."); 0 when there is none.
inline int StatusOf(const std::string& answer) { return answer.size() > 12 ? std::atoi(answer.c_str() + 9) : 0; }

}  // namespace emsim::testing
