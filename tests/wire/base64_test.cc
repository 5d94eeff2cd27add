#include "wire/base64.h"

#include <gtest/gtest.h>

namespace batlehub::wire {
namespace {

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (auto [plain, enc] : vectors) {
    EXPECT_EQ(base64_encode(plain), enc);
    auto d = base64_decode(enc);
    ASSERT_TRUE(d) << enc;
    EXPECT_EQ(*d, plain);
    EXPECT_EQ(base64_decoded_size(enc), std::string(plain).size());
  }
}

TEST(Base64, RoundTripsEveryByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  auto d = base64_decode(base64_encode(all));
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, all);
}

TEST(Base64, RefusesMalformedInput) {
  for (const char* bad : {"Zg=", "Z===", "Zm9v!", "Zg==Zg==", "=Zg=", "Zm=v", "Zm9\n"}) {
    EXPECT_FALSE(base64_decode(bad)) << bad;
  }
}

}  // namespace
}  // namespace batlehub::wire
