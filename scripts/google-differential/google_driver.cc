// Batch driver for Google's robots.txt library (github.com/google/robotstxt), used by the
// differential check in this directory (see README.md there). It reads a stream of records on
// standard input and answers every check on standard output, one line each, so that millions of
// checks run in one process.
//
// Input records: a tag byte, a little-endian u32 length, then that many payload bytes.
//   'R'  the robots.txt body that the following checks use
//   'A'  clears the list of user agents (payload empty)
//   'a'  appends one user agent to the list
//   'U'  a URL: checks it against the current body and agents, prints one line
//
// Output line per 'U': `<allowed> <line> <path length> <path hash>`.
//   allowed      1 or 0, `AllowedByRobots` with the whole agent list
//   line         the deciding rule's line, or 0 when no rule of positive length decided: the
//                library reports the line of an empty (priority 0) pattern too, which decides
//                nothing, and the engine reports no rule there
//   path length  length of `GetPathParamsQuery(url)`, and its 64-bit FNV-1a hash in hex, so the
//                caller can check its own URL-to-path step separately from the verdict
//
// A URL holding a NUL byte is cut there by the library (it keeps the path as a C string); the
// generator never sends one.

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "robots.h"

namespace googlebot {
// Defined in robots.cc, outside its anonymous namespace, but not declared in robots.h.
std::string GetPathParamsQuery(const std::string& url);
}  // namespace googlebot

namespace {

// Exposes the winning match's priority, which `matching_line()` does not give.
class ProbingMatcher : public googlebot::RobotsMatcher {
 public:
  // The line of the rule that decided, or 0 when the deciding priority is not positive.
  int deciding_line() const {
    const Match& allow = ever_seen_specific_agent_ ? allow_.specific : allow_.global;
    const Match& disallow = ever_seen_specific_agent_ ? disallow_.specific : disallow_.global;
    const Match& winner = Match::HigherPriorityMatch(disallow, allow);
    return winner.priority() > 0 ? winner.line() : 0;
  }
};

bool ReadRecord(char* tag, std::string* payload) {
  int first = std::getchar();
  if (first == EOF) return false;
  unsigned char size_bytes[4];
  if (std::fread(size_bytes, 1, 4, stdin) != 4) return false;
  uint32_t size = size_bytes[0] | (size_bytes[1] << 8) | (size_bytes[2] << 16) |
                  (static_cast<uint32_t>(size_bytes[3]) << 24);
  payload->resize(size);
  if (size > 0 && std::fread(&(*payload)[0], 1, size, stdin) != size) return false;
  *tag = static_cast<char>(first);
  return true;
}

uint64_t Fnv1a(const std::string& bytes) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string body;
  std::vector<std::string> agents;
  std::string payload;
  char tag;
  ProbingMatcher matcher;
  while (ReadRecord(&tag, &payload)) {
    switch (tag) {
      case 'R':
        body.swap(payload);
        break;
      case 'A':
        agents.clear();
        break;
      case 'a':
        agents.push_back(payload);
        break;
      case 'U': {
        bool allowed = matcher.AllowedByRobots(body, &agents, payload);
        std::string path = googlebot::GetPathParamsQuery(payload);
        std::printf("%d %d %zu %016llx\n", allowed ? 1 : 0, matcher.deciding_line(),
                    path.size(), static_cast<unsigned long long>(Fnv1a(path)));
        break;
      }
      default:
        std::fprintf(stderr, "unknown record tag %d\n", tag);
        return 2;
    }
  }
  return std::ferror(stdin) ? 1 : 0;
}
