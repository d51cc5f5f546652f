package dev.resilience.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.WindowAlgorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisKeysTests {

	private static final RateLimiterSettings EVERYTHING = RateLimiterSettings.builder()
		.window(5, Duration.ofSeconds(1))
		.window(50, Duration.ofSeconds(10))
		.maxConcurrent(2, Duration.ofMinutes(1))
		.build();

	@Test
	void keysShareOneTagAfterThePrefixAndTheLimiterName() {
		RedisKeys keys = new RedisKeys("app:", "partner-api", EVERYTHING);
		String tag = keys.tag("customer-1");
		assertThat(names(keys.keys("customer-1"))).containsExactly("app:partner-api:{" + tag + "}:s",
				"app:partner-api:{" + tag + "}:w1", "app:partner-api:{" + tag + "}:w2", "app:partner-api:{" + tag + "}:l");
		assertThat(tag).hasSize(32).matches("[0-9a-f]+");
	}

	@Test
	void pauseKeyComesLastWhenADecisionTakesItAndSharesTheTag() {
		RedisKeys keys = new RedisKeys("app:", "partner-api", EVERYTHING);
		String tag = keys.tag("customer-1");
		assertThat(names(keys.keys("customer-1", true))).containsExactly("app:partner-api:{" + tag + "}:s",
				"app:partner-api:{" + tag + "}:w1", "app:partner-api:{" + tag + "}:w2", "app:partner-api:{" + tag + "}:l",
				"app:partner-api:{" + tag + "}:p");
		assertThat(names(keys.keys("customer-1", false))).isEqualTo(names(keys.keys("customer-1")));
		assertThat(names(keys.pauseKey("customer-1"))).containsExactly("app:partner-api:{" + tag + "}:p");
		assertThat(SlotHash.getSlot(keys.pauseKey("{customer-1}")[0])).isEqualTo(SlotHash.getSlot(keys.keys("{customer-1}")[0]));
	}

	@Test
	void tagIsTheFirstHalfOfSha256OverTheNamesLengthTheNameAndTheKeysCodeUnits() {
		// Pinned: keys written by an earlier version must be found by this one.
		RedisKeys keys = new RedisKeys("app:", "partner-api", EVERYTHING);
		assertThat(keys.tag("customer-1")).isEqualTo("4664bf38edbb956c92c88d5cde04cc0c");
		assertThat(keys.tag("a\ud800b")).isEqualTo("f1b0f672ac44a3b9a3b95650681b20c9");
	}

	@Test
	void counterWindowsLiveInTheStateHashAlone() {
		RedisKeys keys = new RedisKeys("p:", "n", RateLimiterSettings.builder()
			.window(5, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		assertThat(names(keys.keys("k"))).containsExactly("p:n:{" + keys.tag("k") + "}:s");
	}

	@Test
	void tagDependsOnTheLimiterAndEveryCodeUnitOfTheKey() {
		RedisKeys keys = new RedisKeys("p:", "n", EVERYTHING);
		List<String> userKeys = List.of("", "a", "b", "\uD800", "\uDC00", "?", "\uD800\uDC00", "a\u0000", "a\u0000\u0000",
				"{", "}", "x".repeat(10_240));
		Set<String> tags = new HashSet<>();
		userKeys.forEach((key) -> tags.add(keys.tag(key)));
		assertThat(tags).hasSize(userKeys.size());
		assertThat(new RedisKeys("p:", "m", EVERYTHING).tag("a")).isNotEqualTo(keys.tag("a"));
		// the separator keeps (limiter "ab", key "") apart from (limiter "a", key "b")
		assertThat(new RedisKeys("p:", "ab", EVERYTHING).tag("")).isNotEqualTo(new RedisKeys("p:", "a", EVERYTHING).tag("b"));
		assertThat(keys.tag("a")).isEqualTo(keys.tag("a"));
	}

	@Test
	void limiterNameCannotOpenATag() {
		assertThat(RedisKeys.escape("a{b}c%d")).isEqualTo("a%7Bb%7Dc%25d");
		assertThat(RedisKeys.escape("plain-name")).isEqualTo("plain-name");
		RedisKeys keys = new RedisKeys("p:", "{x}", EVERYTHING);
		String first = names(keys.keys("k")).get(0);
		assertThat(first).isEqualTo("p:%7Bx%7D:{" + keys.tag("k") + "}:s");
		assertThat(first.indexOf('{')).isEqualTo(first.lastIndexOf('{'));
	}

	@Test
	void prefixWithABraceIsRejectedNamingTheProperty() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RedisKeys("a{b", "n", EVERYTHING))
			.withMessageContaining("resilience.redis.key-prefix");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisKeys.checkPrefix("a}b"))
			.withMessageContaining("resilience.redis.key-prefix");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisKeys.checkPrefix("{a"));
		assertThatIllegalArgumentException().isThrownBy(() -> RedisKeys.checkPrefix("}a"));
		RedisKeys.checkPrefix("fine:prefix:");
	}

	private static List<String> names(byte[][] keys) {
		return Arrays.stream(keys).map((key) -> new String(key, StandardCharsets.UTF_8)).toList();
	}

}
