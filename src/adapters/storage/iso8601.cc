#include "adapters/storage/iso8601.h"

#include <ctime>

namespace batlehub::adapters {

std::string format_iso8601(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<std::chrono::system_clock::time_point> parse_iso8601(std::string_view s) {
  auto num = [&](std::size_t pos, std::size_t n) -> int {
    if (pos + n > s.size()) return -1;
    int v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(5, 2) - 1;
  tm.tm_mday = num(8, 2);
  tm.tm_hour = num(11, 2);
  tm.tm_min = num(14, 2);
  tm.tm_sec = num(17, 2);
  // system_clock counts nanoseconds: a year far from now would overflow it.
  if (tm.tm_year < 70 || tm.tm_year > 300 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
      tm.tm_hour < 0 || tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  std::size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t digits = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == digits || i - digits > 9) return std::nullopt;
  }
  // The fraction is dropped: a second early is the safe side of an expiry.
  long offset = 0;
  const std::string_view zone = s.substr(i);
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    const int hh = num(i + 1, 2), mm = num(i + 4, 2);
    if (hh < 0 || hh > 23 || mm < 0 || mm > 59) return std::nullopt;
    offset = (zone[0] == '+' ? 1 : -1) * (hh * 3600L + mm * 60L);
  } else {
    return std::nullopt;
  }
  return std::chrono::system_clock::from_time_t(timegm(&tm) - offset);
}


}  // namespace batlehub::adapters
