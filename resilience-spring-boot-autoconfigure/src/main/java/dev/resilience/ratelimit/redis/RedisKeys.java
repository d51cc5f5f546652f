package dev.resilience.ratelimit.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.WindowAlgorithm;

/**
 * Names the Redis keys of one limiter's keys: {@code <prefix><limiter>:{<tag>}:<part>}, where the
 * tag is a hash of the limiter's name and the user's key. A user's key may hold anything (braces,
 * spaces, control characters, lone surrogates, ten kilobytes of it): hashed, it can neither move
 * the hash tag nor make a Redis key long, and two distinct user keys get distinct tags (128 bits of
 * SHA-256 over the key's UTF-16 code units, so that even unpaired surrogates stay distinct). Every
 * key of one (limiter, key) pair shares the tag, so Redis Cluster keeps them in one slot and runs
 * the multi-key script.
 * <p>
 * Parts: {@code s} the state (a string of packed numbers), {@code w1}, {@code w2}, ... one sorted set per exact window,
 * {@code l} the leases.
 */
final class RedisKeys {

	private static final HexFormat HEX = HexFormat.of();

	/** The prefix and the escaped limiter name, up to the tag's opening brace. */
	private final byte[] head;

	private final String limiterName;

	/** The parts after the tag, such as {@code }:s}. */
	private final byte[][] tails;

	RedisKeys(String keyPrefix, String limiterName, RateLimiterSettings settings) {
		checkPrefix(keyPrefix);
		this.limiterName = limiterName;
		this.head = (keyPrefix + escape(limiterName) + ":{").getBytes(StandardCharsets.UTF_8);
		int windows = (settings.windowAlgorithm() == WindowAlgorithm.LOG) ? settings.windows().size() : 0;
		int count = 1 + windows + ((settings.maxConcurrent() > 0) ? 1 : 0);
		this.tails = new byte[count][];
		this.tails[0] = bytes("}:s");
		for (int i = 1; i <= windows; i++) {
			this.tails[i] = bytes("}:w" + i);
		}
		if (settings.maxConcurrent() > 0) {
			this.tails[count - 1] = bytes("}:l");
		}
	}

	/**
	 * Checks a key prefix: a brace in it would be taken for the hash tag, putting every key of
	 * every limiter in one cluster slot.
	 * @param keyPrefix the prefix
	 * @throws IllegalArgumentException if it holds a brace
	 */
	static void checkPrefix(String keyPrefix) {
		if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("resilience.redis.key-prefix must not contain '{' or '}' (Redis Cluster "
					+ "would take them for the hash tag) but was '" + keyPrefix + "'");
		}
	}

	/** The limiter's name with {@code %}, {@code {} and {@code }} percent-encoded, so it cannot hold a tag. */
	static String escape(String name) {
		StringBuilder escaped = new StringBuilder(name.length());
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			switch (c) {
				case '%' -> escaped.append("%25");
				case '{' -> escaped.append("%7B");
				case '}' -> escaped.append("%7D");
				default -> escaped.append(c);
			}
		}
		return escaped.toString();
	}

	/** The hash tag of a user's key: 32 hex digits. */
	String tag(String key) {
		MessageDigest digest = sha256();
		// The name's length first: no two (name, key) pairs give the same bytes.
		digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(this.limiterName.length()).array());
		update(digest, this.limiterName);
		update(digest, key);
		byte[] hash = digest.digest();
		return HEX.formatHex(hash, 0, 16);
	}

	private static void update(MessageDigest digest, String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			digest.update((byte) (c >>> 8));
			digest.update((byte) c);
		}
	}

	/**
	 * Returns the Redis keys of a user's key, in the order the script takes them.
	 * @param key the user's key
	 * @return the keys
	 */
	byte[][] keys(String key) {
		byte[] tag = tag(key).getBytes(StandardCharsets.US_ASCII);
		byte[][] keys = new byte[this.tails.length][];
		for (int i = 0; i < keys.length; i++) {
			byte[] tail = this.tails[i];
			byte[] name = new byte[this.head.length + tag.length + tail.length];
			System.arraycopy(this.head, 0, name, 0, this.head.length);
			System.arraycopy(tag, 0, name, this.head.length, tag.length);
			System.arraycopy(tail, 0, name, this.head.length + tag.length, tail.length);
			keys[i] = name;
		}
		return keys;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
