// A gzip stream (RFC 1952, zlib's deflate with a gzip header) made a piece at a time: what a
// .pgn.gz export writes, each piece handed on as soon as it is made.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sparring::coordinator {

class GzipStream {
  public:
    GzipStream();
    ~GzipStream();
    GzipStream(const GzipStream&) = delete;
    GzipStream& operator=(const GzipStream&) = delete;

    // Compresses bytes, appending what deflate gives out so far to *out.
    void write(std::string_view bytes, std::string* out);
    // Appends whatever the bytes written so far still hold back to *out, so that a reader can
    // decompress all of it now (a sync flush), and the stream goes on.
    void flush(std::string* out);
    // Ends the stream (the rest, and gzip's trailer) onto *out; nothing may be written after.
    void finish(std::string* out);

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// Returns the bytes of a whole gzip stream (one member), or nullopt if it is damaged or cut.
std::optional<std::string> gunzip(std::string_view stream);

}  // namespace sparring::coordinator
